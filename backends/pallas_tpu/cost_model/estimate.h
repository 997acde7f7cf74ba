// The TPU cost model's entry point: a kernel plan and a generation in, the
// modeled time of one call out (per stage: the grid and each pipelined
// inner loop), with the flops / transcendentals / bytes that the generated
// pallas_call declares as its pl.CostEstimate. docs/cost_model.md explains
// the model and its calibration.
#pragma once

#include "absl/status/statusor.h"
#include "count.h"
#include "hardware.h"
#include "kernel_plan.h"
#include "plan_view.h"
#include "tessera/cost_estimate.h"

namespace tessera::pallas {

struct CostOptions {
  bool prefetch = true;  // fori_loop: two-slot prefetch of inner-loop DMAs
  // The host's Python expressions of the sizes that are symbolic; null:
  // symbolic sizes stay bare symbols (and the estimate is refused).
  const SymbolicSizes* sizes = nullptr;
};

// What a generated pallas_call declares as its pl.CostEstimate, for any
// shapes: constants when they are static, Python expressions of the host's
// sizes otherwise.
struct KernelCounts {
  Count flops;
  Count transcendentals;
  Count bytes_accessed;
};

struct KernelModel {
  KernelCounts counts;
  // The timed estimate: FailedPrecondition naming the first symbolic size
  // unless every size is static.
  absl::StatusOr<KernelEstimate> estimate;
};

// Fails (FailedPrecondition) only for a size the counts cannot express,
// e.g. a loop bound that is the minimum of two sizes.
absl::StatusOr<KernelModel> ModelKernelPlan(const KernelPlan& plan,
                                            const TpuHardware& hardware,
                                            const CostOptions& options);

// The timed estimate alone; FailedPrecondition when a shape the model
// needs is symbolic.
absl::StatusOr<KernelEstimate> EstimateKernelPlan(const KernelPlan& plan,
                                                  const TpuHardware& hardware,
                                                  const CostOptions& options);

}  // namespace tessera::pallas
