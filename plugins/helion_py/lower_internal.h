// Internals of the lowering from the kernel AST to structured Tessera IR,
// shared by lower_kernel.cpp (kernels, statements, loops), lower_expr.cpp
// (operators, indexing, stores) and lower_calls.cpp (torch / hl / math
// functions and tensor methods).
//
// A Python value during lowering is a `Val`: a compile-time constant (int,
// float, bool, string, dtype, module path, tuple), a tile of an hl.tile
// loop, or an IR expression with its type (`kValue`). Sizes are IR values of
// type i64 that are either static ints or names of shape symbols; they are
// aliases (`is_dim`) and never copied into new IR names, so that types keep
// referring to the symbols the parameters bind.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ast.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/pipeline_info.h"

namespace tessera::helion_py {

// Default block size of a tile dim that indexes one of the last two dims
// of a ref (and of one that indexes none); TPU blocks are (8, 128) aligned.
inline constexpr int64_t kMinorBlock = 128;
// Default block size of a tile dim used only on leading (batch-like) dims.
inline constexpr int64_t kMajorBlock = 1;
// The sublane granule of the TPU's (8, 128) tiling (32-bit types).
inline constexpr int64_t kSublaneBlock = 8;
// The default block of a tile dim from its tile_usage_ bits, and of each.
int64_t DefaultBlockFor(int usage);
std::vector<int64_t> DefaultBlocksFor(const std::vector<int>& usage);

enum class ValKind : uint8_t {
  kPoison,  // an error was already reported; suppresses follow-up errors
  kNone,
  kInt,
  kFloat,
  kBool,
  kString,
  kDType,
  kModule,  // a dotted path such as "torch.nn.functional" or "torch.exp"
  kValue,   // an IR expression (scalar, tensor or ref)
  kTile,    // a tile of an hl.tile loop
  kTuple,   // tuples and lists (sizes, shapes, tiles, results)
  kMethod,  // a bound method: elems[0] is self, text the method name
  kEllipsis,
  kSlice,     // an index `lo:hi`; elems: lower, upper (kNone when absent)
  kCallable,  // a lambda known at compile time: `callable` is its node
  // An int Helion derives from shapes at call time (next_power_of_2 of a
  // symbolic size): usable only where Tessera may choose, as a block size.
  kCallTimeInt,
};

struct TileVal {
  std::string name;  // IR name of the tile variable
  int64_t block = 0;
  int ordinal = 0;         // position among all tile dims, in lowering order
  bool zero_based = true;  // the loop starts at 0 (tile.id is begin // block)
  // The rows tile of an hl.jagged_tile: one row per grid step, so that the
  // row's offsets are scalars (lower_jagged_rows.cpp).
  bool jagged_rows = false;
  // An hl.jagged_tile over `ends - starts` runs over absolute rows
  // [start, end); its Helion index counts from 0: the IR scalar holding
  // start, subtracted from tile.index / begin / end. Empty otherwise.
  std::string index_origin;
};

struct Val {
  ValKind kind = ValKind::kPoison;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  DType dtype = DType::kF32;
  std::string text;  // string value, module path or method name
  ExprPtr expr;      // kValue
  bool is_dim = false;
  TileVal tile;
  std::vector<Val> elems;
  bool is_list = false;
  const Node* callable = nullptr;  // kCallable: the kLambda node
  // kCallable: a module-level function of the file (ParsedFile::functions),
  // inlined as the combine function of a scan; `callable` is then null.
  const KernelDef* function = nullptr;

  const Type& type() const { return expr->type; }
  bool IsNumber() const {
    return kind == ValKind::kInt || kind == ValKind::kFloat ||
           kind == ValKind::kBool;
  }
  bool IsValue() const { return kind == ValKind::kValue; }
  bool IsRef() const { return IsValue() && expr->type.is_ref(); }
  bool IsTensor() const { return IsValue() && expr->type.is_tensor(); }
  bool IsScalar() const { return IsValue() && expr->type.is_scalar(); }
  double AsDouble() const {
    return kind == ValKind::kFloat ? f : kind == ValKind::kBool ? b : double(i);
  }

