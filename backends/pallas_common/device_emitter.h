// Emits the Pallas kernel function of one outlined kernel: the shared
// lowering of statements and ref accesses, with the inner tile loops left
// to a launcher (launchers/*.cpp).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "buffers.h"
#include "expr_emitter.h"
#include "kernel_plan.h"
#include "python_writer.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

// State shared by everything emitted into one Python module.
struct ModuleState {
  NameTable names;
  // Module-level helpers, emitted only when used (name empty until then).
  std::string mask_fn;
  std::string pad_fn;
  std::string round_up_fn;
  // The target's own module-level helper (PallasTarget::ReserveNames).
  std::string target_fn;
  // The target's helper that sizes on-chip memory when the call's shapes
  // decide a block (PallasTarget::CallParams).
  std::string call_time_memory_fn;
  std::string window_fn;  // jagged tiles: masks outside [lower, limit)
  std::string gather_fn;  // gathers: one dynamic-slice load per row
  std::string GatherRows() {
    if (gather_fn.empty()) gather_fn = names.Fresh("_gather_rows");
    return gather_fn;
  }
  std::string select_fn;  // lane selects: one element per row by data
  std::string SelectLanes() {
    if (select_fn.empty()) select_fn = names.Fresh("_select_lanes");
    return select_fn;
  }
  std::string int32_fn;  // scalar prefetch: narrows indices to int32
  std::string Window() {
    if (window_fn.empty()) window_fn = names.Fresh("_mask_window");
    return window_fn;
  }
  std::string window_mask_fn;  // ... the same window as a boolean mask
  std::string WindowMask() {
    if (window_mask_fn.empty()) window_mask_fn = names.Fresh("_window_mask");
    return window_mask_fn;
  }
  std::string Int32() {
    if (int32_fn.empty()) int32_fn = names.Fresh("_as_int32");
    return int32_fn;
  }
  std::string Mask() {
    if (mask_fn.empty()) mask_fn = names.Fresh("_mask_tail");
    return mask_fn;
  }
  std::string shift_mask_fn;    // shifted tile indices
  std::string shift_window_fn;  // ... on a dim sliced only aligned
  std::string ShiftWindow() {
    if (shift_window_fn.empty())
      shift_window_fn = names.Fresh("_shifted_window");
    return shift_window_fn;
  }
  // Stores through aligned windows (PlaceShiftedStore).
  std::string shift_place_fn;
  std::string shift_place_mask_fn;
  std::string ShiftPlace() {
    if (shift_place_fn.empty()) shift_place_fn = names.Fresh("_place_shifted");
    return shift_place_fn;
  }
  std::string ShiftPlaceMask() {
    if (shift_place_mask_fn.empty())
      shift_place_mask_fn = names.Fresh("_mask_placed");
    return shift_place_mask_fn;
  }
  std::string ShiftMask() {
    if (shift_mask_fn.empty()) shift_mask_fn = names.Fresh("_mask_shifted");
    return shift_mask_fn;
  }
  std::string scan_fn;  // scans of a block (pallas-tpu: rotations)
  std::string ScanBlock() {
    if (scan_fn.empty()) scan_fn = names.Fresh("_scan_block");
    return scan_fn;
  }
  std::string Pad() {
    if (pad_fn.empty()) pad_fn = names.Fresh("_pad_to_multiple");
    return pad_fn;
  }
  std::string RoundUp() {
    if (round_up_fn.empty()) round_up_fn = names.Fresh("_round_up");
    return round_up_fn;
  }
};

