// The pallas-tpu entry points over the shared module emitter
// (../pallas_common/pallas_module.h): options, the kernel plan and the
// module of one kernel for a TPU generation.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cost_model/estimate.h"
#include "kernel_plan.h"
#include "legality.h"
#include "pallas_module.h"
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

// The module of one kernel for the TPU generation and launcher of
// `options` (tpu_target.cpp).
absl::StatusOr<EmittedFile> EmitKernelModule(const Module& module,
                                             const Function& host,
                                             const ModuleOptions& options,
                                             DiagnosticEngine& diagnostics,
                                             KernelCost* cost = nullptr);

// The TPU target of the block and memory rules every generation shares
// (v6e's), for what needs them without a kernel's options (plans, the
// lowering passes).
const PallasTarget& TpuBlockRules();

// The kernel plan for the TPU's block rules (the v6e target; block rules
// are the same on every generation).
absl::StatusOr<KernelPlan> BuildKernelPlan(const Module& module,
                                           const Function& host,
                                           Launcher launcher,
                                           DiagnosticEngine& diagnostics,
                                           bool keep_illegal_blocks = false);

}  // namespace tessera::pallas