  Val Clone() const;
  static Val Poison() { return Val{}; }
  static Val None();
  static Val Int(int64_t v);
  static Val Float(double v);
  static Val Bool(bool v);
  static Val String(std::string v);
  static Val DTypeOf(DType d);
  static Val Module(std::string path);
  static Val Value(ExprPtr e, bool is_dim = false);
  static Val Tuple(std::vector<Val> elems, bool is_list = false);
};

// A flat element access read as a block of rows (lower_jagged_rows.cpp):
// base[tile_k, tile_m], the index's other axes of size 1.
struct JaggedRowsAccess {
  ExprPtr base;  // null after an error was reported
  IndexList indices;
  size_t rank = 0;
  size_t row_axis = 0;
  size_t lane_axis = 0;
};

// `starts[:, None] + tile.index[None, :]` indexing a rank-1 ref
// (lower_jagged_rows.cpp): the shifted tile index tile.index + start, and
// the index's axis that the tile runs along.
struct JaggedShift {
  ExprPtr index;
  int tile_ordinal = 0;
  size_t rank = 0;
  size_t axis = 0;
};

// One call's evaluated arguments.
struct CallArgs {
  std::vector<Val> positional;
  std::vector<SourceLoc> positional_locs;
  std::vector<std::pair<std::string, Val>> keywords;
  std::vector<SourceLoc> keyword_locs;
  SourceLoc loc;  // the whole call

  // Argument `index` or keyword `name`; nullptr when absent.
  const Val* Get(size_t index, std::string_view name) const;
  SourceLoc LocOf(size_t index, std::string_view name) const;
};

// The callee of one call, split once so each family of functions can match
// on it without recomputing: `torch.nn.functional.gelu` has module
// `torch.nn.functional` and name `gelu`.
struct CallSite {
  const std::string& path;
  std::string module;
  std::string name;
};

// Kernel arguments whose elements are used as indices or loop bounds
// (lower_indirect.cpp): int32 when no type is given.
std::set<std::string> IndexTensorParams(const KernelDef& kernel);

class KernelLowering {
 public:
  KernelLowering(const KernelDef& kernel, const ParsedFile& file,
                 const std::string& path, const PipelineInfo& pipeline,
                 DiagnosticEngine& diagnostics);

  // Lowers the kernel; nullopt when errors were reported.
  std::optional<Function> Run();
  // How many times Run() lowered the whole body: 1 when the first pass's
  // starting point (lower_first_pass.cpp) was right.
  int full_passes() const { return full_passes_; }
  // Caps the block of every tile dim whose block is a default (no
  // block_size=, helion.Config or config block_sizes); 0: no cap.
  void CapDefaultBlocks(int64_t cap) { default_block_cap_ = cap; }
  // Block sizes from the pipeline must give one size per block dim (the
  // frontend option `exact_block_sizes`): a shorter list would leave some
  // at their defaults, a longer one would be cut, both without a word.
  void RequireExactBlockSizes() { exact_block_sizes_ = true; }
  // True when the last lowering gave some tile dim a default block larger
  // than `cap`.
  bool DefaultBlockAbove(int64_t cap) const;

  // ---- shared by the implementation files --------------------------------
  // Reports an error (unless evaluating quietly) and returns a poison value.
  Val Fail(SourceLoc loc, std::string message);
  Diagnostic* Report(SourceLoc loc, std::string message);
  void Note(Diagnostic* diagnostic, std::string message);

  Val Eval(const Node& node);
  Val EvalAttribute(Val base, const std::string& name, SourceLoc loc);
  Val Call(Val callee, CallArgs args);
  // Inlines a compile-time callable: binds its parameters, evaluates its body.
  Val CallLambda(const Node& lambda, CallArgs& args);
  Val CallFunction(const std::string& path, CallArgs& args);
  Val CallMethod(Val self, const std::string& name, CallArgs& args);
  // `tile.index` of a tile value.
  Val TileIndexOf(const Val& tile, SourceLoc loc);
  Val Binary(BinaryOp op, Val lhs, Val rhs, SourceLoc loc);
  Val CompareVals(CompareOp op, Val lhs, Val rhs, SourceLoc loc);
  Val Subscript(const Node& node);

