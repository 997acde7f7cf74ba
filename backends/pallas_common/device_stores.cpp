// Stores of a value into a ref's block: as they are, into a jagged block
// (masked where the target has masked stores), and into a static window the
// target rounds up.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device_emitter.h"
#include "fmt/format.h"

namespace tessera::pallas {

bool DeviceEmitter::EmitStore(const Stmt& stmt, PyLines& out) {
  if (HasGatherIndex(stmt)) return EmitScatter(stmt, "", out);
  const std::string& ref = stmt.target->name;
  std::string value = StoredValue(stmt);
  std::string target = RefAccess(ref, stmt.indices, true);
  if (StoresJaggedBlockMasked(stmt, target)) {
    return EmitMaskedJaggedStore(stmt, target, value, out);
  }
  if (std::optional<bool> done = EmitRoundedWindowStore(stmt, value, out)) {
    return *done;
  }
  value = MaskJaggedStore(stmt, target, value);
  value = MaskShiftedStore(ref, target, value, out);
  if (!FlushExprErrors(stmt.loc)) return false;
  out.Line(fmt::format("{} = {}", target, value));
  return true;
}

std::optional<bool> DeviceEmitter::EmitRoundedWindowStore(
    const Stmt& stmt, const std::string& value, PyLines& out) {
  const RefPlan* ref = plan_.FindRef(stmt.target->name);
  if (ref == nullptr) return std::nullopt;
  const Type& type = stmt.target->type;
  IndexList rounded;
  std::vector<std::pair<size_t, std::string>> masks;  // value axis, mask
  size_t rank = 0, dim = 0;
  for (const Index& index : stmt.indices) {
    if (index.kind == IndexKind::kNewAxis) return std::nullopt;
    const size_t d = dim++;
    if (index.kind != IndexKind::kScalar) ++rank;
    rounded.push_back(CloneIndex(index));
    if (index.kind != IndexKind::kRange || !index.size.is_static()) continue;
    const int64_t size = index.size.size;
    const int64_t window = plan_.target->KernelBlockSize(size);
    if (window == size) continue;
    if (!HasMaskedStores()) {
      return Error(stmt.loc,
                   fmt::format("the {} launcher would store a {}-wide "
                               "value into a {}-wide window of '{}' and has "
                               "no masked stores to drop the rest; make the "
                               "window a power of two wide",
                               LauncherName(plan_.launcher), window, size,
                               stmt.target->name));
    }
    // The rounded window must stay inside the ref's block: a whole static
    // dim, padded to the target's kernel block on the host. (A symbolic
    // width is left as it is: the trace then rejects the store.)
    const int64_t* start = index.expr->op == OpKind::kConst
                               ? GetAttr<int64_t>(index.expr->attrs, "value")
                               : nullptr;
    if (start == nullptr || d >= ref->dims.size() || d >= type.shape.size() ||
        ref->dims[d].kind == SpecKind::kBlocked || ref->dims[d].pad_low > 0 ||
        !type.shape[d].is_static() ||
        *start + window > plan_.target->KernelBlockSize(type.shape[d].size)) {
      return std::nullopt;
    }
    rounded.back().size = Dim::Static(window);
    masks.emplace_back(rank - 1,
                       fmt::format("(jnp.arange({}) < {})", window, size));
  }
  if (masks.empty()) return std::nullopt;
  std::string mask;
  for (const auto& [axis, axis_mask] : masks) {
    std::string where;
    for (size_t a = 0; a < rank; ++a) {
      where += std::string(a ? ", " : "") + (a == axis ? ":" : "None");
    }
    mask +=
        fmt::format("{}{}[{}]", mask.empty() ? "" : " & ", axis_mask, where);
  }
  const std::string access = RefAccess(stmt.target->name, rounded, true);
  const size_t bracket = access.find('[');
  const std::string stored = Fresh("stored");
  if (!FlushExprErrors(stmt.loc)) return false;
  out.Line(fmt::format("{} = {}", stored, value));
  out.Line(MaskedStore(
      access.substr(0, bracket) + ".at" + access.substr(bracket), stored,
      fmt::format("jnp.broadcast_to({}, {}.shape)", mask, stored)));
  return true;
}

}  // namespace tessera::pallas
