// Host-side indexing with bounds: `logits[:, :-1, :]` before the tile loops
// (grpo_loss) is a `slice_view` ref that the host function materializes as
// an array slice and the kernel indexes like any argument; `grad[:, -1, :]
// = 0` after them is a host store the host function applies to the
// kernel's result; one element (`int(x_offsets[-1].item())`) is a host
// scalar read, `host_read`, that the host function reads before it
// launches.
#include <algorithm>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {

std::optional<int64_t> KernelLowering::HostIndices(const Type& type,
                                                   std::vector<Val>& items,
                                                   std::vector<SourceLoc>& locs,
                                                   SourceLoc loc,
                                                   std::string_view what) {
  auto reject = [&](std::string_view why) -> std::optional<int64_t> {
    Diagnostic* d = Report(
        loc, fmt::format("{} outside an hl.tile loop is not supported ({})",
                         what, why));
    Note(d,
         "host code may index a tensor with ':', None, integers and slices "
         "without a step (x[:, :-1, :])");
    return std::nullopt;
  };
  const int64_t rank = static_cast<int64_t>(type.rank());
  int64_t consumed = 0;
  for (const Val& item : items) {
    if (item.kind != ValKind::kNone && item.kind != ValKind::kEllipsis)
      ++consumed;
  }
  // Negative positions count from the end of their dim, which may be
  // symbolic: `end + k` becomes a host size, so that an extent is a name
  // the host function computes (BuildIndices folds static ones).
  int64_t dim = 0;
  int64_t picked = 0;
  auto from_end = [&](const Val& v, SourceLoc at) -> Val {
    if (v.kind != ValKind::kInt || v.i >= 0 || dim >= rank) return v.Clone();
    if (type.shape[dim].is_static()) {
      return Val::Int(std::max<int64_t>(type.shape[dim].size + v.i, 0));
    }
    return Binary(BinaryOp::kSub, DimVal(type.shape[dim]), Val::Int(-v.i), at);
  };
  for (size_t i = 0; i < items.size(); ++i) {
    Val& item = items[i];
    switch (item.kind) {
      case ValKind::kNone:
        continue;
      case ValKind::kEllipsis:
        dim += rank - consumed;
        continue;
      case ValKind::kInt:
        item = from_end(item, locs[i]);
        ++picked;
        break;
      case ValKind::kSlice:
        for (Val& bound : item.elems) bound = from_end(bound, locs[i]);
        break;
      case ValKind::kValue:
        if (item.IsScalar() && IsInteger(item.type().dtype)) {
          ++picked;
          break;
        }
        return reject(fmt::format("an index of {}", Describe(item)));
      case ValKind::kTile:
        return reject("a tile index belongs inside its tile loop");
      default:
        return reject(fmt::format("an index of {}", Describe(item)));
    }
    if (item.kind == ValKind::kPoison) return std::nullopt;
    ++dim;
  }
  return picked;
}

Val KernelLowering::HostSliceView(Val base, std::vector<Val> items,
                                  std::vector<SourceLoc> locs, SourceLoc loc) {
  const Type type = base.type();
  std::optional<int64_t> picked =
      HostIndices(type, items, locs, loc, "indexing a tensor");
  if (!picked) return Val::Poison();
  // One element is a host scalar read (`x_offsets[-1].item()`): the host
  // function reads it from device memory before it launches (a sync, as
  // PyTorch's .item()), so it may size outputs (IR `host_read`).
  const bool element = *picked >= static_cast<int64_t>(type.rank());
  base = MaterializeRef(std::move(base), element ? "read" : "view");
  IndexList indices;
  if (!BuildIndices(type, std::move(items), std::move(locs), true, loc,
                    indices)) {
    return Val::Poison();
  }
  ExprList operands;
  operands.push_back(std::move(base.expr));
  return MakeTyped(element ? OpKind::kHostRead : OpKind::kSliceView,
                   std::move(operands), {}, loc, std::move(indices));
}

void KernelLowering::HostStore(Val base, std::vector<Val> items,
                               std::vector<SourceLoc> locs, Val value,
                               SourceLoc target_loc, SourceLoc loc) {
  const Type type = base.type();
  if (!HostIndices(type, items, locs, target_loc, "a store to a tensor")) {
    return;
  }
  IndexList indices;
  if (!BuildIndices(type, std::move(items), std::move(locs), true, target_loc,
                    indices)) {
    return;
  }
  std::vector<Type> types = {type};
  absl::StatusOr<Type> region = InferType(OpKind::kLoad, types, indices, {});
  if (!region.ok()) {
    Fail(target_loc, std::string(region.status().message()));
    return;
  }
  // A value for the whole region: a number or a host array.
  if (value.IsRef()) {
    value = LoadWhole(value, loc);
    if (!value.IsValue()) return;
  }
  ExprPtr stored = region->is_scalar()
                       ? ToExpr(value, &*region, loc)
                       : CoerceForStore(std::move(value), *region, loc);
  if (!stored) return;
  Emit(MakeStore(std::move(base.expr), std::move(indices), std::move(stored),
                 target_loc));
}

}  // namespace tessera::helion_py
