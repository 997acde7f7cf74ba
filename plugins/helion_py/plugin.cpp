// Entry point of the helion-py frontend plugin.
#include "tessera/plugin.h"
#include "frontend.h"

namespace {

bool RegisterHelionPy(tessera::PluginRegistrar* registrar) {
  registrar->AddFrontend(tessera::helion_py::HelionFrontendInfo());
  return true;
}

}  // namespace

TESSERA_PLUGIN("helion-py", "0.1.0", RegisterHelionPy)
