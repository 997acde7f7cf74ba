#include "smem_copies.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gather_plan.h"

namespace tessera::pallas {
namespace {

const std::string* LoadedRef(const Expr& expr) {
  if (expr.op != OpKind::kLoad || expr.operands.empty() ||
      expr.operands[0]->op != OpKind::kVar) {
    return nullptr;
  }
  return &expr.operands[0]->name;
}

// Calls fn(index) for every gather index of the statement: of its loads, and
// of the statement itself when it stores or accumulates at one (a scatter).
void ForEachGatherIndex(const Stmt& stmt,
                        const std::function<void(const Index&)>& fn) {
  ForEachRootExpr(stmt, [&](const Expr& root) {
    WalkExpr(root, [&](const Expr& expr) {
      if (expr.op != OpKind::kLoad) return;
      for (const Index& index : expr.indices) {
        if (index.kind == IndexKind::kGather && index.expr) fn(index);
      }
    });
  });
  if (stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) {
    for (const Index& index : stmt.indices) {
      if (index.kind == IndexKind::kGather && index.expr) fn(index);
    }
  }
}

// The same, mutable; stops after the first index fn returns true for.
bool RewriteFirstGatherIndex(Stmt& stmt,
                             const std::function<bool(Index&)>& fn) {
  bool done = false;
  ForEachRootExpr(stmt, [&](ExprPtr& root) {
    if (!root || done) return;
    WalkExprMutable(*root, [&](Expr& expr) {
      if (done || expr.op != OpKind::kLoad) return;
      for (Index& index : expr.indices) {
        if (!done && index.kind == IndexKind::kGather && index.expr) {
          done = fn(index);
        }
      }
    });
  });
  if (stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) {
    for (Index& index : stmt.indices) {
      if (!done && index.kind == IndexKind::kGather && index.expr) {
        done = fn(index);
      }
    }
  }
  return done;
}

// Walks `expr` as a value: gather indices (evaluated row by row, never built
// as vectors) are skipped.
void WalkAsValue(const Expr& expr, const std::function<void(const Expr&)>& fn) {
  fn(expr);
  for (const ExprPtr& operand : expr.operands) {
    if (operand) WalkAsValue(*operand, fn);
  }
  const bool load = expr.op == OpKind::kLoad;
  for (const Index& index : expr.indices) {
    if (index.expr && !(load && index.kind == IndexKind::kGather)) {
      WalkAsValue(*index.expr, fn);
    }
  }
}

// Calls fn on each expression root of the statement computed as a value:
// every root but the gather indices of a store or an atomic (a scatter).
void ForEachValueRoot(const Stmt& stmt,
                      const std::function<void(const Expr&)>& fn) {
  if (stmt.kind != StmtKind::kStore && stmt.kind != StmtKind::kAtomic) {
    ForEachRootExpr(stmt, fn);
    return;
  }
  for (const Index& index : stmt.indices) {
    if (index.kind != IndexKind::kGather && index.expr) fn(*index.expr);
  }
  if (stmt.value) fn(*stmt.value);
}

// Refs loaded row by row by some gather index and as a vector by some value
// the kernel computes.
std::set<std::string> RefsReadBothWays(
    const Function& device, const std::map<std::string, const Expr*>& defs) {
  std::set<std::string> per_row;
  WalkStmts(device.body, [&](const Stmt& stmt) {
    ForEachGatherIndex(stmt, [&](const Index& index) {
      WalkGatherIndex(*index.expr, defs, [&](const Expr& e, bool) {
        if (const std::string* ref = LoadedRef(e)) per_row.insert(*ref);
      });
    });
  });
  if (per_row.empty()) return {};
  // Tensor values computed as vectors: used as a value by a statement other
  // than a tensor definition, or by the definition of such a value.
  std::map<std::string, std::set<std::string>> used_by_def;
  std::set<std::string> live;
  std::vector<std::string> work;
  auto mark = [&](const std::string& name) {
    if (defs.count(name) && live.insert(name).second) work.push_back(name);
  };
  WalkStmts(device.body, [&](const Stmt& stmt) {
    const bool tensor_def = stmt.kind == StmtKind::kAssign && stmt.value &&
                            stmt.results.size() == 1 &&
                            defs.count(stmt.results[0].name);
    ForEachValueRoot(stmt, [&](const Expr& root) {
      WalkAsValue(root, [&](const Expr& e) {
        if (e.op != OpKind::kVar) return;
        if (tensor_def) {
          used_by_def[stmt.results[0].name].insert(e.name);
        } else {
          mark(e.name);
        }
      });
    });
  });
  while (!work.empty()) {
    const std::string name = work.back();
    work.pop_back();
    for (const std::string& used : used_by_def[name]) mark(used);
  }
  std::set<std::string> as_vectors;
  auto vector_loads = [&](const Expr& root) {
    WalkAsValue(root, [&](const Expr& e) {
      const std::string* ref = LoadedRef(e);
      if (ref && !e.type.is_scalar()) as_vectors.insert(*ref);
    });
  };
  WalkStmts(device.body, [&](const Stmt& stmt) {
    const bool tensor_def = stmt.kind == StmtKind::kAssign && stmt.value &&
                            stmt.results.size() == 1 &&
                            defs.count(stmt.results[0].name);
    if (tensor_def) {
      if (live.count(stmt.results[0].name)) vector_loads(*stmt.value);
      return;
    }
    ForEachValueRoot(stmt, vector_loads);
  });
  std::set<std::string> written;
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.target && stmt.target->op == OpKind::kVar) {
      written.insert(stmt.target->name);
    }
  });
  std::set<std::string> both;
  for (const std::string& ref : per_row) {
    if (as_vectors.count(ref) && !written.count(ref)) both.insert(ref);
  }
  return both;
}

