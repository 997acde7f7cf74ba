// Jagged inner loops: `for tile in hl.tile(start, end)` where start and end
// are read from memory (`start = offsets[b]`). The trip count is known only
// at run time, so every launcher runs the loop as jax.lax.fori_loop; the
// refs it indexes stay whole in VMEM (nothing can be streamed by a block
// index when blocks start at arbitrary rows). Each block starts at
// start rounded down to the tile's alignment (indirect_plan.h says why) and
// everything outside [start, end) is masked: loads before they are reduced
// or multiplied, stores by keeping the old contents.
#include <algorithm>
#include <cctype>

#include "device_emitter.h"
#include "fmt/format.h"
#include "py_text.h"

namespace tessera::pallas {
namespace {

bool IsIdentifier(const std::string& text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

}  // namespace

bool DeviceEmitter::IsJagged(const Stmt& loop) const {
  const TileInfo* tile =
      loop.vars.empty() ? nullptr : plan_.FindTile(loop.vars[0].name);
  return tile != nullptr && tile->jagged;
}

DeviceEmitter::LoopBounds DeviceEmitter::JaggedBounds(const Stmt& loop,
                                                      const TileInfo& tile) {
  auto cached = jagged_bounds_.find(tile.name);
  if (cached != jagged_bounds_.end()) return cached->second;
  LoopBounds bounds;
  bounds.lower = Emit(*loop.dims[0].begin);
  bounds.end = Emit(*loop.dims[0].end);
  bounds.begin = tile.align > 1
                     ? fmt::format("{} // {} * {}", Paren(bounds.lower),
                                   tile.align, tile.align)
                     : bounds.lower;
  bounds.trip = fmt::format("pl.cdiv({} - {}, {})", bounds.end,
                            Paren(bounds.begin), tile.block);
  bounds.static_trip = false;
  return bounds;
}

std::string DeviceEmitter::MaskJagged(const std::string& value, int64_t axis,
                                      const TileInfo& tile,
                                      const std::string& fill) {
  const TileRuntime& rt = runtime_[tile.name];
  return fmt::format("{}({}, {}, {}, {}, {}, {})", state_.Window(), value, axis,
                     rt.begin, rt.lower, rt.end, fill);
}

const TileInfo* DeviceEmitter::RunningJaggedTile(const Index& index) const {
  if (index.kind != IndexKind::kTile) return nullptr;
  const TileInfo* tile = plan_.FindTile(index.expr->name);
  return tile != nullptr && tile->jagged && runtime_.count(tile->name)
             ? tile
             : nullptr;
}

std::string DeviceEmitter::MaskJaggedStore(const Stmt& stmt,
                                           const std::string& target,
                                           const std::string& value) {
  // The stored region's dims are the indices that are not scalars.
  int64_t axis = 0;
  std::string masked = value;
  for (const Index& index : stmt.indices) {
    if (index.kind == IndexKind::kScalar) continue;
    if (const TileInfo* tile = RunningJaggedTile(index)) {
      masked = MaskJagged(masked, axis, *tile, target);
    }
    ++axis;
  }
  return masked;
}

bool DeviceEmitter::StoresJaggedBlockMasked(const Stmt& stmt,
                                            const std::string& target) const {
  // Pallas's masked stores take slices only (a scalar index is a TypedInt
  // without a shape in their discharge rule); a block with a scalar index
  // is one program's own row, written back safely.
  const bool sliced_only = std::none_of(
      stmt.indices.begin(), stmt.indices.end(),
      [](const Index& index) { return index.kind == IndexKind::kScalar; });
  const bool jagged = std::any_of(
      stmt.indices.begin(), stmt.indices.end(),
      [&](const Index& index) { return RunningJaggedTile(index) != nullptr; });
  return jagged && sliced_only && target.find('[') != std::string::npos &&
         HasMaskedStores();
}

bool DeviceEmitter::EmitMaskedJaggedStore(const Stmt& stmt,
                                          const std::string& target,
                                          const std::string& value,
                                          PyLines& out) {
  const std::string stored = Fresh(stmt.target->name + "_stored");
  const size_t subscript = target.find('[');
  const std::string ref_at =
      target.substr(0, subscript) + ".at" + target.substr(subscript);
  std::string mask;
  int64_t axis = 0;
  for (const Index& index : stmt.indices) {
    if (const TileInfo* tile = RunningJaggedTile(index)) {
      const TileRuntime& rt = runtime_[tile->name];
      mask += fmt::format("{}{}({}, {}, {}, {}, {})", mask.empty() ? "" : " & ",
                          state_.WindowMask(), stored, axis, rt.begin, rt.lower,
                          rt.end);
    }
    ++axis;
  }
  if (!FlushExprErrors(stmt.loc)) return false;
  out.Line(fmt::format("{} = {}", stored, value));
  out.Line(MaskedStore(ref_at, stored, mask));
  return true;
}

bool DeviceEmitter::EmitJaggedLoop(const Stmt& loop, PyLines& out) {
  const std::string tile = loop.vars[0].name;
  const std::string index = SanitizeIdentifier(tile);
  // The bounds are named once, outside the body: the mask of every access
  // in the body reads them.
  LoopBounds bounds = Bounds(loop);
  auto name = [&](const std::string& suffix, const std::string& value) {
    if (IsIdentifier(value) || IsNumber(value)) return value;
    std::string local = Fresh(tile + suffix);
    out.Line(fmt::format("{} = {}", local, value));
    return local;
  };
  bounds.lower = name("_lower", bounds.lower);
  bounds.end = name("_limit", bounds.end);
  const int64_t align = plan_.FindTile(tile)->align;
  bounds.begin =
      align > 1 ? name("_begin",
                       fmt::format("{} // {} * {}", bounds.lower, align, align))
                : bounds.lower;
  bounds.trip = fmt::format("pl.cdiv({} - {}, {})", bounds.end, bounds.begin,
                            plan_.FindTile(tile)->block);
  jagged_bounds_[tile] = bounds;
  const LoopCarry carry = EmitLoopInits(loop);
  std::string carried;
  for (const std::string& name : carry.names) {
    carried += (carried.empty() ? "" : ", ") + name;
  }
  const std::string carry_param =
      carry.names.size() == 1 ? carry.names[0] : Fresh("carry");
  InnerLoopBody body;
  bool ok = EmitInnerLoopBody(
      loop, index, BodyPlacement::kOwnFunction, {},
      [&](PyLines& lines) {
        if (carry.names.size() > 1) {
          lines.Line(fmt::format("{} = {}", carried, carry_param));
        }
      },
      [&](const std::vector<std::string>& values, PyLines& o) {
        std::string text;
        for (const std::string& v : values)
          text += (text.empty() ? "" : ", ") + v;
        if (values.size() > 1) text = "(" + text + ")";
        o.Line("return " + (values.empty() ? carry_param : text));
      },
      body);
  if (!ok) return false;
  if (carry.names.empty())
    body.lines.Line(fmt::format("return {}", carry_param));
  const std::string body_fn =
      EmitBodyFunction(tile, index, carry_param, body, out);
  std::string init = carry.names.empty() ? "None" : carry.inits[0];
  if (carry.names.size() > 1) {
    init.clear();
    for (const std::string& v : carry.inits)
      init += (init.empty() ? "" : ", ") + v;
    init = "(" + init + ")";
  }
  const std::string call = fmt::format("jax.lax.fori_loop(0, {}, {}, {})",
                                       bounds.trip, body_fn, init);
  jagged_bounds_.erase(tile);
  SetLoopResultOrigins(loop, body);
  std::string results;
  bool any_used = false;
  for (const Value& result : loop.results) {
    results += (results.empty() ? "" : ", ") + SanitizeIdentifier(result.name);
    any_used = any_used || Used(result.name);
  }
  out.Line(any_used ? fmt::format("{} = {}", results, call) : call);
  return true;
}

}  // namespace tessera::pallas
