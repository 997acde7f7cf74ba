// hl.jagged_tile over a tile of rows (Helion's jagged_sum / jagged_mean):
//
//   for tile_b in hl.tile(num_rows):
//       starts = x_offsets[tile_b]
//       nnz = x_offsets[tile_b.index + 1] - starts
//       for tile_k in hl.jagged_tile(nnz):
//           x = hl.load(x_flat, [(starts[:, None] + tile_k.index[None, :])
//                                [:, :, None] * m + tile_m.index[None, None,
//                                :]])
//
// Helion runs the loop to the max of nnz over the row tile and masks each
// row's tail. On a TPU a loop bound must be a scalar (SMEM), and a vector of
// lengths cannot be reduced to one without a vector-to-scalar extraction.
// Tessera therefore gives the rows tile a block of one row: each grid step
// reads its row's offsets as SMEM scalars (scalar prefetch), the max over
// the tile is that row's own length, and the loop becomes the jagged loop
// `hl.tile(start, end)` that every launcher already runs (fori_loop over
// aligned, masked blocks; backends/pallas_common/jagged_tiles.cpp). A block
// size does not change what a Helion kernel computes, so only an explicit
// `block_size` other than 1 is an error.
//
// The element gather through the flattened view then reads, for the one
// row, x[start + k, lane] = x[tile_k (absolute), tile_m]: a load of a
// VMEM-resident block that the jagged loop masks outside [start, end).
#include <map>
#include <memory>
#include <set>