class IndexInliner {
 public:
  IndexInliner(const std::map<std::string, const Expr*>& defs,
               const std::map<std::string, Value>& copies)
      : defs_(defs), copies_(copies) {}

  // True when evaluating `expr` row by row reads one of the copied refs.
  bool Reaches(const Expr& expr) {
    bool found = false;
    WalkGatherIndex(expr, defs_, [&](const Expr& e, bool) {
      if (const std::string* ref = LoadedRef(e)) {
        if (copies_.count(*ref)) found = true;
      }
    });
    return found;
  }

  // `expr` with every tensor value that reaches a copied ref replaced by its
  // definition, and the loads of copied refs reading the copies.
  ExprPtr Inline(const Expr& expr, int depth) {
    if (expr.op == OpKind::kVar && expr.type.is_tensor() && depth < 64) {
      auto def = defs_.find(expr.name);
      if (def != defs_.end() && Reaches(expr)) {
        return Inline(*def->second, depth + 1);
      }
    }
    ExprPtr copy = std::make_unique<Expr>();
    copy->op = expr.op;
    copy->type = expr.type;
    copy->loc = expr.loc;
    copy->name = expr.name;
    copy->attrs = expr.attrs;
    for (const ExprPtr& operand : expr.operands) {
      copy->operands.push_back(operand ? Inline(*operand, depth) : nullptr);
    }
    for (const Index& index : expr.indices) {
      copy->indices.push_back(
          Index(index.kind, index.expr ? Inline(*index.expr, depth) : nullptr,
                index.size));
    }
    if (const std::string* ref = LoadedRef(expr)) {
      auto smem = copies_.find(*ref);
      if (smem != copies_.end()) {
        copy->operands[0] =
            MakeVar(smem->second.name, smem->second.type, expr.loc);
      }
    }
    return copy;
  }

 private:
  const std::map<std::string, const Expr*>& defs_;
  const std::map<std::string, Value>& copies_;
};

}  // namespace

bool PassIndexRefsTwice(Module& module, Function& host) {
  const std::optional<LaunchedDevice> launched =
      FindLaunchedDevice(module, host);
  if (!launched) return false;
  const Function* device = launched->device;
  const std::set<std::string> both =
      RefsReadBothWays(*device, TensorDefinitions(*device));
  if (both.empty()) return false;

  // `device` points into `module`, which this rewrite may change.
  Function& rewritten = const_cast<Function&>(*device);
  Stmt* launch = FindTopLevelLaunch(host);
  const size_t grid_rank = launch->dims.size();
  std::map<std::string, Value> copies;
  const size_t params = rewritten.params.size();
  for (size_t i = grid_rank; i < params; ++i) {
    const Value param = rewritten.params[i];
    if (!both.count(param.name)) continue;
    const Expr& operand = *launch->operands[i - grid_rank];
    const Value smem{FreshName(rewritten, param.name + "_smem"), param.type};
    rewritten.params.push_back(smem);
    launch->operands.push_back(CloneExpr(operand));
    copies[param.name] = smem;
  }
  const std::map<std::string, const Expr*> defs = TensorDefinitions(rewritten);
  IndexInliner inliner(defs, copies);
  // One index at a time: a rewritten index reads the copies only, and
  // replacing a subtree never invalidates the definitions (statement roots).
  for (bool changed = true; changed;) {
    changed = false;
    WalkStmts(rewritten.body, [&](Stmt& stmt) {
      if (changed) return;
      changed = RewriteFirstGatherIndex(stmt, [&](Index& index) {
        if (!inliner.Reaches(*index.expr)) return false;
        index.expr = inliner.Inline(*index.expr, 0);
        return true;
      });
    });
  }
  return true;
}

}  // namespace tessera::pallas
