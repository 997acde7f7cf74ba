#include "estimate.h"

#include <algorithm>

#include "fmt/format.h"
#include "legality.h"
#include "plan_view.h"
#include "traffic.h"
#include "work.h"

namespace tessera::pallas {
namespace {

// What one run of a stage costs (children folded in).
struct StageCost {
  StepWork work;  // per step, own body
  Count bytes_per_run;
  double vmem_bytes = 0;  // buffers the stage allocates
  double run_s = 0;       // one run
  double compute_step_s = 0;
  double memory_step_s = 0;   // copies + DMA latency
  double latency_step_s = 0;  // the DMA latency part
  double overhead_step_s = 0;
  double child_step_s = 0;  // pipelined inner loops inside one step
  double exposed_memory_run_s = 0;
  Count total_runs = 1;
};

// Bytes of an array padded to whole tiles (the traffic's tiling; sizes
// static by then).
double TileBytes(DType dtype, const std::vector<Count>& dims,
                 const TpuHardware& hw) {
  Count bytes = DTypeBytes(dtype);
  for (size_t d = 0; d < dims.size(); ++d) {
    bytes *= RoundUp(dims[d], TileMultiple(d, dims.size(), dtype, hw));
  }
  return bytes.StaticOr(0);
}

void CostStage(const CostPlan& plan, int index, const TpuHardware& hw,
               std::vector<StageCost>& costs) {
  const StageView& stage = plan.stages[index];
  StageCost& cost = costs[index];
  cost.work = CountStepWork(plan, index, hw);
  const double steps = stage.steps().StaticOr(1);
  double first_in = 0, last_out = 0, latency_share = 0;
  for (const OperandView& operand : stage.operands) {
    OperandTraffic traffic = OperandTrafficOf(stage, operand, hw);
    cost.bytes_per_run += traffic.bytes_per_run;
    first_in += traffic.first_in_bytes.StaticOr(0);
    last_out += traffic.last_out_bytes.StaticOr(0);
    const int buffers = stage.prefetched ? 2 : 1;
    const int directions = (operand.read ? 1 : 0) + (operand.written ? 1 : 0);
    cost.vmem_bytes += traffic.block_bytes.StaticOr(0) * buffers * directions;
    const double copies = traffic.copies_per_run.StaticOr(1);
    if (copies > 1) latency_share = std::max(latency_share, copies / steps);
  }
  for (size_t child = index + 1; child < plan.stages.size(); ++child) {
    if (plan.stages[child].parent != index) continue;
    cost.child_step_s += costs[child].run_s *
                         plan.stages[child].runs_per_parent_step.StaticOr(1);
  }
  const double bandwidth = hw.hbm_bytes_per_s;
  const double steady_bytes =
      std::max(0.0, cost.bytes_per_run.StaticOr(0) - first_in - last_out);
  cost.compute_step_s = cost.work.ComputeCycles(hw) / hw.clock_hz;
  cost.overhead_step_s =
      static_cast<double>(hw.step_overhead_cycles) / hw.clock_hz;
  cost.latency_step_s = hw.dma_latency_s * latency_share;
  cost.memory_step_s =
      steady_bytes / std::max(1.0, steps - 1) / bandwidth + cost.latency_step_s;
  const double busy = cost.compute_step_s + cost.child_step_s;
  const double edges =
      (first_in + last_out) / bandwidth + (first_in > 0 ? hw.dma_latency_s : 0);
  if (stage.prefetched) {
    // Step i's copies (next inputs, previous outputs) overlap step i's
    // compute; the first inputs and the last outputs are exposed.
    cost.run_s = edges + steps * (cost.overhead_step_s +
                                  std::max(busy, cost.memory_step_s));
    cost.exposed_memory_run_s =
        edges + steps * std::max(0.0, cost.memory_step_s - busy);
  } else {
    cost.run_s =
        edges + steps * (cost.overhead_step_s + busy + cost.memory_step_s);
    cost.exposed_memory_run_s = edges + steps * cost.memory_step_s;
  }
}

StageEstimate Report(const CostPlan& plan, int index, const StageCost& cost,
                     const TpuHardware& hw) {
  const StageView& stage = plan.stages[index];
  StageEstimate report;
  report.name = stage.name;
  report.kind = stage.loop ? "loop" : "grid";
  report.steps = stage.steps().constant();
  report.runs = cost.total_runs.constant();
  const double runs = cost.total_runs.StaticOr(1);
  const double steps = static_cast<double>(report.steps) * runs;
  report.bytes = cost.bytes_per_run.StaticOr(0) * runs;
  report.flops = cost.work.flops.StaticOr(0) * steps;
  report.transcendentals = cost.work.transcendentals.StaticOr(0) * steps;
  report.compute_s = cost.compute_step_s * steps;
  report.memory_s = report.bytes / hw.hbm_bytes_per_s;
  report.overhead_s = cost.overhead_step_s * steps;
  report.exposed_memory_s = cost.exposed_memory_run_s * runs;
  report.time_s = cost.run_s * runs;
  const double mxu_ideal = cost.work.mxu_flops * steps / hw.bf16_flops;
  const double vector_ideal = cost.work.VectorCycles(hw) * steps / hw.clock_hz;
  const double ideal = std::max({mxu_ideal, vector_ideal, report.memory_s});
  report.roofline_fraction = report.time_s > 0 ? ideal / report.time_s : 0;
  const double own = cost.compute_step_s, child = cost.child_step_s;
  if (cost.memory_step_s > own + child &&
      cost.memory_step_s > cost.overhead_step_s) {
    // Small blocks wait on DMA latency more than on the bytes.
    report.bound =
        cost.latency_step_s * 2 > cost.memory_step_s ? "step overhead" : "HBM";
  } else if (cost.overhead_step_s > own + child) {
    report.bound = "step overhead";
  } else if (child > own) {
    report.bound = "inner loop";
  } else {
    report.bound = cost.work.BusiestUnit(hw);
  }
  return report;
}

KernelCounts CountAll(const CostPlan& plan,
                      const std::vector<StageCost>& costs) {
  KernelCounts counts;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const Count steps = plan.stages[i].steps() * costs[i].total_runs;
    counts.flops += costs[i].work.flops * steps;
    counts.transcendentals += costs[i].work.transcendentals * steps;
    counts.bytes_accessed += costs[i].bytes_per_run * costs[i].total_runs;
  }
  return counts;
}

absl::StatusOr<KernelEstimate> Estimate(const KernelPlan& kernel,
                                        const CostPlan& plan,
                                        const std::vector<StageCost>& costs,
                                        const KernelCounts& counts,
                                        const TpuHardware& hw) {
  absl::Status status = plan.CheckStatic();
  if (status.ok() &&
      !(counts.flops.is_constant() && counts.transcendentals.is_constant() &&
        counts.bytes_accessed.is_constant())) {
    status = absl::FailedPreconditionError(
        "a block shape is not static; the cost model needs static shapes "
        "(pass --arg)");
  }
  if (!status.ok()) return status;
  KernelEstimate estimate;
  estimate.kernel = plan.kernel;
  estimate.target = hw.name;
  estimate.target_description = "tpu " + hw.name;
  estimate.memory_name = "VMEM";
  estimate.launcher = std::string(LauncherName(plan.launcher));
  estimate.flops = counts.flops.StaticOr(0);
  estimate.transcendentals = counts.transcendentals.StaticOr(0);
  estimate.bytes_accessed = counts.bytes_accessed.StaticOr(0);
  // Blocks, scratch and carried values, plus what Mosaic allocates for the
  // kernel's own values (the same term legality's VMEM plan adds).
  double vmem = static_cast<double>(CompilerScratch(*kernel.device).bytes);
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    StageEstimate stage = Report(plan, static_cast<int>(i), costs[i], hw);
    vmem += costs[i].vmem_bytes;
    if (plan.stages[i].loop != nullptr) {
      for (const Value& carried : plan.stages[i].loop->iter_args) {
        std::vector<Count> dims;
        for (const Dim& dim : carried.type.shape) {
          dims.push_back(dim.is_static() ? dim.size : 1);
        }
        vmem += TileBytes(carried.type.dtype, dims, hw);
      }
    }
    estimate.stages.push_back(std::move(stage));
  }
  for (const ScratchView& scratch : plan.scratch) {
    vmem += TileBytes(scratch.dtype, scratch.dims, hw);
  }
  estimate.time_s = costs[0].run_s;
  // The grid's roofline covers the whole call, inner loops included, with
  // the compulsory traffic (every array once per direction, whatever the
  // blocks), so that it compares block choices for one problem.
  double mxu_flops = 0, vector_cycles = 0, compulsory_bytes = 0;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const double steps =
        (plan.stages[i].steps() * costs[i].total_runs).StaticOr(0);
    mxu_flops += costs[i].work.mxu_flops * steps;
    vector_cycles += costs[i].work.VectorCycles(hw) * steps;
    for (const OperandView& operand : plan.stages[i].operands) {
      const int directions = (operand.read ? 1 : 0) + (operand.written ? 1 : 0);
      compulsory_bytes +=
          TileBytes(operand.dtype, operand.array_dims, hw) * directions;
    }
  }
  const double ideal =
      std::max({mxu_flops / hw.bf16_flops, vector_cycles / hw.clock_hz,
                compulsory_bytes / hw.hbm_bytes_per_s});
  estimate.stages[0].roofline_fraction =
      estimate.time_s > 0 ? ideal / estimate.time_s : 0;
  double host_pad = 0;
  for (const StageView& stage : plan.stages) {
    for (const OperandView& operand : stage.operands) {
      host_pad += operand.host_pad_bytes.StaticOr(0);
    }
  }
  if (host_pad > 0) {
    StageEstimate pad;
    pad.name = "host padding (jnp.pad)";
    pad.kind = "host";
    pad.steps = 1;
    pad.bytes = host_pad;
    pad.memory_s = host_pad / hw.hbm_bytes_per_s;
    pad.time_s = pad.memory_s;
    pad.bound = "HBM";
    pad.roofline_fraction = 1;
    estimate.stages.push_back(pad);
    estimate.time_s += pad.time_s;
    estimate.notes.push_back(fmt::format(
        "the host zero-pads operands to whole blocks: {:.0f} bytes, "
        "{:.2f} us outside the kernel (included in the time)",
        host_pad, pad.time_s * 1e6));
  }
  estimate.vmem_peak_bytes = static_cast<int64_t>(vmem);
  estimate.vmem_capacity_bytes = hw.vmem_capacity_bytes;
  estimate.vmem_limit_bytes =
      estimate.vmem_peak_bytes <= hw.default_scoped_vmem_bytes
          ? hw.default_scoped_vmem_bytes
          : hw.vmem_capacity_bytes;
  if (estimate.vmem_peak_bytes > hw.vmem_capacity_bytes) {
    estimate.notes.push_back(
        fmt::format("VMEM peak {} bytes exceeds the {} capacity of {} bytes",
                    estimate.vmem_peak_bytes, hw.name, hw.vmem_capacity_bytes));
  } else if (estimate.vmem_peak_bytes > hw.default_scoped_vmem_bytes) {
    estimate.notes.push_back(fmt::format(
        "VMEM peak {} bytes exceeds the default scoped limit of {} bytes: "
        "the call raises vmem_limit_bytes",
        estimate.vmem_peak_bytes, hw.default_scoped_vmem_bytes));
  }
  return estimate;
}

}  // namespace