#include "fmt/format.h"
#include "lower_internal.h"
#include "tessera/ir/text.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {
namespace {

// `hl.jagged_tile(...)` through any alias of helion.language: read from
// the source alone, before names are bound.
bool IsJaggedTileCall(const Node& node) {
  if (node.kind != NodeKind::kCall) return false;
  const std::string callee = DottedName(*node.children[0]);
  return callee == "jagged_tile" || callee.ends_with(".jagged_tile");
}

// One term of an index expression: a tile's index along an axis of the
// value, or a scalar (the same for every element).
struct IndexForm {
  size_t rank = 0;
  std::map<std::pair<std::string, size_t>, int64_t> tiles;  // (tile, axis)
  std::map<std::string, int64_t> scalars;  // printed scalar -> coefficient
  // The scalar of each key, to rebuild the sum.
  std::map<std::string, std::shared_ptr<const Expr>> scalar_exprs;
  void Add(const IndexForm& other, int64_t sign) {
    // PyTorch broadcasting aligns trailing axes.
    const size_t rank_out = std::max(rank, other.rank);
    std::map<std::pair<std::string, size_t>, int64_t> shifted;
    for (const auto& [key, c] : tiles) {
      shifted[{key.first, key.second + rank_out - rank}] += c;
    }
    for (const auto& [key, c] : other.tiles) {
      shifted[{key.first, key.second + rank_out - other.rank}] += sign * c;
    }
    tiles.clear();
    for (const auto& [key, c] : shifted) {
      if (c != 0) tiles[key] = c;
    }
    for (const auto& [key, c] : other.scalars) scalars[key] += sign * c;
    scalar_exprs.insert(other.scalar_exprs.begin(), other.scalar_exprs.end());
    std::erase_if(scalars, [](const auto& entry) { return entry.second == 0; });
    rank = rank_out;
  }
};

// The form of an integer index expression: tiles by axis plus scalars;
// nullopt for anything else.
std::optional<IndexForm> FormOf(const KernelLowering& lowering,
                                const Expr& value, const Expr* context) {
  const Expr& e = lowering.ResolveDefinition(value, &context);
  IndexForm form;
  if (e.op == OpKind::kTileIndex) {
    form.rank = 1;
    form.tiles[{e.operands[0]->name, 0}] = 1;
    return form;
  }
  if (e.type.is_scalar()) {
    ExprPtr scalar = lowering.RowScalar(e, context);
    if (!scalar) return std::nullopt;
    const std::string key = PrintExpr(*scalar);
    form.scalars[key] = 1;
    form.scalar_exprs[key] = std::shared_ptr<const Expr>(scalar.release());
    return form;
  }
  if (e.op == OpKind::kBroadcastTo && e.operands[0]->type.is_scalar()) {
    auto inner = FormOf(lowering, *e.operands[0], context);
    if (!inner) return std::nullopt;
    inner->rank = e.type.rank();
    return inner;
  }
  if (e.op == OpKind::kCast && IsInteger(e.type.dtype)) {
    return FormOf(lowering, *e.operands[0], context);
  }
  if ((e.op == OpKind::kAdd || e.op == OpKind::kSub) &&
      e.operands.size() == 2) {
    auto lhs = FormOf(lowering, *e.operands[0], context);
    auto rhs = lhs ? FormOf(lowering, *e.operands[1], context) : std::nullopt;
    if (!rhs) return std::nullopt;
    lhs->Add(*rhs, e.op == OpKind::kAdd ? 1 : -1);
    return lhs;
  }
  if (e.op == OpKind::kSubscript) {
    auto inner = FormOf(lowering, *e.operands[0], context);
    if (!inner) return std::nullopt;
    // Only `:` and None: axes move, new axes are inserted.
    std::vector<size_t> axis_map;  // inner axis -> result axis
    size_t result_axis = 0;
    for (const Index& index : e.indices) {
      if (index.kind == IndexKind::kNewAxis) {
        ++result_axis;
      } else if (index.kind == IndexKind::kSlice) {
        axis_map.push_back(result_axis++);
      } else {
        return std::nullopt;
      }
    }
    if (axis_map.size() != inner->rank) return std::nullopt;
    IndexForm moved;
    moved.rank = result_axis;
    moved.scalars = inner->scalars;
    moved.scalar_exprs = inner->scalar_exprs;
    for (const auto& [key, c] : inner->tiles) {
      moved.tiles[{key.first, axis_map[key.second]}] = c;
    }
    return moved;
  }
  return std::nullopt;
}

// True when `expr` is the row length of the rank-2 ref `base`: the same
// constant, its dim-1 symbol or `base.size(1)`.
bool IsRowLength(const KernelLowering& lowering, const Expr& expr,
                 const Expr& base) {
  const Dim& row = base.type.shape[1];
  if (expr.op == OpKind::kVar && !row.is_static() && expr.name == row.symbol) {
    return true;
  }
  const Expr& value = lowering.ResolveDefinition(expr);
  if (value.op == OpKind::kConst && row.is_static()) {
    const Attr* attr = value.attr("value");
    const int64_t* i = attr ? std::get_if<int64_t>(&attr->value) : nullptr;
    return i != nullptr && *i == row.size;
  }
  if (value.op == OpKind::kVar && !row.is_static()) {
    return value.name == row.symbol;
  }
  if (value.op == OpKind::kSize && value.operands[0]->op == OpKind::kVar &&
      value.operands[0]->name == base.name) {
    const Attr* attr = value.attr("dim");
    const int64_t* dim = attr ? std::get_if<int64_t>(&attr->value) : nullptr;
    return dim != nullptr && (*dim == 1 || *dim == -1);
  }
  return false;
}

// The one tile of `form` with coefficient 1 and nothing else, as (tile,
// axis) with the axis counted in a value of rank `rank`.
std::optional<std::pair<std::string, size_t>> SingleTile(const IndexForm& form,
                                                         size_t rank) {
  if (form.tiles.size() != 1 || !form.scalars.empty() ||
      form.tiles.begin()->second != 1 || form.rank > rank) {
    return std::nullopt;
  }
  const auto& [tile, axis] = form.tiles.begin()->first;
  return std::make_pair(tile, axis + rank - form.rank);
}

}  // namespace

