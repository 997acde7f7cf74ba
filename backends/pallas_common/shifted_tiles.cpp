#include "shifted_tiles.h"

#include <algorithm>
#include <set>

#include "device_emitter.h"
#include "fmt/format.h"
#include "py_text.h"

namespace tessera::pallas {

namespace {

// Dim symbols of the device function's refs: sizes, never negative.
std::set<std::string> SizeSymbols(const Function& device) {
  std::set<std::string> symbols;
  for (const Value& param : device.params) {
    for (const Dim& dim : param.type.shape) {
      if (!dim.is_static()) symbols.insert(dim.symbol);
    }
  }
  return symbols;
}

// True when `expr` is provably >= 0: constants, sizes, tile begins and
// ends, and sums, products and floor divisions of those. An offset that
// is not needs the dim padded below 0 too.
bool NonNegative(const Expr& expr, const std::set<std::string>& sizes) {
  switch (expr.op) {
    case OpKind::kConst: {
      const Attr* value = expr.attr("value");
      const int64_t* i = value ? std::get_if<int64_t>(&value->value) : nullptr;
      return i != nullptr && *i >= 0;
    }
    case OpKind::kVar:
      return sizes.count(expr.name) != 0;
    case OpKind::kSize:
    case OpKind::kTileBegin:
    case OpKind::kTileEnd:
      return true;
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kFloorDiv:
    case OpKind::kCast:
      return std::all_of(
          expr.operands.begin(), expr.operands.end(),
          [&](const ExprPtr& operand) { return NonNegative(*operand, sizes); });
    default:
      return false;
  }
}

}  // namespace

std::optional<TileInfo> ArangeWindow(const TileShift& shift) {
  if (shift.tile == nullptr || shift.tile->op != OpKind::kArange ||
      shift.tile->type.shape.size() != 1 ||
      !shift.tile->type.shape[0].is_static()) {
    return std::nullopt;
  }
  // A window is a tile that starts at 0 and is always whole: its lanes past
  // the dim's end are masked like a shifted tile's.
  TileInfo window;
  window.name = "arange";
  window.block = shift.tile->type.shape[0].size;
  window.maybe_partial = false;
  return window;
}

std::optional<ShiftPlanError> PlanShiftedDims(const KernelPlan& plan,
                                              RefPlan& ref) {
  const std::set<std::string> sizes = SizeSymbols(*plan.device);
  const size_t rank = ref.dims.size();
  for (const RefAccess& access : ref.accesses) {
    size_t dim = 0;
    for (const Index& index : *access.indices) {
      if (index.kind == IndexKind::kNewAxis) continue;
      const size_t d = dim++;
      if (index.kind != IndexKind::kShiftedTile || d >= rank) continue;
      std::optional<TileShift> shift = MatchTileShift(*index.expr);
      std::optional<TileInfo> window =
          shift ? ArangeWindow(*shift) : std::nullopt;
      const TileInfo* tile = window ? &*window
                             : shift && shift->tile->op == OpKind::kVar
                                 ? plan.FindTile(shift->tile->name)
                                 : nullptr;
      if (tile == nullptr) {
        return ShiftPlanError{index.expr->loc,
                              "a shifted index must shift the index of a "
                              "tile of an enclosing hl.tile loop"};
      }
      const int64_t align = plan.target->ShiftAlignment(ref, d);
      if (align > 1 && access.write && access.stmt != nullptr &&
          access.stmt->kind == StmtKind::kAtomic) {
        return ShiftPlanError{
            index.expr->loc,
            fmt::format("an atomic into '{}' at a shifted index along dim {}, "
                        "one of its two minor dims, is not supported by the "
                        "{} backend: its slices of that dim start at "
                        "multiples of {} elements (Mosaic E2003) and the "
                        "offset is not one (stores rotate the value into an "
                        "aligned window; atomics do not); shift a leading dim "
                        "instead",
                        ref.name, d, plan.target->backend_name(), align)};
      }
      SpecDim& spec = ref.dims[d];
      spec.kind = SpecKind::kFull;
      spec.shift_align = std::max(spec.shift_align, align);
      // The slice (a window of block + align - 1 more on aligned dims) may
      // start one block outside the dim: zeros there, aligned below so
      // that every other access of the dim stays aligned.
      const int64_t span = tile->block + (align > 1 ? align : 0);
      spec.pad_extra = std::max(spec.pad_extra, span);
      if (shift->negated || !NonNegative(*shift->offset, sizes)) {
        spec.pad_low =
            std::max(spec.pad_low, (tile->block + align - 1) / align * align);
      }
    }
  }
  return std::nullopt;
}

bool TileSpansDim(const KernelPlan& plan, const TileInfo& tile,
                  const Dim& size) {
  const TileInfo* loop = &tile;
  while (loop != nullptr && !loop->parent.empty()) {
    loop = plan.FindTile(loop->parent);
  }
  if (loop == nullptr || loop->dim == nullptr || !loop->dim->end) return false;
  const Expr& end = *loop->dim->end;
  if (end.op == OpKind::kVar)
    return !size.is_static() && end.name == size.symbol;
  if (end.op != OpKind::kConst || !size.is_static()) return false;
  const Attr* value = end.attr("value");
  const int64_t* i = value ? std::get_if<int64_t>(&value->value) : nullptr;
  return i != nullptr && *i == size.size;
}

// --- Emission ------------------------------------------------------------

std::string DeviceEmitter::DimExtent(const RefPlan* ref, size_t dim) {
  if (ref == nullptr || dim >= ref->type.shape.size()) {
    Fail("extent of a dim the ref does not have");
    return "0";
  }
  const Dim& size = ref->type.shape[dim];
  return size.is_static() ? fmt::format("{}", size.size)
                          : DimSymbol(size.symbol);
}

std::string DeviceEmitter::PadLowStart(const RefPlan* ref, size_t dim,
                                       std::string start) {
  if (ref == nullptr || dim >= ref->dims.size() || ref->dims[dim].pad_low == 0)
    return start;
  return AddText(start, fmt::format("{}", ref->dims[dim].pad_low));
}

std::string DeviceEmitter::ShiftedSlice(const Index& index, const RefPlan* ref,
                                        size_t dim, size_t axis) {
  std::optional<TileShift> shift = MatchTileShift(*index.expr);
  std::optional<TileInfo> window = shift ? ArangeWindow(*shift) : std::nullopt;
  const TileInfo* tile = window ? &*window
                         : shift && shift->tile->op == OpKind::kVar
                             ? plan_.FindTile(shift->tile->name)
                             : nullptr;
  if (tile == nullptr || ref == nullptr || dim >= ref->dims.size()) {
    Fail("a shifted index must shift the index of an enclosing tile");
    return ":";
  }
  const std::string begin = window ? "0" : TileBegin(tile->name);
  const std::string offset = Emit(*shift->offset);
  const std::string start = shift->negated
                                ? fmt::format("{} - {}", begin, Paren(offset))
                                : AddText(begin, offset);
  const std::string size = DimExtent(ref, dim);
  const int64_t low = ref->dims[dim].pad_low;
  // A block wholly outside the dim (a chunk's tail past the sequence end)
  // is clamped into the padding: every lane of it is masked anyway.
  std::string slice_start =
      fmt::format("jnp.clip({}, {}, {})", start, low > 0 ? -low : 0, size);
  if (low > 0) slice_start = fmt::format("{} + {}", slice_start, low);
  const std::string lanes =
      tile->maybe_partial
          ? fmt::format("{} - {}", TileLimit(tile->name), Paren(begin))
          : fmt::format("{}", tile->block);
  // A jagged tile's blocks start at its lower bound rounded down
  // (jagged_tiles.cpp): its lanes below that bound are masked too.
  const TileInfo* jagged = tile->jagged ? tile : nullptr;
  const int64_t align = ref->dims[dim].shift_align;
  if (align <= 1) {
    shift_masks_.push_back(
        ShiftMask{axis, lanes, Paren(start), size, "", 0, jagged});
    return fmt::format("pl.ds({}, {})", slice_start, tile->block);
  }
  // The dim is sliced only at multiples of `align`: an aligned window that
  // holds the tile, realigned in registers (ShiftWindow).
  const std::string padded = Paren(slice_start);
  const std::string delta = fmt::format("{} % {}", padded, align);
  shift_masks_.push_back(
      ShiftMask{axis, lanes, Paren(start), size, delta, tile->block, jagged});
  return fmt::format("pl.ds(pl.multiple_of({} - {}, {}), {})", padded, delta,
                     align, tile->block + align);
}

std::string DeviceEmitter::PlaceShiftedStore(std::string value,
                                             const std::string& window) {
  // A store through aligned windows: the value is rotated into place in
  // each window first (zeros around it), then every position outside the
  // tile, or outside the dim, keeps what the window held. Rows around the
  // tile in the window belong to other tiles (the next group's rows): they
  // are written back unchanged.
  for (const ShiftMask& mask : shift_masks_) {
    auto rt = mask.jagged ? runtime_.find(mask.jagged->name) : runtime_.end();
    if (rt != runtime_.end() && rt->second.lower != "0") {
      Fail(
          fmt::format("a store through an aligned window at a shifted index "
                      "of tile '{}', whose loop starts at a bound read from "
                      "memory, is not supported (its lanes below that bound "
                      "are not masked in the window)",
                      mask.jagged->name));
    }
    if (mask.window_delta.empty()) continue;
    value = fmt::format("{}({}, {}, {}, {})", state_.ShiftPlace(), value,
                        mask.axis, mask.window_delta, window);
  }
  for (const ShiftMask& mask : shift_masks_) {
    if (mask.window_delta.empty()) {
      value =
          fmt::format("{}({}, {}, {}, {}, {}, {})", state_.ShiftMask(), value,
                      mask.axis, mask.lanes, mask.start, mask.size, window);
    } else {
      value =
          fmt::format("{}({}, {}, {}, {}, {}, {}, {})", state_.ShiftPlaceMask(),
                      value, mask.axis, mask.window_delta, mask.lanes,
                      mask.start, mask.size, window);
    }
  }
  return value;
}

std::string DeviceEmitter::MaskShiftedStore(const std::string& ref,
                                            const std::string& target,
                                            const std::string& value,
                                            PyLines& out) {
  if (!HasShiftWindow()) return ApplyShiftMasks(value, target);
  // The aligned window is read once, named, and written back whole.
  const std::string window = Fresh(SanitizeIdentifier(ref) + "_window");
  out.Line(fmt::format("{} = {}", window, target));
  return PlaceShiftedStore(value, window);
}

bool DeviceEmitter::HasShiftWindow() const {
  return std::any_of(
      shift_masks_.begin(), shift_masks_.end(),
      [](const ShiftMask& mask) { return !mask.window_delta.empty(); });
}

std::string DeviceEmitter::ApplyShiftMasks(std::string value,
                                           const std::string& fill) {
  for (const ShiftMask& mask : shift_masks_) {
    if (!mask.window_delta.empty()) {
      value = fmt::format("{}({}, {}, {}, {})", state_.ShiftWindow(), value,
                          mask.axis, mask.window_delta, mask.block);
    }
    value = fmt::format("{}({}, {}, {}, {}, {}, {})", state_.ShiftMask(), value,
                        mask.axis, mask.lanes, mask.start, mask.size, fill);
    // A loop from 0 has no lanes below its lower bound.
    auto rt = mask.jagged ? runtime_.find(mask.jagged->name) : runtime_.end();
    if (rt != runtime_.end() && rt->second.lower != "0") {
      value = MaskJagged(value, static_cast<int64_t>(mask.axis), *mask.jagged,
                         fill);
    }
  }
  return value;
}

}  // namespace tessera::pallas
