#include "gpu_target.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "device_emitter.h"
#include "fmt/format.h"
#include "gpu_device_context.h"
#include "gpu_policy.h"
#include "launch_call.h"
#include "mosaic_launch.h"
#include "mosaic_wgmma.h"
#include "py_text.h"
#include "python_writer.h"
#include "traced_launch.h"

namespace tessera::pallas {
namespace {

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Splits "a, pl.ds(b, 4), :" at its top-level commas.
std::vector<std::string> TopLevelItems(const std::string& text) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(current);
      current.clear();
      continue;
    }
    if (!(c == ' ' && current.empty())) current.push_back(c);
  }
  items.push_back(current);
  return items;
}

// The index of a ref access as the tuple Pallas's Triton atomics and
// pl.store take: `:` spelled slice(None), no Ellipsis.
std::string IndexTuple(const std::string& ref, const std::string& index) {
  if (index == "...") {
    return fmt::format("(slice(None),) * len({}.shape)", ref);
  }
  std::string tuple;
  std::vector<std::string> items = TopLevelItems(index);
  for (size_t i = 0; i < items.size(); ++i) {
    tuple += (i ? ", " : "") +
             (items[i] == ":" ? std::string("slice(None)") : items[i]);
  }
  return "(" + tuple + (items.size() == 1 ? ",)" : ")");
}

class GpuTarget : public PallasTarget {
 public:
  GpuTarget(const GpuModuleOptions& options, std::string source_file)
      : options_(options), source_file_(std::move(source_file)) {}

  std::string_view backend_name() const override { return "pallas-gpu"; }
  std::string_view hardware_name() const override { return "GPU"; }

  // Triton's tensors have power-of-two sizes in every dim (Pallas checks
  // the loads and stores, jax/_src/pallas/triton/lowering.py,
  // _check_tensor_size): tiles' blocks and whole static dims are rounded up
  // (KernelBlockSize), the tail zero-padded on the host and masked where a
  // reduction or a contraction reads it.
  int64_t KernelBlockSize(int64_t size) const override {
    return PowerOfTwoAtLeast(size);
  }
  std::string KernelBlockSizeText(const std::string& size) const override {
    return PowerOfTwoText(size);
  }
  std::optional<std::string> CheckBlock(std::span<const BlockDim> block,
                                        DType) const override {
    for (size_t d = 0; d < block.size(); ++d) {
      if (!block[d].is_full && !IsPowerOfTwo(block[d].size)) {
        return fmt::format("dim {} of the block is {}, not a power of two", d,
                           block[d].size);
      }
    }
    return std::nullopt;
  }
  int64_t ShiftAlignment(const RefPlan&, size_t) const override {
    return 1;  // Triton slices at any element offset
  }
  std::optional<std::string> UnalignedSlices(const RefPlan&) const override {
    return std::string("a block of a power of two in every dim");
  }
  bool PadEdgeBlocks() const override { return true; }
  // Pallas Triton has no SMEM or scalar prefetch: index refs are ordinary
  // operands read by pointer arithmetic, scalars and gathered rows alike.
  // Mosaic GPU stages blocks by TMA and has neither: the plan's located
  // error names what it does not do.
  bool IndirectAccessByLoads() const override {
    return options_.launcher == Launcher::kTriton;
  }
  std::string IndirectAccessUnsupportedBy() const override {
    return "pallas-gpu's mosaic launcher";
  }
  std::string IndirectAccessAlternative() const override {
    return "; use configs/pallas_gpu_triton.toml (plain loads of the index "
           "tensors)";
  }
  bool NativeAtomics() const override { return true; }
  bool OutputsInMemory(const KernelPlan& plan) const override {
    return plan.launcher == Launcher::kTriton;
  }
  bool AtomicTargetsInMemory(const KernelPlan& plan) const override {
    return plan.launcher == Launcher::kMosaicGpu;
  }
  std::string InMemorySpec() const override {
    return options_.launcher == Launcher::kMosaicGpu
               ? "pl.BlockSpec(memory_space=plgpu.GMEM)"
               : "pl.BlockSpec(memory_space=pl.ANY)";
  }

