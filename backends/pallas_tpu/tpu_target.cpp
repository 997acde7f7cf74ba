// The pallas-tpu target: the TPU's (8, 128) block rule, VMEM scratch and
// budget, the three launchers, the cost model's pl.CostEstimate, and the
// abstract TPU the host function enters for interpret mode and export on a
// CPU host. The plan and the emitters are ../pallas_common.
#include "device_emitter.h"
#include "fmt/format.h"
#include "launchers/launchers.h"
#include "module_emitter.h"
#include "module_helpers.h"
#include "scan_lowering.h"

namespace tessera::pallas {
namespace {

class TpuTarget : public PallasTarget {
 public:
  explicit TpuTarget(const ModuleOptions& options) : options_(options) {}

  std::string_view backend_name() const override { return "pallas-tpu"; }
  std::string_view hardware_name() const override { return "TPU"; }

  std::optional<std::string> CheckBlock(std::span<const BlockDim> block,
                                        DType dtype) const override {
    return CheckBlockShape(block, dtype);
  }

  int64_t ShiftAlignment(const RefPlan& ref, size_t dim) const override {
    // Mosaic rejects a dynamic slice of the two minor dims it cannot prove
    // aligned (E2003 UnprovenMemoryAccessAlignment, libtpu 0.0.42, v5e-v7x,
    // f32 and bf16 alike): 128 lanes, and on the second-minor dim the
    // sublane tiling of the dtype (8 / 16 / 32 rows for 32 / 16 / 8 bits).
    // Leading dims take any offset.
    const size_t rank = ref.dims.size();
    if (dim + 2 < rank) return 1;
    if (dim + 1 == rank) return 128;
    return 8 * (4 / std::max<int64_t>(1, DTypeBytes(ref.type.dtype)));
  }
  std::optional<std::string> UnalignedSlices(
      const RefPlan& ref) const override {
    // Mosaic proves the alignment of a dynamic slice from its offset: a
    // multiple of 128 lanes on the minor dim, and on the second-minor dim of
    // 8 sublanes for 32- and 16-bit types but 32 for 8-bit ones (E2003
    // UnprovenMemoryAccessAlignment otherwise; found by the legality sweep
    // against libtpu, tests/conformance/legality_sweep.py).
    const size_t rank = ref.dims.size();
    const int64_t sublanes = DTypeBytes(ref.type.dtype) == 1 ? 32 : 8;
    for (size_t d = rank >= 2 ? rank - 2 : 0; d < rank; ++d) {
      const SpecDim& dim = ref.dims[d];
      if (dim.kind != SpecKind::kBlocked) continue;
      const bool lanes = d + 1 == rank;
      const int64_t multiple = lanes ? 128 : sublanes;
      // One row of a 32-bit array at any sublane offset is a masked load or
      // store Mosaic accepts (libtpu, v5e-v7x; packed types need aligned
      // rows). A row that is also sliced along the lanes is not ("dynamic
      // store with unaligned indices", random kernel seed 66).
      const bool one_row = !lanes && dim.block == 1 &&
                           DTypeBytes(ref.type.dtype) == 4 &&
                           ref.dims.back().kind != SpecKind::kBlocked;
      if (dim.block % multiple != 0 && !one_row) {
        return fmt::format(
            "offsets that are multiples of {} ({}) along dim {}, "
            "and its block is {}",
            multiple, lanes ? "lanes" : "sublanes", d, dim.block);
      }
    }
    return std::nullopt;
  }

  // SMEM holds the scalar-prefetch operands (32-bit words: integers are
  // narrowed to int32 on the host, scalar_prefetch.h).
  std::optional<std::string> ScalarPrefetchGridSpec() const override {
    return std::string("pltpu.PrefetchScalarGridSpec");
  }
  std::optional<std::string> GatherRowsProblem(DType dtype) const override {
    // libtpu 0.0.42 (scripts/verify_tpu.py, docs/tpu_legality.md): one row
    // at a dynamic sublane offset loads for 32-bit data; a packed row
    // (bf16, int8) is rejected as E2003 UnprovenMemoryAccessAlignment, and
    // a one-row DMA into a packed buffer as unaligned too.
    if (DTypeBytes(dtype) == 4) return std::nullopt;
    return fmt::format(
        "gathering rows of {} is not supported on the TPU: a row at a "
        "data-dependent offset loads only for 32-bit types ({}-bit rows "
        "are packed two or four to a 32-bit sublane word, and Mosaic rejects "
        "the unaligned access: E2003); gather from a float32 / int32 table",
        DTypeName(dtype), DTypeBytes(dtype) * 8);
  }

