// A plugin built for another ABI version: the loader must reject it by its
// abi_version alone ("got 99, supported 1").
#include "tessera/plugin.h"

namespace {
bool Register(tessera::PluginRegistrar*) { return true; }
}  // namespace

extern "C" __attribute__((visibility("default"))) const TesseraPluginInfo*
tesseraGetPluginInfo(void) {
  static const TesseraPluginInfo info = {99, "abi-mismatch", "0.0.1", Register};
  return &info;
}
