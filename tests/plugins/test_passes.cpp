// The "test-passes" plugin: small passes with known, checkable behaviour for
// the pass manager, CLI and IR-file tests. Each exercises one part of the
// pass contract (options, a change, a broken promise, a missing
// requirement, a user error, an internal error, an exception).
#include <stdexcept>

#include "absl/status/status.h"
#include "test_plugin.h"

namespace tessera::testing {
namespace {

size_t CountStmts(const Module& module) {
  size_t count = 0;
  for (const Function& function : module.functions) {
    WalkStmts(function.body, [&](const Stmt&) { ++count; });
  }
  return count;
}

// Changes nothing; with `report = true` emits a remark with the statement
// count, labelled by `label`.
class CountPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    if (ctx.options().GetBool("report")) {
      ctx.diagnostics().Remark(module.source_file, {},
                               ctx.options().GetString("label") + ": " +
                                   std::to_string(CountStmts(module)) + " in " +
                                   std::to_string(module.functions.size()) +
                                   " function(s)");
    }
    return false;
  }
};

// Marks every function with the attribute named by option `key`.
class TagPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    const std::string key = ctx.options().GetString("key");
    for (Function& function : module.functions) {
      SetAttr(function.attrs, key, true);
    }
    return !module.functions.empty();
  }
};

// Claims to produce SSA but defines the first assigned name a second time.
class BreakSsaPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext&) override {
    for (Function& function : module.functions) {
      std::vector<Stmt>& stmts = function.body.stmts;
      for (size_t i = 0; i < stmts.size(); ++i) {
        if (stmts[i].kind != StmtKind::kAssign) continue;
        stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                     CloneStmt(stmts[i]));
        return true;
      }
    }
    return false;
  }
};

class NoOpPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module&, PassContext&) override { return false; }
};

// A user-facing failure: an error at the first statement, then a non-OK
// status.
class UserErrorPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    SourceLoc loc;
    for (const Function& function : module.functions) {
      if (!function.body.stmts.empty()) {
        loc = function.body.stmts.front().loc;
        break;
      }
    }
    ctx.diagnostics().Error(module.source_file, loc,
                            "test-user-error rejects this statement");
    return absl::InvalidArgumentError("rejected");
  }
};

// A compiler bug: failure without any diagnostic.
class InternalErrorPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module&, PassContext&) override {
    return absl::InternalError("deliberate internal failure");
  }
};

// Breaks the no-throw rule; the pass manager must turn it into an internal
// error rather than crash.
class ThrowingPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module&, PassContext&) override {
    throw std::runtime_error("deliberate exception");
  }
};

template <typename PassType>
std::function<std::unique_ptr<Pass>()> Factory() {
  return [] { return std::make_unique<PassType>(); };
}

}  // namespace

void RegisterTestPasses(PluginRegistrar& registrar) {
  PassInfo count;
  count.name = "test-count";
  count.description = "counts statements; changes nothing";
  count.options = {
      {"report", OptionType::kBool, false, "emit a remark with the count", {}},
      {"label",
       OptionType::kString,
       std::string("statements"),
       "label of the remark",
       {}},
  };
  count.create = Factory<CountPass>();
  registrar.AddPass(std::move(count));

  PassInfo tag;
  tag.name = "test-tag";
  tag.description = "adds a boolean attribute to every function";
  tag.options = {{"key",
                  OptionType::kString,
                  std::string("tagged"),
                  "the attribute's name",
                  {}}};
  tag.create = Factory<TagPass>();
  registrar.AddPass(std::move(tag));

  PassInfo break_ssa;
  break_ssa.name = "test-break-ssa";
  break_ssa.description = "claims to produce SSA but defines a name twice";
  break_ssa.produced = {kSsaProperty};
  break_ssa.create = Factory<BreakSsaPass>();
  registrar.AddPass(std::move(break_ssa));

  PassInfo claim_ssa;
  claim_ssa.name = "test-claim-ssa";
  claim_ssa.description = "declares SSA (for inputs already in SSA form)";
  claim_ssa.produced = {kSsaProperty};
  claim_ssa.create = Factory<NoOpPass>();
  registrar.AddPass(std::move(claim_ssa));

  PassInfo needs_outlined;
  needs_outlined.name = "test-needs-outlined";
  needs_outlined.description = "requires the outlined property";
  needs_outlined.required = {kOutlinedProperty};
  needs_outlined.create = Factory<NoOpPass>();
  registrar.AddPass(std::move(needs_outlined));

  PassInfo names_unknown;
  names_unknown.name = "test-names-unknown-property";
  names_unknown.description = "requires a property no plugin registers";
  names_unknown.required = {"test_no_such_property"};
  names_unknown.create = Factory<NoOpPass>();
  registrar.AddPass(std::move(names_unknown));

  PassInfo user_error;
  user_error.name = "test-user-error";
  user_error.description = "reports an error at the first statement";
  user_error.create = Factory<UserErrorPass>();
  registrar.AddPass(std::move(user_error));

  PassInfo internal_error;
  internal_error.name = "test-internal-error";
  internal_error.description = "fails without a diagnostic";
  internal_error.create = Factory<InternalErrorPass>();
  registrar.AddPass(std::move(internal_error));

  PassInfo throws;
  throws.name = "test-throw";
  throws.description = "throws from Run";
  throws.create = Factory<ThrowingPass>();
  registrar.AddPass(std::move(throws));
}

}  // namespace tessera::testing
