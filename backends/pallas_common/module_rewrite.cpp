#include "module_rewrite.h"

#include <set>

namespace tessera::pallas {

const Stmt* FindTopLevelLaunch(const Function& host) {
  for (const Stmt& stmt : host.body.stmts) {
    if (stmt.kind == StmtKind::kLaunch) return &stmt;
  }
  return nullptr;
}

const Function* LaunchCallee(const Module& module, const Stmt& launch) {
  const std::string* callee = GetAttr<std::string>(launch.attrs, "callee");
  return callee ? module.FindFunction(*callee) : nullptr;
}

std::string FreshName(const Function& function, const std::string& base) {
  std::set<std::string> taken;
  for (const Value& param : function.params) taken.insert(param.name);
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const Value& result : stmt.results) taken.insert(result.name);
    for (const Value& var : stmt.vars) taken.insert(var.name);
    for (const Value& arg : stmt.iter_args) taken.insert(arg.name);
  });
  std::string name = base;
  for (int suffix = 1; taken.count(name); ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  return name;
}

}  // namespace tessera::pallas
