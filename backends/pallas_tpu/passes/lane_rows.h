// Rank-1 refs of a kernel are carried as (1, n) rows, and refs whose
// second-minor dim every access indexes with a block-1 tile as [..., 1, n].
//
// Mosaic tiles a rank-1 VMEM buffer of a packed dtype in 128 × packing
// elements (256 for bf16, 512 for int8), so a 128-element block of a bf16
// vector cannot be addressed at a 128 offset (E2003
// UnprovenMemoryAccessAlignment), and Pallas accepts rank-1 blocks only of
// the full dim, a multiple of 1024, or a power of two of at least that tile.
// A (1, n) row has none of those limits: its sublane dim is the whole dim 1
// and its lane dim follows the 128-lane rule for every dtype and generation.
// Likewise a (1, n) block of a (b, m) array (a batch tile of block 1 on the
// sublane dim) is illegal, while (1, 1, n) of (b, 1, m) blocks a leading dim.
#pragma once

#include "tessera/ir/ir.h"

namespace tessera::pallas {

// Every such ref parameter of the device function that `host` launches
// gains the unit dim ([1, n], or [.., 1, n] before the last dim), every
// access to it an index 0 there, and `host` reshapes the array before the
// launch and back after it. False (nothing changed) when the kernel has no
// such ref.
bool CarryRank1RefsAsRows(Module& module, Function& host);

}  // namespace tessera::pallas