const std::set<std::string>& KernelLowering::JaggedRowTiles() {
  if (jagged_row_tiles_) return *jagged_row_tiles_;
  jagged_row_tiles_.emplace();
  // The targets of each top-level tile loop whose body loops over an
  // hl.jagged_tile.
  for (const PyStmt& stmt : kernel_.body) {
    if (stmt.kind != PyStmtKind::kFor || !stmt.target ||
        stmt.target->kind != NodeKind::kName) {
      continue;
    }
    bool has_jagged = false;
    WalkStmtNodes(stmt.body, [&](const Node& node) {
      has_jagged = has_jagged || IsJaggedTileCall(node);
    });
    // `max_nnz = nnz.amax()` bounding an hl.tile, or the call itself in the
    // bounds: the max over a rows tile, a scalar only when the tile has one
    // row.
    const auto is_max_call = [](const Node& node) {
      return node.kind == NodeKind::kAttribute &&
             (node.text == "amax" || node.text == "max");
    };
    std::set<std::string> maxima;
    WalkStmtNodes(
        stmt.body, [](const Node&) {},
        [&](const PyStmt& inner) {
          if (inner.kind != PyStmtKind::kAssign || inner.targets.size() != 1 ||
              inner.targets[0]->kind != NodeKind::kName || !inner.value) {
            return;
          }
          bool reduces = false;
          WalkNodes(*inner.value, [&](const Node& node) {
            reduces = reduces || is_max_call(node);
          });
          if (reduces) maxima.insert(inner.targets[0]->text);
        });
    WalkStmtNodes(
        stmt.body, [](const Node&) {},
        [&](const PyStmt& inner) {
          if (inner.kind != PyStmtKind::kFor || !inner.iter) return;
          WalkNodes(*inner.iter, [&](const Node& node) {
            has_jagged =
                has_jagged || is_max_call(node) ||
                (node.kind == NodeKind::kName && maxima.count(node.text) != 0);
          });
        });
    if (has_jagged) jagged_row_tiles_->insert(stmt.target->text);
  }
  return *jagged_row_tiles_;
}

const Expr* KernelLowering::DefinitionOf(const std::string& name,
                                         const Expr* before) const {
  // Statements are searched backwards; with `before`, only those above the
  // statement that assigns `before` (a reassigned name's earlier value).
  bool searching = before == nullptr;
  for (auto block = blocks_.rbegin(); block != blocks_.rend(); ++block) {
    const std::vector<Stmt>& stmts = (*block)->stmts;
    for (auto stmt = stmts.rbegin(); stmt != stmts.rend(); ++stmt) {
      if (stmt->kind != StmtKind::kAssign || stmt->results.size() != 1 ||
          !stmt->value) {
        continue;
      }
      if (!searching) {
        searching = stmt->value.get() == before;
        continue;
      }
      if (stmt->results[0].name == name) return stmt->value.get();
    }
  }
  return nullptr;
}

const Expr& KernelLowering::ResolveDefinition(const Expr& expr,
                                              const Expr** context) const {
  const Expr* current = &expr;
  const Expr* within = context ? *context : nullptr;
  for (int depth = 0; depth < 64 && current->op == OpKind::kVar; ++depth) {
    const Expr* def = DefinitionOf(current->name, within);
    if (def == nullptr) break;
    current = def;
    within = def;
  }
  if (context) *context = within;
  return *current;
}

const TileVal* KernelLowering::TileNamed(const std::string& ir_name) const {
  for (const auto& [name, val] : env_) {
    if (val.kind == ValKind::kTile && val.tile.name == ir_name) {
      return &val.tile;
    }
  }
  return nullptr;
}

std::optional<Val> KernelLowering::JaggedRowRead(const Val& ref,
                                                 const std::vector<Val>& items,
                                                 SourceLoc loc) {
  // Rank-1 refs of 32-bit words: SMEM holds them (a block of one element
  // on the lane dim is not TPU-legal, a scalar read is).
  const DType dtype = ref.IsRef() ? ref.type().dtype : DType::kF32;
  if (!ref.IsRef() || ref.type().rank() != 1 ||
      !(IsInteger(dtype) || dtype == DType::kF32) || items.size() != 1) {
    return std::nullopt;
  }
  const Val& item = items[0];
  ExprPtr position;
  if (item.kind == ValKind::kTile && item.tile.jagged_rows) {
    position = MakeOp(OpKind::kTileBegin, Type::Scalar(DType::kI64), ExprList{},
                      {}, loc);
    position->operands.push_back(
        MakeVar(item.tile.name, Type::Tile(Dim::Static(1))));
  } else if (item.IsTensor() && item.type().rank() == 1 &&
             item.expr->op == OpKind::kAdd) {
    // `tile_b.index + c` with an integer constant or scalar c.
    for (int k = 0; k < 2 && !position; ++k) {
      const Expr& index = *item.expr->operands[k];
      const Expr& shift = *item.expr->operands[1 - k];
      if (index.op != OpKind::kTileIndex || !shift.type.is_scalar() ||
          !IsInteger(shift.type.dtype)) {
        continue;
      }
      const TileVal* tile = TileNamed(index.operands[0]->name);
      if (tile == nullptr || !tile->jagged_rows) continue;
      Val begin = MakeTyped(
          OpKind::kTileBegin,
          [&] {
            ExprList v;
            v.push_back(CloneExpr(*index.operands[0]));
            return v;
          }(),
          {}, loc);
      Val sum = Binary(BinaryOp::kAdd, std::move(begin),
                       Val::Value(CloneExpr(shift)), loc);
      position = ToIndexExpr(sum, loc);
    }
  }
  if (!position) return std::nullopt;
  IndexList indices;
  indices.push_back(Index(IndexKind::kScalar, std::move(position)));
  Val scalar = LoadAt(CloneExpr(*ref.expr), std::move(indices), loc);
  if (!scalar.IsValue()) return scalar;
  ExprList broadcast;
  broadcast.push_back(std::move(scalar.expr));
  return MakeTyped(OpKind::kBroadcastTo, std::move(broadcast),
                   {Attr{"shape", Shape{Dim::Static(1)}}}, loc);
}

