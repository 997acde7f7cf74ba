#include "indirect_plan.h"

#include <numeric>

#include "gather_plan.h"

namespace tessera::pallas {
namespace {

bool MentionsAny(const Expr& expr, const std::set<std::string>& names) {
  bool found = false;
  WalkExpr(expr, [&](const Expr& e) {
    if (e.op == OpKind::kVar && names.count(e.name)) found = true;
  });
  return found;
}

bool ReadsMemory(const Expr& expr) {
  bool found = false;
  WalkExpr(expr, [&](const Expr& e) {
    if (e.op == OpKind::kLoad && e.type.is_scalar()) found = true;
  });
  return found;
}

}  // namespace

std::set<std::string> DataDependentNames(const Function& device) {
  std::set<std::string> names;
  bool changed = true;
  while (changed) {
    changed = false;
    WalkStmts(device.body, [&](const Stmt& stmt) {
      auto add = [&](const std::string& name) {
        changed = names.insert(name).second || changed;
      };
      if (stmt.kind == StmtKind::kAssign && stmt.value &&
          (ReadsMemory(*stmt.value) || MentionsAny(*stmt.value, names))) {
        add(stmt.results[0].name);
      }
      // Values carried through loops and ifs whose inputs are data
      // dependent are data dependent too.
      for (size_t i = 0; i < stmt.inits.size() && i < stmt.iter_args.size();
           ++i) {
        if (MentionsAny(*stmt.inits[i], names)) add(stmt.iter_args[i].name);
      }
    });
  }
  return names;
}

std::set<std::string> RefsReadOnlyAsScalars(const Function& device) {
  // Loads that gather indices evaluate row by row read one element a row.
  const std::map<std::string, const Expr*> defs = TensorDefinitions(device);
  std::set<const Expr*> per_row;
  auto walk_index = [&](const Index& gather) {
    WalkGatherIndex(*gather.expr, defs, [&](const Expr& e, bool) {
      if (e.op == OpKind::kLoad) per_row.insert(&e);
    });
  };
  WalkStmts(device.body, [&](const Stmt& stmt) {
    ForEachRootExpr(stmt, [&](const Expr& root) {
      ForEachGather(
          root, [&](const Expr&, const Index& gather) { walk_index(gather); });
    });
    // ... and so do the indices of scatters (stores and atomics).
    if (stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) {
      for (const Index& index : stmt.indices) {
        if (index.kind == IndexKind::kGather && index.expr) walk_index(index);
      }
    }
  });
  // Every ref read, and whether all its reads so far are scalar ones.
  std::map<std::string, bool> only_scalars;
  std::set<std::string> written;
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.target && stmt.target->op == OpKind::kVar) {
      written.insert(stmt.target->name);
    }
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& e) {
        if (e.op != OpKind::kLoad || e.operands.empty() ||
            e.operands[0]->op != OpKind::kVar) {
          return;
        }
        bool& scalars =
            only_scalars.try_emplace(e.operands[0]->name, true).first->second;
        if (!e.type.is_scalar() && !per_row.count(&e)) scalars = false;
      });
    });
  });
  std::set<std::string> refs;
  for (const auto& [name, scalars] : only_scalars) {
    if (scalars && !written.count(name)) refs.insert(name);
  }
  return refs;
}

void PlanScalarPrefetch(KernelPlan& plan) {
  // Without SMEM, scalars are read by plain loads of the ref's block.
  if (plan.target->IndirectAccessByLoads()) return;
  for (RefPlan& ref : plan.refs) {
    if (ref.accesses.empty() || ref.written()) continue;
    bool scalar_reads = true;
    for (const RefAccess& access : ref.accesses) {
      if (access.per_row) continue;
      for (const Index& index : *access.indices) {
        if (index.kind != IndexKind::kScalar) scalar_reads = false;
      }
    }
    if (!scalar_reads) continue;
    // SMEM holds 32-bit words: integers are narrowed to int32 on the host.
    if (!IsInteger(ref.type.dtype) && ref.type.dtype != DType::kF32) continue;
    ref.scalar_prefetch = true;
  }
}

int64_t JaggedAlignment(int64_t block, bool lane_dim, DType dtype) {
  const int64_t bytes = DTypeBytes(dtype);
  const int64_t tiling = lane_dim ? 128 : bytes == 1 ? 32 : bytes == 2 ? 16 : 8;
  return std::gcd(block, tiling);
}

void PlanJaggedTiles(KernelPlan& plan) {
  const std::set<std::string> dependent = DataDependentNames(*plan.device);
  for (auto& [name, tile] : plan.tiles) {
    if (tile.is_grid || tile.loop == nullptr || !tile.parent.empty()) continue;
    const LoopDim& dim = *tile.dim;
    if (!MentionsAny(*dim.begin, dependent) &&
        !MentionsAny(*dim.end, dependent) && !ReadsMemory(*dim.begin) &&
        !ReadsMemory(*dim.end)) {
      continue;
    }
    tile.jagged = true;
    tile.aligned = false;
    tile.maybe_partial = true;
    // The strictest alignment any ref indexed by this tile needs.
    int64_t align = 1;
    for (const RefPlan& ref : plan.refs) {
      const size_t rank = ref.type.shape.size();
      for (const RefAccess& access : ref.accesses) {
        size_t d = 0;
        for (const Index& index : *access.indices) {
          if (index.kind == IndexKind::kNewAxis) continue;
          if (index.kind == IndexKind::kTile && index.expr->name == name) {
            const int64_t needed =
                JaggedAlignment(tile.block, d + 1 == rank, ref.type.dtype);
            align = std::lcm(align, needed);
          }
          ++d;
        }
      }
    }
    // Blocks read by pointer arithmetic start at any row.
    tile.align =
        plan.target->IndirectAccessByLoads() ? 1 : std::gcd(align, tile.block);
  }
}

}  // namespace tessera::pallas