struct EmitOptions {
  bool prefetch = true;
  // How many blocks a streamed pipeline keeps in flight (Mosaic GPU's
  // max_concurrent_steps); 0: the target's default.
  int64_t pipeline_stages = 0;
  // f32 dots at full f32 precision (Precision.HIGHEST) where the target's
  // default is lower (Pallas Triton: TF32).
  bool f32_dots_full_precision = false;
  // Parameters whose types the compile was given (`--arg`, the runtime's
  // call), by kernel name ("*": every kernel): the host function guards
  // their dtypes, ranks and static dims. What the frontend guessed without
  // facts (f32, a rank read from the indexing) is not what the kernel was
  // specialized for, so it is not guarded.
  std::map<std::string, std::set<std::string>> typed_params;
};

// What the host side tells the device emitter before it runs.
struct HostBindings {
  // Device scalar / shape symbol -> host Python expression of its value.
  std::map<std::string, std::string> symbol_values;
  // Device ref param -> host Python expression of the (padded) array.
  std::map<std::string, std::string> ref_arrays;
  // Device output refs whose initial contents matter (aliased inputs).
  std::set<std::string> outputs_with_init;
  // Grid dim (IR order) -> host expressions of begin and end.
  std::vector<std::string> grid_begin;
  std::vector<std::string> grid_end;
};

// A keyword argument of the kernel, bound with functools.partial.
struct KernelKwarg {
  std::string name;        // in the kernel
  std::string host_value;  // host Python expression
};

// `indices` with the one at `position` read at the variable `var`: a
// scalar index, or with `one_row` a range of one row starting there; with
// `whole` also the index at that position read whole (`:`). How gathers and
// scatters address their ref at an index row or vector
// (device_gather.cpp).
IndexList IndicesAtVar(const IndexList& indices, size_t position,
                       const std::string& var, const Type& type, bool one_row,
                       std::optional<size_t> whole = std::nullopt);

// How the kernel reads a streamed ref inside the current loop body.
struct StreamBinding {
  std::string load;   // value of the whole block, e.g. "x_block[...]"
  std::string store;  // assignable target, e.g. "out_block[...]"
};

class DeviceEmitter : public ExprEmitter {
 public:
  DeviceEmitter(const Module& module, const KernelPlan& plan,
                ModuleState& state, const HostBindings& host,
                const EmitOptions& options, DiagnosticEngine& diagnostics);
  ~DeviceEmitter() override = default;

  // Emits `def <kernel_fn>(...)`; false after reporting an error.
  bool EmitKernel(PyLines& out);

  const std::string& kernel_fn() const { return kernel_fn_; }
  // Kernel parameters in order: inputs, aliased initial values, outputs.
  const std::vector<const RefPlan*>& inputs() const { return inputs_; }
  const std::vector<const RefPlan*>& init_refs() const { return init_refs_; }
  const std::vector<const RefPlan*>& outputs() const { return outputs_; }
  const std::vector<KernelKwarg>& kwargs() const { return kwargs_; }
  // The kernel function's positional parameters: inputs, aliased initial
  // values, outputs, scratch (set by EmitKernel).
  const std::vector<std::string>& kernel_params() const {
    return kernel_params_;
  }
  // Host-side Python expressions of the scratch_shapes entries.
  const std::vector<std::string>& scratch_shapes() const {
    return scratch_shapes_;
  }
  const std::vector<VmemBuffer>& vmem_buffers() const { return vmem_; }

 protected:
  // --- Launcher hook ---
  virtual bool EmitInnerLoop(const Stmt& loop, PyLines& out) = 0;
  // True when the target stores into the elements of a block where a mask
  // holds (MaskedStore); false: a jagged store writes its whole block back,
  // the rows outside its window as read. That is a race where programs run
  // at once and their blocks overlap (seen on an H200: a jagged softmax's
  // rows zeroed by the neighbouring segment's write-back).
  virtual bool HasMaskedStores() const { return false; }
  // A store of `value` into the elements of `ref_at` (`ref.at[...]`) where
  // `mask` holds; called only when HasMaskedStores.
  virtual std::string MaskedStore(const std::string& /*ref_at*/,
                                  const std::string& /*value*/,
                                  const std::string& /*mask*/) const {
    return "";
  }
  // The index of this program along grid axis `axis` (the tile
  // `grid_tile`'s): pl.program_id under pl.pallas_call.
  virtual std::string ProgramIndex(int axis,
                                   const std::string& grid_tile) const;

