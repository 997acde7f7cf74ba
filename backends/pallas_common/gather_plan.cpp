#include "gather_plan.h"

namespace tessera::pallas {
namespace {

void Walk(const Expr& expr, const std::map<std::string, const Expr*>& defs,
          bool expanded, int depth,
          const std::function<void(const Expr&, bool)>& fn) {
  if (expr.op == OpKind::kVar && expr.type.is_tensor()) {
    auto def = defs.find(expr.name);
    // SSA definitions form no cycles; the depth bound guards malformed IR.
    if (def != defs.end() && depth < 64) {
      fn(expr, expanded);
      Walk(*def->second, defs, true, depth + 1, fn);
      return;
    }
  }
  fn(expr, expanded);
  for (const ExprPtr& operand : expr.operands) {
    if (operand) Walk(*operand, defs, expanded, depth, fn);
  }
  for (const Index& index : expr.indices) {
    if (index.expr) Walk(*index.expr, defs, expanded, depth, fn);
  }
}

}  // namespace

std::map<std::string, const Expr*> TensorDefinitions(const Function& device) {
  std::map<std::string, const Expr*> defs;
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.kind == StmtKind::kAssign && stmt.value &&
        stmt.results.size() == 1 && stmt.results[0].type.is_tensor()) {
      defs[stmt.results[0].name] = stmt.value.get();
    }
  });
  return defs;
}

void WalkGatherIndex(const Expr& index,
                     const std::map<std::string, const Expr*>& defs,
                     const std::function<void(const Expr&, bool)>& fn) {
  Walk(index, defs, false, 0, fn);
}

void ForEachGather(const Expr& root,
                   const std::function<void(const Expr&, const Index&)>& fn) {
  WalkExpr(root, [&](const Expr& expr) {
    if (expr.op != OpKind::kLoad) return;
    for (const Index& index : expr.indices) {
      if (index.kind == IndexKind::kGather && index.expr) fn(expr, index);
    }
  });
}

}  // namespace tessera::pallas
