// Data-dependent access in the kernel plan: refs read one element at a
// time go to SMEM by scalar prefetch, and inner loops whose bounds come from
// memory (jagged loops) run over sublane-aligned blocks with masks.
//
// Why aligned blocks: Mosaic proves the alignment of every dynamic VMEM
// slice from its offset (E2003 UnprovenMemoryAccessAlignment otherwise), and
// `offsets[b]` can be any row. A jagged loop over [begin, end) therefore
// starts at begin rounded down to the sublane tiling; each block is then
// aligned, and the rows outside [begin, end) are masked (docs/tpu_legality.md).
#pragma once

#include <set>
#include <string>

#include "kernel_plan.h"

namespace tessera::pallas {

// Names of the device function whose values are read from memory: results
// of scalar loads and everything computed from them.
std::set<std::string> DataDependentNames(const Function& device);

// The refs of `device` that are read and only ever as single elements (one
// walk for all of them; such refs stay rank-1: SMEM has no lane tiling to
// work around).
std::set<std::string> RefsReadOnlyAsScalars(const Function& device);

// Marks the refs that every access reads as a single element (and nothing
// writes): they become scalar-prefetch operands, held whole in SMEM.
void PlanScalarPrefetch(KernelPlan& plan);

// Marks the inner tiles whose loop bounds are data dependent: not aligned,
// maybe partial, with the row alignment their blocks start on.
void PlanJaggedTiles(KernelPlan& plan);

// The alignment (elements) a jagged tile's blocks start on along a ref dim:
// 128 lanes on the minor dim, the sublane tiling of the dtype otherwise,
// reduced to what the block size allows.
int64_t JaggedAlignment(int64_t block, bool lane_dim, DType dtype);

}  // namespace tessera::pallas
