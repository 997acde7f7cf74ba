// The Tessera IR: a module of functions whose bodies are blocks of structured
// statements over named values; each statement's operands are expression
// trees.
//
// Values are referred to by name. Before the `ssa` pass a name may be assigned
// several times (as in the Python source); after it every name is defined
// exactly once, loops carry state through iter_args / yield / results and
// `if` merges through results. Refs (memory) are never reassigned: stores and
// atomics mutate them in place.
//
// Expressions are generic: an OpKind, a result type, operands, optional
// indices (for load / subscript) and named attributes. Printer, parser,
// structural equality and walkers treat every op the same way; the op table
// (OpInfoOf) says how many operands an op takes and which attributes it has.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tessera/diagnostics.h"
#include "tessera/ir/types.h"
#include "tessera/properties.h"

namespace tessera {

// ---------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------
using AttrValue =
    std::variant<bool, int64_t, double, std::string, DType,
                 std::vector<int64_t>, Shape, std::vector<std::string>>;

struct Attr {
  std::string name;
  AttrValue value;
  friend bool operator==(const Attr& a, const Attr& b) {
    return a.name == b.name && a.value == b.value;
  }
};

// The lists inside IR nodes keep their buffers next to the nodes (see
// node_memory.h); they are std::vectors in every other respect.
using AttrList = std::vector<Attr, IrAllocator<Attr>>;

// Lookup helpers; nullptr / fallback when absent or of another type.
const Attr* FindAttr(std::span<const Attr> attrs, std::string_view name);
void SetAttr(AttrList& attrs, std::string name, AttrValue value);
bool RemoveAttr(AttrList& attrs, std::string_view name);
template <typename T>
const T* GetAttr(std::span<const Attr> attrs, std::string_view name) {
  const Attr* attr = FindAttr(attrs, name);
  return attr ? std::get_if<T>(&attr->value) : nullptr;
}

// ---------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------
// Text names are given in brackets; attributes in braces.
enum class OpKind : uint16_t {
  // Leaves.
  kVar,    // a named value; Expr::name holds the name
  kConst,  // [const] {value: bool | int | float}, scalar type

  // Host side: sizes, allocations, views.
  kSize,       // [size](ref) {dim} -> i64
  kEmpty,      // [empty] {shape, dtype} -> ref; torch.empty / empty_like
  kAllocFull,  // [alloc_full] {shape, dtype, value} -> ref; torch.zeros/full
  kReshape,    // [reshape](ref) {shape} -> ref view (reshape / view)
  kTranspose,  // [transpose](ref) {perm} -> ref view

  // Memory access; Expr::indices holds the index list.
  kLoad,       // [load](ref)[indices] -> tensor
  kSubscript,  // [subscript](tensor)[indices]: `:`, None, int only
  // [slice_view](ref)[indices] -> ref: a host view of a part of a ref
  // (`logits[:, :-1, :]`); `:`, None, integers and ranges only.
  kSliceView,
  // [host_read](ref)[scalar indices] -> scalar: one element read by the
  // host before the launch (`int(x_offsets[-1].item())`, a device-to-host
  // sync); one `scalar` index per dim; kernel / host functions only,
  // outside loops.
  kHostRead,

  // Tiles.
  kTileBegin,  // [tile_begin](tile) -> i64
  kTileEnd,    // [tile_end](tile) -> i64 (clamped to the loop end)
  kTileIndex,  // [tile_index](tile) -> i32[block] (begin + iota)
  kTileSize,   // [tile_size](tile) -> i64 (the block size)

  // Elementwise unary (tensor or scalar).
  kNeg,
  kExp,
  kExp2,
  kLog,
  kLog2,
  kSqrt,
  kRsqrt,
  kTanh,
  kSigmoid,
  kErf,
  kAbs,
  kRelu,
  kGelu,  // {approximate: "none" | "tanh"}
  kSilu,
  kNot,  // logical not (bool)

  // Elementwise binary, PyTorch broadcasting and promotion.
  kAdd,
  kSub,
  kMul,
  kDiv,  // true division
  kFloorDiv,
  kMod,
  kPow,
  kMaximum,
  kMinimum,
  kAnd,
  kOr,
  kCdiv,  // ceil division of integers (grid extents)
  kXor,   // bitwise xor (bool or integers)
  kShl,   // left shift of integers
  kShr,   // arithmetic right shift of integers (Python's >>)

