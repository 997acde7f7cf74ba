// The TPU cost model's entry point: a kernel plan and a generation in, the
// modeled time of one call out (per stage: the grid and each pipelined
// inner loop), with the flops / transcendentals / bytes that the generated
// pallas_call declares as its pl.CostEstimate. docs/cost_model.md explains
// the model and its calibration.
#pragma once

#include "absl/status/statusor.h"
#include "hardware.h"
#include "kernel_plan.h"
#include "tessera/cost_estimate.h"

namespace tessera::pallas {

struct CostOptions {
  bool prefetch = true;  // fori_loop: two-slot prefetch of inner-loop DMAs
};

// FailedPrecondition when a shape the model needs is symbolic.
absl::StatusOr<KernelEstimate> EstimateKernelPlan(const KernelPlan& plan,
                                                  const TpuHardware& hardware,
                                                  const CostOptions& options);

}  // namespace tessera::pallas