ExprPtr KernelLowering::RowScalar(const Expr& value,
                                  const Expr* context) const {
  const Expr& e = ResolveDefinition(value, &context);
  if (e.type.is_scalar() && e.op == OpKind::kLoad) return CloneExpr(e);
  if (e.op == OpKind::kConst && e.type.is_scalar()) return CloneExpr(e);
  if (e.op == OpKind::kBroadcastTo && e.operands[0]->type.is_scalar()) {
    return RowScalar(*e.operands[0], context);
  }
  // amax / amin / sum of a one-row vector (`nnz.amax()` over a rows tile
  // of one row) is its one element.
  if ((e.op == OpKind::kAmax || e.op == OpKind::kAmin ||
       e.op == OpKind::kSum) &&
      e.operands.size() == 1 && e.operands[0]->type.is_tensor() &&
      e.operands[0]->type.shape == Shape{Dim::Static(1)}) {
    return RowScalar(*e.operands[0], context);
  }
  if (e.op == OpKind::kCast && e.operands.size() == 1) {
    ExprPtr inner = RowScalar(*e.operands[0], context);
    if (!inner) return nullptr;
    return MakeOp(
        OpKind::kCast, Type::Scalar(e.type.dtype),
        [&] {
          ExprList v;
          v.push_back(std::move(inner));
          return v;
        }(),
        e.attrs, e.loc);
  }
  if ((e.op == OpKind::kAdd || e.op == OpKind::kSub || e.op == OpKind::kMul) &&
      e.operands.size() == 2) {
    ExprPtr lhs = RowScalar(*e.operands[0], context);
    ExprPtr rhs = lhs ? RowScalar(*e.operands[1], context) : nullptr;
    if (!rhs) return nullptr;
    ExprList operands;
    operands.push_back(std::move(lhs));
    operands.push_back(std::move(rhs));
    return MakeOp(e.op, Type::Scalar(e.type.dtype), std::move(operands), {},
                  e.loc);
  }
  return nullptr;
}

