// Builders and cloning of IR nodes, and the slab allocation of expressions
// (structural equality: ir_equality.cpp; walkers: ir_walk.cpp).
#include "tessera/ir/ir.h"

#include "tessera/ir/node_memory.h"
#include "tessera/ir/types.h"

namespace tessera {

static_assert(sizeof(Expr) <= ir_memory::kMaxSlabBytes);

void* Expr::operator new(std::size_t bytes) {
  return ir_memory::AllocateFromSlab(bytes);
}
void Expr::operator delete(void* node) noexcept { ir_memory::FreeToSlab(node); }

// ---------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------
ExprPtr MakeVar(std::string name, Type type, SourceLoc loc) {
  auto expr = std::make_unique<Expr>();
  expr->op = OpKind::kVar;
  expr->type = std::move(type);
  expr->loc = loc;
  expr->name = std::move(name);
  return expr;
}

ExprPtr MakeConst(AttrValue value, DType dtype, SourceLoc loc) {
  auto expr = std::make_unique<Expr>();
  expr->op = OpKind::kConst;
  expr->type = Type::Scalar(dtype);
  expr->loc = loc;
  expr->attrs.push_back(Attr{"value", std::move(value)});
  return expr;
}

bool IsTrailingUnsqueeze(const Expr& expr) {
  if (expr.op != OpKind::kSubscript || expr.operands.size() != 1 ||
      !expr.operands[0]) {
    return false;
  }
  const size_t rank = expr.operands[0]->type.rank();
  if (expr.indices.size() != rank + 1 ||
      expr.indices.back().kind != IndexKind::kNewAxis) {
    return false;
  }
  for (size_t i = 0; i < rank; ++i) {
    if (expr.indices[i].kind != IndexKind::kSlice) return false;
  }
  return true;
}

namespace {

const Expr* SkipCasts(const Expr* expr) {
  while (expr->op == OpKind::kCast && expr->operands.size() == 1 &&
         expr->operands[0]) {
    expr = expr->operands[0].get();
  }
  return expr;
}

// The tile operand of `tile_index(tile)` (through casts), or the arange
// itself (a window that needs no tile), or nullptr.
const Expr* TileOfIndex(const Expr* expr) {
  expr = SkipCasts(expr);
  if (expr->op == OpKind::kArange && expr->type.is_tensor()) return expr;
  if (expr->op != OpKind::kTileIndex || expr->operands.size() != 1 ||
      !expr->operands[0] || !expr->operands[0]->type.is_tile()) {
    return nullptr;
  }
  return expr->operands[0].get();
}

bool IsIntegerScalar(const Expr* expr) {
  return expr->type.is_scalar() && IsInteger(expr->type.dtype);
}

}  // namespace

std::optional<TileShift> MatchTileShift(const Expr& expr) {
  const Expr* root = SkipCasts(&expr);
  if ((root->op != OpKind::kAdd && root->op != OpKind::kSub) ||
      root->operands.size() != 2 || !root->operands[0] || !root->operands[1] ||
      !IsInteger(root->type.dtype)) {
    return std::nullopt;
  }
  const Expr* lhs = root->operands[0].get();
  const Expr* rhs = root->operands[1].get();
  if (const Expr* tile = TileOfIndex(lhs); tile && IsIntegerScalar(rhs)) {
    return TileShift{tile, rhs, root->op == OpKind::kSub};
  }
  if (const Expr* tile = TileOfIndex(rhs);
      tile && root->op == OpKind::kAdd && IsIntegerScalar(lhs)) {
    return TileShift{tile, lhs, false};
  }
  return std::nullopt;
}

ExprPtr MakeIntConst(int64_t value, DType dtype, SourceLoc loc) {
  return MakeConst(value, dtype, loc);
}
ExprPtr MakeFloatConst(double value, DType dtype, SourceLoc loc) {
  return MakeConst(value, dtype, loc);
}
ExprPtr MakeBoolConst(bool value, SourceLoc loc) {
  return MakeConst(value, DType::kBool, loc);
}

ExprPtr MakeOp(OpKind op, Type type, ExprList operands, AttrList attrs,
               SourceLoc loc) {
  auto expr = std::make_unique<Expr>();
  expr->op = op;
  expr->type = std::move(type);
  expr->operands = std::move(operands);
  expr->attrs = std::move(attrs);
  expr->loc = loc;
  return expr;
}

Stmt MakeAssign(Value target, ExprPtr value, SourceLoc loc) {
  Stmt stmt;
  stmt.kind = StmtKind::kAssign;
  stmt.loc = loc;
  stmt.results.push_back(std::move(target));
  stmt.value = std::move(value);
  return stmt;
}

Stmt MakeStore(ExprPtr target, IndexList indices, ExprPtr value,
               SourceLoc loc) {
  Stmt stmt;
  stmt.kind = StmtKind::kStore;
  stmt.loc = loc;
  stmt.target = std::move(target);
  stmt.indices = std::move(indices);
  stmt.value = std::move(value);
  return stmt;
}

namespace {
// A statement that only passes values on (return, yield).
Stmt MakeOperandsStmt(StmtKind kind, ExprList values, SourceLoc loc) {
  Stmt stmt;
  stmt.kind = kind;
  stmt.loc = loc;
  stmt.operands = std::move(values);
  return stmt;
}
}  // namespace

Stmt MakeReturn(ExprList values, SourceLoc loc) {
  return MakeOperandsStmt(StmtKind::kReturn, std::move(values), loc);
}

Stmt MakeYield(ExprList values, SourceLoc loc) {
  return MakeOperandsStmt(StmtKind::kYield, std::move(values), loc);
}

// ---------------------------------------------------------------------------
// Cloning
// ---------------------------------------------------------------------------
namespace {
ExprPtr CloneOrNull(const ExprPtr& expr) {
  return expr ? CloneExpr(*expr) : nullptr;
}
ExprList CloneExprs(const ExprList& exprs) {
  ExprList result;
  result.reserve(exprs.size());
  for (const ExprPtr& expr : exprs) result.push_back(CloneOrNull(expr));
  return result;
}
IndexList CloneIndices(const IndexList& indices) {
  IndexList result;
  result.reserve(indices.size());
  for (const Index& index : indices) result.push_back(CloneIndex(index));
  return result;
}
}  // namespace

ExprPtr CloneExpr(const Expr& expr) {
  auto copy = std::make_unique<Expr>();
  copy->op = expr.op;
  copy->type = expr.type;
  copy->loc = expr.loc;
  copy->name = expr.name;
  copy->operands = CloneExprs(expr.operands);
  copy->indices = CloneIndices(expr.indices);
  copy->attrs = expr.attrs;
  return copy;
}

Index CloneIndex(const Index& index) {
  return Index(index.kind, CloneOrNull(index.expr), index.size);
}

LoopDim CloneLoopDim(const LoopDim& dim) {
  return LoopDim{CloneOrNull(dim.begin), CloneOrNull(dim.end), dim.block};
}

Stmt CloneStmt(const Stmt& stmt) {
  Stmt copy;
  copy.kind = stmt.kind;
  copy.loc = stmt.loc;
  copy.results = stmt.results;
  copy.value = CloneOrNull(stmt.value);
  copy.target = CloneOrNull(stmt.target);
  copy.indices = CloneIndices(stmt.indices);
  copy.vars = stmt.vars;
  copy.dims.reserve(stmt.dims.size());
  for (const LoopDim& dim : stmt.dims) copy.dims.push_back(CloneLoopDim(dim));
  copy.iter_args = stmt.iter_args;
  copy.inits = CloneExprs(stmt.inits);
  copy.operands = CloneExprs(stmt.operands);
  copy.regions.reserve(stmt.regions.size());
  for (const Block& region : stmt.regions) {
    copy.regions.push_back(CloneBlock(region));
  }
  copy.attrs = stmt.attrs;
  return copy;
}

Block CloneBlock(const Block& block) {
  Block copy;
  copy.stmts.reserve(block.stmts.size());
  for (const Stmt& stmt : block.stmts) copy.stmts.push_back(CloneStmt(stmt));
  return copy;
}

Function CloneFunction(const Function& function) {
  Function copy;
  copy.name = function.name;
  copy.kind = function.kind;
  copy.loc = function.loc;
  copy.params = function.params;
  copy.result_types = function.result_types;
  copy.body = CloneBlock(function.body);
  copy.attrs = function.attrs;
  return copy;
}

Module CloneModule(const Module& module) {
  Module copy;
  copy.source_file = module.source_file;
  copy.properties = module.properties;
  copy.functions.reserve(module.functions.size());
  for (const Function& function : module.functions) {
    copy.functions.push_back(CloneFunction(function));
  }
  copy.attrs = module.attrs;
  return copy;
}

}  // namespace tessera