  std::unique_ptr<DeviceEmitter> MakeDeviceEmitter(
      const Module& module, const KernelPlan& plan, ModuleState& state,
      const HostBindings& host, const EmitOptions& options,
      DiagnosticEngine& diagnostics) const override {
    if (plan.launcher == Launcher::kMosaicGpu) {
      ReportMosaicUnsupported(module, *plan.device, diagnostics);
    }
    return MakeGpuEmitter(module, plan, state, host, options, diagnostics);
  }
  std::optional<std::string> ScratchShape(const std::string&,
                                          const std::string&) const override {
    return std::nullopt;
  }
  // pltriton.atomic_add(ref, (index...), value): the index as a tuple, `:`
  // spelled slice(None).
  std::string AtomicUpdate(std::string_view kind, const std::string& ref,
                           const std::string& index,
                           const std::string& value) const override {
    if (options_.launcher == Launcher::kMosaicGpu) {
      // Only adds get here (ReportMosaicUnsupported): a TMA reduction of
      // the block, staged in shared memory, into the GMEM ref.
      atomic_helper_used_ = true;
      return fmt::format("{}({}.at[{}], {})", atomic_helper_, ref, index,
                         value);
    }
    return fmt::format("pltriton.atomic_{}({}, {}, {})", kind, ref,
                       IndexTuple(ref, index), value);
  }
  // A scatter store under Triton: one indexed store. Interpret mode runs
  // no masked store that mixes index arrays with slices, so it indexes
  // every dim with an array, masked (on the GPU) and pointed past the end
  // (where interpret mode drops them) at the dropped rows.
  std::optional<std::string> ScatterStatement(
      const IndexedScatter& scatter) const override {
    if (options_.launcher != Launcher::kTriton) return std::nullopt;
    std::string axes;  // keep[:, None, ...]: a row per value row
    for (size_t d = 1; d < scatter.rank; ++d) axes += ", None";
    const std::string keep = fmt::format("{}[:{}]", scatter.keep, axes);
    std::vector<std::string> items = TopLevelItems(scatter.index);
    size_t arrays = 0;
    auto is_array = [&](const std::string& item) {
      return item == scatter.rows || item == ":" || item.starts_with("pl.ds(");
    };
    for (const std::string& item : items) arrays += is_array(item) ? 1 : 0;
    std::string index;
    size_t axis = 0;
    for (size_t d = 0; d < items.size(); ++d) {
      std::string item = items[d];
      if (is_array(item)) {
        std::string where;
        for (size_t k = 0; k < arrays; ++k) {
          where += std::string(k ? ", " : "") + (k == axis ? ":" : "None");
        }
        ++axis;
        if (item == scatter.rows) {
          item = fmt::format("jnp.where({}, {}, {}.shape[{}])", scatter.keep,
                             scatter.rows, scatter.ref, d);
        } else if (item == ":") {
          item = fmt::format("jnp.arange({}.shape[{}])", scatter.ref, d);
        } else {
          // pl.ds(start, size)
          std::vector<std::string> parts =
              TopLevelItems(item.substr(6, item.size() - 7));
          item = fmt::format("({} + jnp.arange({}))", parts[0], parts[1]);
        }
        item = fmt::format("{}[{}]", item, where);
      }
      index += (d ? ", " : "") + item;
    }
    return fmt::format(
        "pltriton.store({}.at[{}], {}, mask=jnp.broadcast_to({}, {}.shape))",
        scatter.ref, index, scatter.values, keep, scatter.values);
  }