void KernelLowering::LowerJaggedTileLoop(const PyStmt& stmt, const Node& call) {
  const SourceLoc loc = call.loc;
  if (call.children.size() != 2 || !call.keywords.empty()) {
    Fail(loc, "hl.jagged_tile takes one argument: the per-row lengths");
    return;
  }
  if (stmt.target->kind != NodeKind::kName) {
    Fail(stmt.target->loc, "a tile loop target must be a name");
    return;
  }
  Val parent = Eval(*call.children[1]);
  if (parent.kind == ValKind::kPoison) return;
  const SourceLoc parent_loc = call.children[1]->loc;
  auto unsupported = [&](std::string why) {
    Diagnostic* d = Report(parent_loc, std::move(why));
    Note(d,
         "on TPU a loop bound is a scalar read from SMEM: Tessera runs an "
         "hl.jagged_tile under a top-level hl.tile of rows with one row per "
         "grid step, its lengths computed from kernel arguments read at the "
         "row tile (`x_offsets[tile_b.index + 1] - x_offsets[tile_b]`)");
  };
  if (!parent.IsTensor() || parent.type().rank() != 1 ||
      !IsInteger(parent.type().dtype)) {
    unsupported(fmt::format(
        "hl.jagged_tile needs a rank-1 integer tensor of lengths, got {}",
        Describe(parent)));
    return;
  }
  if (!(parent.type().shape[0] == Dim::Static(1))) {
    unsupported(
        "hl.jagged_tile's lengths must be indexed by the rows tile of the "
        "enclosing top-level hl.tile loop");
    return;
  }
  // `ends - starts`: the loop runs over [start, end) of x's rows, so loads
  // index them with the absolute tile; otherwise over [0, length).
  ExprPtr begin, end;
  const Expr* context = nullptr;
  const Expr& lengths = ResolveDefinition(*parent.expr, &context);
  if (lengths.op == OpKind::kSub && lengths.operands.size() == 2) {
    begin = RowScalar(*lengths.operands[1], context);
    end = begin ? RowScalar(*lengths.operands[0], context) : nullptr;
  }
  if (!end) {
    begin = MakeIntConst(0, DType::kI32, parent_loc);
    end = RowScalar(*parent.expr);
  }
  if (!end) {
    unsupported(
        "hl.jagged_tile's lengths must be computed from kernel arguments "
        "read at the rows tile");
    return;
  }
  const bool relative = !(begin->op == OpKind::kConst);
  Val begin_val = Val::Value(std::move(begin));
  std::string origin;
  if (relative) {
    // tile.index counts from 0 in Helion: the loop's start is subtracted.
    origin = IrNameFor(stmt.target->text + "_start", TypeKind::kScalar);
    const Type type = begin_val.type();
    Emit(MakeAssign(Value{origin, type}, std::move(begin_val.expr), loc));
    begin_val = Val::Value(MakeVar(origin, type));
  }
  ExprPtr begin_expr = ToIndexExpr(begin_val, parent_loc);
  ExprPtr end_expr = ToIndexExpr(Val::Value(std::move(end)), parent_loc);
  if (!begin_expr || !end_expr) return;
  MaterializeLoopCarried(stmt.body);
  TileVal tile = AllocateTileDim(nullptr, std::nullopt, loc);
  tile.name = IrNameFor(stmt.target->text, TypeKind::kTile);
  tile.zero_based = !relative;
  tile.index_origin = origin;
  Stmt loop;
  loop.kind = StmtKind::kTileLoop;
  loop.loc = stmt.loc;
  loop.vars.push_back(Value{tile.name, Type::Tile(Dim::Static(tile.block))});
  loop.dims.push_back(LoopDim{std::move(begin_expr), std::move(end_expr),
                              Dim::Static(tile.block)});
  Val tile_val;
  tile_val.kind = ValKind::kTile;
  tile_val.tile = tile;
  env_[stmt.target->text] = std::move(tile_val);
  loop.regions.resize(1);
  LowerTileBody(stmt.body, loop.regions[0]);
  Emit(std::move(loop));
}