  // Comparisons -> bool.
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,

  kWhere,  // [where](cond, a, b)

  // Reductions {dim, keepdim}.
  kSum,
  kAmax,
  kAmin,
  kMean,

  // [dot](a, b) or (a, b, acc): matmul over the last two dims, leading dims
  // batched. {acc_dtype} is the accumulation / result dtype.
  kDot,

  kFull,         // [full] {shape, dtype, value} -> tensor
  kCast,         // [cast](x) {dtype}
  kBroadcastTo,  // [broadcast_to](x) {shape}
  kRepeatLanes,  // [repeat_lanes](x) {reps}: jnp.tile along the last dim
  // [arange] {size} -> i32[size]: 0, 1, ..., size - 1 (`hl.arange`), an iota
  // that needs no tile; `add(arange, s)` indexes like a shifted tile index.
  kArange,

  // Device side.
  kProgramId,    // [program_id] {axis} -> i32
  kNumPrograms,  // [num_programs] {axis} -> i32
  kScratch,      // [scratch] {shape, dtype} -> ref in on-chip scratch

  // Inclusive scan (hl.associative_scan, hl.cumsum, hl.cumprod):
  // [scan](x_0 .. x_{k-1}, c_0 .. c_{k-1}) {dim, reverse, result}. The x_j are
  // same-shaped tensors scanned together along `dim`; c_j is the j-th result
  // of the combine function, an elementwise expression over [scan_arg] leaves
  // (index j < k: the left operand's member j, k + j: the right one's). The
  // value is member `result` of the scanned tuple.
  kScan,
  kScanArg,  // [scan_arg] {index, dtype}: a combine parameter, scalar dtype

  kNumOps,
};

enum class OpCategory : uint8_t {
  kLeaf,
  kHost,
  kMemory,
  kTile,
  kUnary,
  kBinary,
  kCompare,
  kSelect,
  kReduction,
  kContraction,
  kConstruct,
  kDevice,
  kScan,
};

struct OpInfo {
  std::string_view name;  // text name
  OpCategory category;
  int min_operands;
  int max_operands;  // -1: unbounded
  bool has_indices;
};
const OpInfo& OpInfoOf(OpKind op);
std::optional<OpKind> OpKindByName(std::string_view name);

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
using ExprList = std::vector<ExprPtr, IrAllocator<ExprPtr>>;

enum class IndexKind : uint8_t {
  kTile,     // operand: a tile value (`x[tile_m, ...]`)
  kSlice,    // `:` (whole dim)
  kNewAxis,  // `None`
  kScalar,   // operand: a scalar expression (`x[0]`, `x[tile.begin]`)
  kRange,    // operand: begin; `size`: static or symbolic extent
  // operand: a rank-1 integer tensor; the dim becomes its length and
  // element i reads position operand[i] (`table[indices[tile], :]`).
  kGather,
  // operand: a tile's index shifted by an integer scalar,
  // `add(tile_index(t), s)`, `add(s, tile_index(t))` or
  // `sub(tile_index(t), s)` (`x[tile.index + s]`); see MatchTileShift.
  kShiftedTile,
};

struct Index {
  IndexKind kind = IndexKind::kSlice;
  ExprPtr expr;  // kTile / kScalar / kRange
  Dim size;      // kRange only

  Index() = default;
  Index(IndexKind k, ExprPtr e = nullptr, Dim s = {})
      : kind(k), expr(std::move(e)), size(std::move(s)) {}
};

using IndexList = std::vector<Index, IrAllocator<Index>>;

// The parts of a kShiftedTile index expression: element i reads
// `tile.begin + i + offset` (`- offset` when negated). An `arange` in place
// of `tile_index(t)` (`x[s + hl.arange(B)]`) is a window of B elements from
// `offset`: `tile` is then the arange itself (begin 0, never partial).
struct TileShift {
  const Expr* tile = nullptr;    // the tile operand of tile_index, or arange
  const Expr* offset = nullptr;  // an integer scalar
  bool negated = false;
};

struct Expr {
  OpKind op = OpKind::kVar;
  Type type;
  SourceLoc loc;
  std::string name;  // kVar only
  ExprList operands;
  IndexList indices;  // kLoad / kSubscript
  AttrList attrs;

  const Attr* attr(std::string_view attr_name) const {
    return FindAttr(attrs, attr_name);
  }

