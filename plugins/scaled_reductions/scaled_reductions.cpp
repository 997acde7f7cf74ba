#include "scaled_reductions.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
namespace {

// A constant the rewrite may move into a max / min: finite and positive.
bool IsPositiveConstant(const Expr& expr) {
  if (expr.op != OpKind::kConst) return false;
  if (const double* value = GetAttr<double>(expr.attrs, "value")) {
    return std::isfinite(*value) && *value > 0;
  }
  if (const int64_t* value = GetAttr<int64_t>(expr.attrs, "value")) {
    return *value > 0;
  }
  return false;
}

bool IsFloatTensorVar(const Expr& expr) {
  return expr.op == OpKind::kVar && expr.type.is_tensor() &&
         IsFloat(expr.type.dtype);
}

// `mul(v, c)` or `mul(c, v)` with v a float tensor and c a positive
// constant: {v, c}.
struct Scaled {
  const Expr* value;
  const Expr* scale;
};
std::optional<Scaled> MatchScale(const Expr& expr) {
  if (expr.op != OpKind::kMul || expr.operands.size() != 2) return std::nullopt;
  const Expr& lhs = *expr.operands[0];
  const Expr& rhs = *expr.operands[1];
  if (IsPositiveConstant(rhs)) return Scaled{&lhs, &rhs};
  if (IsPositiveConstant(lhs)) return Scaled{&rhs, &lhs};
  return std::nullopt;
}

bool IsMaxOrMin(const Expr& expr) {
  return (expr.op == OpKind::kAmax || expr.op == OpKind::kAmin) &&
         expr.operands.size() == 1;
}

// The scaled operand `mul(x, c)` (x a float tensor variable, c as above)
// whose result keeps x's shape.
std::optional<Scaled> MatchScaledOperand(const Expr& expr) {
  std::optional<Scaled> scaled = MatchScale(expr);
  if (!scaled || !IsFloatTensorVar(*scaled->value) ||
      expr.type.shape != scaled->value->type.shape) {
    return std::nullopt;
  }
  return scaled;
}

// The scaled reduction `mul(amax(x), c)` (or amin; either operand order):
// {the reduction, c}.
std::optional<Scaled> MatchScaledReduction(const Expr& expr) {
  std::optional<Scaled> scaled = MatchScale(expr);
  if (!scaled || !IsMaxOrMin(*scaled->value) ||
      !IsFloatTensorVar(*scaled->value->operands[0]) ||
      expr.type.shape != scaled->value->type.shape) {
    return std::nullopt;
  }
  return scaled;
}

// One rewrite: the variable x, its scale, and the type of `mul(x, c)`.
struct Operand {
  std::string name;
  Type var_type;
  ExprPtr scale;
  Type scaled_type;
};

bool SameOperand(const Operand& operand, const Expr& value, const Expr& scale) {
  return value.name == operand.name && StructurallyEqual(scale, *operand.scale);
}

class BlockRewriter {
 public:
  explicit BlockRewriter(const Function& function) : function_(function) {}

  bool Block(tessera::Block& block) {
    bool changed = false;
    for (Stmt& stmt : block.stmts) {
      for (tessera::Block& region : stmt.regions) changed |= Block(region);
    }
    for (const auto& [name, scale] : Reductions(block)) {
      std::optional<Operand> operand = ScaledElsewhere(block, name, *scale);
      if (!operand) continue;
      changed |= Rewrite(block, std::move(*operand));
    }
    return changed;
  }

 private:
  // The (x, c) of every scaled reduction in the block's own statements, in
  // order of appearance, each once.
  std::vector<std::pair<std::string, ExprPtr>> Reductions(
      const tessera::Block& block) const {
    std::vector<std::pair<std::string, ExprPtr>> found;
    for (const Stmt& stmt : block.stmts) {
      ForEachRootExpr(stmt, [&](const Expr& root) {
        WalkExpr(root, [&](const Expr& expr) {
          std::optional<Scaled> scaled = MatchScaledReduction(expr);
          if (!scaled) return;
          const std::string& name = scaled->value->operands[0]->name;
          for (const auto& [seen, scale] : found) {
            if (seen == name && StructurallyEqual(*scale, *scaled->scale)) {
              return;
            }
          }
          found.emplace_back(name, CloneExpr(*scaled->scale));
        });
      });
    }
    return found;
  }