// The rank-2 ref whose rows `ref` flattens, with row length `row_length`:
// x for `x.view(-1)` of a rank-2 x (the row length must be x.size(1)); for
// a rank-1 ref (a flattened parameter, which Tessera sees as rank 1) a host
// view [n // row_length, row_length] made here. nullptr when neither.
ExprPtr KernelLowering::RowsOf(const Expr& ref, const Expr& row_length,
                               SourceLoc loc) {
  const Expr& view = ResolveDefinition(ref);
  if ((view.op == OpKind::kEmpty || view.op == OpKind::kAllocFull) &&
      view.type.is_ref() && view.type.rank() == 1) {
    return SplitFlatAllocation(view, row_length);
  }
  if (view.op == OpKind::kReshape && view.operands[0]->type.is_ref() &&
      view.operands[0]->type.rank() == 2 &&
      (view.operands[0]->op == OpKind::kEmpty ||
       view.operands[0]->op == OpKind::kAllocFull)) {
    NameAllocation(view);
  }
  if (view.op == OpKind::kReshape && view.operands[0]->op == OpKind::kVar &&
      view.operands[0]->type.is_ref() && view.operands[0]->type.rank() == 2) {
    const Expr& rows = *view.operands[0];
    if (!IsRowLength(*this, row_length, rows)) {
      // Another size of the signature (`D` of `dense.shape`, which the
      // matmul after the gather forces equal anyway): the flat index reads
      // rows of x only when it is x's row length, which the host checks.
      const Expr& length = row_length;
      const Dim& row = rows.type.shape[1];
      if (length.op != OpKind::kVar || row.is_static() ||
          !symbol_order_.count(length.name)) {
        return nullptr;
      }
      const Dim other = Dim::Symbol(length.name);
      if (!(Substitute(row, aliases_) == Substitute(other, aliases_))) {
        UnifyDims(row, other, loc, "flat index row length");
      }
    }
    return CloneExpr(rows);
  }
  // A row length the host knows: a scalar parameter or size symbol.
  const Expr& length = ResolveDefinition(row_length);
  if (ref.op != OpKind::kVar || length.op != OpKind::kVar ||
      !length.type.is_scalar() || !IsInteger(length.type.dtype) ||
      DefinitionOf(length.name) != nullptr ||
      device_symbols_.count(length.name)) {
    return nullptr;
  }
  const Dim& flat = ref.type.shape[0];
  if (flat.is_static()) return nullptr;
  Block& host = *blocks_.front();
  const std::string rows = Fresh(ref.name + "_rows");
  taken_.insert(rows);
  ExprList divide;
  divide.push_back(MakeVar(flat.symbol, Type::Scalar(DType::kI64)));
  divide.push_back(MakeVar(length.name, length.type));
  host.stmts.push_back(
      MakeAssign(Value{rows, Type::Scalar(DType::kI64)},
                 MakeOp(OpKind::kFloorDiv, Type::Scalar(DType::kI64),
                        std::move(divide), {}, loc),
                 loc));
  const Shape shape{Dim::Symbol(rows), Dim::Symbol(length.name)};
  const std::string name = Fresh(ref.name + "_2d");
  taken_.insert(name);
  const Type type = Type::Ref(ref.type.dtype, shape);
  ExprList operands;
  operands.push_back(CloneExpr(ref));
  host.stmts.push_back(
      MakeAssign(Value{name, type},
                 MakeOp(OpKind::kReshape, type, std::move(operands),
                        {Attr{"shape", shape}}, loc),
                 loc));
  return MakeVar(name, type);
}

std::optional<JaggedRowsAccess> KernelLowering::MatchJaggedRows(
    const Val& ref, const Val& index, SourceLoc loc) {
  const Val& item = index.kind == ValKind::kTuple && index.elems.size() == 1
                        ? index.elems[0]
                        : index;
  if (!ref.IsRef() || ref.type().rank() != 1 || !item.IsTensor() ||
      item.type().rank() < 2 || !IsInteger(item.type().dtype)) {
    return std::nullopt;
  }
  auto unsupported = [&](const char* reason =
                             nullptr) -> std::optional<JaggedRowsAccess> {
    Diagnostic* d = Report(
        loc, fmt::format("an element gather through a flattened tensor with "
                         "a rank-{} index is supported only as rows times "
                         "the row length plus a lane tile",
                         item.type().rank()));
    Note(d,
         "write hl.load(x.view(-1), [rows[:, :, None] * x.size(1) + "
         "tile_m.index[None, None, :]]) with rows = starts[:, None] + "
         "tile_k.index[None, :] of an hl.jagged_tile: a TPU cannot gather "
         "lanes across vregs, so Tessera reads the block x[tile_k, tile_m] "
         "instead");
    if (reason != nullptr) Note(d, reason);
    return JaggedRowsAccess{};
  };
  const Expr* context = nullptr;
  const Expr& flat = ResolveDefinition(*item.expr, &context);
  const size_t rank = flat.type.rank();
  if (flat.op != OpKind::kAdd || flat.operands.size() != 2) {
    return std::nullopt;
  }
  std::optional<std::pair<std::string, size_t>> rows, lanes;
  const Expr* row_length = nullptr;
  for (int k = 0; k < 2 && !rows; ++k) {
    const Expr* product_context = context;
    const Expr& product =
        ResolveDefinition(*flat.operands[k], &product_context);
    if (product.op != OpKind::kMul || product.operands.size() != 2) continue;
    for (int m = 0; m < 2 && !rows; ++m) {
      if (!product.operands[1 - m]->type.is_scalar()) continue;
      auto row_form = FormOf(*this, *product.operands[m], product_context);
      auto lane_form = FormOf(*this, *flat.operands[1 - k], context);
      if (!row_form || !lane_form) continue;
      rows = SingleTile(*row_form, rank);
      lanes = SingleTile(*lane_form, rank);
      row_length = product.operands[1 - m].get();
    }
  }
  // An index that is not rows of tiles and row scalars (data, as in
  // `idx[tile][:, None] * n + lanes`) is left to the general gather path
  // and its diagnostics.
  if (!rows || !lanes) return std::nullopt;
  if (rows->second >= lanes->second) return unsupported();
  for (size_t axis = 0; axis < rank; ++axis) {
    if (axis != rows->second && axis != lanes->second &&
        !(flat.type.shape[axis] == Dim::Static(1))) {
      return unsupported();
    }
  }
  const TileVal* row_tile = TileNamed(rows->first);
  const TileVal* lane_tile = TileNamed(lanes->first);
  if (row_tile == nullptr || lane_tile == nullptr) return unsupported();
  ExprPtr base = RowsOf(*ref.expr, *row_length, loc);
  if (!base) {
    const Expr& target = ResolveDefinition(*ref.expr);
    const bool allocation =
        target.op == OpKind::kEmpty || target.op == OpKind::kAllocFull;
    return unsupported(
        allocation ? "a 1-D torch.empty/zeros/full is read or written as rows "
                     "only when its size is written `rows * row_length` with "
                     "the index's row length (`torch.zeros(n * m)` for "
                     "`row * m + lane`)"
                   : nullptr);
  }
  NoteTileUse(row_tile->ordinal, true, false);
  NoteTileUse(lane_tile->ordinal, true, true);
  JaggedRowsAccess access;
  access.base = std::move(base);
  access.indices.push_back(
      Index(IndexKind::kTile,
            MakeVar(row_tile->name, Type::Tile(Dim::Static(row_tile->block)))));
  access.indices.push_back(Index(
      IndexKind::kTile,
      MakeVar(lane_tile->name, Type::Tile(Dim::Static(lane_tile->block)))));
  access.rank = rank;
  access.row_axis = rows->second;
  access.lane_axis = lanes->second;
  return access;
}

