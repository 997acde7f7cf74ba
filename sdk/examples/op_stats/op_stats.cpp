// op-stats: a Tessera pass plugin built out of tree against the installed
// SDK. It counts the statements and ops of every function, reports them as
// remarks at the function's location and records each function's op count
// in an `op_count` attribute. It registers a property of its own,
// `op_counted` ("every function's op_count attribute is its number of
// non-leaf ops"), with a verifier that recounts; the pass produces it, and
// verify-each runs the verifier after the pass and whenever an input .tir
// claims it. The property is registered as holding only for the IR it was
// computed on, so any later pass that changes the IR drops it. The pass
// can sit anywhere in a pipeline:
//
//   [pipeline]
//   passes = ["ssa", "op-stats", "outline"]
//   [passes.op-stats]
//   top = 5              # list only the 5 most frequent ops (0: all)
//   include_leaves = false
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/ir/verifier.h"
#include "tessera/plugin.h"

namespace op_stats {
namespace {

constexpr const char* kOpCountAttr = "op_count";

struct FunctionStats {
  int64_t statements = 0;
  int64_t ops = 0;
  std::map<std::string, int64_t> ops_by_name;
};

FunctionStats CountFunction(const tessera::Function& function,
                            bool include_leaves) {
  FunctionStats stats;
  tessera::WalkStmts(function.body, [&](const tessera::Stmt& stmt) {
    ++stats.statements;
    tessera::ForEachRootExpr(stmt, [&](const tessera::Expr& root) {
      tessera::WalkExpr(root, [&](const tessera::Expr& expr) {
        const tessera::OpInfo& info = tessera::OpInfoOf(expr.op);
        if (!include_leaves && info.category == tessera::OpCategory::kLeaf) {
          return;
        }
        ++stats.ops;
        ++stats.ops_by_name[std::string(info.name)];
      });
    });
  });
  return stats;
}

// The verifier of `op_counted`: each function's `op_count` attribute holds
// its number of non-leaf ops.
void VerifyOpCounted(const tessera::Module& module,
                     tessera::VerificationReporter& reporter) {
  for (const tessera::Function& function : module.functions) {
    const tessera::Attr* recorded = function.attr(kOpCountAttr);
    const auto* count =
        recorded != nullptr ? std::get_if<int64_t>(&recorded->value) : nullptr;
    if (count == nullptr) {
      reporter.FunctionError(function,
                             "op_counted: no integer 'op_count' attribute");
      continue;
    }
    const int64_t actual =
        CountFunction(function, /*include_leaves=*/false).ops;
    if (*count != actual) {
      reporter.FunctionError(function, "op_counted: op_count is " +
                                           std::to_string(*count) +
                                           " but the function has " +
                                           std::to_string(actual) + " ops");
    }
  }
}

// Sets `op_count` on `function`; true when that changed the IR.
bool RecordOpCount(tessera::Function& function) {
  const int64_t ops = CountFunction(function, /*include_leaves=*/false).ops;
  for (tessera::Attr& attr : function.attrs) {
    if (attr.name != kOpCountAttr) continue;
    if (attr.value == tessera::AttrValue(ops)) return false;
    attr.value = ops;
    return true;
  }
  function.attrs.push_back(tessera::Attr{kOpCountAttr, ops});
  return true;
}

// "@add (kernel): 5 statements, 7 ops: load 2, size 2, add 1, ..."
std::string Describe(const tessera::Function& function,
                     const FunctionStats& stats, int64_t top) {
  std::vector<std::pair<std::string, int64_t>> ranked(stats.ops_by_name.begin(),
                                                      stats.ops_by_name.end());
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text = "op-stats: @" + function.name + " (" +
                     std::string(tessera::FunctionKindName(function.kind)) +
                     "): " + std::to_string(stats.statements) +
                     " statements, " + std::to_string(stats.ops) + " ops";
  size_t shown = ranked.size();
  if (top > 0) shown = std::min(shown, static_cast<size_t>(top));
  for (size_t i = 0; i < shown; ++i) {
    text += (i == 0 ? ": " : ", ") + ranked[i].first + " " +
            std::to_string(ranked[i].second);
  }
  if (shown < ranked.size()) {
    text += ", ... (" + std::to_string(ranked.size() - shown) + " more kinds)";
  }
  return text;
}

class OpStatsPass final : public tessera::Pass {
 public:
  absl::StatusOr<bool> Run(tessera::Module& module,
                           tessera::PassContext& ctx) override {
    const int64_t top = ctx.options().GetInt("top", 0);
    const bool include_leaves = ctx.options().GetBool("include_leaves", false);
    bool changed = false;
    for (tessera::Function& function : module.functions) {
      FunctionStats stats = CountFunction(function, include_leaves);
      ctx.diagnostics().Remark(module.source_file, function.loc,
                               Describe(function, stats, top));
      changed = RecordOpCount(function) || changed;
    }
    return changed;
  }
};

bool Register(tessera::PluginRegistrar* registrar) {
  // Registered first: the pass's contract names it by handle.
  const tessera::Property op_counted = registrar->AddProperty(
      {"op_counted", "every function's op_count attribute is its op count",
       &VerifyOpCounted, /*dropped_by_any_change=*/true});
  if (!op_counted.valid()) return false;

  tessera::PassInfo info;
  info.name = "op-stats";
  info.description =
      "reports the number of statements and ops of each function as remarks";
  // Works on any IR; adding attributes keeps every other property.
  info.produced = {op_counted};
  info.options = {
      {"top",
       tessera::OptionType::kInt,
       int64_t{0},
       "list only the N most frequent ops of each function (0: all)",
       {}},
      {"include_leaves",
       tessera::OptionType::kBool,
       false,
       "also count value references and constants",
       {}},
  };
  info.create = [] { return std::make_unique<OpStatsPass>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace
}  // namespace op_stats

TESSERA_PLUGIN("op-stats", "0.1.0", op_stats::Register)
