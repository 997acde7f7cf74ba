#include "passes/lowering_passes.h"

#include "kernel_rewrite_pass.h"
#include "module_emitter.h"
#include "passes/lane_rows.h"
#include "passes/smem_copies.h"
#include "passes/wide_gathers.h"

namespace tessera::pallas {

std::vector<PassInfo> TpuLoweringPasses() {
  std::vector<PassInfo> passes;
  passes.push_back(KernelRewritePass(
      "tpu-wide-gathers",
      "tables of a packed dtype (bf16, f16, int8) gathered or scattered by "
      "rows are passed as float32 / int32 (Mosaic loads a row at a "
      "data-dependent offset only for 32-bit data)",
      [](Module& module, Function& host) {
        return WidenPackedGatherTables(module, host, TpuBlockRules());
      }));
  passes.push_back(KernelRewritePass(
      "tpu-index-refs-twice",
      "index refs read both row by row (scalar prefetch, SMEM) and as "
      "blocks (VMEM) are passed twice, once per memory space",
      PassIndexRefsTwice));
  passes.push_back(KernelRewritePass(
      "tpu-lane-rows",
      "rank-1 refs are carried as (1, n) rows, and refs indexed by a block-1 "
      "tile on the sublane dim gain a unit dim (Mosaic's tiling of rank-1 "
      "and packed buffers)",
      CarryRank1RefsAsRows, nullptr,
      // An atomic's f32 scratch keeps the ref's rank without the unit dim
      // (the emitter indexes it so): atomic_accumulated's rank rule no
      // longer holds.
      {PropertyRef("atomic_accumulated")}));
  return passes;
}

}  // namespace tessera::pallas