std::optional<JaggedShift> KernelLowering::MatchJaggedShift(const Val& ref,
                                                            const Val& index,
                                                            SourceLoc loc) {
  const Val& item = index.kind == ValKind::kTuple && index.elems.size() == 1
                        ? index.elems[0]
                        : index;
  if (!ref.IsRef() || ref.type().rank() != 1 || !item.IsTensor() ||
      item.type().rank() < 2 || !IsInteger(item.type().dtype)) {
    return std::nullopt;
  }
  const Expr* context = nullptr;
  const Expr& value = ResolveDefinition(*item.expr, &context);
  std::optional<IndexForm> form = FormOf(*this, value, context);
  const size_t rank = value.type.rank();
  if (!form || form->tiles.size() != 1 || form->scalars.empty() ||
      form->tiles.begin()->second != 1 || form->rank > rank) {
    return std::nullopt;
  }
  const auto& [tile_name, own_axis] = form->tiles.begin()->first;
  const size_t axis = own_axis + rank - form->rank;
  for (size_t d = 0; d < rank; ++d) {
    if (d != axis && !(value.type.shape[d] == Dim::Static(1))) {
      return std::nullopt;
    }
  }
  const TileVal* tile = TileNamed(tile_name);
  if (tile == nullptr || !tile->index_origin.empty()) return std::nullopt;
  // tile.index + (sum of the row's scalars): a shifted tile index.
  Val tile_val;
  tile_val.kind = ValKind::kTile;
  tile_val.tile = *tile;
  Val shifted = TileIndexOf(tile_val, loc);
  for (const auto& [key, coefficient] : form->scalars) {
    Val term = Val::Value(CloneExpr(*form->scalar_exprs.at(key)));
    if (coefficient != 1) {
      term =
          Binary(BinaryOp::kMul, std::move(term), Val::Int(coefficient), loc);
    }
    shifted = Binary(BinaryOp::kAdd, std::move(shifted), std::move(term), loc);
  }
  if (!shifted.IsValue() || !MatchTileShift(*shifted.expr)) return std::nullopt;
  return JaggedShift{std::move(shifted.expr), tile->ordinal, rank, axis};
}