  // The scaled operand `mul(x, c)` computed in the block's own statements,
  // of the dtype the scaled reduction has; nullopt when there is none.
  std::optional<Operand> ScaledElsewhere(const tessera::Block& block,
                                         const std::string& name,
                                         const Expr& scale) const {
    std::optional<Operand> operand;
    std::optional<DType> reduced_dtype;
    for (const Stmt& stmt : block.stmts) {
      ForEachRootExpr(stmt, [&](const Expr& root) {
        WalkExpr(root, [&](const Expr& expr) {
          if (std::optional<Scaled> reduction = MatchScaledReduction(expr)) {
            const Expr& var = *reduction->value->operands[0];
            if (var.name == name &&
                StructurallyEqual(*reduction->scale, scale)) {
              reduced_dtype = expr.type.dtype;
            }
          } else if (std::optional<Scaled> scaled = MatchScaledOperand(expr)) {
            if (!operand && scaled->value->name == name &&
                StructurallyEqual(*scaled->scale, scale)) {
              operand = Operand{name, scaled->value->type, CloneExpr(scale),
                                expr.type};
            }
          }
        });
      });
    }
    // The reduction of mul(x, c) must have the dtype mul(amax(x), c) had.
    if (!operand || reduced_dtype != operand->scaled_type.dtype) {
      return std::nullopt;
    }
    return operand;
  }

  std::string FreshName(const std::string& base) {
    // Gathered on the first rewrite: most functions have none.
    if (!names_) names_.emplace(function_);
    return names_->Take(base + "_scaled");
  }

  // Replaces the occurrences of `mul(x, c)` and `mul(amax(x), c)` in `expr`
  // with the named scaled operand and its reduction.
  bool Replace(ExprPtr& expr, const Operand& operand, const std::string& name) {
    if (std::optional<Scaled> reduction = MatchScaledReduction(*expr)) {
      const Expr& reduce = *reduction->value;
      if (SameOperand(operand, *reduce.operands[0], *reduction->scale) &&
          expr->type.dtype == operand.scaled_type.dtype) {
        ExprList operands;
        operands.push_back(MakeVar(name, operand.scaled_type, expr->loc));
        expr = MakeOp(reduce.op, expr->type, std::move(operands), reduce.attrs,
                      expr->loc);
        return true;
      }
    } else if (std::optional<Scaled> scaled = MatchScaledOperand(*expr)) {
      if (SameOperand(operand, *scaled->value, *scaled->scale) &&
          expr->type == operand.scaled_type) {
        expr = MakeVar(name, operand.scaled_type, expr->loc);
        return true;
      }
    }
    bool replaced = false;
    for (ExprPtr& child : expr->operands) {
      if (child) replaced |= Replace(child, operand, name);
    }
    for (Index& index : expr->indices) {
      if (index.expr) replaced |= Replace(index.expr, operand, name);
    }
    return replaced;
  }

  // Names `mul(x, c)` before the first statement that uses it (or the
  // scaled reduction) and points every use there at the name.
  bool Rewrite(tessera::Block& block, Operand operand) {
    const std::string name = FreshName(operand.name);
    std::optional<size_t> first;
    for (size_t i = 0; i < block.stmts.size(); ++i) {
      bool replaced = false;
      ForEachRootExpr(block.stmts[i], [&](ExprPtr& root) {
        if (root) replaced |= Replace(root, operand, name);
      });
      if (replaced && !first) first = i;
    }
    if (!first) return false;
    const SourceLoc loc = block.stmts[*first].loc;
    ExprList factors;
    factors.push_back(MakeVar(operand.name, operand.var_type, loc));
    factors.push_back(CloneExpr(*operand.scale));
    block.stmts.insert(
        block.stmts.begin() + static_cast<std::ptrdiff_t>(*first),
        MakeAssign(Value{name, operand.scaled_type},
                   MakeOp(OpKind::kMul, operand.scaled_type, std::move(factors),
                          {}, loc),
                   loc));
    return true;
  }

  const Function& function_;
  std::optional<FreshNames> names_;
};

}  // namespace

absl::StatusOr<bool> ScaleReductionOperands(Module& module) {
  bool changed = false;
  for (Function& function : module.functions) {
    changed |= BlockRewriter(function).Block(function.body);
  }
  return changed;
}

}  // namespace tessera
