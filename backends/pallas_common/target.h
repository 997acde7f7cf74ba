// What a Pallas target (pallas-tpu, pallas-gpu) decides where the shared
// plan and emitters meet the hardware: which blocks are legal, how inner
// loops are lowered (the launcher's DeviceEmitter), how atomics and scratch
// are spelled, and the target-specific lines of the host function and the
// module. Everything else (kernel plan, device body, host function, padding)
// is the same code for every target.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buffers.h"
#include "tessera/cost_estimate.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

class DeviceEmitter;
class PyLines;
struct EmitOptions;
struct HostBindings;
struct KernelPlan;
struct LaunchCall;
struct ModuleState;
struct RefPlan;

// The cost model's estimate of the emitted pallas_call (the numbers of its
// pl.CostEstimate), or why there is none (e.g. symbolic shapes).
struct KernelCost {
  std::optional<KernelEstimate> estimate;
  std::string problem;
};

class PallasTarget {
 public:
  virtual ~PallasTarget() = default;

  // "pallas-tpu": the generated module's header names it.
  virtual std::string_view backend_name() const = 0;
  // "TPU": errors say a block is not "<hardware>-legal".
  virtual std::string_view hardware_name() const = 0;

  // --- The kernel plan ---
  // nullopt when a ref's outer block is legal for the target.
  virtual std::optional<std::string> CheckBlock(std::span<const BlockDim> block,
                                                DType dtype) const = 0;
  // Why slicing the whole array inside the kernel (the fallback for an
  // illegal block) would not compile either; nullopt when it would.
  virtual std::optional<std::string> UnalignedSlices(
      const RefPlan& ref) const = 0;
  // The size a block of `size` elements takes in the kernel: a tile's block
  // or a whole static dim (pallas-gpu: the next power of two, Triton's
  // tensors being powers of two; the tail is zero-padded on the host and
  // masked where reductions and contractions read it). The IR keeps the
  // true sizes; the device emitter writes shapes through this.
  virtual int64_t KernelBlockSize(int64_t size) const { return size; }
  // The same for a size known when the host function is traced (a Python
  // int expression: "pl.next_power_of_2(x_d1)"); `size` when unchanged.
  virtual std::string KernelBlockSizeText(const std::string& size) const {
    return size;
  }
  // The alignment (elements) a dynamic slice of `ref` along `dim` must
  // start at; 1: any element. A shifted tile index (`tile.begin + offset`)
  // along a dim with alignment A > 1 loads an aligned window of block + A
  // elements and rotates its first element into place (ShiftWindow).
  virtual int64_t ShiftAlignment(const RefPlan& ref, size_t dim) const = 0;
  // True: every blocked dim is zero-padded to whole blocks, also where the
  // grid alone picks the block (no partial edge blocks).
  virtual bool PadEdgeBlocks() const { return false; }
  // True: `hl.atomic_*` are the hardware's atomics on the output in memory
  // (no resident block initialised on its first visit).
  virtual bool NativeAtomics() const { return false; }
  // True: an output ref is the output array in memory (Triton's pointers),
  // so an output aliased to its initial values holds them from the start;
  // false: its block is an on-chip copy that starts undefined (TPU VMEM,
  // Mosaic GPU SMEM) and is initialised from the aliased input.
  virtual bool OutputsInMemory(const KernelPlan&) const { return false; }
  // True: atomic targets stay in memory, unblocked (every dim whole in the
  // plan, so the kernel indexes them with absolute slices); Mosaic GPU's
  // atomics are TMA reductions from shared memory into a GMEM ref.
  virtual bool AtomicTargetsInMemory(const KernelPlan&) const { return false; }
  // The outer BlockSpec of a ref that stays in memory (streamed by an
  // inner loop's pipeline, or an in-memory atomic target).
  virtual std::string InMemorySpec() const {
    return "pl.BlockSpec(memory_space=pl.ANY)";
  }

  // --- Data-dependent access (indirect_plan.h) ---
  // The grid spec that passes refs read one element at a time to the
  // kernel in scalar memory before the grid runs
  // ("pltpu.PrefetchScalarGridSpec"); nullopt: the target has none, and
  // kernels with such refs or with loops bounded by them are errors.
  virtual std::optional<std::string> ScalarPrefetchGridSpec() const {
    return std::nullopt;
  }
  // True: data-dependent access is plain loads from ordinary operands
  // (Pallas Triton: pointer arithmetic on global memory, no SMEM): a scalar
  // read is `ref[i]`, a gather one load at a vector of indices
  // (`table[rows, cols]`, the indices a block like any other), a loop bound
  // a traced value of jax.lax.fori_loop, and a jagged block starts at any
  // row. False: scalar prefetch, row-by-row gathers, aligned jagged blocks.
  virtual bool IndirectAccessByLoads() const { return false; }
  // The located error for data-dependent access on a target without either
  // form: what does not support it (the backend, or one of its launchers),
  // and where to go instead ("; use ...", appended).
  virtual std::string IndirectAccessUnsupportedBy() const {
    return std::string(backend_name());
  }
  virtual std::string IndirectAccessAlternative() const { return ""; }
  // Why rows of `dtype` cannot be gathered (one dynamic-slice load per row
  // from a block kept whole along the gathered dim); nullopt when they can.
  virtual std::optional<std::string> GatherRowsProblem(DType dtype) const;

