// A plugin whose own name is already taken by the "test-passes" plugin.
#include "tessera/plugin.h"

namespace {
bool Register(tessera::PluginRegistrar*) { return true; }
}  // namespace

TESSERA_PLUGIN("test-passes", "9.9.9", Register)
