// The compute one step of a stage does: MXU cycles of every dot (padded to
// the MXU's shape), VPU vector-register operations, EUP pushes and vector
// loads / stores, plus the useful flops and transcendentals XLA's
// CostEstimate wants. Counted from the types of the device IR, whose
// shapes inside the kernel are block shapes.
#pragma once

#include "hardware.h"
#include "plan_view.h"

namespace tessera::pallas {

struct StepWork {
  double mxu_cycles = 0;
  double valu_ops = 0;          // vreg operations, all VALU slots together
  double eup_ops = 0;           // vreg pushes
  double xlu_ops = 0;           // cross-lane ops (lane reductions, transposes)
  double lane_reduces = 0;      // cross-lane reduces (one per 8-row group)
  double chained_trips = 0;     // trips with a dot -> reduce -> dot chain
  double chain_mxu_cycles = 0;  // the part of mxu_cycles in those trips
  double chain_vector_cycles = 0;  // their VectorCycles
  double vld = 0;                  // vregs loaded from VMEM
  double vst = 0;                  // vregs stored to VMEM
  Count flops;                     // useful: 2*m*n*k per dot, 1 per element op
  double mxu_flops = 0;
  Count transcendentals;  // elements

  // The vector and MXU work (doubles, for timing) needs static shapes;
  // flops and transcendentals are exact Counts either way.
  void Add(const StepWork& other, const Count& times = 1);
  // Cycles of the busiest unit, slots per bundle taken into account.
  double VectorCycles(const TpuHardware& hw) const;
  double ComputeCycles(const TpuHardware& hw) const;
  // "MXU", "VPU", "XLU", "EUP" or "VMEM ld/st": the unit that takes longest.
  const char* BusiestUnit(const TpuHardware& hw) const;
};

// Work of one step of `stage` (its body once, plain inner loops times their
// trips, nested pipelined loops excluded: they are stages of their own).
StepWork CountStepWork(const CostPlan& plan, int stage, const TpuHardware& hw);

}  // namespace tessera::pallas
