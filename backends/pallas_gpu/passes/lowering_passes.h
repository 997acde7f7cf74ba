// The pallas-gpu backend's lowering passes (BackendInfo::lowering_passes),
// in the order they run:
//
//   gpu-unit-batch-tile   a grid tile of block 1 over the leading dim is
//                         squeezed out of every value (triton launcher)
#pragma once

#include <vector>

#include "tessera/pass.h"

namespace tessera::pallas {

std::vector<PassInfo> GpuLoweringPasses();

}  // namespace tessera::pallas