  // --- Shared pieces launchers use ---
  struct TileRuntime {
    std::string index;  // block index relative to the loop's begin
    std::string begin;  // absolute begin
    std::string end;    // exclusive limit (the loop's end)
    std::string lower;  // jagged tiles: the first valid index (loop begin)
  };
  struct LoopBounds {
    std::string begin;
    std::string end;
    std::string trip;  // number of iterations
    bool static_trip = false;
    std::string parent;  // nested form: the tile the loop subdivides
    std::string lower;   // jagged: the loop's own begin (blocks start below)
  };
  LoopBounds Bounds(const Stmt& loop);
  // Jagged tiles (jagged_tiles.cpp): bounds from memory, blocks aligned
  // below the begin, a fori_loop in every launcher (their refs stay whole
  // in VMEM), masks on both sides of the valid rows.
  LoopBounds JaggedBounds(const Stmt& loop, const TileInfo& tile);
  bool IsJagged(const Stmt& loop) const;
  bool EmitJaggedLoop(const Stmt& loop, PyLines& out);
  std::string MaskJagged(const std::string& value, int64_t axis,
                         const TileInfo& tile, const std::string& fill);
  // The jagged tile `index` indexes by, when its loop is running here;
  // nullptr otherwise.
  const TileInfo* RunningJaggedTile(const Index& index) const;
  // A store whose indices include a jagged tile keeps the rows outside its
  // valid window (they belong to neighbouring segments).
  std::string MaskJaggedStore(const Stmt& stmt, const std::string& target,
                              const std::string& value);
  // Under a target with masked stores (MaskedStore), a store into a jagged
  // block writes the rows of its window only: `target` (`ref[...]`) as
  // `ref.at[...]`, the value named first, the mask of every jagged dim.
  bool StoresJaggedBlockMasked(const Stmt& stmt,
                               const std::string& target) const;
  bool EmitMaskedJaggedStore(const Stmt& stmt, const std::string& target,
                             const std::string& value, PyLines& out);
  std::string StoredValue(const Stmt& stmt);
  // Makes `tile` active with the given block-index expression.
  void EnterTile(const Stmt& loop, const std::string& index);
  void ExitTile(const Stmt& loop);
  // Absolute block index of `tile` in units of its block; `loop_override`
  // replaces the index of that loop's tile (used inside index maps).
  std::string AbsBlockIndex(const std::string& tile,
                            const std::string& loop_tile = "",
                            const std::string& loop_index = "");
  std::string TileBegin(const std::string& tile);
  std::string TileLimit(const std::string& tile);
  std::string GridIndex(const std::string& grid_tile);
  // The kernel-level local `name = value` (defined once, at the top).
  std::string KernelLocal(const std::string& base, const std::string& value);
  // A new scratch parameter; returns its name.
  std::string AddScratch(const std::string& base, const std::string& shape,
                         VmemBuffer vmem);
  std::string HostShape(const Shape& dims);
  std::string Fresh(const std::string& base) {
    return state_.names.Fresh(base);
  }
  int64_t StaticBytes(const std::vector<int64_t>& shape, DType dtype);
  void AddVmem(VmemBuffer buffer) { vmem_.push_back(std::move(buffer)); }

