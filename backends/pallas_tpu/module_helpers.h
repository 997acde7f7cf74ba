// The module-level pieces every generated module may carry: the Python
// helper functions (the abstract TPU for interpret mode, zero padding, tail
// masks) and the VMEM that Mosaic allocates for the kernel's own values.
#pragma once

#include <string>

#include "device_emitter.h"
#include "legality.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

// The helper functions the module uses, as Python source (`tpu_target_fn`
// always; the others when `state` named them).
std::string ModuleHelpers(const ModuleState& state,
                          const std::string& tpu_target_fn);

// Mosaic keeps kernel values that do not fit the vector registers (a block's
// accumulator, a dot's result) in VMEM it allocates itself, next to the
// blocks and scratch. Modeled as twice the largest such value plus 1 MiB:
// against libtpu, a 1024^2 bf16 matmul needed 18.4 MiB (emit_pipeline) and
// 26.0 MiB (unroll) where blocks and scratch came to 16 and 20 MiB, with a
// 4 MiB f32 accumulator; raising vmem_limit_bytes a little too far costs
// nothing, too little fails to compile.
VmemBuffer CompilerScratch(const Function& device);

}  // namespace tessera::pallas