  std::optional<std::string> CallParams(const KernelPlan& plan,
                                        const HostBindings& host,
                                        const std::vector<VmemBuffer>&,
                                        ModuleState&, PyLines& out,
                                        KernelCost& cost) const override {
    cost.problem = "pallas-gpu has no cost model";
    if (plan.launcher == Launcher::kMosaicGpu) {
      if (std::optional<std::string> shared = MosaicSharedOutputBlock(plan)) {
        return shared;
      }
      out.Line("compiler_params=plgpu.CompilerParams(),");
      return options_.check_legality
                 ? MosaicSharedMemoryProblem(plan, MosaicPipelineStages())
                 : std::nullopt;
    }
    const GpuLaunch launch = Launch(plan);
    if (launch.problem && options_.check_legality) return launch.problem;
    const SourceLoc loc =
        plan.launch != nullptr ? plan.launch->loc : plan.device->loc;
    // Unchecked legality: emitted as asked, nothing checked when traced.
    WriteTritonCompilerParams(
        launch, plan, host,
        options_.check_legality
            ? std::optional<std::string>(
                  fmt::format("{}:{}:{}", source_file_, loc.line, loc.col))
            : std::nullopt,
        options_.num_stages > 0, traced_helpers_, out);
    return std::nullopt;
  }
  void WriteLaunch(const LaunchCall& call, ModuleState& state,
                   PyLines& out) const override {
    if (options_.launcher != Launcher::kMosaicGpu) {
      PallasTarget::WriteLaunch(call, state, out);
      return;
    }
    WriteMosaicKernelLaunch(call, state, interpret_helper_, out);
    interpret_helper_used_ = true;
  }
  std::vector<std::pair<std::string, std::string>> Imports() const override {
    return {
        {"pltriton", "from jax.experimental.pallas import triton as pltriton"},
        {"plgpu", "from jax.experimental.pallas import mosaic_gpu as plgpu"}};
  }
  void ReserveNames(ModuleState& state) const override {
    state.target_fn = state.names.Fresh("_gpu_target");
    if (options_.launcher == Launcher::kMosaicGpu) {
      atomic_helper_ = state.names.Fresh("_atomic_add_block");
      interpret_helper_ = state.names.Fresh("_mosaic_gpu_interpret");
    } else {
      traced_helpers_.num_warps_fn = state.names.Fresh("_triton_num_warps");
      traced_helpers_.num_stages_fn = state.names.Fresh("_triton_num_stages");
    }
  }
  std::string ScanExpr(ModuleState&, const ScanCall& call,
                       std::string& error) const override {
    // Pallas's Triton lowering has one scan rule, lax.cumsum_p without
    // reverse (jax/_src/pallas/triton/lowering.py, jax 0.10.2), and none
    // for what a general scan is made of (lax.associative_scan's strided
    // slices and pads, a rotation); Mosaic GPU lowers no scan.
    if (options_.launcher == Launcher::kMosaicGpu) {
      error =
          "the mosaic launcher (Mosaic GPU) lowers no scan; use the "
          "triton launcher for a forward cumsum";
      return "None";
    }
    if (!call.is_sum || call.reverse) {
      error = fmt::format(
          "Pallas Triton lowers only a forward cumsum (lax.cumsum_p), not a "
          "{}: its lowering has no rule for a general associative scan or a "
          "reverse one",
          call.reverse ? "reverse scan" : "scan with this combine function");
      return "None";
    }
    const DType dtype = call.dtypes[0];
    // A half-precision running sum accumulates in f32, as its sums do.
    if (dtype == DType::kBF16 || dtype == DType::kF16) {
      return fmt::format(
          "jnp.cumsum({}.astype(jnp.float32), axis={}).astype({})",
          Paren(call.inputs[0]), call.axis, JnpDType(dtype));
    }
    return fmt::format("jnp.cumsum({}, axis={})", call.inputs[0], call.axis);
  }
  std::string HostContext(const ModuleState& state) const override {
    return fmt::format("with {}():", state.target_fn);
  }
  std::string ModuleHelpers(const ModuleState& state) const override {
    std::string helpers = GpuDeviceContextHelper(state.target_fn) +
                          PallasTarget::ModuleHelpers(state);
    helpers += TracedLaunchHelperSource(traced_helpers_);
    if (interpret_helper_used_) {
      helpers += MosaicInterpretHelper(interpret_helper_);
    }
    if (!atomic_helper_used_) return helpers;
    PyLines helper;
    helper.Blank();
    helper.Blank();
    helper.Line(fmt::format("def {}(dst, value):", atomic_helper_));
    helper.Indent();
    helper.Line(
        "# hl.atomic_add under Mosaic GPU: the block is staged in shared "
        "memory");
    helper.Line(
        "# and added into `dst` (global memory) by one TMA reduction, "
        "atomic per");
    helper.Line("# element.");
    helper.Line("def _staged(staging):");
    helper.Indent();
    helper.Line("staging[...] = value");
    helper.Line("plgpu.commit_smem()");
    helper.Line("plgpu.copy_smem_to_gmem(staging, dst, reduction_op=\"add\")");
    helper.Line("plgpu.wait_smem_to_gmem(0)");
    helper.Dedent();
    helper.Blank();
    helper.Line("pl.run_scoped(_staged, plgpu.SMEM(value.shape, value.dtype))");
    return helpers + helper.Text();
  }
  std::string HeaderDetails(const KernelPlan& plan) const override {
    if (plan.launcher == Launcher::kMosaicGpu) return "launcher mosaic";
    const GpuLaunch launch = Launch(plan);
    // Call-time dims: the helpers finish the choice when traced.
    return fmt::format(
        "launcher triton, num_warps {}{}, num_stages {}{}", launch.num_warps,
        traced_helpers_.num_warps_used ? " or more when traced" : "",
        traced_helpers_.num_stages_used ? kGpuDefaultStages : launch.num_stages,
        traced_helpers_.num_stages_used ? " or fewer when traced" : "");
  }

