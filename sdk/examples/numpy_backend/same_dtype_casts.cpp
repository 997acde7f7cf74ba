#include "same_dtype_casts.h"

#include <memory>
#include <utility>

namespace numpy_reference {
namespace {

bool IsSameDtypeCast(const tessera::Expr& expr) {
  return expr.op == tessera::OpKind::kCast && expr.operands.size() == 1 &&
         expr.operands[0] != nullptr &&
         expr.operands[0]->type.dtype == expr.type.dtype &&
         expr.operands[0]->type.kind == expr.type.kind;
}

// Replaces every same-dtype cast under `slot` by its operand; true when
// one was.
bool DropCasts(tessera::ExprPtr& slot) {
  if (!slot) return false;
  bool changed = false;
  while (IsSameDtypeCast(*slot)) {
    tessera::ExprPtr operand = std::move(slot->operands[0]);
    slot = std::move(operand);
    changed = true;
  }
  for (tessera::ExprPtr& operand : slot->operands) {
    changed = DropCasts(operand) || changed;
  }
  for (tessera::Index& index : slot->indices) {
    changed = DropCasts(index.expr) || changed;
  }
  return changed;
}

class SameDtypeCasts final : public tessera::Pass {
 public:
  absl::StatusOr<bool> Run(tessera::Module& module,
                           tessera::PassContext&) override {
    bool changed = false;
    for (tessera::Function& function : module.functions) {
      tessera::WalkStmts(function.body, [&](tessera::Stmt& stmt) {
        tessera::ForEachRootExpr(stmt, [&](tessera::ExprPtr& root) {
          changed = DropCasts(root) || changed;
        });
      });
    }
    return changed;
  }
};

}  // namespace

tessera::PassInfo SameDtypeCastsPass() {
  tessera::PassInfo info;
  info.name = "numpy-same-dtype-casts";
  info.description =
      "drops casts to the dtype their operand already has (numpy-reference's "
      "lowering pass)";
  info.create = [] { return std::make_unique<SameDtypeCasts>(); };
  return info;
}

}  // namespace numpy_reference