  // Statements.
  bool EmitBlock(const Block& block, PyLines& out);
  bool EmitStmt(const Stmt& stmt, PyLines& out);
  // `# src: line N` when the line changed.
  void SourceComment(const Stmt& stmt, PyLines& out);
  void ResetSourceLine() { last_line_ = 0; }
  uint32_t last_line() const { return last_line_; }
  void SetSourceLine(uint32_t line) { last_line_ = line; }
  bool Used(const std::string& name) const;
  void SetOrigins(const std::string& name, std::vector<std::string> origins);
  std::vector<std::string> Origins(const Expr& expr);
  // Origins of a value flowing out of `loop` (the loop's tile dropped).
  std::vector<std::string> LoopResultOrigins(const Stmt& loop,
                                             const Expr& yielded);
  bool Error(SourceLoc loc, std::string message);
  // Emits a body, assigning yielded values with `on_yield`.
  using YieldFn = std::function<void(const Stmt&, PyLines&)>;
  bool EmitBody(const Block& body, PyLines& out, YieldFn on_yield);
  // "a, b = x, y" / "a = x".
  static std::string TupleAssign(const std::vector<std::string>& targets,
                                 const std::vector<std::string>& values);

  // Python function scopes (kernel, loop bodies) for prelude lines.
  struct Scope {
    PyLines prelude;
    std::set<std::string> defined;
  };
  Scope& CurrentScope() { return *scopes_.back(); }
  void PushScope(Scope* scope) { scopes_.push_back(scope); }
  void PopScope() { scopes_.pop_back(); }

  // --- What every launcher shares around an inner loop (inner_loop.cpp);
  // launchers differ only in where the body goes and how it is called ---
  // The loop's iter_args as Python names and their initial values, emitted
  // (with their origins recorded).
  struct LoopCarry {
    std::vector<std::string> names;
    std::vector<std::string> inits;
  };
  LoopCarry EmitLoopInits(const Stmt& loop);
  // Where a launcher puts an inner loop's body: inline in the enclosing
  // code (a Python `for`), or in a Python function of its own (a fresh
  // scope for its prelude, `# src:` comments restarted).
  enum class BodyPlacement { kInline, kOwnFunction };
  struct InnerLoopBody {
    PyLines lines;
    Scope scope;  // kOwnFunction: the function's own prelude
    // Per yielded value: where it came from (see LoopResultOrigins).
    std::vector<std::vector<std::string>> result_origins;
  };
  using YieldValuesFn =
      std::function<void(const std::vector<std::string>& values, PyLines&)>;
  // Emits the body of `loop` with its tile bound to `index`: `head` writes
  // the lines that come first (carried values read back, DMA waits), then
  // the statements, with the yield's values emitted and handed to
  // `on_yield`. Afterwards the tile, the stream bindings of `streamed`, the
  // scope and the source-line marker are as before.
  bool EmitInnerLoopBody(const Stmt& loop, const std::string& index,
                         BodyPlacement placement,
                         const std::vector<const RefPlan*>& streamed,
                         const std::function<void(PyLines&)>& head,
                         const YieldValuesFn& on_yield, InnerLoopBody& body);
  // Writes a kOwnFunction body as `def _<tile>_body(index, carry_param):`
  // between blank lines; returns the function's name.
  std::string EmitBodyFunction(const std::string& tile,
                               const std::string& index,
                               const std::string& carry_param,
                               const InnerLoopBody& body, PyLines& out);
  // Records, for each result of `loop`, where its yielded value came from.
  void SetLoopResultOrigins(const Stmt& loop, const InnerLoopBody& body);

  // Block-index shape of a streamed ref inside its loop, as Python.
  std::string StreamBlockTuple(const RefPlan& ref, bool host_side);
  // A load as the shared emitter spells it (`x[...]`, `x[pl.ds(...), :]`);
  // a launcher may wrap it (Mosaic GPU: a register layout for the load).
  std::string Load(const Expr& expr) override;
  // Per-dim index expressions of the streamed block (index map body).
  std::vector<std::string> StreamIndexMap(const RefPlan& ref,
                                          const std::string& loop_tile,
                                          const std::string& loop_index);
  // Per-dim `pl.ds(...)`/`:` slices of the streamed block in the HBM ref.
  std::vector<std::string> StreamSlices(const RefPlan& ref,
                                        const std::string& loop_tile,
                                        const std::string& loop_index);

