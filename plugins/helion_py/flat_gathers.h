// The rewrite of element gathers through flattened views into zipped 2-D
// gathers (flat_gathers.cpp).
#pragma once

#include "tessera/ir/ir.h"

namespace tessera::helion_py {

// Rewrites every `load(x_flat)[gather(t.index * x.size(1) + lanes)]`, where
// x_flat is a rank-1 view of the rank-2 ref x, into
// `load(x)[gather(t.index), gather(lanes)]`. Loads of any other form are
// left as they are (the backends report what they cannot lower).
void RewriteFlatGathers(Function& fn);

}  // namespace tessera::helion_py
