// Entry point of the "test-passes" plugin.
#include "test_plugin.h"

namespace {

bool RegisterTestPlugin(tessera::PluginRegistrar* registrar) {
  tessera::testing::RegisterTestPasses(*registrar);
  tessera::testing::RegisterTestFrontendAndBackends(*registrar);
  return true;
}

}  // namespace

TESSERA_PLUGIN("test-passes", "1.2.3", RegisterTestPlugin)