  // Reports a tensor ref used directly as an operand (it must be indexed
  // with tiles first); true when `value` was one.
  bool ReportRefOperand(const Val& value, SourceLoc loc);
  // The typed binary `op` of two values, each converted with the other's
  // type as its peer so that a Python number takes the tensor's dtype;
  // poison when either side cannot be an operand.
  Val MakeBinaryOp(OpKind op, Val lhs, Val rhs, SourceLoc loc);
  // Makes `value` something an operator can compute with (a host ref after
  // the kernel is loaded whole); false after reporting why it cannot be.
  bool Computable(Val& value, SourceLoc loc);
  // Builds an op and types it with InferType; reports a mismatch at `loc`.
  Val MakeTyped(OpKind op, ExprList operands, AttrList attrs, SourceLoc loc,
                IndexList indices = {});
  // An IR expression for a value: Python numbers become consts typed to
  // match `peer` (PyTorch promotion), dims and scalars pass through.
  ExprPtr ToExpr(const Val& value, const Type* peer, SourceLoc loc);
  ExprPtr ToIndexExpr(const Val& value, SourceLoc loc);  // i64 scalar
  // A Dim for a shape entry: static int, tile block or symbol (a computed
  // size is first stored in a fresh host value).
  std::optional<Dim> ToDim(const Val& value, SourceLoc loc);
  std::optional<Shape> ToShape(const Val& value, SourceLoc loc);
  Val DimVal(const Dim& dim);
  std::optional<DType> ToDType(const Val& value, SourceLoc loc);
  // Refs must be named before they can be indexed: a computed ref (a view,
  // an allocation) is stored in a fresh value.
  Val MaterializeRef(Val value, const std::string& hint, SourceLoc loc = {});
  // A ref read whole as a tensor value (host code after the kernel).
  Val LoadWhole(const Val& ref, SourceLoc loc);
  // A load of the ref expression `ref` at `indices`.
  Val LoadAt(ExprPtr ref, IndexList indices, SourceLoc loc);

  // Host indexing (lower_host_views.cpp). HostIndices resolves negative
  // positions against `type` and returns how many dims an integer picks;
  // nullopt after reporting an index the host cannot take.
  std::optional<int64_t> HostIndices(const Type& type, std::vector<Val>& items,
                                     std::vector<SourceLoc>& locs,
                                     SourceLoc loc, std::string_view what);
  // `x[:, :-1, :]` on the host: a slice_view ref; poison after reporting
  // why the index is not a view.
  Val HostSliceView(Val base, std::vector<Val> items,
                    std::vector<SourceLoc> locs, SourceLoc loc);
  // `x[:, -1, :] = 0` on the host (after the kernel): a host store.
  void HostStore(Val base, std::vector<Val> items, std::vector<SourceLoc> locs,
                 Val value, SourceLoc target_loc, SourceLoc loc);
  bool BuildIndices(const Type& base, std::vector<Val> items,
                    std::vector<SourceLoc> item_locs, bool is_load,
                    SourceLoc loc, IndexList& out);
  ExprPtr CoerceForStore(Val value, const Type& region, SourceLoc loc);
  void Store(const Node& target, Val value, SourceLoc loc);
  void Atomic(const std::string& op, CallArgs& args);
  bool GatherIndex(Val& item, SourceLoc item_loc, bool is_load, IndexList& out);
  bool CheckScatter(const IndexList& indices, SourceLoc loc,
                    std::string_view what);
  // hl.load / hl.store (lower_calls_memory.cpp).
  Val LoadCall(CallArgs& args);
  void StoreCall(CallArgs& args);
  bool IndexListArg(const Val& ref, const Val& index, SourceLoc index_loc,
                    IndexList& out);
  Val ApplyExtraMask(Val loaded, const Val& mask, SourceLoc mask_loc);
  // What hl.store and the atomics write: the target as a ref (`base`), its
  // indices and the value coerced to the indexed region. False after an
  // error was reported.
  bool PrepareWrite(const Val& target, const Val& index, const Val& value,
                    SourceLoc index_loc, SourceLoc value_loc,
                    std::string_view what, Val& base, IndexList& indices,
                    ExprPtr& stored);

