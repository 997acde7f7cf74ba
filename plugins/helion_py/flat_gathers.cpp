// Element gathers through a flattened view, `hl.load(x.view(-1),
// [tile.index * x.size(1) + lanes])`, read one element per row of x at a
// lane taken from data. A flat index hides the row, and no TPU can gather
// lanes across vregs, so the load is rewritten into the zipped 2-D gather
// `x[tile.index, lanes]` that the backends lower as a lane select on the
// row block (docs/tpu_legality.md, "Element gathers").
#include "flat_gathers.h"

#include <map>
#include <optional>
#include <set>

namespace tessera::helion_py {
namespace {

using Defs = std::map<std::string, const Expr*>;

// Values assigned exactly once in the function: following a name to its
// definition is then sound wherever the name is visible.
Defs SingleDefinitions(const Function& fn) {
  Defs defs;
  std::set<std::string> reassigned;
  WalkStmts(fn.body, [&](const Stmt& stmt) {
    if (stmt.kind != StmtKind::kAssign || stmt.results.size() != 1 ||
        !stmt.value) {
      return;
    }
    const std::string& name = stmt.results[0].name;
    if (!defs.emplace(name, stmt.value.get()).second) reassigned.insert(name);
  });
  for (const std::string& name : reassigned) defs.erase(name);
  return defs;
}

// Looks through names and integer casts, which do not change an index.
const Expr& Resolve(const Expr& expr, const Defs& defs) {
  const Expr* current = &expr;
  for (int depth = 0; depth < 64; ++depth) {
    if (current->op == OpKind::kVar) {
      auto def = defs.find(current->name);
      if (def == defs.end()) break;
      current = def->second;
    } else if (current->op == OpKind::kCast && current->operands.size() == 1 &&
               IsInteger(current->type.dtype) &&
               IsInteger(current->operands[0]->type.dtype)) {
      current = current->operands[0].get();
    } else {
      break;
    }
  }
  return *current;
}

// True when `expr` is the row length `row_length` of `base` (dim 1 of a
// rank-2 ref): the same constant, `x.size(1)` / `x.size(-1)`, or the
// symbol that names that dim.
bool IsRowLength(const Expr& expr, const Expr& base, const Dim& row_length,
                 const Defs& defs) {
  if (expr.op == OpKind::kVar && !row_length.is_static() &&
      expr.name == row_length.symbol) {
    return true;
  }
  const Expr& value = Resolve(expr, defs);
  if (value.op == OpKind::kConst && row_length.is_static()) {
    const Attr* attr = value.attr("value");
    const int64_t* i = attr ? std::get_if<int64_t>(&attr->value) : nullptr;
    return i != nullptr && *i == row_length.size;
  }
  if (value.op == OpKind::kVar && !row_length.is_static()) {
    return value.name == row_length.symbol;
  }
  if (value.op == OpKind::kSize && value.operands.size() == 1 &&
      value.operands[0]->op == OpKind::kVar &&
      value.operands[0]->name == base.name) {
    const Attr* attr = value.attr("dim");
    const int64_t* dim = attr ? std::get_if<int64_t>(&attr->value) : nullptr;
    return dim != nullptr && (*dim == 1 || *dim == -1);
  }
  return false;
}

// The tile index `t.index` when `expr` is `t.index * row_length` (either
// order).
const Expr* RowTerm(const Expr& expr, const Expr& base, const Dim& row_length,
                    const Defs& defs) {
  const Expr& product = Resolve(expr, defs);
  if (product.op != OpKind::kMul || product.operands.size() != 2) {
    return nullptr;
  }
  for (int k = 0; k < 2; ++k) {
    const Expr& rows = Resolve(*product.operands[k], defs);
    if (rows.op == OpKind::kTileIndex &&
        IsRowLength(*product.operands[1 - k], base, row_length, defs)) {
      return &rows;
    }
  }
  return nullptr;
}

// `x.view(-1)` / `x.reshape(-1)` of a rank-2 ref `x`: the ref x.
const Expr* FlattenedBase(const Expr& ref, const Defs& defs) {
  const Expr& view = Resolve(ref, defs);
  if (view.op != OpKind::kReshape || view.operands.size() != 1 ||
      view.type.rank() != 1) {
    return nullptr;
  }
  const Expr& base = *view.operands[0];
  if (base.op != OpKind::kVar || !base.type.is_ref() || base.type.rank() != 2) {
    return nullptr;
  }
  return &base;
}

// Rewrites one load when it is a flat element gather of the recognised form;
// the view it read is added to `views`.
void RewriteLoad(Expr& load, const Defs& defs, std::set<std::string>& views) {
  if (load.op != OpKind::kLoad || load.operands.size() != 1 ||
      load.indices.size() != 1 || load.indices[0].kind != IndexKind::kGather) {
    return;
  }
  const Expr* base = FlattenedBase(*load.operands[0], defs);
  if (base == nullptr) return;
  const Dim& row_length = base->type.shape[1];
  const Expr& flat = Resolve(*load.indices[0].expr, defs);
  if (flat.op != OpKind::kAdd || flat.operands.size() != 2) return;
  for (int k = 0; k < 2; ++k) {
    const Expr* rows = RowTerm(*flat.operands[k], *base, row_length, defs);
    const Expr& lanes = *flat.operands[1 - k];
    if (rows == nullptr || !lanes.type.is_tensor() || lanes.type.rank() != 1 ||
        !IsInteger(lanes.type.dtype) ||
        !(lanes.type.shape[0] == rows->type.shape[0])) {
      continue;
    }
    IndexList indices;
    indices.push_back(Index(IndexKind::kGather, CloneExpr(*rows)));
    indices.push_back(Index(IndexKind::kGather, CloneExpr(lanes)));
    ExprPtr ref = MakeVar(base->name, base->type, load.operands[0]->loc);
    if (load.operands[0]->op == OpKind::kVar) {
      views.insert(load.operands[0]->name);
    }
    load.operands[0] = std::move(ref);
    load.indices = std::move(indices);
    return;
  }
}

// Counts the uses of every name: operands, and symbols in shapes (a symbolic
// dim names the host scalar that holds it).
std::map<std::string, int> CountUses(const Function& fn) {
  std::map<std::string, int> uses;
  auto count_shape = [&](const Shape& shape) {
    for (const Dim& d : shape) {
      if (!d.is_static()) ++uses[d.symbol];
    }
  };
  WalkStmts(fn.body, [&](const Stmt& stmt) {
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& e) {
        if (e.op == OpKind::kVar) ++uses[e.name];
        count_shape(e.type.shape);
        for (const Attr& attr : e.attrs) {
          if (const auto* shape = std::get_if<Shape>(&attr.value)) {
            count_shape(*shape);
          }
        }
      });
    });
    for (const Value& v : stmt.results) count_shape(v.type.shape);
    for (const Value& v : stmt.vars) count_shape(v.type.shape);
  });
  for (const Value& v : fn.params) count_shape(v.type.shape);
  return uses;
}

