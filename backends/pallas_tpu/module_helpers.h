// The module-level pieces every generated module may carry: the Python
// helper functions (the abstract TPU for interpret mode, zero padding, tail
// masks).
#pragma once

#include <string>

#include "device_emitter.h"
#include "legality.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

// The helper functions the module uses, as Python source (`tpu_target_fn`
// always; the others when `state` named them).
std::string ModuleHelpers(const ModuleState& state,
                          const std::string& tpu_target_fn);

}  // namespace tessera::pallas
