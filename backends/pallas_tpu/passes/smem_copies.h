// Index tensors read both row by row and as blocks are passed twice.
//
// A gather or scatter index is evaluated one row at a time as a scalar
// (gather_plan.h): its loads of index refs read single elements, which the
// TPU takes from SMEM (scalar prefetch). When the same ref is also read as a
// vector block (Helion's segment_reduction: `idxs = indices[tile_e]` is the
// scan's input and the mask's operand, and the rows of
// `hl.atomic_add(output, [idxs, tile_f], ...)`), one memory space cannot
// serve both: SMEM has no vector loads, and a VMEM block has no scalar reads
// at a dynamic position. So the launch passes the array twice: the device
// function gains a parameter `<ref>_smem` with the same type, read only by
// the row-by-row indices (it becomes a scalar-prefetch operand), while the
// original parameter keeps its blocks. The index expressions are made
// self-contained: each tensor value on the path from the index to such a
// load is replaced by its definition, with the load retargeted.
#pragma once

#include "tessera/ir/ir.h"

namespace tessera::pallas {

// Every such ref of the device function that `host` launches is passed
// twice (above). False (nothing changed) when there is none.
bool PassIndexRefsTwice(Module& module, Function& host);

}  // namespace tessera::pallas