  std::unique_ptr<DeviceEmitter> MakeDeviceEmitter(
      const Module& module, const KernelPlan& plan, ModuleState& state,
      const HostBindings& host, const EmitOptions& options,
      DiagnosticEngine& diagnostics) const override {
    switch (plan.launcher) {
      case Launcher::kUnroll:
        return MakeUnrollEmitter(module, plan, state, host, options,
                                 diagnostics);
      case Launcher::kEmitPipeline:
        return MakeEmitPipelineEmitter(module, plan, state, host, options,
                                       diagnostics);
      case Launcher::kForiLoop:
      default:
        return MakeForiLoopEmitter(module, plan, state, host, options,
                                   diagnostics);
    }
  }

  std::optional<std::string> ScratchShape(
      const std::string& shape, const std::string& dtype) const override {
    return fmt::format("pltpu.VMEM({}, {})", shape, dtype);
  }

  void ReserveNames(ModuleState& state) const override {
    // The helper that gives interpret mode and CPU-side export a TPU to ask.
    state.target_fn = state.names.Fresh("_tpu_target");
  }
  std::string HostKeywords() const override {
    return fmt::format(", tpu=\"{}\"", options_.tpu.name);
  }
  std::string HostContext(const ModuleState& state) const override {
    return fmt::format("with {}(tpu):", state.target_fn);
  }

  std::optional<std::string> CallParams(const KernelPlan& plan,
                                        const HostBindings& host,
                                        const std::vector<VmemBuffer>& buffers,
                                        ModuleState& state, PyLines& out,
                                        KernelCost& cost) const override {
    std::vector<VmemBuffer> vmem = buffers;
    vmem.push_back(CompilerScratch(*plan.device));
    VmemPlan vmem_plan =
        options_.check_legality ? PlanVmem(vmem, options_.tpu) : VmemPlan{};
    if (!vmem_plan.error.empty()) return vmem_plan.error;
    // A block sized by the call's shapes: the limit is computed when the
    // kernel is traced (seed 302788 of the random kernels: a whole dim of
    // 150 in (128, 128, n) f32 blocks ran out of the 32 MiB scoped VMEM).
    std::string limit_text;
    if (options_.check_legality) {
      const std::string need = CallTimeVmemNeed(buffers, *plan.device);
      if (!need.empty()) {
        if (state.call_time_memory_fn.empty()) {
          state.call_time_memory_fn = state.names.Fresh("_vmem_limit_bytes");
        }
        limit_text = fmt::format("{}({})", state.call_time_memory_fn, need);
      }
    }
    if (limit_text.empty() && vmem_plan.vmem_limit_bytes) {
      limit_text = fmt::format("{}", *vmem_plan.vmem_limit_bytes);
    }
    std::optional<KernelCounts> counts = Estimate(plan, host, cost);
    std::string semantics = "(";
    for (size_t i = 0; i < plan.dimension_semantics.size(); ++i) {
      semantics +=
          fmt::format("{}\"{}\"", i ? ", " : "", plan.dimension_semantics[i]);
    }
    if (plan.dimension_semantics.size() == 1) semantics += ",";
    semantics += ")";
    out.Line("compiler_params=pltpu.CompilerParams(");
    out.Indent();
    if (!limit_text.empty()) {
      out.Line(fmt::format("dimension_semantics={},", semantics));
      out.Line(fmt::format("vmem_limit_bytes={}),", limit_text));
    } else {
      out.Line(fmt::format("dimension_semantics={}),", semantics));
    }
    out.Dedent();
    if (counts) EmitCostEstimate(*counts, out);
    return std::nullopt;
  }