  const Module& module_;
  const KernelPlan& plan_;
  ModuleState& state_;
  const HostBindings& host_;
  const EmitOptions& options_;
  DiagnosticEngine& diagnostics_;
  std::map<std::string, StreamBinding> streams_;

 private:
  std::string Var(const Expr& expr) override;
  std::string DimSymbol(const std::string& symbol) override;
  std::string TileOp(const Expr& expr) override;
  std::string DeviceOp(const Expr& expr) override;
  std::string Size(const Expr& expr) override;
  int64_t EmittedDimSize(int64_t size) const override;
  std::string EmittedDimSymbol(const std::string& symbol) override;
  std::optional<std::string> PaddedDimSize(const Expr& value,
                                           int64_t axis) override;
  std::string ReductionInput(const Expr& input, int64_t axis,
                             std::string_view fill) override;
  std::string DotOperand(const Expr& operand, int64_t axis) override;

  std::string RefAccess(const std::string& ref, const IndexList& indices,
                        bool write);
  // A store into a static window the target rounds up (a 500-wide slice of
  // a Triton kernel holds a 512-wide value): the rounded window, masked to
  // the true width, where the ref's block has room for it
  // (device_stores.cpp). Whether it was emitted; nullopt: not such a store.
  std::optional<bool> EmitRoundedWindowStore(const Stmt& stmt,
                                             const std::string& value,
                                             PyLines& out);
  // The target's atomic `kind` of `value` into `access` (a RefAccess).
  std::string AtomicAt(std::string_view kind, const std::string& access,
                       const std::string& value) const;
  // A load that selects rows by an index tensor (device_gather.cpp).
  std::string GatherLoad(const Expr& load, size_t gather_position);
  // The same as one load at the index vector (IndirectAccessByLoads).
  std::string IndexedGatherLoad(const Expr& load, size_t gather_position);
  // x[tile.index, lanes]: a compare of the row block with a lane iota.
  std::string LaneSelectLoad(const Expr& load);
  // A store (`atomic` empty) or an atomic ("add", "max", "min") at rows
  // taken from an index tensor, a scatter (device_scatter.cpp): one
  // dynamic-slice write per row, in row order.
  bool EmitScatter(const Stmt& stmt, const std::string& atomic, PyLines& out);
  // EmitScatter on a target that stores at a vector of indices: one masked
  // store or atomic (`count`: the rows written, `last`: the largest row).
  bool IndexedScatter(const Stmt& stmt, const std::string& atomic,
                      size_t position, const std::string& value,
                      const std::string& count, const std::string& last,
                      PyLines& out);
  // The gather index's element `row` as a scalar expression; nullopt after
  // a Fail().
  std::optional<std::string> GatherIndexRow(const Expr& index,
                                            const std::string& row, int depth);
  // Shifted tile indices (device_shifted.cpp). The lanes of a shifted
  // index that fall outside its tile or outside the dim are masked: loads
  // read 0 there, stores keep what the ref holds.
  struct ShiftMask {
    size_t axis = 0;  // in the accessed region (scalar dims dropped)
    std::string lanes, start, size;
    // A window load (SpecDim::shift_align > 1): the offset of the shifted
    // tile's first element in the aligned window, and the tile's block.
    std::string window_delta;
    int64_t block = 0;
    // A jagged tile (loop bounds read from memory): also masked outside
    // its [lower, end) (MaskJagged).
    const TileInfo* jagged = nullptr;
  };
  // `pl.ds(...)` of a kShiftedTile index along `dim`; records its mask.
  std::string ShiftedSlice(const Index& index, const RefPlan* ref, size_t dim,
                           size_t axis);
  // The start of any other index along a dim padded below 0 (pad_low).
  std::string PadLowStart(const RefPlan* ref, size_t dim, std::string start);
  std::string DimExtent(const RefPlan* ref, size_t dim);
  std::string ApplyShiftMasks(std::string value, const std::string& fill);
  // A store's value, put into the aligned windows of its shifted indices.
  std::string PlaceShiftedStore(std::string value, const std::string& window);
  bool HasShiftWindow() const;
  // A store's value under the shift masks of its target (`ref[...]`): the
  // window form names the aligned window it reads back first.
  std::string MaskShiftedStore(const std::string& ref,
                               const std::string& target,
                               const std::string& value, PyLines& out);
  std::vector<ShiftMask> shift_masks_;  // of the last RefAccess
  std::string MaskIfRagged(const Expr& value, int64_t axis,
                           std::string_view fill);
  // Where the valid part of dim `axis` of `value` lies when its tail may
  // be padding (a ragged tile, a whole dim rounded up): Python expressions
  // of its begin and limit in the dim's coordinates; `jagged` instead for
  // a jagged tile (MaskJagged). nullopt when every element is valid.
  struct RaggedBounds {
    std::string begin, limit;
    const TileInfo* jagged = nullptr;
  };
  std::optional<RaggedBounds> RaggedBoundsOf(const Expr& value, int64_t axis);
  // A scan of blocks (device_scan.cpp), through the target's ScanExpr.
  std::string Scan(const Expr& expr) override;
  std::string Kwarg(const std::string& name, const std::string& host_value);
  bool EmitAssign(const Stmt& stmt, PyLines& out);
  bool EmitStore(const Stmt& stmt, PyLines& out);
  bool EmitAtomic(const Stmt& stmt, PyLines& out);
  bool EmitRangeLoop(const Stmt& stmt, PyLines& out);
  // A range loop whose bounds are traced values (an inner hl.grid over a
  // count read from memory): jax.lax.fori_loop (data_range_loop.cpp).
  bool EmitDataRangeLoop(const Stmt& stmt, const std::string& begin,
                         const std::string& end, const std::string& step,
                         const std::vector<std::string>& args,
                         const std::vector<std::string>& inits, PyLines& out);
  bool EmitIf(const Stmt& stmt, PyLines& out);
  // An `if` without results on a traced condition: pl.when functions.
  bool EmitWhen(const Stmt& stmt, const std::string& cond, PyLines& out);
  bool EmitCond(const Stmt& stmt, const std::string& cond, PyLines& out);
  // True when `expr` is a Python value at trace time (constants, kernel
  // kwargs and arithmetic on them).
  bool IsTraceTimeConstant(const Expr& expr) const;
  void EmitOutputInits(PyLines& out);
  bool FlushExprErrors(SourceLoc loc);

  std::string kernel_fn_;
  std::vector<const RefPlan*> inputs_;
  std::vector<const RefPlan*> init_refs_;
  std::vector<const RefPlan*> outputs_;
  std::map<std::string, std::string> init_ref_names_;
  std::vector<KernelKwarg> kwargs_;
  std::vector<std::string> kernel_params_;
  std::set<std::string> kwarg_names_;
  std::vector<std::string> scratch_names_;
  std::vector<std::string> scratch_shapes_;
  std::vector<VmemBuffer> vmem_;
  std::map<std::string, std::string> value_aliases_;  // scratch refs
  std::map<std::string, std::vector<std::string>> origins_;
  std::map<std::string, TileRuntime> runtime_;
  std::map<std::string, LoopBounds> jagged_bounds_;  // loops being emitted
  // Values that are plain loads (their ragged tails are host zero padding).
  std::set<std::string> loaded_values_;
  std::map<std::string, std::string> grid_kwargs_;
  std::vector<YieldFn> yield_stack_;
  std::vector<Scope*> scopes_;
  Scope kernel_scope_;
  uint32_t last_line_ = 0;
  size_t reported_errors_ = 0;
};

}  // namespace tessera::pallas
