// Bytes one operand moves between HBM and VMEM per run of its stage:
// Pallas skips the copy when consecutive steps map it to the same block,
// blocks are padded to (8 x packing, 128) tiles, and a ragged last block
// moves only its rows (tile-padded).
#pragma once

#include "hardware.h"
#include "plan_view.h"

namespace tessera::pallas {

struct OperandTraffic {
  double copies_per_run = 0;  // block copies (per direction)
  double bytes_per_run = 0;   // both directions
  double block_bytes = 0;     // one full block in VMEM (tile-padded)
  double first_in_bytes = 0;  // before the first step (prologue)
  double last_out_bytes = 0;  // after the last step (epilogue)
};

OperandTraffic OperandTrafficOf(const StageView& stage,
                                const OperandView& operand,
                                const TpuHardware& hw);

}  // namespace tessera::pallas