  // Nodes come from slabs that keep a module's expressions together in
  // memory (see node_memory.h).
  static void* operator new(std::size_t bytes);
  static void operator delete(void* node) noexcept;
};

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------
struct Value {
  std::string name;
  Type type;
  friend bool operator==(const Value& a, const Value& b) {
    return a.name == b.name && a.type == b.type;
  }
};
using ValueList = std::vector<Value, IrAllocator<Value>>;

struct Stmt;
struct Block {
  std::vector<Stmt> stmts;
};

// One dim of a tile loop (begin, end, block size), a range loop (begin, end,
// step as `block`) or a launch grid.
struct LoopDim {
  ExprPtr begin;
  ExprPtr end;
  Dim block;
};

enum class StmtKind : uint8_t {
  kAssign,     // results[0] = value
  kStore,      // target[indices] = value
  kAtomic,     // atomic {op: "add"|"max"|"min"} target[indices] (op)= value
  kTileLoop,   // for vars in tile(dims) {grid: bool} regions[0]
  kRangeLoop,  // for vars[0] in range(dims[0]) regions[0]
  kIf,         // if value: regions[0] else regions[1]
  kYield,      // operands: values flowing to the enclosing loop / if results
  kReturn,     // operands: function results
  kLaunch,     // host: results = launch @{callee} grid(dims) (operands)
};

struct Stmt {
  StmtKind kind = StmtKind::kAssign;
  SourceLoc loc;
  // Assign: exactly one target. Loops / if / launch: SSA results (may be
  // empty before the ssa pass).
  ValueList results;
  // Assign: right-hand side. Store / atomic: stored value. If: condition.
  ExprPtr value;
  // Store / atomic: the ref written (a kVar of ref type) and its indices.
  ExprPtr target;
  IndexList indices;
  // Loops: induction variables (tiles for tile loops, an i64 for range).
  ValueList vars;
  // Loops: one LoopDim per var. Launch: the grid.
  std::vector<LoopDim> dims;
  // SSA loops: loop-carried values (as seen inside the body) and their
  // initial values, in parallel.
  ValueList iter_args;
  ExprList inits;
  // Yield / return values; launch arguments.
  ExprList operands;
  // Loops: [body]. If: [then, else].
  std::vector<Block> regions;
  AttrList attrs;

  const Attr* attr(std::string_view attr_name) const {
    return FindAttr(attrs, attr_name);
  }
};

// ---------------------------------------------------------------------------
// Functions and modules
// ---------------------------------------------------------------------------
enum class FunctionKind : uint8_t {
  kKernel,  // a whole kernel, before outlining
  kHost,    // host side of an outlined kernel
  kDevice,  // device side (the body of the outer tile loop)
};
std::string_view FunctionKindName(FunctionKind kind);

struct Function {
  std::string name;
  FunctionKind kind = FunctionKind::kKernel;
  SourceLoc loc;
  ValueList params;
  std::vector<Type> result_types;
  Block body;
  AttrList attrs;

  const Attr* attr(std::string_view attr_name) const {
    return FindAttr(attrs, attr_name);
  }
};

struct Module {
  // The file the IR came from (a kernel .py or a .tir); diagnostics and
  // `# src:` comments refer to it.
  std::string source_file;
  // The properties this module is known to have (printed in the header so a
  // .tir file can start from, say, SSA IR).
  PropertySet properties;
  std::vector<Function> functions;
  AttrList attrs;

