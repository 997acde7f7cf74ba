// A registration callback that breaks the no-throw rule; the loader must
// report it, not crash.
#include <stdexcept>

#include "tessera/plugin.h"

namespace {
bool Register(tessera::PluginRegistrar*) {
  throw std::runtime_error("registration exploded");
}
}  // namespace

TESSERA_PLUGIN("registration-throws", "0.0.1", Register)
