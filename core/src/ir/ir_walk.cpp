// Walkers over statements and expression trees.
#include "tessera/ir/ir.h"

namespace tessera {

// ---------------------------------------------------------------------------
// Walkers
// ---------------------------------------------------------------------------
void ForEachRootExpr(Stmt& stmt, const std::function<void(ExprPtr&)>& fn) {
  auto visit = [&](ExprPtr& expr) {
    if (expr) fn(expr);
  };
  visit(stmt.value);
  visit(stmt.target);
  for (Index& index : stmt.indices) visit(index.expr);
  for (LoopDim& dim : stmt.dims) {
    visit(dim.begin);
    visit(dim.end);
  }
  for (ExprPtr& init : stmt.inits) visit(init);
  for (ExprPtr& operand : stmt.operands) visit(operand);
}

void ForEachRootExpr(const Stmt& stmt,
                     const std::function<void(const Expr&)>& fn) {
  auto visit = [&](const ExprPtr& expr) {
    if (expr) fn(*expr);
  };
  visit(stmt.value);
  visit(stmt.target);
  for (const Index& index : stmt.indices) visit(index.expr);
  for (const LoopDim& dim : stmt.dims) {
    visit(dim.begin);
    visit(dim.end);
  }
  for (const ExprPtr& init : stmt.inits) visit(init);
  for (const ExprPtr& operand : stmt.operands) visit(operand);
}

void WalkExpr(const Expr& expr, const std::function<void(const Expr&)>& fn) {
  fn(expr);
  for (const ExprPtr& operand : expr.operands) {
    if (operand) WalkExpr(*operand, fn);
  }
  for (const Index& index : expr.indices) {
    if (index.expr) WalkExpr(*index.expr, fn);
  }
}

void WalkExprMutable(Expr& expr, const std::function<void(Expr&)>& fn) {
  fn(expr);
  for (ExprPtr& operand : expr.operands) {
    if (operand) WalkExprMutable(*operand, fn);
  }
  for (Index& index : expr.indices) {
    if (index.expr) WalkExprMutable(*index.expr, fn);
  }
}

void WalkStmts(Block& block, const std::function<void(Stmt&)>& fn) {
  for (Stmt& stmt : block.stmts) {
    fn(stmt);
    for (Block& region : stmt.regions) WalkStmts(region, fn);
  }
}

void WalkStmts(const Block& block, const std::function<void(const Stmt&)>& fn) {
  for (const Stmt& stmt : block.stmts) {
    fn(stmt);
    for (const Block& region : stmt.regions) WalkStmts(region, fn);
  }
}

void ForEachDefinedName(const Function& function,
                        const std::function<void(const std::string&)>& fn) {
  for (const Value& param : function.params) fn(param.name);
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const Value& result : stmt.results) fn(result.name);
    for (const Value& var : stmt.vars) fn(var.name);
    for (const Value& arg : stmt.iter_args) fn(arg.name);
  });
}

}  // namespace tessera
