// The batch block of 1 squeezed out of a kernel's values (the triton
// launcher).
//
// A grid tile of block 1 that indexes the leading dim of every access
// (`q_view[tile_b, tile_m, :]`) gives every value a leading dim of 1:
// attention's scores are f32[1, 128, 128]. Triton's dots are 2-D, so each
// dot sat between jnp.reshapes, which cost layout conversions: on an H200
// attention ran at 100 TFLOP/s, and at 258 with the dim squeezed by hand,
// as fast as pallas.ops.gpu's kernel. The rewrite indexes that dim with
// the tile's begin (a scalar index: the block spec squeezes it) and drops
// it from every value.
#pragma once

#include "tessera/ir/ir.h"

namespace tessera::pallas {

// The device function launched by `host` gets its unit grid tile's dim
// squeezed; false (nothing changed) when the kernel is not of that form: every
// access's first index the tile, every value of rank 2 or more with a leading
// dim of 1, and only ops whose axes the rewrite renumbers (elementwise,
// reductions, dots, casts, transposes, subscripts, full).
bool SqueezeUnitBatchTile(Module& module, const Function& host);

}  // namespace tessera::pallas
