// A shared object that exports something, but not tesseraGetPluginInfo.
#include "tessera/plugin.h"

extern "C" __attribute__((visibility("default"))) int tesseraGetPluginInfoTypo(
    void) {
  return 1;
}