  std::string ScanExpr(ModuleState& state, const ScanCall& call,
                       std::string& error) const override {
    return TpuScanExpr(state, call, error);
  }
  std::string ModuleHelpers(const ModuleState& state) const override {
    std::string helpers = pallas::ModuleHelpers(state, state.target_fn);
    if (!state.call_time_memory_fn.empty()) {
      helpers += VmemLimitHelper(state.call_time_memory_fn, options_.tpu);
    }
    return helpers;
  }
  std::vector<std::pair<std::string, std::string>> Imports() const override {
    return {{"pltpu", "from jax.experimental.pallas import tpu as pltpu"}};
  }
  std::string HeaderDetails(const KernelPlan& plan) const override {
    return fmt::format("launcher {}, tpu {}", LauncherName(plan.launcher),
                       options_.tpu.name);
  }

 private:
  // The model's counts (Python expressions of the host's sizes when they
  // are symbolic) and, with static shapes, its timed estimate in `cost`.
  std::optional<KernelCounts> Estimate(const KernelPlan& plan,
                                       const HostBindings& host,
                                       KernelCost& cost) const {
    const TpuHardware* hardware = TpuHardwareByName(options_.tpu.name);
    if (hardware == nullptr) {
      cost.problem = "no hardware table entry for " + options_.tpu.name;
      return std::nullopt;
    }
    const SymbolicSizes sizes{host.symbol_values, host.grid_begin,
                              host.grid_end};
    CostOptions cost_options;
    cost_options.prefetch = options_.emit.prefetch;
    cost_options.sizes = &sizes;
    auto model = ModelKernelPlan(plan, *hardware, cost_options);
    if (!model.ok()) {
      cost.problem = std::string(model.status().message());
      return std::nullopt;
    }
    if (model->estimate.ok()) {
      cost.estimate = *std::move(model->estimate);
    } else {
      cost.problem = std::string(model->estimate.status().message());
    }
    return model->counts;
  }

  // Lets XLA schedule around the kernel as it does for hand-written ones.
  static void EmitCostEstimate(const KernelCounts& counts, PyLines& out) {
    if (counts.flops.is_constant() && counts.transcendentals.is_constant() &&
        counts.bytes_accessed.is_constant()) {
      out.Line(fmt::format(
          "cost_estimate=pl.CostEstimate(flops={}, transcendentals={}, "
          "bytes_accessed={}),",
          counts.flops.ToPython(), counts.transcendentals.ToPython(),
          counts.bytes_accessed.ToPython()));
      return;
    }
    // Symbolic shapes: the same counts in terms of the host's sizes (Python
    // ints when the call is traced).
    out.Line("cost_estimate=pl.CostEstimate(");
    out.Indent();
    out.Line(fmt::format("flops={},", counts.flops.ToPython()));
    out.Line(
        fmt::format("transcendentals={},", counts.transcendentals.ToPython()));
    out.Line(
        fmt::format("bytes_accessed={}),", counts.bytes_accessed.ToPython()));
    out.Dedent();
  }

  ModuleOptions options_;
};

PallasModuleOptions CommonOptions(const ModuleOptions& options) {
  PallasModuleOptions common;
  common.launcher = options.launcher;
  common.emit = options.emit;
  common.check_legality = options.check_legality;
  return common;
}

}  // namespace

absl::StatusOr<EmittedFile> EmitKernelModule(const Module& module,
                                             const Function& host,
                                             const ModuleOptions& options,
                                             DiagnosticEngine& diagnostics,
                                             KernelCost* cost) {
  const TpuTarget target(options);
  return EmitPallasModule(module, host, target, CommonOptions(options),
                          diagnostics, cost);
}

const PallasTarget& TpuBlockRules() {
  // Plans keep a pointer to their target: one that outlives every plan.
  static const TpuTarget* const target = [] {
    ModuleOptions options;
    options.tpu = *TpuGenerationByName("v6e");
    return new TpuTarget(options);
  }();
  return *target;
}

absl::StatusOr<KernelPlan> BuildKernelPlan(const Module& module,
                                           const Function& host,
                                           Launcher launcher,
                                           DiagnosticEngine& diagnostics,
                                           bool keep_illegal_blocks) {
  return PlanKernel(module, host, launcher, TpuBlockRules(), diagnostics,
                    keep_illegal_blocks);
}

}  // namespace tessera::pallas
