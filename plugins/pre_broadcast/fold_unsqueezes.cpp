// FoldUnsqueezes (lane_rewriter.h): the rewrite adds `x[..., None]` where an
// original value meets a wide one and `broadcast_to(x[..., None])` where a
// loop starts wide; when `x` is a reduction or a `full` used nowhere else,
// its definition can produce that shape directly.
#include <functional>
#include <map>
#include <string>

#include "lane_rewriter.h"
#include "tessera/ir/type_inference.h"

namespace tessera::pre_broadcast {
namespace {

bool IsUnsqueezeOfVar(const Expr& expr) {
  return IsTrailingUnsqueeze(expr) && expr.operands[0]->op == OpKind::kVar;
}

// Pre-order over every expression slot of the function; `fn` may replace
// the expression in its slot before its operands are visited.
void ForEachExprSlot(ExprPtr& slot, const std::function<void(ExprPtr&)>& fn) {
  if (!slot) return;
  fn(slot);
  for (ExprPtr& operand : slot->operands) ForEachExprSlot(operand, fn);
  for (Index& index : slot->indices) ForEachExprSlot(index.expr, fn);
}

void ForEachExprSlot(Function& function,
                     const std::function<void(ExprPtr&)>& fn) {
  WalkStmts(function.body, [&](Stmt& stmt) {
    ForEachRootExpr(stmt, [&](ExprPtr& root) { ForEachExprSlot(root, fn); });
  });
}

// Sets `name = value` on the definition if it still type-checks; returns
// whether it did.
bool Redefine(Stmt& definition, const std::string& attr, AttrValue value) {
  Expr& expr = *definition.value;
  AttrList saved = expr.attrs;
  SetAttr(expr.attrs, attr, std::move(value));
  absl::StatusOr<Type> type = InferType(expr);
  if (!type.ok()) {
    expr.attrs = std::move(saved);
    return false;
  }
  expr.type = *type;
  definition.results[0].type = *std::move(type);
  return true;
}

bool IsLastDimReduction(const Expr& expr) {
  if (OpInfoOf(expr.op).category != OpCategory::kReduction) return false;
  const bool* keepdim = GetAttr<bool>(expr.attrs, "keepdim");
  if (keepdim != nullptr && *keepdim) return false;
  const int64_t* dim = GetAttr<int64_t>(expr.attrs, "dim");
  const auto rank = static_cast<int64_t>(expr.operands[0]->type.rank());
  return dim != nullptr && (*dim == rank - 1 || *dim == -1);
}

}  // namespace

void FoldUnsqueezes(Function& function, int64_t lanes) {
  std::map<std::string, int> uses, unsqueeze_uses;
  std::map<std::string, Stmt*> definitions;
  WalkStmts(function.body, [&](Stmt& stmt) {
    if (stmt.kind == StmtKind::kAssign) {
      definitions[stmt.results[0].name] = &stmt;
    }
  });
  ForEachExprSlot(function, [&](ExprPtr& expr) {
    if (expr->op == OpKind::kVar) ++uses[expr->name];
    if (IsUnsqueezeOfVar(*expr)) ++unsqueeze_uses[expr->operands[0]->name];
  });

  // Reductions every use of which adds the trailing dim back: keepdim.
  std::map<std::string, Type> kept;
  for (const auto& [name, count] : unsqueeze_uses) {
    auto definition = definitions.find(name);
    if (definition == definitions.end() || uses[name] != count ||
        !IsLastDimReduction(*definition->second->value)) {
      continue;
    }
    if (Redefine(*definition->second, "keepdim", true)) {
      kept[name] = definition->second->results[0].type;
    }
  }

  // A `full` used only to start a wide loop-carried value: create it wide.
  std::map<std::string, Type> widened;
  ForEachExprSlot(function, [&](ExprPtr& expr) {
    if (expr->op != OpKind::kBroadcastTo ||
        !IsUnsqueezeOfVar(*expr->operands[0])) {
      return;
    }
    const Expr& var = *expr->operands[0]->operands[0];
    auto definition = definitions.find(var.name);
    const auto* shape = GetAttr<Shape>(expr->attrs, "shape");
    if (definition == definitions.end() || uses[var.name] != 1 ||
        shape == nullptr || shape->empty() || shape->back().size != lanes ||
        definition->second->value->op != OpKind::kFull) {
      return;
    }
    if (Redefine(*definition->second, "shape", *shape)) {
      widened[var.name] = definition->second->results[0].type;
      ExprPtr replacement = std::move(expr->operands[0]->operands[0]);
      replacement->type = widened[var.name];
      expr = std::move(replacement);
    }
  });

  if (kept.empty()) return;
  ForEachExprSlot(function, [&](ExprPtr& expr) {
    if (!IsUnsqueezeOfVar(*expr)) return;
    auto it = kept.find(expr->operands[0]->name);
    if (it == kept.end()) return;
    ExprPtr replacement = std::move(expr->operands[0]);
    replacement->type = it->second;
    expr = std::move(replacement);
  });
}

}  // namespace tessera::pre_broadcast
