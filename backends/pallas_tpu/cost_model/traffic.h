// Bytes one operand moves between HBM and VMEM per run of its stage:
// Pallas skips the copy when consecutive steps map it to the same block,
// blocks are padded to (8 x packing, 128) tiles, and a ragged last block
// moves only its rows (tile-padded).
#pragma once

#include "hardware.h"
#include "plan_view.h"

namespace tessera::pallas {

struct OperandTraffic {
  Count copies_per_run;  // block copies (per direction)
  Count bytes_per_run;   // both directions
  Count block_bytes;     // one full block in VMEM (tile-padded)
  Count first_in_bytes;  // before the first step (prologue)
  Count last_out_bytes;  // after the last step (epilogue)
};

OperandTraffic OperandTrafficOf(const StageView& stage,
                                const OperandView& operand,
                                const TpuHardware& hw);

// The tile multiple of dim d of a rank-`rank` array of `dtype` (1: not
// tiled): (sublanes x packing, lanes), 1-D arrays lanes x packing.
int64_t TileMultiple(size_t d, size_t rank, DType dtype, const TpuHardware& hw);

}  // namespace tessera::pallas
