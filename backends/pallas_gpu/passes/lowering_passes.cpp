#include "passes/lowering_passes.h"

#include "kernel_rewrite_pass.h"
#include "passes/unit_tiles.h"

namespace tessera::pallas {

std::vector<PassInfo> GpuLoweringPasses() {
  std::vector<PassInfo> passes;
  passes.push_back(KernelRewritePass(
      "gpu-unit-batch-tile",
      "a grid tile of block 1 indexing the leading dim of every access is "
      "squeezed out of the kernel's values, so Triton's dots stay 2-D "
      "(triton launcher only)",
      SqueezeUnitBatchTile, [](const PipelineInfo& pipeline) {
        return pipeline.backend_options.GetString("launcher", "triton") ==
               "triton";
      }));
  return passes;
}

}  // namespace tessera::pallas
