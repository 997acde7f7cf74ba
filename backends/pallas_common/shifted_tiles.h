// Shifted tile indices (`x[tile.index + offset]`, IndexKind::kShiftedTile):
// the dim they index stays whole in VMEM, zero padded by one block above its
// end (and below its start when the offset may be negative), and each access
// is a `pl.ds` from the clamped start with the lanes outside the tile or the
// dim masked (device_emitter.h, ShiftedSlice).
#pragma once

#include <optional>
#include <string>

#include "kernel_plan.h"

namespace tessera::pallas {

struct ShiftPlanError {
  SourceLoc loc;
  std::string message;
};

// Pads every dim of `ref` that an access indexes with a shifted tile;
// the first access the target cannot lower as an error.
std::optional<ShiftPlanError> PlanShiftedDims(const KernelPlan& plan,
                                              RefPlan& ref);

// The tile an `add(arange, s)` index stands for (a window of the arange's
// length from s), or nothing when the shift is of a real tile.
std::optional<TileInfo> ArangeWindow(const TileShift& shift);

// True when `tile`'s loop runs over exactly the extent `size` (its ragged
// last block's extra lanes are then padding, not another part of the dim).
bool TileSpansDim(const KernelPlan& plan, const TileInfo& tile,
                  const Dim& size);

}  // namespace tessera::pallas
