#include "ssa.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "ir_names.h"

namespace tessera {
namespace {

// Liveness works on views of the names in the IR, which is not modified
// until the analysis is complete.
using NameSet = absl::flat_hash_set<std::string_view>;
using OwnedNameSet = absl::flat_hash_set<std::string>;

bool IsLoop(const Stmt& stmt) {
  return stmt.kind == StmtKind::kTileLoop || stmt.kind == StmtKind::kRangeLoop;
}

// ---------------------------------------------------------------------------
// Analysis: which names each loop carries and each `if` merges. Works on the
// source names of the input, backwards (liveness), before anything is
// renamed.
// ---------------------------------------------------------------------------

struct LoopPlan {
  // Names carried through iter_args, in program order of their first
  // assignment in the body.
  std::vector<std::string> carried;
  // The carried names that are (also) used after the loop.
  OwnedNameSet used_after;
};

struct IfPlan {
  // Names assigned in a branch and used after the `if`, in program order.
  std::vector<std::string> merged;
};

// Names a block assigns that stay visible after the statement assigning them
// (assignment targets, loop / if / launch results), at any depth, in program
// order. Loop variables and iter_args are scoped to their loop body and are
// not included.
void CollectAssigned(const Block& block, std::vector<std::string_view>& order,
                     NameSet& seen) {
  auto add = [&](std::string_view name) {
    if (seen.insert(name).second) order.push_back(name);
  };
  for (const Stmt& stmt : block.stmts) {
    for (const Block& region : stmt.regions) {
      CollectAssigned(region, order, seen);
    }
    if (stmt.kind == StmtKind::kAssign || stmt.kind == StmtKind::kLaunch ||
        stmt.kind == StmtKind::kIf || IsLoop(stmt)) {
      for (const Value& result : stmt.results) add(result.name);
    }
  }
}

void AddUses(const Stmt& stmt, NameSet& live) {
  passes::ConstNameVisitor visitor{
      [&](const Expr& var) { live.insert(var.name); },
      [&](const std::string& symbol) { live.insert(symbol); },
  };
  passes::VisitStmtUses(stmt, visitor);
}

class Liveness {
 public:
  NameSet LiveBeforeBlock(const Block& block, NameSet live) {
    for (auto it = block.stmts.rbegin(); it != block.stmts.rend(); ++it) {
      live = LiveBeforeStmt(*it, std::move(live));
    }
    return live;
  }

  // Filled by the last analysis of each statement, which runs with the
  // converged liveness of every enclosing loop.
  absl::flat_hash_map<const Stmt*, LoopPlan> loops;
  absl::flat_hash_map<const Stmt*, IfPlan> ifs;

 private:
  NameSet LiveBeforeStmt(const Stmt& stmt, NameSet live) {
    switch (stmt.kind) {
      case StmtKind::kAssign:
      case StmtKind::kLaunch:
        for (const Value& result : stmt.results) live.erase(result.name);
        AddUses(stmt, live);
        return live;
      case StmtKind::kStore:
      case StmtKind::kAtomic:
      case StmtKind::kYield:
      case StmtKind::kReturn:
        AddUses(stmt, live);
        return live;
      case StmtKind::kIf:
        return LiveBeforeIf(stmt, std::move(live));
      case StmtKind::kTileLoop:
      case StmtKind::kRangeLoop:
        return LiveBeforeLoop(stmt, std::move(live));
    }
    return live;
  }

  NameSet LiveBeforeIf(const Stmt& stmt, NameSet live) {
    for (const Value& result : stmt.results) live.erase(result.name);
    std::vector<std::string_view> order;
    NameSet seen;
    for (const Block& region : stmt.regions) {
      CollectAssigned(region, order, seen);
    }
    IfPlan plan;
    for (std::string_view name : order) {
      if (live.count(name)) plan.merged.emplace_back(name);
    }
    ifs[&stmt] = std::move(plan);

    NameSet before;
    // Without an else region, control can skip the then region entirely.
    if (stmt.regions.size() < 2) before = live;
    for (const Block& region : stmt.regions) {
      NameSet region_live = LiveBeforeBlock(region, live);
      before.insert(region_live.begin(), region_live.end());
    }
    AddUses(stmt, before);
    return before;
  }