  void Emit(Stmt stmt);
  std::string Fresh(const std::string& base);
  // Chooses the block size of the next hl.tile dim: `block_size=` in the
  // source, else the next config entry, else the default for this dim.
  TileVal AllocateTileDim(const Val* explicit_block, std::optional<Dim> extent,
                          SourceLoc loc);
  // hl.register_block_size: the next config entry or the default (128),
  // clamped to a static extent.
  int64_t RegisterBlockSize(std::optional<Dim> extent);
  int64_t TpuGranularBlock(int ordinal, int64_t block, SourceLoc loc);
  bool in_device() const { return tile_depth_ > 0; }

  // hl.jagged_tile over a tile of rows (lower_jagged_rows.cpp).
  // Names of the top-level tile loops whose body has an hl.jagged_tile.
  const std::set<std::string>& JaggedRowTiles();
  // The value assigned to `name` in the blocks being lowered, innermost
  // first; nullptr when none (parameters, loop variables).
  // With `before` (the value of an assignment), the definition visible to
  // that assignment's own operands.
  const Expr* DefinitionOf(const std::string& name,
                           const Expr* before = nullptr) const;
  // Follows variables to their definitions. `context` (in and out): the
  // definition `expr` appears in, nullptr at the point being lowered.
  const Expr& ResolveDefinition(const Expr& expr,
                                const Expr** context = nullptr) const;
  const TileVal* TileNamed(const std::string& ir_name) const;
  // `offsets[tile_b]` or `offsets[tile_b.index + c]` of a rank-1 32-bit
  // ref, tile_b a rows tile: the scalar read, broadcast to the one row.
  std::optional<Val> JaggedRowRead(const Val& ref,
                                   const std::vector<Val>& items,
                                   SourceLoc loc);
  // The scalar a one-row value equals (a scalar load broadcast, and
  // arithmetic on such values); nullptr when it is not one.
  ExprPtr RowScalar(const Expr& value, const Expr* context = nullptr) const;
  // hl.load(x.view(-1), [rows[:, :, None] * x.size(1) + lanes]) with a
  // rank >= 2 index: x[tile_k, tile_m] with new axes; nullopt when the
  // access is not through a flattened view (a poison after an error).
  std::optional<Val> JaggedRowsGather(const Val& ref, const Val& index,
                                      SourceLoc loc);
  ExprPtr RowsOf(const Expr& ref, const Expr& row_length, SourceLoc loc);
  void NameAllocation(const Expr& view);
  ExprPtr SplitFlatAllocation(const Expr& allocation, const Expr& row_length);
  // x[starts[:, None] + tile.index[None, :]] of a rank-1 x: the shifted
  // tile index tile.index + start, with new axes.
  std::optional<Val> JaggedShiftedGather(const Val& ref, const Val& index,
                                         SourceLoc loc);
  std::optional<JaggedShift> MatchJaggedShift(const Val& ref, const Val& index,
                                              SourceLoc loc);
  // The block access both of those read or write; `base` is null after an
  // error was reported.
  std::optional<JaggedRowsAccess> MatchJaggedRows(const Val& ref,
                                                  const Val& index,
                                                  SourceLoc loc);
  // hl.store(x.view(-1), [the same index], value): x[tile_k, tile_m] =
  // value without its new axes. nullopt when the write is not one; else
  // whether it lowered (PrepareWrite's outputs are set).
  std::optional<bool> JaggedRowsWrite(const Val& target, const Val& index,
                                      const Val& value, SourceLoc index_loc,
                                      SourceLoc value_loc, Val& base,
                                      IndexList& indices, ExprPtr& stored);
  bool quiet() const { return quiet_; }
  const std::string& path() const { return path_; }

 private:
  struct PyName {
    std::string ir_name;
    TypeKind kind;
  };