 private:
  // The policy's choice for `plan`, made once: CallParams and then
  // HeaderDetails ask for the same kernel's (its footprint walk is half
  // the cost of choosing).
  const GpuLaunch& Launch(const KernelPlan& plan) const {
    if (launch_plan_ != &plan) {
      launch_ = ChooseGpuLaunch(
          plan, GpuLaunchRequest{options_.num_warps, options_.num_stages});
      launch_plan_ = &plan;
    }
    return launch_;
  }
  // Mosaic GPU stages every ref's block in shared memory; an output that
  // is also read comes in as an aliased input too (its initial contents),
  // a second block (masked_splice's read-modify-write stores: 262,152 B
  // staged for 4 f32 128x128 blocks, over the limit at export).
  // A ref streamed by a wgmma pipeline takes `stages` copies of its block
  // (max_concurrent_steps); an atomic target, one staged block.
  static std::optional<std::string> MosaicSharedMemoryProblem(
      const KernelPlan& plan, int64_t stages) {
    int64_t total = 0;
    for (const RefPlan& ref : plan.refs) {
      int64_t bytes = DTypeBytes(ref.type.dtype);
      if (ref.stream_loop != nullptr || ref.atomic) {
        for (int64_t dim : StreamBlockShape(plan, ref)) bytes *= dim;
        total += bytes < 0 ? 0 : (ref.atomic ? bytes : stages * bytes);
        continue;
      }
      for (const BlockDim& dim : RefBlockDims(ref)) bytes *= dim.size;
      total += ref.read && ref.written() ? 2 * bytes : bytes;
    }
    if (total <= kGpuSharedMemoryBytes) return std::nullopt;
    return fmt::format(
        "the blocks of the mosaic launcher take {} KiB of shared memory "
        "(pipeline stages {}), more than the GPU's {} KiB per program; "
        "choose smaller blocks{}",
        total / 1024, stages, kGpuSharedMemoryBytes / 1024,
        stages > kMosaicDefaultStages ? " or fewer stages" : "");
  }

  // Mosaic GPU runs the grid's programs at once, and each copies its staged
  // output blocks back whole: a block that stays the same along some grid
  // axis is written by every program along it, a race (the last copy wins)
  // that interpret mode, running the programs one after another, cannot
  // show. Such blocks arise where the kernel slices a ref kept whole (a
  // grid that starts at a call-time offset).
  static std::optional<std::string> MosaicSharedOutputBlock(
      const KernelPlan& plan) {
    for (const RefPlan& ref : plan.refs) {
      if (!ref.written() || ref.stream_loop != nullptr || ref.atomic) continue;
      for (const std::string& grid_tile : plan.grid_tiles) {
        const bool follows = std::any_of(
            ref.dims.begin(), ref.dims.end(), [&](const SpecDim& dim) {
              return dim.kind == SpecKind::kBlocked &&
                     dim.grid_tile == grid_tile;
            });
        if (follows) continue;
        return fmt::format(
            "the mosaic launcher of pallas-gpu cannot write output '{}' "
            "here: its block is the same for every program along grid tile "
            "'{}', and Mosaic GPU runs those programs at once, each copying "
            "the block back (a race); give the kernel static shapes (--arg), "
            "so that the output is blocked along every grid tile, or use "
            "configs/pallas_gpu_triton.toml",
            ref.name, grid_tile);
      }
    }
    return std::nullopt;
  }

  int64_t MosaicPipelineStages() const {
    return options_.num_stages > 0 ? options_.num_stages : kMosaicDefaultStages;
  }