  NameSet LiveBeforeLoop(const Stmt& stmt, NameSet live) {
    for (const Value& result : stmt.results) live.erase(result.name);
    NameSet scoped;  // defined at the head of the body
    for (const Value& var : stmt.vars) scoped.insert(var.name);
    for (const Value& iter_arg : stmt.iter_args) scoped.insert(iter_arg.name);

    std::vector<std::string_view> assigned;
    NameSet seen;
    for (const Block& region : stmt.regions) {
      CollectAssigned(region, assigned, seen);
    }
    std::erase_if(assigned,
                  [&](std::string_view name) { return scoped.count(name); });

    // Carried: assigned in the body and live at the end of an iteration,
    // i.e. used after the loop or read by the next iteration before being
    // reassigned. The latter depends on the carried set itself: iterate.
    NameSet carried;
    for (std::string_view name : assigned) {
      if (live.count(name)) carried.insert(name);
    }
    NameSet body_live;
    while (true) {
      body_live.clear();
      for (const Block& region : stmt.regions) {
        NameSet region_live = LiveBeforeBlock(region, carried);
        body_live.insert(region_live.begin(), region_live.end());
      }
      bool grew = false;
      for (std::string_view name : assigned) {
        if (body_live.count(name) && carried.insert(name).second) grew = true;
      }
      if (!grew) break;
    }

    LoopPlan plan;
    for (std::string_view name : assigned) {
      if (!carried.count(name)) continue;
      plan.carried.emplace_back(name);
      if (live.count(name)) plan.used_after.emplace(name);
    }
    loops[&stmt] = std::move(plan);

    // The loop may run zero times: everything live after it is live before
    // it, plus what the body reads from outside.
    NameSet before = std::move(live);
    for (std::string_view name : body_live) {
      if (!scoped.count(name)) before.insert(name);
    }
    AddUses(stmt, before);
    return before;
  }
};

// ---------------------------------------------------------------------------
// Renaming: a forward walk that mints versions and rewrites every use.
// ---------------------------------------------------------------------------

struct Binding {
  std::string name;  // the SSA name
  Type type;
  // Program order of the definition; loops carry values in this order
  // (m_i, l_i, acc as they are initialised before the loop).
  uint64_t sequence = 0;
};
// Source name -> its current definition.
using Env = absl::flat_hash_map<std::string, Binding>;

// The location of the first assignment of `name` in `block` (any depth).
const SourceLoc* FindAssignment(const Block& block, const std::string& name) {
  for (const Stmt& stmt : block.stmts) {
    for (const Block& region : stmt.regions) {
      if (const SourceLoc* loc = FindAssignment(region, name)) return loc;
    }
    for (const Value& result : stmt.results) {
      if (result.name == name) return &stmt.loc;
    }
  }
  return nullptr;
}

class Renamer {
 public:
  Renamer(Function& function, Liveness& liveness, DiagnosticEngine& diagnostics,
          std::string file)
      : function_(function),
        liveness_(liveness),
        diagnostics_(diagnostics),
        file_(std::move(file)) {}

  absl::Status Run() {
    CollectAllNames();
    Env env;
    for (Value& param : function_.params) {
      claimed_.insert(param.name);
      env[param.name] = Binding{param.name, param.type};
    }
    // Shape symbols are bound by the parameter types, so they are visible
    // from entry. They are not claimed: the body may define the same value
    // explicitly (`m: i64 = size(x) {dim = 0}`, which the verifier accepts
    // as the definition the signature refers to), and that first explicit
    // definition keeps the name.
    for (const Value& param : function_.params) {
      passes::ForEachTypeSymbol(param.type, [&](const std::string& symbol) {
        if (env.count(symbol)) return;
        env[symbol] = Binding{symbol, Type::Scalar(DType::kI64)};
      });
    }
    return ProcessBlock(function_.body, env);
  }

  bool changed() const { return changed_; }
  size_t errors() const { return errors_; }

 private:
  // Every name occurring in the function, so that minted versions avoid
  // them all (including user names such as `acc_1` defined later).
  void CollectAllNames() {
    passes::ConstNameVisitor visitor{
        [&](const Expr& var) { all_names_.insert(var.name); },
        [&](const std::string& symbol) { all_names_.insert(symbol); },
    };
    auto add_type = [&](const Type& type) {
      passes::ForEachTypeSymbol(type, visitor.symbol);
    };
    for (const Value& param : function_.params) {
      all_names_.insert(param.name);
      add_type(param.type);
    }
    for (const Type& type : function_.result_types) add_type(type);
    WalkStmts(function_.body, [&](const Stmt& stmt) {
      passes::VisitStmtUses(stmt, visitor);
      for (const Value& value : stmt.results) all_names_.insert(value.name);
      for (const Value& value : stmt.vars) all_names_.insert(value.name);
      for (const Value& value : stmt.iter_args) all_names_.insert(value.name);
    });
  }

