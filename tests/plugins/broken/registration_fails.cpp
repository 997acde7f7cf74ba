// A registration callback that refuses, with a reason.
#include "tessera/plugin.h"

namespace {
bool Register(tessera::PluginRegistrar* registrar) {
  registrar->Fail("the accelerator runtime is not installed");
  return false;
}
}  // namespace

TESSERA_PLUGIN("registration-fails", "0.0.1", Register)
