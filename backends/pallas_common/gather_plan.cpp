#include "gather_plan.h"

#include "fmt/format.h"

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

bool HasZippedGather(const Expr& load) {
  if (load.op != OpKind::kLoad) return false;
  for (size_t i = 1; i < load.indices.size(); ++i) {
    if (load.indices[i].kind == IndexKind::kGather &&
        load.indices[i - 1].kind == IndexKind::kGather) {
      return true;
    }
  }
  return false;
}

std::optional<LaneSelect> MatchLaneSelect(
    const Expr& load, const std::map<std::string, const Expr*>& defs,
    std::string* why) {
  auto fail = [&](std::string text) -> std::optional<LaneSelect> {
    if (why != nullptr) *why = std::move(text);
    return std::nullopt;
  };
  const Expr& ref = *load.operands[0];
  if (ref.type.rank() != 2 || load.indices.size() != 2 ||
      load.indices[0].kind != IndexKind::kGather ||
      load.indices[1].kind != IndexKind::kGather) {
    return fail(
        fmt::format("'{}' is {} indexed by {} indices; the form is "
                    "x[tile.index, lanes] of a rank-2 x",
                    ref.name, TypeToString(ref.type), load.indices.size()));
  }
  // The row index, looked through names and integer casts.
  const Expr* rows = load.indices[0].expr.get();
  for (int depth = 0; depth < 64; ++depth) {
    if (rows->op == OpKind::kVar) {
      auto def = defs.find(rows->name);
      if (def == defs.end()) break;
      rows = def->second;
    } else if (rows->op == OpKind::kCast && rows->operands.size() == 1 &&
               IsInteger(rows->operands[0]->type.dtype)) {
      rows = rows->operands[0].get();
    } else {
      break;
    }
  }
  if (rows->op != OpKind::kTileIndex || rows->operands.size() != 1 ||
      rows->operands[0]->op != OpKind::kVar) {
    return fail(fmt::format(
        "the row index of '{}' is not a tile's index (tile.index), so the "
        "rows are not one per row of a block",
        ref.name));
  }
  return LaneSelect{rows->operands[0].get(), load.indices[1].expr.get()};
}

void ForEachGather(const Expr& root,
                   const std::function<void(const Expr&, const Index&)>& fn) {
  WalkExpr(root, [&](const Expr& expr) {
    if (expr.op != OpKind::kLoad || HasZippedGather(expr)) return;
    for (const Index& index : expr.indices) {
      if (index.kind == IndexKind::kGather && index.expr) fn(expr, index);
    }
  });
}

}  // namespace tessera::pallas
