// The pallas-tpu backend's lowering passes (BackendInfo::lowering_passes),
// in the order they run: Mosaic TPU's memory rules, applied to the IR before
// the module is planned and emitted.
//
//   tpu-wide-gathers      packed tables gathered by rows go as 32-bit
//   tpu-index-refs-twice  index refs read by rows and as blocks go twice
//   tpu-lane-rows         rank-1 refs (and unit sublane dims) go as rows
#pragma once

#include <vector>

#include "tessera/pass.h"

namespace tessera::pallas {

std::vector<PassInfo> TpuLoweringPasses();

}  // namespace tessera::pallas
