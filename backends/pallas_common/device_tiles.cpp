// Tiles at run time and the blocks inner loops stream: the pieces every
// launcher uses to turn the plan's grid and inner loops into code (block
// indices, loop bounds, index maps and slices of streamed blocks). How a
// launcher arranges them is in launchers/*.cpp.
#include "device_emitter.h"
#include "py_text.h"

#include "fmt/format.h"

namespace tessera::pallas {

std::string DeviceEmitter::ProgramIndex(int axis, const std::string&) const {
  return fmt::format("pl.program_id({})", axis);
}

std::string DeviceEmitter::GridIndex(const std::string& grid_tile) {
  return KernelLocal(SanitizeIdentifier(grid_tile),
                     ProgramIndex(plan_.PallasAxis(grid_tile), grid_tile));
}

std::string DeviceEmitter::TileBegin(const std::string& tile_name) {
  const TileInfo* tile = plan_.FindTile(tile_name);
  if (tile == nullptr) return "0";
  if (tile->is_grid) {
    std::string begin = host_.grid_begin[tile->grid_index];
    const std::string& end = host_.grid_end[tile->grid_index];
    // A grid dim of one step starts at its begin. Spelled as
    // program_id * block, Mosaic cannot prove that a block which is a
    // whole lane dim narrower than 128 (72) starts lane-aligned (E2003).
    if (IsNumber(begin) && IsNumber(end) &&
        std::stoll(end) - std::stoll(begin) <= tile->block) {
      return begin;
    }
    std::string begin_text = begin;
    if (!IsNumber(begin)) {
      std::string& name = grid_kwargs_[tile->name + ":begin"];
      if (name.empty()) name = Fresh(tile->name + "_begin");
      begin_text = Kwarg(name, begin);
    }
    return AddText(MulText(GridIndex(tile->name), tile->block), begin_text);
  }
  auto it = runtime_.find(tile_name);
  if (it == runtime_.end()) {
    Fail(fmt::format("tile '{}' used outside its loop", tile_name));
    return "0";
  }
  return it->second.begin;
}

std::string DeviceEmitter::TileLimit(const std::string& tile_name) {
  const TileInfo* tile = plan_.FindTile(tile_name);
  if (tile == nullptr) return "0";
  if (tile->is_grid) {
    std::string end = host_.grid_end[tile->grid_index];
    if (IsNumber(end)) return end;
    std::string& name = grid_kwargs_[tile->name + ":end"];
    if (name.empty()) name = Fresh(tile->name + "_end");
    return Kwarg(name, end);
  }
  auto it = runtime_.find(tile_name);
  return it == runtime_.end() ? "0" : it->second.end;
}

std::string DeviceEmitter::AbsBlockIndex(const std::string& tile_name,
                                         const std::string& loop_tile,
                                         const std::string& loop_index) {
  const TileInfo* tile = plan_.FindTile(tile_name);
  if (tile == nullptr) return "0";
  if (tile->is_grid) {
    std::string begin = host_.grid_begin[tile->grid_index];
    int64_t offset = IsNumber(begin) ? std::stoll(begin) / tile->block : 0;
    return AddText(GridIndex(tile->name), fmt::format("{}", offset));
  }
  std::string index =
      tile_name == loop_tile ? loop_index : runtime_[tile_name].index;
  if (!tile->parent.empty()) {
    const TileInfo* parent = plan_.FindTile(tile->parent);
    std::string base =
        MulText(Paren(AbsBlockIndex(tile->parent, loop_tile, loop_index)),
                parent->block / tile->block);
    return AddText(base, index);
  }
  const Expr* begin = tile->dim->begin.get();
  int64_t offset = 0;
  if (begin->op == OpKind::kConst) {
    if (const int64_t* value = GetAttr<int64_t>(begin->attrs, "value")) {
      offset = *value / tile->block;
    }
  }
  return AddText(index, fmt::format("{}", offset));
}

DeviceEmitter::LoopBounds DeviceEmitter::Bounds(const Stmt& loop) {
  const TileInfo& tile = *plan_.FindTile(loop.vars[0].name);
  if (tile.jagged) return JaggedBounds(loop, tile);
  LoopBounds bounds;
  if (!tile.parent.empty()) {
    const TileInfo& parent = *plan_.FindTile(tile.parent);
    bounds.parent = parent.name;
    bounds.begin = TileBegin(parent.name);
    bounds.end = Emit(*loop.dims[0].end);
    bounds.trip =
        fmt::format("{}", (parent.block + tile.block - 1) / tile.block);
    bounds.static_trip = true;
    return bounds;
  }
  bounds.begin = Emit(*loop.dims[0].begin);
  bounds.end = Emit(*loop.dims[0].end);
  std::string extent = bounds.begin == "0" ? bounds.end
                                           : fmt::format("{} - {}", bounds.end,
                                                         Paren(bounds.begin));
  bounds.trip = fmt::format("pl.cdiv({}, {})", extent, tile.block);
  // Static when every leaf is a constant or a kernel kwarg (Python ints at
  // trace time).
  bool is_static = true;
  for (const Expr* bound : {loop.dims[0].begin.get(), loop.dims[0].end.get()}) {
    WalkExpr(*bound, [&](const Expr& e) {
      if (e.op == OpKind::kVar) {
        if (!host_.symbol_values.count(e.name)) is_static = false;
      } else if (OpInfoOf(e.op).category != OpCategory::kBinary &&
                 e.op != OpKind::kConst && e.op != OpKind::kNeg) {
        is_static = false;
      }
    });
  }
  bounds.static_trip = is_static;
  return bounds;
}

void DeviceEmitter::EnterTile(const Stmt& loop, const std::string& index) {
  const TileInfo& tile = *plan_.FindTile(loop.vars[0].name);
  LoopBounds bounds = Bounds(loop);
  TileRuntime rt;
  rt.index = index;
  rt.begin = AddText(bounds.begin, MulText(index, tile.block));
  rt.end = bounds.end;
  rt.lower = bounds.lower;
  runtime_[tile.name] = rt;
}

void DeviceEmitter::ExitTile(const Stmt& loop) {
  runtime_.erase(loop.vars[0].name);
}

std::string DeviceEmitter::StreamBlockTuple(const RefPlan& ref,
                                            bool host_side) {
  std::vector<int64_t> shape = StreamBlockShape(plan_, ref);
  std::string text = "(";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) text += ", ";
    if (shape[d] >= 0) {
      text += fmt::format("{}", shape[d]);
    } else if (host_side) {
      auto it = host_.ref_arrays.find(ref.name);
      text +=
          fmt::format("{}.shape[{}]",
                      it != host_.ref_arrays.end() ? it->second : ref.name, d);
    } else {
      text += fmt::format("{}.shape[{}]", SanitizeIdentifier(ref.name), d);
    }
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::vector<std::string> DeviceEmitter::StreamIndexMap(
    const RefPlan& ref, const std::string& loop_tile,
    const std::string& loop_index) {
  std::vector<std::string> parts;
  for (const Index& index : *ref.accesses[0].indices) {
    if (index.kind == IndexKind::kNewAxis) continue;
    if (index.kind == IndexKind::kTile) {
      parts.push_back(AbsBlockIndex(index.expr->name, loop_tile, loop_index));
    } else {
      parts.push_back("0");
    }
  }
  return parts;
}

std::vector<std::string> DeviceEmitter::StreamSlices(
    const RefPlan& ref, const std::string& loop_tile,
    const std::string& loop_index) {
  std::vector<std::string> parts;
  for (const Index& index : *ref.accesses[0].indices) {
    if (index.kind == IndexKind::kNewAxis) continue;
    if (index.kind != IndexKind::kTile) {
      parts.push_back(":");
      continue;
    }
    const TileInfo& tile = *plan_.FindTile(index.expr->name);
    std::string start = MulText(
        Paren(AbsBlockIndex(tile.name, loop_tile, loop_index)), tile.block);
    if (!IsNumber(start) && tile.block > 1) {
      start = fmt::format("pl.multiple_of({}, {})", start, tile.block);
    }
    parts.push_back(fmt::format("pl.ds({}, {})", start, tile.block));
  }
  return parts;
}

}  // namespace tessera::pallas
