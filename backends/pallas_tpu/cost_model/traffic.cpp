#include "traffic.h"

#include <algorithm>

namespace tessera::pallas {
namespace {

int64_t RoundUp(int64_t size, int64_t multiple) {
  return (size + multiple - 1) / multiple * multiple;
}

// The tile multiple of dim d of a rank-`rank` array (1: not tiled).
int64_t TileMultiple(size_t d, size_t rank, DType dtype,
                     const TpuHardware& hw) {
  const int64_t packing = std::max<int64_t>(1, 4 / DTypeBytes(dtype));
  if (d + 1 == rank) return rank == 1 ? hw.lanes * packing : hw.lanes;
  if (d + 2 == rank) return hw.sublanes * packing;
  return 1;
}

}  // namespace

OperandTraffic OperandTrafficOf(const StageView& stage,
                                const OperandView& operand,
                                const TpuHardware& hw) {
  const size_t rank = operand.block_dims.size();
  // Element extents: one block, and all the blocks one sweep of the mapped
  // axes visits (ragged last block included), tile-padded.
  double block = DTypeBytes(operand.dtype), sweep = block;
  int innermost = -1;
  double sweep_steps = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t tile = TileMultiple(d, rank, operand.dtype, hw);
    const int64_t size = operand.block_dims[d];
    block *= static_cast<double>(RoundUp(size, tile));
    const int axis = operand.axis_of_dim[d];
    if (axis < 0) {
      sweep *= static_cast<double>(RoundUp(size, tile));
      continue;
    }
    const int64_t extent = operand.array_dims[d];
    const int64_t full = extent / size, rest = extent % size;
    sweep *= static_cast<double>(full * RoundUp(size, tile) +
                                 (rest ? RoundUp(rest, tile) : 0));
    innermost = std::max(innermost, axis);
  }
  // Copies: once per change of the block index. Steps iterate the axes
  // row-major, so the index changes whenever the innermost mapped axis or
  // any axis outside it moves.
  double copies = 1;
  if (innermost >= 0) {
    for (int a = 0; a <= innermost; ++a) {
      copies *= static_cast<double>(stage.axes[a].steps());
    }
    for (size_t d = 0; d < rank; ++d) {
      if (operand.axis_of_dim[d] >= 0) {
        sweep_steps *= static_cast<double>(
            (operand.array_dims[d] + operand.block_dims[d] - 1) /
            operand.block_dims[d]);
      }
    }
  }
  OperandTraffic traffic;
  traffic.copies_per_run = copies;
  traffic.block_bytes = block;
  const double per_direction = sweep * copies / sweep_steps;
  const int directions = (operand.read ? 1 : 0) + (operand.written ? 1 : 0);
  traffic.bytes_per_run = per_direction * directions;
  traffic.first_in_bytes = operand.read ? block : 0;
  traffic.last_out_bytes = operand.written ? block : 0;
  return traffic;
}

}  // namespace tessera::pallas
