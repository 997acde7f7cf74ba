#include "hardware.h"

namespace tessera::pallas {

const std::vector<TpuHardware>& AllTpuHardware() {
  static const std::vector<TpuHardware> table = {
#define TPU_GENERATION(name, clock, bf16, f32, int8, hbm, vmem, scoped, mxu,  \
                       mxus, lanes, sublanes, valu, eup, vld, vst, xlu, step, \
                       latency, exposed, trip, fill)                          \
  TpuHardware{name, clock, bf16,    f32,      int8, hbm, vmem, scoped,        \
              mxu,  mxus,  lanes,   sublanes, valu, eup, vld,  vst,           \
              xlu,  step,  latency, exposed,  trip, fill},
#include "tpu_hardware.def"
#undef TPU_GENERATION
  };
  return table;
}

const TpuHardware* TpuHardwareByName(std::string_view name) {
  for (const TpuHardware& hardware : AllTpuHardware()) {
    if (hardware.name == name) return &hardware;
  }
  return nullptr;
}

}  // namespace tessera::pallas