absl::StatusOr<KernelModel> ModelKernelPlan(const KernelPlan& kernel,
                                            const TpuHardware& hw,
                                            const CostOptions& options) {
  absl::StatusOr<CostPlan> view =
      ViewKernelPlan(kernel, options.prefetch, options.sizes);
  if (!view.ok()) return view.status();
  const CostPlan& plan = *view;
  std::vector<StageCost> costs(plan.stages.size());
  for (int i = static_cast<int>(plan.stages.size()) - 1; i >= 0; --i) {
    CostStage(plan, i, hw, costs);
  }
  for (size_t i = 1; i < plan.stages.size(); ++i) {
    const StageView& stage = plan.stages[i];
    costs[i].total_runs = costs[stage.parent].total_runs *
                          plan.stages[stage.parent].steps() *
                          stage.runs_per_parent_step;
  }
  KernelModel model;
  model.counts = CountAll(plan, costs);
  if (options.sizes != nullptr && !plan.unnamed_symbols.empty()) {
    return absl::FailedPreconditionError(
        fmt::format("size {} has no expression in the host function",
                    *plan.unnamed_symbols.begin()));
  }
  model.estimate = Estimate(kernel, plan, costs, model.counts, hw);
  return model;
}

absl::StatusOr<KernelEstimate> EstimateKernelPlan(const KernelPlan& plan,
                                                  const TpuHardware& hw,
                                                  const CostOptions& options) {
  absl::StatusOr<KernelModel> model = ModelKernelPlan(plan, hw, options);
  if (!model.ok()) return model.status();
  return std::move(model->estimate);
}

}  // namespace tessera::pallas
