// Verifier of the `pre_broadcast` property. The pre-broadcast pass records on
// each inner loop which iter_args it carries with a trailing lane dim:
//   for ... iter(m_i_1: f32[1, 128, 128] = ...) {pre_broadcast = strs[
//       "m_i_1"], lanes = 128}
// and the property holds when, for every such loop: `lanes` is a positive
// integer; each listed name is an iter_arg whose init, type and loop result
// end in a static dim of `lanes`; and no `x[..., None]` is applied to a
// listed iter_arg or its loop result anywhere in the function (that
// broadcast is what the lane dim replaces).
#include <map>
#include <string>

#include "fmt/format.h"
#include "pre_broadcast.h"
#include "tessera/ir/verifier.h"

namespace tessera {
namespace {

bool IsTrailingNewAxisOfVar(const Expr& expr) {
  return IsTrailingUnsqueeze(expr) && expr.operands[0]->op == OpKind::kVar;
}

bool EndsInLanes(const Type& type, int64_t lanes) {
  return type.is_tensor() && type.rank() >= 2 &&
         type.shape.back().is_static() && type.shape.back().size == lanes;
}

class PreBroadcastChecker {
 public:
  PreBroadcastChecker(const Function& function, VerificationReporter& reporter)
      : function_(function), reporter_(reporter) {}

  void Run() {
    WalkStmts(function_.body, [&](const Stmt& stmt) { CheckLoop(stmt); });
    if (carried_.empty()) return;
    WalkStmts(function_.body, [&](const Stmt& stmt) {
      ForEachRootExpr(stmt, [&](const Expr& root) {
        WalkExpr(root, [&](const Expr& expr) {
          if (!IsTrailingNewAxisOfVar(expr)) return;
          auto it = carried_.find(expr.operands[0]->name);
          if (it == carried_.end()) return;
          reporter_.StmtError(
              stmt, fmt::format("'{}' is carried with {} lanes (pre_broadcast) "
                                "but is still broadcast with [..., None]",
                                it->first, it->second));
        });
      });
    });
  }

 private:
  void CheckLoop(const Stmt& loop) {
    const Attr* names_attr = loop.attr("pre_broadcast");
    const Attr* lanes_attr = loop.attr("lanes");
    if (names_attr == nullptr && lanes_attr == nullptr) return;
    if (loop.kind != StmtKind::kTileLoop && loop.kind != StmtKind::kRangeLoop) {
      reporter_.StmtError(loop,
                          "'pre_broadcast' on a statement that is not a loop");
      return;
    }
    const auto* names =
        names_attr ? std::get_if<std::vector<std::string>>(&names_attr->value)
                   : nullptr;
    const int64_t* lanes =
        lanes_attr ? std::get_if<int64_t>(&lanes_attr->value) : nullptr;
    if (names == nullptr || lanes == nullptr || *lanes <= 0) {
      reporter_.StmtError(
          loop,
          "a pre-broadcast loop needs both 'pre_broadcast' (a "
          "list of iter_args) and 'lanes' (a positive integer)");
      return;
    }
    for (const std::string& name : *names) {
      size_t index = 0;
      while (index < loop.iter_args.size() &&
             loop.iter_args[index].name != name) {
        ++index;
      }
      if (index == loop.iter_args.size()) {
        reporter_.StmtError(
            loop, fmt::format("pre_broadcast names '{}', which is not an "
                              "iter_arg of the loop",
                              name));
        continue;
      }
      const Type& type = loop.iter_args[index].type;
      if (!EndsInLanes(type, *lanes)) {
        reporter_.StmtError(
            loop, fmt::format("pre-broadcast iter_arg '{}' has type {}; its "
                              "last dim must be the {} lanes",
                              name, TypeToString(type), *lanes));
        continue;
      }
      if (index < loop.inits.size() && loop.inits[index] &&
          !(loop.inits[index]->type == type)) {
        reporter_.StmtError(
            loop, fmt::format("the initial value of pre-broadcast iter_arg "
                              "'{}' has type {}, not {}",
                              name, TypeToString(loop.inits[index]->type),
                              TypeToString(type)));
      }
      carried_[name] = *lanes;
      if (index < loop.results.size()) {
        const Value& result = loop.results[index];
        if (!(result.type == type)) {
          reporter_.StmtError(
              loop, fmt::format("loop result '{}' of pre-broadcast iter_arg "
                                "'{}' has type {}, not {}",
                                result.name, name, TypeToString(result.type),
                                TypeToString(type)));
        }
        carried_[result.name] = *lanes;
      }
    }
  }

  const Function& function_;
  VerificationReporter& reporter_;
  std::map<std::string, int64_t> carried_;  // name -> lanes
};

void CheckPreBroadcast(const Module& module, VerificationReporter& reporter) {
  for (const Function& function : module.functions) {
    PreBroadcastChecker(function, reporter).Run();
  }
}

}  // namespace

PropertyInfo PreBroadcastPropertyInfo() {
  return PropertyInfo{
      "pre_broadcast",
      "loop-carried row statistics that meet wider operands are carried with a "
      "trailing lane dim; no [..., None] is applied to them",
      &CheckPreBroadcast};
}

Property PreBroadcastProperty() {
  return RegisterProperty(PreBroadcastPropertyInfo()).value_or(Property());
}

}  // namespace tessera
