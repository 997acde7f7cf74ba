#include "ir_names.h"

namespace tessera::passes {
namespace {

void VisitDim(Dim& dim, const NameVisitor& visitor) {
  if (!dim.is_static() && !dim.symbol.empty()) visitor.symbol(dim.symbol);
}

void VisitIndexNames(Index& index, const NameVisitor& visitor) {
  if (index.expr) VisitExprNames(*index.expr, visitor);
  if (index.kind == IndexKind::kRange) VisitDim(index.size, visitor);
}

}  // namespace

void VisitTypeNames(Type& type, const NameVisitor& visitor) {
  for (Dim& dim : type.shape) VisitDim(dim, visitor);
}

void VisitAttrNames(AttrList& attrs, const NameVisitor& visitor) {
  for (Attr& attr : attrs) {
    if (auto* dims = std::get_if<Shape>(&attr.value)) {
      for (Dim& dim : *dims) VisitDim(dim, visitor);
    }
  }
}

void VisitExprNames(Expr& expr, const NameVisitor& visitor) {
  if (expr.op == OpKind::kVar) {
    visitor.var(expr);
  }
  for (ExprPtr& operand : expr.operands) {
    if (operand) VisitExprNames(*operand, visitor);
  }
  for (Index& index : expr.indices) VisitIndexNames(index, visitor);
  if (expr.op != OpKind::kVar) VisitTypeNames(expr.type, visitor);
  VisitAttrNames(expr.attrs, visitor);
}

void VisitLoopDimNames(LoopDim& dim, const NameVisitor& visitor) {
  if (dim.begin) VisitExprNames(*dim.begin, visitor);
  if (dim.end) VisitExprNames(*dim.end, visitor);
  VisitDim(dim.block, visitor);
}

void VisitStmtUses(Stmt& stmt, const NameVisitor& visitor) {
  if (stmt.target) VisitExprNames(*stmt.target, visitor);
  for (Index& index : stmt.indices) VisitIndexNames(index, visitor);
  for (LoopDim& dim : stmt.dims) VisitLoopDimNames(dim, visitor);
  for (ExprPtr& init : stmt.inits) {
    if (init) VisitExprNames(*init, visitor);
  }
  if (stmt.value) VisitExprNames(*stmt.value, visitor);
  for (ExprPtr& operand : stmt.operands) {
    if (operand) VisitExprNames(*operand, visitor);
  }
  VisitAttrNames(stmt.attrs, visitor);
  for (Value& result : stmt.results) VisitTypeNames(result.type, visitor);
  for (Value& var : stmt.vars) VisitTypeNames(var.type, visitor);
  for (Value& iter_arg : stmt.iter_args) {
    VisitTypeNames(iter_arg.type, visitor);
  }
}

void VisitStmtUses(const Stmt& stmt, const ConstNameVisitor& visitor) {
  // The mutable walk only hands out references; these callbacks never write
  // through them.
  NameVisitor adapter{
      [&](Expr& var) { visitor.var(var); },
      [&](std::string& symbol) { visitor.symbol(symbol); },
  };
  VisitStmtUses(const_cast<Stmt&>(stmt), adapter);
}

void ForEachTypeSymbol(const Type& type,
                       const std::function<void(const std::string&)>& fn) {
  for (const Dim& dim : type.shape) {
    if (!dim.is_static() && !dim.symbol.empty()) fn(dim.symbol);
  }
}

}  // namespace tessera::passes