  // Lowers the body (its first `statement_limit` statements) from scratch.
  bool LowerOnce(size_t statement_limit = SIZE_MAX);
  // The first pass's starting point (lower_first_pass.cpp): how many
  // leading statements end with the last assert before any loop, and a
  // reading of how each tile dim indexes refs (tile_usage_ bits).
  size_t AssertPrefixLength() const;
  std::vector<int> GuessTileUsage() const;
  void SetUpParams();
  // CallFunction by family (lower_calls*.cpp); each returns nothing when
  // `path` is not one of its functions.
  std::optional<Val> CallElementwise(const CallSite& site, CallArgs& args);
  std::optional<Val> CallReductionOrMatmul(const CallSite& site,
                                           CallArgs& args);
  std::optional<Val> CallAllocation(const CallSite& site, CallArgs& args);
  std::optional<Val> CallLanguage(const CallSite& site, CallArgs& args);
  // torch.broadcast_tensors of static shapes that differ: broadcast views.
  std::optional<Val> BroadcastTensors(const CallArgs& args, SourceLoc loc);
  std::optional<Val> CallMathConstant(const CallSite& site, CallArgs& args);
  std::optional<Val> CallBuiltin(const CallSite& site, CallArgs& args);
  std::optional<Val> CallTunable(const CallSite& site, CallArgs& args);
  std::optional<Val> CallRandom(const CallSite& site, CallArgs& args);
  // hl.associative_scan, hl.cumsum, hl.cumprod (lower_calls_scan.cpp).
  std::optional<Val> CallScan(const CallSite& site, CallArgs& args);
  // The k results of the combine function `fn` applied to `params` (2k
  // scan_arg values), inlined as expressions; empty after an error.
  std::vector<Val> InlineCombine(const Val& fn, std::vector<Val> params,
                                 size_t k, SourceLoc loc);
  // The body of a module-level function run on bound parameters: only
  // assignments and a return, evaluated as expressions (no statements are
  // emitted).
  Val InlineFunction(const KernelDef& function, std::vector<Val> params,
                     SourceLoc loc);
  std::optional<Val> CallArange(const CallSite& site, CallArgs& args);
  // Index names defined as windows (`row_idx = base + hl.arange(bm)`) or
  // tile indices, replaced by their definitions (lower_calls_arange.cpp).
  void ResolveWindowIndices(std::vector<Val>& items) const;
  // Reports an unknown function with the closest known name.
  Val UnknownFunction(const CallSite& site, CallArgs& args);
  void RecordParamDefaults();
  // hl.constexpr / str parameters, and Optional tensors compiled for None.
  bool IsCompileTimeParam(const Param& param) const;
  // IsCallableParam, or a parameter the call passes a lambda for (the
  // runtime's `name=lambda ...` fact, or `--arg`).
  bool IsCallable(const Param& param) const;
  // The lambda of `--arg name=lambda ...`, parsed into a source of its own
  // that lives as long as this lowering; null (reported) when the text is
  // not a lambda expression.
  const Node* ArgumentLambda(const Param& param, const std::string& text);
  bool IsSpecializedInt(const Param& param) const;
  // Binds a compile-time parameter; returns its Python literal.
  std::optional<std::string> BindStaticParam(const Param& param);
  void CollectNames(const std::vector<PyStmt>& body);
  // The rank a parameter's uses imply; memoized (it reads only the source).
  int InferRank(const std::string& param) const;
  int InferRankFromSource(const std::string& param) const;
  // Memoized (it reads only the source).
  int RankGenericTrailing(const std::string& param) const;
  int RankGenericTrailingFromSource(const std::string& param) const;
  // The result's host shape when it is `x.view(p.size())` for a
  // rank-generic parameter p: "p", else "".
  std::string ResultShapeOf(const Node& node) const;
  void LowerBlock(const std::vector<PyStmt>& body);
  // The body of an hl.tile loop into `region`.
  void LowerTileBody(const std::vector<PyStmt>& body, Block& region);
  void LowerStmt(const PyStmt& stmt);
  void LowerFor(const PyStmt& stmt);
  void LowerTileLoop(const PyStmt& stmt, const Node& call);
  void LowerRangeLoop(const PyStmt& stmt, const Node& call);
  void LowerJaggedTileLoop(const PyStmt& stmt, const Node& call);
  void LowerIf(const PyStmt& stmt);
  void LowerReturn(const PyStmt& stmt);
  void LowerAssert(const PyStmt& stmt);
  void Assign(const Node& target, Val value, SourceLoc loc);
  void BindName(const std::string& name, Val value, SourceLoc loc);
  std::string IrNameFor(const std::string& name, TypeKind kind);
  void MaterializeLoopCarried(const std::vector<PyStmt>& body);
  void Unify(const Val& a, const Val& b, SourceLoc loc);