  // What Pallas's Mosaic GPU lowering (jax 0.10) does not take from this
  // launcher yet: dots other than the wgmma accumulation of an inner tile
  // loop (the loop's form is judged by the device emitter, which knows the
  // streamed blocks), iotas ("Failed to infer the output layout of the
  // iota"; a plgpu.layout_cast to the loads' strided layout fixes a
  // full-shape iota, but not the (n, 1) rows tile.index broadcasts),
  // reductions over some of the axes of a loaded block ("No support for
  // axes yet" for its strided layout), and atomics other than float adds
  // (a TMA reduction into global memory).
  static void ReportMosaicUnsupported(const Module& module,
                                      const Function& device,
                                      DiagnosticEngine& diagnostics) {
    bool reported = false;
    auto report = [&](const Stmt& stmt, const std::string& what) {
      reported = true;
      diagnostics.Error(module.source_file, stmt.loc,
                        "the mosaic launcher of pallas-gpu does not lower " +
                            what + "; use configs/pallas_gpu_triton.toml");
    };
    std::function<void(const Block&, bool)> walk = [&](const Block& block,
                                                       bool in_loop) {
      for (const Stmt& stmt : block.stmts) {
        if (reported) return;
        if (stmt.kind == StmtKind::kAtomic) {
          const std::string* op = GetAttr<std::string>(stmt.attrs, "op");
          const DType dtype = stmt.target->type.dtype;
          if ((op != nullptr && *op != "add") ||
              (dtype != DType::kF32 && dtype != DType::kBF16 &&
               dtype != DType::kF16)) {
            report(stmt,
                   "atomics other than adds into f32, bf16 or f16 yet (they "
                   "are TMA reductions from shared memory into global "
                   "memory)");
            return;
          }
        }
        ForEachRootExpr(stmt, [&](const Expr& root) {
          WalkExpr(root, [&](const Expr& expr) {
            if (reported) return;
            if (expr.op == OpKind::kDot && !in_loop) {
              report(stmt,
                     "dots outside an inner tile loop yet (a dot is "
                     "plgpu.wgmma accumulating into an f32 plgpu.ACC over "
                     "the loop's streamed blocks)");
            } else if (expr.op == OpKind::kLoad &&
                       std::any_of(expr.indices.begin(), expr.indices.end(),
                                   [](const Index& index) {
                                     return index.kind == IndexKind::kNewAxis;
                                   })) {
              report(stmt,
                     "broadcasts of a loaded vector against a block "
                     "(`w[None, :]`) yet (Mosaic GPU's layouts of the "
                     "broadcast vector and of the block do not match: "
                     "\"Incompatible FragmentedArray layouts\")");
            } else if (expr.op == OpKind::kArange) {
              report(stmt,
                     "hl.arange yet (Mosaic GPU gives an iota no register "
                     "layout of its own)");
            } else if (expr.op == OpKind::kTileIndex) {
              report(stmt,
                     "tile.index or hl.rand yet (Mosaic GPU gives an iota "
                     "no register layout of its own and cannot broadcast "
                     "its (n, 1) rows)");
            } else if (IsReduction(expr.op) && !expr.operands.empty() &&
                       expr.type.rank() != 0) {
              report(stmt,
                     "reductions over some axes of a block yet (Mosaic GPU "
                     "reduces a loaded block over all its axes only)");
            }
          });
        });
        const bool inner = stmt.kind == StmtKind::kTileLoop;
        for (const Block& region : stmt.regions) walk(region, in_loop || inner);
      }
    };
    walk(device.body, false);
  }

  static bool IsReduction(OpKind op) {
    return op == OpKind::kSum || op == OpKind::kAmax || op == OpKind::kAmin ||
           op == OpKind::kMean;
  }

  GpuModuleOptions options_;
  std::string source_file_;  // for the located errors raised when traced
  // The launch policy's helpers for call-time dims (triton): named when the
  // names are reserved, written only when a kernel uses them.
  mutable TracedLaunchHelpers traced_helpers_;
  // The module's Mosaic GPU atomic helper: named when the names are
  // reserved, written into the module only when a kernel used it.
  mutable std::string atomic_helper_;
  mutable bool atomic_helper_used_ = false;
  // Its interpret-mode helper (mosaic_launch.h), likewise.
  mutable std::string interpret_helper_;
  mutable bool interpret_helper_used_ = false;
  // Launch(): the plan it last chose for and that choice.
  mutable const KernelPlan* launch_plan_ = nullptr;
  mutable GpuLaunch launch_;
};

}  // namespace

absl::StatusOr<EmittedFile> EmitGpuKernelModule(const Module& module,
                                                const Function& host,
                                                const GpuModuleOptions& options,
                                                DiagnosticEngine& diagnostics) {
  // The kernel's own helion.Config(num_warps=, num_stages=) where the
  // pipeline config leaves them to the policy.
  GpuModuleOptions kernel_options = options;
  for (auto [name, slot] :
       {std::pair{"num_warps", &kernel_options.num_warps},
        std::pair{"num_stages", &kernel_options.num_stages}}) {
    const int64_t* from_kernel = GetAttr<int64_t>(host.attrs, name);
    if (*slot == 0 && from_kernel != nullptr) *slot = *from_kernel;
  }
  const GpuTarget target(kernel_options, module.source_file);
  PallasModuleOptions common;
  common.launcher = options.launcher;
  common.check_legality = options.check_legality;
  if (options.launcher == Launcher::kMosaicGpu) {
    common.emit.pipeline_stages = kernel_options.num_stages;
  }
  common.emit.f32_dots_full_precision = options.f32_dots_ieee;
  common.emit.typed_params = options.typed_params;
  return EmitPallasModule(module, host, target, common, diagnostics);
}

}  // namespace tessera::pallas
