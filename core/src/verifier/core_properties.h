// The core's own properties (ssa, outlined), which the property registry
// registers before any plugin loads.
#pragma once

#include "tessera/properties.h"

namespace tessera::verifier {

PropertyInfo SsaPropertyInfo();
PropertyInfo OutlinedPropertyInfo();

}  // namespace tessera::verifier
