// Emits the Python module of one outlined kernel for a Pallas target:
// imports, helpers, the Pallas kernel (device_emitter + the target's
// launcher) and the host function that pads its arguments, calls
// pl.pallas_call and crops the outputs (module_emitter.cpp).
#pragma once

#include "absl/status/statusor.h"
#include "device_emitter.h"
#include "kernel_plan.h"
#include "target.h"
#include "tessera/backend.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

struct PallasModuleOptions {
  Launcher launcher = Launcher::kEmitPipeline;
  EmitOptions emit;
  // false: emit the blocks as asked, with no legality errors (for comparing
  // verdicts with the real compiler).
  bool check_legality = true;
};

absl::StatusOr<EmittedFile> EmitPallasModule(const Module& module,
                                             const Function& host,
                                             const PallasTarget& target,
                                             const PallasModuleOptions& options,
                                             DiagnosticEngine& diagnostics,
                                             KernelCost* cost = nullptr);

}  // namespace tessera::pallas