// Removes the host statements that computed the views no load reads any
// more (`x_flat = reshape(x)` and its size product): left in place they
// would be dead code in the generated host function.
void RemoveUnusedViews(Function& fn, std::set<std::string> candidates) {
  while (!candidates.empty()) {
    std::map<std::string, int> uses = CountUses(fn);
    std::set<std::string> next;
    std::erase_if(fn.body.stmts, [&](const Stmt& stmt) {
      if (stmt.kind != StmtKind::kAssign || stmt.results.size() != 1 ||
          !candidates.count(stmt.results[0].name) ||
          uses[stmt.results[0].name] > 0) {
        return false;
      }
      const OpKind op = stmt.value->op;
      if (op != OpKind::kReshape && op != OpKind::kMul) return false;
      WalkExpr(*stmt.value, [&](const Expr& e) {
        if (e.op == OpKind::kVar) next.insert(e.name);
      });
      for (const Dim& d : stmt.results[0].type.shape) {
        if (!d.is_static()) next.insert(d.symbol);
      }
      return true;
    });
    candidates = std::move(next);
  }
}

}  // namespace

void RewriteFlatGathers(Function& fn) {
  const Defs defs = SingleDefinitions(fn);
  std::set<std::string> views;
  WalkStmts(fn.body, [&](Stmt& stmt) {
    ForEachRootExpr(stmt, [&](ExprPtr& root) {
      if (root) {
        WalkExprMutable(*root, [&](Expr& e) { RewriteLoad(e, defs, views); });
      }
    });
  });
  // A view of a flattened view (`out.view(-1)` written through, then
  // `out_flat.reshape(l, k)` returned) is a view of the original ref: the
  // flat view is then read by nothing and goes below.
  for (Stmt& stmt : fn.body.stmts) {
    if (stmt.kind != StmtKind::kAssign || !stmt.value ||
        stmt.value->op != OpKind::kReshape ||
        stmt.value->operands[0]->op != OpKind::kVar) {
      continue;
    }
    auto def = defs.find(stmt.value->operands[0]->name);
    if (def == defs.end() || FlattenedBase(*def->second, defs) == nullptr) {
      continue;
    }
    const Expr& base = *def->second->operands[0];
    stmt.value->operands[0] = MakeVar(base.name, base.type, base.loc);
  }
  // Flattened views that no load reads any more: the ones rewritten here
  // and those the frontend already read through (lower_jagged_rows.cpp).
  for (const Stmt& stmt : fn.body.stmts) {
    if (stmt.kind == StmtKind::kAssign && stmt.results.size() == 1 &&
        stmt.value && FlattenedBase(*stmt.value, defs) != nullptr) {
      views.insert(stmt.results[0].name);
    }
  }
  if (!views.empty()) RemoveUnusedViews(fn, std::move(views));
}

}  // namespace tessera::helion_py