 public:
  // Makes two dims one (the later parameter symbol becomes an alias of the
  // earlier one or of a static size) and records the host-side check that
  // the generated module makes at trace time. `why` says which operation
  // forced it. Returns whether anything changed.
  bool UnifyDims(Dim a, Dim b, SourceLoc loc, std::string_view why);
  // After an op failed to type: unifies the symbolic dims its operands
  // disagree on where the op forces them equal (broadcast, contraction).
  bool UnifyOperandShapes(OpKind op, const std::vector<Type>& types,
                          SourceLoc loc, const char* why = "broadcast");

 private:
  const KernelDef& kernel_;
  const ImportMap& imports_;
  const std::map<std::string, NodePtr>& constants_;
  const std::map<std::string, KernelDef>& functions_;
  std::string path_;
  KernelSpecialization spec_;
  bool has_spec_block_sizes_ = false;
  DiagnosticEngine& diagnostics_;

  // Per lowering pass.
  Function function_;
  std::unordered_map<std::string, Val> env_;
  // Targets of loops that have ended (name -> the loop's `for`): Python
  // keeps them bound, but a tile or a run-time index lives only inside
  // its loop, so a later use is a located error, not invalid IR.
  std::unordered_map<std::string, SourceLoc> ended_loop_targets_;
  std::unordered_map<std::string, PyName> py_names_;
  std::set<std::string> taken_;
  std::set<std::string> python_names_;
  std::set<std::string> param_symbols_;
  // Size symbols computed inside tile loops (defined only there).
  std::set<std::string> device_symbols_;
  std::set<std::string> rank_generic_params_;
  std::vector<Block*> blocks_;
  // Facts about the source alone, the same in every pass: computed once.
  std::optional<std::set<std::string>> body_names_;
  mutable std::map<std::string, int> inferred_ranks_;
  // Parameters passed to hl.specialize by name.
  mutable std::optional<std::set<std::string>> specialized_ints_;
  std::vector<std::unique_ptr<ParsedFile>> argument_sources_;
  mutable std::map<std::string, int> rank_generic_trailing_;
  std::optional<std::set<std::string>> index_params_;  // IndexTensorParams
  std::optional<std::set<std::string>> jagged_row_tiles_;
  int tile_depth_ = 0;
  bool grid_scalars_ = false;  // the next tile loop is a top-level hl.grid
  int loop_depth_ = 0;
  bool quiet_ = false;
  bool in_assert_ = false;
  int suppressed_errors_ = 0;  // errors a quiet pass did not report
  int full_passes_ = 0;
  bool returned_ = false;
  size_t next_block_slot_ = 0;
  int next_tile_ordinal_ = 0;
  // bit 0: indexes a minor dim, bit 1: a major one, bit 2: the lane dim
  std::vector<int> tile_usage_;
  // (tile ordinal, value) of each default block and each probed usage the
  // pass consulted; Run() checks them against what the pass found.
  std::vector<std::pair<int, int64_t>> consulted_blocks_;
  std::vector<std::pair<int, int>> consulted_usage_;

