// Module-wide lookups the verifier needs: functions by name (launch
// callees) and, only when a problem is being explained, which function
// defines a given value name.
#pragma once

#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tessera/ir/ir.h"
#include "verifier/reporter.h"

namespace tessera::verifier {

// Calls `fn(name, type, stmt)` for every value `function` defines: its
// params (stmt == nullptr), assignment targets, loop variables, iter_args
// and loop / if / launch results, in program order.
template <typename Fn>
void ForEachDefinition(const Function& function, Fn&& fn) {
  for (const Value& param : function.params) {
    fn(param.name, param.type, static_cast<const Stmt*>(nullptr));
  }
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const Value& var : stmt.vars) fn(var.name, var.type, &stmt);
    for (const Value& arg : stmt.iter_args) fn(arg.name, arg.type, &stmt);
    for (const Value& result : stmt.results) {
      fn(result.name, result.type, &stmt);
    }
  });
}

class ModuleIndex {
 public:
  // Reports functions that share a name.
  ModuleIndex(const Module& module, Reporter& reporter);

  const Function* FindFunction(std::string_view name) const;
  std::vector<std::string> FunctionNames() const;
  // A function other than `except` that defines a value called `name`, or
  // nullptr. Built on first use: only error messages need it.
  const Function* OtherFunctionDefining(std::string_view name,
                                        const Function* except) const;

 private:
  const Module& module_;
  absl::flat_hash_map<std::string_view, const Function*> functions_;
  mutable bool owners_built_ = false;
  mutable absl::flat_hash_map<std::string_view, std::vector<const Function*>>
      owners_;
};

}  // namespace tessera::verifier
