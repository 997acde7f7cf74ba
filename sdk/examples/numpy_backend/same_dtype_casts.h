// `numpy-same-dtype-casts`: the numpy-reference backend's lowering pass
// (BackendInfo::lowering_passes). A cast to the dtype its operand already
// has is dropped, so the emitted NumPy module has no `.astype` that copies
// an array into its own dtype. An example of a backend lowering pass built
// out of tree: registered by the backend's plugin, named in its
// BackendInfo, run by the pass manager after the config's passes.
#pragma once

#include "tessera/pass.h"

namespace numpy_reference {

tessera::PassInfo SameDtypeCastsPass();

}  // namespace numpy_reference
