// Rank-1 refs of a kernel are carried as (1, n) rows.
//
// Mosaic tiles a rank-1 VMEM buffer of a packed dtype in 128 × packing
// elements (256 for bf16, 512 for int8), so a 128-element block of a bf16
// vector cannot be addressed at a 128 offset (E2003
// UnprovenMemoryAccessAlignment), and Pallas accepts rank-1 blocks only of
// the full dim, a multiple of 1024, or a power of two of at least that tile.
// A (1, n) row has none of those limits: its sublane dim is the whole dim 1
// and its lane dim follows the 128-lane rule for every dtype and generation.
#pragma once

#include <optional>

#include "tessera/ir/ir.h"

namespace tessera::pallas {

// A copy of `module` in which every rank-1 ref parameter of the device
// function that `host` launches has type [1, n], every access to it gains a
// leading index 0, and `host` reshapes the array to (1, n) before the launch
// and back to (n,) after it. nullopt when the kernel has no rank-1 ref (the
// module is then emitted as it is).
std::optional<Module> CarryRank1RefsAsRows(const Module& module,
                                           const Function& host);

}  // namespace tessera::pallas