  // The first definition of a source name keeps it; later ones get the
  // smallest free `name_N`.
  std::string Mint(const std::string& source) {
    if (claimed_.insert(source).second) return source;
    int64_t& next = next_suffix_[source];
    while (true) {
      ++next;
      std::string candidate = fmt::format("{}_{}", source, next);
      if (all_names_.count(candidate) || claimed_.count(candidate)) continue;
      claimed_.insert(candidate);
      all_names_.insert(candidate);
      return candidate;
    }
  }

  void SetName(std::string& name, const std::string& new_name) {
    if (name == new_name) return;
    name = new_name;
    changed_ = true;
  }

  void Define(Value& value, Env& env) {
    std::string source = value.name;
    SetName(value.name, Mint(source));
    env[source] = Binding{value.name, value.type, next_sequence_++};
  }

  void Error(SourceLoc loc, std::string message, const SourceLoc* note_loc,
             std::string note) {
    Diagnostic& diagnostic = diagnostics_.Error(file_, loc, std::move(message));
    if (note_loc != nullptr) {
      DiagnosticEngine::AddNote(diagnostic, file_, *note_loc, std::move(note));
    }
    ++errors_;
  }

  void RenameUses(Stmt& stmt, const Env& env) {
    auto rename_symbol = [&](std::string& symbol) {
      auto it = env.find(symbol);
      if (it != env.end()) SetName(symbol, it->second.name);
    };
    passes::NameVisitor visitor{
        [&](Expr& var) {
          auto it = env.find(var.name);
          if (it == env.end()) {
            if (reported_.insert(var.name).second) {
              Error(stmt.loc,
                    fmt::format("'{}' is used before it is assigned", var.name),
                    nullptr, {});
            }
            return;
          }
          SetName(var.name, it->second.name);
          if (!(var.type == it->second.type)) {
            var.type = it->second.type;
            changed_ = true;
          }
        },
        rename_symbol,
    };
    passes::VisitStmtUses(stmt, visitor);
  }

  absl::Status ProcessBlock(Block& block, Env& env) {
    position_.push_back({&block, 0});
    for (size_t i = 0; i < block.stmts.size(); ++i) {
      position_.back().second = i;
      absl::Status status = ProcessStmt(block.stmts[i], env);
      if (!status.ok()) return status;
    }
    position_.pop_back();
    return absl::OkStatus();
  }

  // Whether a statement after the current one (in its block or any
  // enclosing block) refers to `name`. Only asked on error paths: it tells a
  // value that really escapes a loop from one that is merely live around an
  // enclosing loop's back edge.
  bool UsedLater(const std::string& name) const {
    bool found = false;
    passes::ConstNameVisitor visitor{
        [&](const Expr& var) { found = found || var.name == name; },
        [&](const std::string& symbol) { found = found || symbol == name; },
    };
    for (const auto& [block, index] : position_) {
      for (size_t i = index + 1; i < block->stmts.size() && !found; ++i) {
        passes::VisitStmtUses(block->stmts[i], visitor);
        for (const Block& region : block->stmts[i].regions) {
          WalkStmts(region, [&](const Stmt& stmt) {
            passes::VisitStmtUses(stmt, visitor);
          });
        }
      }
    }
    return found;
  }

