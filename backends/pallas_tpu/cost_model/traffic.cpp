#include "traffic.h"

#include <algorithm>

namespace tessera::pallas {

int64_t TileMultiple(size_t d, size_t rank, DType dtype,
                     const TpuHardware& hw) {
  const int64_t packing = std::max<int64_t>(1, 4 / DTypeBytes(dtype));
  if (d + 1 == rank) return rank == 1 ? hw.lanes * packing : hw.lanes;
  if (d + 2 == rank) return hw.sublanes * packing;
  return 1;
}

OperandTraffic OperandTrafficOf(const StageView& stage,
                                const OperandView& operand,
                                const TpuHardware& hw) {
  const size_t rank = operand.block_dims.size();
  // Element extents: one block, and all the blocks one sweep of the mapped
  // axes visits (ragged last block included), tile-padded.
  Count block = DTypeBytes(operand.dtype), sweep = block;
  int innermost = -1;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t tile = TileMultiple(d, rank, operand.dtype, hw);
    const Count& size = operand.block_dims[d];
    block *= RoundUp(size, tile);
    const int axis = operand.axis_of_dim[d];
    if (axis < 0) {
      sweep *= RoundUp(size, tile);
      continue;
    }
    // A mapped dim's block size is a static block of a tile.
    const int64_t step = std::max<int64_t>(1, size.constant());
    const Count& extent = operand.array_dims[d];
    const int64_t pad = operand.pad_multiples[d];
    const Count& axis_extent = stage.axes[axis].extent;
    if (!(CeilDiv(extent, step) == stage.axes[axis].steps())) {
      // The axis runs over part of the dim (split-K's inner loop over one
      // chunk of k): its blocks are the ones moved.
      const Count full = FloorDiv(axis_extent, step);
      sweep *=
          full * RoundUp(step, tile) + RoundUp(Mod(axis_extent, step), tile);
    } else if (pad % step == 0) {
      // Padded on the host to whole blocks: no ragged block (this keeps the
      // expression of a symbolic extent short).
      sweep *= CeilDiv(operand.original_dims[d], pad) * Count(pad / step) *
               RoundUp(step, tile);
    } else {
      const Count full = FloorDiv(extent, step);
      sweep *= full * RoundUp(step, tile) + RoundUp(Mod(extent, step), tile);
    }
    innermost = std::max(innermost, axis);
  }
  // Copies: once per change of the block index. Steps iterate the axes
  // row-major, so the index changes whenever the innermost mapped axis or
  // any axis outside it moves: one sweep per step of the axes outside the
  // innermost mapped one that do not map the operand.
  Count copies = 1, sweeps = 1;
  for (int a = 0; a <= innermost; ++a) {
    const Count steps = stage.axes[a].steps();
    copies *= steps;
    if (std::find(operand.axis_of_dim.begin(), operand.axis_of_dim.end(), a) ==
        operand.axis_of_dim.end()) {
      sweeps *= steps;
    }
  }
  OperandTraffic traffic;
  traffic.copies_per_run = copies;
  traffic.block_bytes = block;
  const int directions = (operand.read ? 1 : 0) + (operand.written ? 1 : 0);
  traffic.bytes_per_run = sweep * sweeps * Count(directions);
  traffic.first_in_bytes = operand.read ? block : Count(0);
  traffic.last_out_bytes = operand.written ? block : Count(0);
  return traffic;
}

}  // namespace tessera::pallas
