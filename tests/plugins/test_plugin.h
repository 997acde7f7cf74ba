// Registration functions of the "test-passes" plugin's parts.
#pragma once

#include "tessera/ir/ir.h"
#include "tessera/ir/text.h"
#include "tessera/plugin.h"

namespace tessera::testing {

void RegisterTestPasses(PluginRegistrar& registrar);
void RegisterTestFrontendAndBackends(PluginRegistrar& registrar);

}  // namespace tessera::testing