  absl::Status ProcessStmt(Stmt& stmt, Env& env) {
    switch (stmt.kind) {
      case StmtKind::kAssign:
        if (stmt.results.size() != 1) {
          return absl::InternalError(
              "ssa: an assignment must have exactly one target");
        }
        RenameUses(stmt, env);
        Define(stmt.results[0], env);
        return absl::OkStatus();
      case StmtKind::kLaunch:
        RenameUses(stmt, env);
        for (Value& result : stmt.results) Define(result, env);
        return absl::OkStatus();
      case StmtKind::kStore:
      case StmtKind::kAtomic:
      case StmtKind::kYield:
        RenameUses(stmt, env);
        return absl::OkStatus();
      case StmtKind::kReturn: {
        RenameUses(stmt, env);
        // The declared result types name sizes as the return sees them: a
        // size assigned twice (`n = ...; n = ...`) is its last version.
        passes::NameVisitor rename{[](Expr&) {},
                                   [&](std::string& symbol) {
                                     auto it = env.find(symbol);
                                     if (it != env.end())
                                       SetName(symbol, it->second.name);
                                   }};
        for (Type& type : function_.result_types) {
          passes::VisitTypeNames(type, rename);
        }
        return absl::OkStatus();
      }
      case StmtKind::kIf:
        return ProcessIf(stmt, env);
      case StmtKind::kTileLoop:
      case StmtKind::kRangeLoop:
        return ProcessLoop(stmt, env);
    }
    return absl::InternalError("ssa: unknown statement kind");
  }

  // The trailing yield of `block`, appended when the block has none.
  static Stmt& TrailingYield(Block& block) {
    if (block.stmts.empty() || block.stmts.back().kind != StmtKind::kYield) {
      block.stmts.push_back(MakeYield({}));
    }
    return block.stmts.back();
  }

  absl::Status ProcessLoop(Stmt& loop, Env& env) {
    auto plan_it = liveness_.loops.find(&loop);
    if (plan_it == liveness_.loops.end() || loop.regions.size() != 1 ||
        loop.iter_args.size() != loop.inits.size()) {
      return absl::InternalError("ssa: malformed loop statement");
    }
    const LoopPlan& plan = plan_it->second;
    RenameUses(loop, env);  // dims, inits, attrs, types: the outer scope

    Env body_env = env;
    for (Value& var : loop.vars) Define(var, body_env);
    for (Value& iter_arg : loop.iter_args) Define(iter_arg, body_env);

    // Carried names with a value before the loop, in the order of those
    // definitions. A name used after the loop without one is an error here;
    // one only read by the body before its assignment is left unbound, so
    // the read itself (or the inner loop it escapes from) is reported.
    std::vector<std::pair<uint64_t, std::string>> with_init;
    for (const std::string& name : plan.carried) {
      auto init = env.find(name);
      if (init != env.end()) {
        with_init.emplace_back(init->second.sequence, name);
      } else if (plan.used_after.count(name) && UsedLater(name)) {
        ReportNoInitialValue(loop, name);
      }
    }
    std::sort(with_init.begin(), with_init.end());

    std::vector<std::string> carried;
    std::vector<Type> carried_types;
    for (const auto& [sequence, name] : with_init) {
      auto init = env.find(name);
      Value iter_arg{name, init->second.type};
      Define(iter_arg, body_env);
      loop.inits.push_back(
          MakeVar(init->second.name, init->second.type, loop.loc));
      loop.iter_args.push_back(iter_arg);
      carried.push_back(name);
      carried_types.push_back(init->second.type);
      changed_ = true;
    }

    Block& body = loop.regions[0];
    absl::Status status = ProcessBlock(body, body_env);
    if (!status.ok()) return status;

    if (!carried.empty()) {
      Stmt& yield = TrailingYield(body);
      for (size_t i = 0; i < carried.size(); ++i) {
        const Binding& last = body_env.at(carried[i]);
        if (!(last.type == carried_types[i])) {
          const SourceLoc* assigned = FindAssignment(body, last.name);
          Error(loop.loc,
                fmt::format("loop-carried value '{}' has type {} before the "
                            "loop but {} at the end of an iteration",
                            carried[i], TypeToString(carried_types[i]),
                            TypeToString(last.type)),
                assigned, fmt::format("'{}' assigned here", carried[i]));
        }
        yield.operands.push_back(MakeVar(last.name, last.type));
      }
    }

    for (Value& result : loop.results) Define(result, env);
    for (size_t i = 0; i < carried.size(); ++i) {
      Value result{carried[i], carried_types[i]};
      Define(result, env);
      loop.results.push_back(result);
    }
    return absl::OkStatus();
  }

  void ReportNoInitialValue(const Stmt& loop, const std::string& name) {
    if (!reported_.insert(name).second) return;
    const SourceLoc* assigned = FindAssignment(loop.regions[0], name);
    Error(loop.loc,
          fmt::format("'{}' is assigned inside this loop and used after it, "
                      "but has no value before the loop (it would be "
                      "undefined if the loop ran zero times); assign it "
                      "before the loop",
                      name),
          assigned, fmt::format("'{}' is assigned here", name));
  }

