// The generated GPU module's device context: lowering a Pallas GPU kernel
// asks the default device for its compute capability (JAX 0.12's Triton
// lowering raises "No supported GPU devices found" on a host without one;
// 0.10.2 assumed 9.0). With no GPU as the default device (interpret mode,
// or export for cuda on a CPU host), the host function enters an abstract
// Hopper GPU, as TPU modules enter an abstract TPU.
#pragma once

#include <string>

namespace tessera::pallas {

// The helper `def <name>():` returning the context (two blank lines first).
std::string GpuDeviceContextHelper(const std::string& name);

}  // namespace tessera::pallas