  // Across passes.
  std::map<std::string, Dim> aliases_;  // symbol -> what it equals
  // Parameter shape symbol -> (parameter, dim); the same in every pass.
  std::map<std::string, std::pair<std::string, int>> symbol_origin_;
  // Host checks, one per alias, keyed by the aliased symbol (see
  // UnifyDims); emitted as the function attribute `shape_checks`.
  std::map<std::string, std::string> shape_checks_;
  std::map<std::string, int> symbol_order_;  // signature symbols, in order
  std::vector<int64_t> default_blocks_;      // by tile ordinal
  int64_t default_block_cap_ = 0;            // CapDefaultBlocks
  // The largest default of hl.register_block_size in the last lowering.
  int64_t registered_default_block_ = 0;
  std::vector<int> probed_usage_;  // tile_usage_ of the last probe
  // Block sizes from the decorator's helion.Config (not the pipeline).
  bool decorator_blocks_ = false;
  bool exact_block_sizes_ = false;           // RequireExactBlockSizes
  std::vector<std::string> block_warnings_;  // of the last lowering
  std::optional<Function> WarnAboutBlocks(std::optional<Function> function);
  std::vector<std::optional<Dim>> tile_extents_;

 public:
  // Records how a tile dim is used to index a ref (for default blocks).
  void NoteTileUse(int ordinal, bool minor, bool lane) {
    if (ordinal >= 0 && ordinal < static_cast<int>(tile_usage_.size())) {
      tile_usage_[ordinal] |= (minor ? 1 : 2) | (lane ? 4 : 0);
    }
  }
  std::unordered_map<std::string, Val>& env() { return env_; }
  const ImportMap& imports() const { return imports_; }
};

// Source helpers shared by the lowering files (lower_kernel.cpp).
// "a.b.c" for a name / attribute chain, "" for anything else.
std::string DottedName(const Node& node);
// Calls `fn` on `node` and every node below it. Templates, so that the
// callbacks inline: the frontend walks a kernel's source several times per
// compile (ranks, index parameters, names, tile usage).
template <typename Fn>
void WalkNodes(const Node& node, Fn&& fn) {
  fn(node);
  for (const NodePtr& child : node.children) {
    if (child) WalkNodes(*child, fn);
  }
  for (const Keyword& keyword : node.keywords) {
    if (keyword.value) WalkNodes(*keyword.value, fn);
  }
}
struct IgnoreStmt {
  void operator()(const PyStmt&) const {}
};
// WalkNodes over every expression of `body` and its nested blocks, calling
// `on_stmt` on each statement before its expressions.
template <typename Fn, typename OnStmt = IgnoreStmt>
void WalkStmtNodes(const std::vector<PyStmt>& body, Fn&& fn,
                   OnStmt&& on_stmt = {}) {
  for (const PyStmt& stmt : body) {
    on_stmt(stmt);
    for (const NodePtr& target : stmt.targets) WalkNodes(*target, fn);
    for (const Node* node : {stmt.target.get(), stmt.value.get(),
                             stmt.test.get(), stmt.iter.get()}) {
      if (node) WalkNodes(*node, fn);
    }
    WalkStmtNodes(stmt.body, fn, on_stmt);
    WalkStmtNodes(stmt.orelse, fn, on_stmt);
  }
}
// A parameter inlined at compile time: `Callable` annotation or lambda default.
bool IsCallableParam(const Param& param);
// A compile-time parameter: `hl.constexpr` or `str` annotation.
bool IsStaticParam(const Param& param);
// Follows the alias chain of a symbolic dim.
Dim Substitute(const Dim& dim, const std::map<std::string, Dim>& aliases);

inline bool IsIntLike(const Val& v) {
  return v.kind == ValKind::kInt || v.kind == ValKind::kBool;
}
inline int64_t IntOf(const Val& v) {
  return v.kind == ValKind::kBool ? v.b : v.i;
}

// A value spelled on the command line (`--arg name=VALUE`): True/False/
// None, a number, a torch dtype name, else a string; `literal` is its
// Python spelling.
Val StaticValueFromText(const std::string& text, std::string& literal);

// Canonical names of the callable functions (for "did you mean").
const std::vector<std::string>& KnownFunctions();
// Methods of tensors (refs and values) that a kernel can call.
const std::vector<std::string>& KnownMethods();
// Python builtins that are callable in a kernel.
bool IsBuiltinFunction(const std::string& name);
// "i64", "f32[128, n]", "ref<bf16[m, k]>"; for messages.
std::string Describe(const Val& value);

}  // namespace tessera::helion_py
