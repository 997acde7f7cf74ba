// Tables of a packed dtype (bf16, f16, int8) gathered or scattered by rows
// are accessed as float32 / int32 where the target cannot move packed rows.
//
// A row at a data-dependent sublane offset loads on the TPU only for 32-bit
// data: Mosaic rejects a packed row (two or four to a 32-bit sublane word)
// as E2003 UnprovenMemoryAccessAlignment (PallasTarget::GatherRowsProblem).
// Helion's embedding, gather_gemv and moe_matmul_ogs gather f16 rows. Such
// a table is widened on the host before the launch (`table_wide =
// table.astype(f32)`), every row read is cast back and every value stored
// is widened, and a written table is narrowed after the launch: the values
// are exact (each packed type embeds in its 32-bit one), at the cost of a
// pass over the table in HBM (two when written). Tables updated atomically
// are left to the atomic_accumulator pass, which sums them in an f32
// scratch already.
#pragma once

#include "target.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

// Every ref parameter that the device function `host` launches gathers or
// scatters rows of, and whose dtype `target` cannot gather, is passed
// widened and read in its own dtype. False (nothing changed) when there is
// none (or the wide dtype cannot be gathered either).
bool WidenPackedGatherTables(Module& module, Function& host,
                             const PallasTarget& target);

}  // namespace tessera::pallas