std::optional<Val> KernelLowering::JaggedShiftedGather(const Val& ref,
                                                       const Val& index,
                                                       SourceLoc loc) {
  std::optional<JaggedShift> shift = MatchJaggedShift(ref, index, loc);
  if (!shift) return std::nullopt;
  NoteTileUse(shift->tile_ordinal, true, true);
  IndexList indices;
  indices.push_back(Index(IndexKind::kShiftedTile, std::move(shift->index)));
  Val loaded = LoadAt(CloneExpr(*ref.expr), std::move(indices), loc);
  if (!loaded.IsValue()) return loaded;
  IndexList axes;
  for (size_t d = 0; d < shift->rank; ++d) {
    axes.push_back(d == shift->axis ? Index(IndexKind::kSlice)
                                    : Index(IndexKind::kNewAxis));
  }
  ExprList subscripted;
  subscripted.push_back(std::move(loaded.expr));
  return MakeTyped(OpKind::kSubscript, std::move(subscripted), {}, loc,
                   std::move(axes));
}

std::optional<Val> KernelLowering::JaggedRowsGather(const Val& ref,
                                                    const Val& index,
                                                    SourceLoc loc) {
  if (std::optional<Val> shifted = JaggedShiftedGather(ref, index, loc)) {
    return shifted;
  }
  std::optional<JaggedRowsAccess> access = MatchJaggedRows(ref, index, loc);
  if (!access) return std::nullopt;
  if (!access->base) return Val::Poison();
  Val loaded = LoadAt(std::move(access->base), std::move(access->indices), loc);
  if (!loaded.IsValue() || access->rank == 2) return loaded;
  IndexList axes;
  for (size_t axis = 0; axis < access->rank; ++axis) {
    axes.push_back(axis == access->row_axis || axis == access->lane_axis
                       ? Index(IndexKind::kSlice)
                       : Index(IndexKind::kNewAxis));
  }
  ExprList subscripted;
  subscripted.push_back(std::move(loaded.expr));
  return MakeTyped(OpKind::kSubscript, std::move(subscripted), {}, loc,
                   std::move(axes));
}

std::optional<bool> KernelLowering::JaggedRowsWrite(
    const Val& target, const Val& index, const Val& value, SourceLoc index_loc,
    SourceLoc value_loc, Val& base, IndexList& indices, ExprPtr& stored) {
  if (MatchJaggedShift(target, index, index_loc)) {
    Diagnostic* d = Report(
        index_loc,
        "a store at 'starts + tile.index' (an offset read from memory) is not "
        "supported: only loads at such an index lower");
    Note(d,
         "on the TPU a load there reads an aligned window and rotates it into "
         "place; no rotate makes a store at a lane offset that is not a "
         "multiple of 128 aligned (Mosaic E2003)");
    return false;
  }
  std::optional<JaggedRowsAccess> access =
      MatchJaggedRows(target, index, index_loc);
  if (!access) return std::nullopt;
  if (!access->base) return false;
  // The value has the index's shape; its one-element axes go.
  Val squeezed = value.Clone();
  if (squeezed.IsTensor() && squeezed.type().rank() == access->rank &&
      access->rank > 2) {
    IndexList axes;
    for (size_t axis = 0; axis < access->rank; ++axis) {
      axes.push_back(axis == access->row_axis || axis == access->lane_axis
                         ? Index(IndexKind::kSlice)
                         : Index(IndexKind::kScalar,
                                 MakeIntConst(0, DType::kI64, value_loc)));
    }
    ExprList operands;
    operands.push_back(std::move(squeezed.expr));
    squeezed = MakeTyped(OpKind::kSubscript, std::move(operands), {}, value_loc,
                         std::move(axes));
    if (!squeezed.IsValue()) return false;
  }
  const Type ref_type = access->base->type;
  base = Val::Value(std::move(access->base));
  indices = std::move(access->indices);
  std::vector<Type> types = {ref_type};
  absl::StatusOr<Type> region = InferType(OpKind::kLoad, types, indices, {});
  if (!region.ok()) {
    Fail(index_loc, std::string(region.status().message()));
    return false;
  }
  stored = CoerceForStore(std::move(squeezed), *region, value_loc);
  return stored != nullptr;
}

}  // namespace tessera::helion_py