  Function* FindFunction(std::string_view name);
  const Function* FindFunction(std::string_view name) const;
};

// ---------------------------------------------------------------------------
// Builders, cloning, equality, walking
// ---------------------------------------------------------------------------
ExprPtr MakeVar(std::string name, Type type, SourceLoc loc = {});
ExprPtr MakeIntConst(int64_t value, DType dtype = DType::kI64,
                     SourceLoc loc = {});
ExprPtr MakeFloatConst(double value, DType dtype = DType::kF32,
                       SourceLoc loc = {});
ExprPtr MakeBoolConst(bool value, SourceLoc loc = {});
// A constant with the given `value` attribute and scalar dtype.
ExprPtr MakeConst(AttrValue value, DType dtype, SourceLoc loc = {});
// A generic op with an explicit result type.
ExprPtr MakeOp(OpKind op, Type type, ExprList operands, AttrList attrs = {},
               SourceLoc loc = {});

Stmt MakeAssign(Value target, ExprPtr value, SourceLoc loc = {});
Stmt MakeStore(ExprPtr target, IndexList indices, ExprPtr value,
               SourceLoc loc = {});
Stmt MakeReturn(ExprList values, SourceLoc loc = {});
Stmt MakeYield(ExprList values, SourceLoc loc = {});

ExprPtr CloneExpr(const Expr& expr);
Index CloneIndex(const Index& index);
LoopDim CloneLoopDim(const LoopDim& dim);
Stmt CloneStmt(const Stmt& stmt);
Block CloneBlock(const Block& block);
Function CloneFunction(const Function& function);
Module CloneModule(const Module& module);

// True for `subscript(x)[:, ..., :, None]` that keeps every dim of x and adds
// one trailing axis (what `x[..., None]` becomes).
bool IsTrailingUnsqueeze(const Expr& expr);

// Splits a kShiftedTile index expression into its tile and offset (casts
// around the tile index or the whole are looked through); nullopt when
// `expr` has another form.
std::optional<TileShift> MatchTileShift(const Expr& expr);

// Structural equality: same shape of tree, ops, names, types, attributes.
// Source locations are ignored unless `compare_locations` is set.
bool StructurallyEqual(const Expr& a, const Expr& b,
                       bool compare_locations = false);
bool StructurallyEqual(const Stmt& a, const Stmt& b,
                       bool compare_locations = false);
bool StructurallyEqual(const Function& a, const Function& b,
                       bool compare_locations = false);
bool StructurallyEqual(const Module& a, const Module& b,
                       bool compare_locations = false);
// A human-readable description of the first difference ("" when equal), for
// test failure messages.
std::string FirstDifference(const Module& a, const Module& b);

// Visits every expression tree rooted in a statement (value, target,
// indices, loop dims, inits, operands), not descending into regions. The
// callback receives each root; use WalkExpr to descend.
void ForEachRootExpr(Stmt& stmt, const std::function<void(ExprPtr&)>& fn);
void ForEachRootExpr(const Stmt& stmt,
                     const std::function<void(const Expr&)>& fn);
// Pre-order walk over an expression tree (operands and index expressions).
void WalkExpr(const Expr& expr, const std::function<void(const Expr&)>& fn);
void WalkExprMutable(Expr& expr, const std::function<void(Expr&)>& fn);
// Pre-order walk over statements, descending into regions.
void WalkStmts(Block& block, const std::function<void(Stmt&)>& fn);
void WalkStmts(const Block& block, const std::function<void(const Stmt&)>& fn);
// Every name `function` defines: its parameters, then each statement's
// results, loop variables and iter_args, in order (a rewrite that adds a
// value picks a name none of these has).
void ForEachDefinedName(const Function& function,
                        const std::function<void(const std::string&)>& fn);
// The names a rewrite may add to `function`: none the function defines
// (ForEachDefinedName) or uses as a dim symbol, nor one Take gave before.
class FreshNames {
 public:
  explicit FreshNames(const Function& function);
  // `base`, or `base_1`, `base_2`, ...: the first name not taken; it is
  // taken from then on.
  std::string Take(const std::string& base);

 private:
  std::set<std::string> taken_;
};
// One fresh name: FreshNames(function).Take(base).
std::string FreshName(const Function& function, const std::string& base);

// A kernel as the outline pass leaves it: a host function's first
// top-level launch and the device function it calls (whose first
// grid_rank() parameters are the grid's tiles, the others the launch's
// operands in order). What every rewrite of a kernel starts from.
const Stmt* FindTopLevelLaunch(const Function& host);
Stmt* FindTopLevelLaunch(Function& host);
// The device function `launch` calls, or null. Given the launching `host`
// (a function of `module`), the function right after it is tried first:
// the outline pass puts each device function there, so a module of many
// kernels is not searched once per kernel.
const Function* LaunchCallee(const Module& module, const Stmt& launch,
                             const Function* host = nullptr);
struct LaunchedDevice {
  const Stmt* launch = nullptr;
  const Function* device = nullptr;
  size_t grid_rank() const { return launch->dims.size(); }
};
// nullopt when `host` launches no device function of `module`.
std::optional<LaunchedDevice> FindLaunchedDevice(const Module& module,
                                                 const Function& host);

}  // namespace tessera
