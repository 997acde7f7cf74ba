// Emits the Python module of one outlined kernel: imports, helpers, the
// Pallas kernel (device_emitter + a launcher) and the host function that
// pads its arguments, calls pl.pallas_call and crops the outputs.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "device_emitter.h"
#include "kernel_plan.h"
#include "legality.h"
#include "tessera/backend.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

struct ModuleOptions {
  Launcher launcher = Launcher::kEmitPipeline;
  TpuGeneration tpu;
  EmitOptions emit;
  // false: emit the blocks as asked, with no legality errors and no raised
  // VMEM limit (for comparing verdicts with the real compiler).
  bool check_legality = true;
};

absl::StatusOr<EmittedFile> EmitKernelModule(const Module& module,
                                             const Function& host,
                                             const ModuleOptions& options,
                                             DiagnosticEngine& diagnostics);

}  // namespace tessera::pallas