  absl::Status ProcessIf(Stmt& stmt, Env& env) {
    auto plan_it = liveness_.ifs.find(&stmt);
    if (plan_it == liveness_.ifs.end() || stmt.regions.empty() ||
        stmt.regions.size() > 2) {
      return absl::InternalError("ssa: malformed if statement");
    }
    const IfPlan& plan = plan_it->second;
    RenameUses(stmt, env);
    // Where each merged name is assigned, for notes (before renaming).
    std::map<std::string, SourceLoc> assigned_at;
    for (const std::string& name : plan.merged) {
      for (const Block& region : stmt.regions) {
        const SourceLoc* loc = FindAssignment(region, name);
        if (loc != nullptr && !assigned_at.count(name)) {
          assigned_at[name] = *loc;
        }
      }
    }

    std::vector<Env> branch_envs;
    for (Block& region : stmt.regions) {
      Env branch_env = env;
      absl::Status status = ProcessBlock(region, branch_env);
      if (!status.ok()) return status;
      branch_envs.push_back(std::move(branch_env));
    }
    // A missing else branch leaves every name as before the if.
    if (!plan.merged.empty() && stmt.regions.size() == 1) {
      stmt.regions.emplace_back();
      branch_envs.push_back(env);
    }

    std::vector<std::string> merged;
    std::vector<Type> merged_types;
    for (const std::string& name : plan.merged) {
      bool defined_everywhere = true;
      for (const Env& branch_env : branch_envs) {
        if (!branch_env.count(name)) defined_everywhere = false;
      }
      if (!defined_everywhere) {
        reported_.insert(name);
        auto assigned_it = assigned_at.find(name);
        const SourceLoc* assigned =
            assigned_it == assigned_at.end() ? nullptr : &assigned_it->second;
        Error(stmt.loc,
              fmt::format("'{}' is assigned in only one branch of this 'if' "
                          "and used after it; assign it before the 'if' or in "
                          "both branches",
                          name),
              assigned, fmt::format("'{}' is assigned here", name));
        continue;
      }
      const Type& then_type = branch_envs[0].at(name).type;
      const Type& else_type = branch_envs[1].at(name).type;
      if (!(then_type == else_type)) {
        Error(
            stmt.loc,
            fmt::format("'{}' has type {} after the then branch but {} "
                        "after the else branch",
                        name, TypeToString(then_type), TypeToString(else_type)),
            nullptr, {});
        continue;
      }
      merged.push_back(name);
      merged_types.push_back(then_type);
    }

    if (!merged.empty()) {
      for (size_t region = 0; region < stmt.regions.size(); ++region) {
        Stmt& yield = TrailingYield(stmt.regions[region]);
        for (const std::string& name : merged) {
          const Binding& binding = branch_envs[region].at(name);
          yield.operands.push_back(MakeVar(binding.name, binding.type));
        }
      }
      changed_ = true;
    }

    for (Value& result : stmt.results) Define(result, env);
    for (size_t i = 0; i < merged.size(); ++i) {
      Value result{merged[i], merged_types[i]};
      Define(result, env);
      stmt.results.push_back(result);
    }
    return absl::OkStatus();
  }

  Function& function_;
  Liveness& liveness_;
  DiagnosticEngine& diagnostics_;
  std::string file_;

  OwnedNameSet all_names_;
  OwnedNameSet claimed_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
  OwnedNameSet reported_;
  // The blocks being processed, outermost first, with the index of the
  // statement being processed in each.
  std::vector<std::pair<const Block*, size_t>> position_;
  uint64_t next_sequence_ = 0;
  bool changed_ = false;
  size_t errors_ = 0;
};

}  // namespace

absl::StatusOr<bool> ConvertToSSA(Module& module,
                                  DiagnosticEngine& diagnostics) {
  bool changed = false;
  size_t errors = 0;
  for (Function& function : module.functions) {
    Liveness liveness;
    liveness.LiveBeforeBlock(function.body, {});
    Renamer renamer(function, liveness, diagnostics, module.source_file);
    absl::Status status = renamer.Run();
    if (!status.ok()) return status;
    changed = changed || renamer.changed();
    errors += renamer.errors();
  }
  if (errors != 0) {
    return absl::InvalidArgumentError(
        fmt::format("ssa: {} error(s) in the input program", errors));
  }
  return changed;
}

}  // namespace tessera