  // --- The device kernel ---
  virtual std::unique_ptr<DeviceEmitter> MakeDeviceEmitter(
      const Module& module, const KernelPlan& plan, ModuleState& state,
      const HostBindings& host, const EmitOptions& options,
      DiagnosticEngine& diagnostics) const = 0;
  // The scratch_shapes entry of an on-chip buffer, or nullopt when the
  // target has no scratch operands.
  virtual std::optional<std::string> ScratchShape(
      const std::string& shape, const std::string& dtype) const = 0;
  // One atomic update statement: `ref[index] = combined` on targets whose
  // atomics are read-modify-writes of a resident block.
  virtual std::string AtomicUpdate(std::string_view kind,
                                   const std::string& ref,
                                   const std::string& index,
                                   const std::string& value) const;

  // A scatter store on a target that stores at a vector of indices
  // (IndirectAccessByLoads): the statement writing `scatter.values` to
  // `ref[index]`, whose item `scatter.rows` is the (clamped) index vector,
  // the rows where the vector `scatter.keep` is false left alone;
  // nullopt when the target has no such store.
  struct IndexedScatter {
    std::string ref, index, rows, values, keep;
    size_t rank = 0;  // of the values
  };
  virtual std::optional<std::string> ScatterStatement(
      const IndexedScatter&) const {
    return std::nullopt;
  }

  // --- Scans (IR `scan`, docs/ir.md) ---
  // One scan of a block, as the device emitter sees it: the members'
  // Python expressions and dtypes, the combine function as a lambda
  // (ExprEmitter::CombineLambda), and, for a reverse scan whose dim may
  // end in padding, the number of valid elements (else empty).
  struct ScanCall {
    std::vector<std::string> inputs;
    std::vector<DType> dtypes;
    size_t rank = 0;
    std::string combine;
    int64_t axis = 0;
    bool reverse = false;
    int64_t result = 0;  // the member the expression gives
    std::string valid;
    // The combine is an add of one member's two elements (a cumsum).
    bool is_sum = false;
  };
  // The Python expression of `call`'s result, or an error text (set
  // `error`) naming why the target cannot scan it.
  virtual std::string ScanExpr(ModuleState& state, const ScanCall& call,
                               std::string& error) const;

  // --- The host function and the module ---
  // Called once the IR names are registered: reserves the names of the
  // target's own helpers in `state`.
  virtual void ReserveNames(ModuleState&) const {}
  // Keyword parameters after `interpret=False` (", tpu=\"v6e\"").
  virtual std::string HostKeywords() const { return ""; }
  // The `with ...:` line the host body runs in; empty for none.
  virtual std::string HostContext(const ModuleState&) const { return ""; }
  // The pallas_call's keyword lines after its operands' specs
  // (compiler_params, cost_estimate), given the on-chip buffers the kernel
  // uses; an error text when they do not fit. Fills `cost` when the target
  // has a cost model (`host`: the host's names for the kernel's sizes). A
  // module-level helper the lines call is named in `state`.
  virtual std::optional<std::string> CallParams(
      const KernelPlan& plan, const HostBindings& host,
      const std::vector<VmemBuffer>& buffers, ModuleState& state, PyLines& out,
      KernelCost& cost) const = 0;
  // Writes the host function's kernel launch: `pl.pallas_call` unless the
  // target's kernels have another entry point.
  virtual void WriteLaunch(const LaunchCall& call, ModuleState& state,
                           PyLines& out) const;
  // Module-level helper functions (Python source, each preceded by two
  // blank lines), the tail helpers included.
  virtual std::string ModuleHelpers(const ModuleState& state) const;
  // Extra imports: (alias, import line) for each alias the code may use.
  virtual std::vector<std::pair<std::string, std::string>> Imports() const {
    return {};
  }
  // "launcher unroll, tpu v6e": the header's description of the options.
  virtual std::string HeaderDetails(const KernelPlan& plan) const = 0;
};

}  // namespace tessera::pallas
