#include "module_rewrite.h"

#include <set>

namespace tessera::pallas {
namespace {

// Stmt* or const Stmt*, as `host` is.
template <typename FunctionT>
auto* FirstTopLevelLaunch(FunctionT& host) {
  decltype(&host.body.stmts[0]) launch = nullptr;
  for (auto& stmt : host.body.stmts) {
    if (stmt.kind == StmtKind::kLaunch) {
      launch = &stmt;
      break;
    }
  }
  return launch;
}

}  // namespace

const Stmt* FindTopLevelLaunch(const Function& host) {
  return FirstTopLevelLaunch(host);
}

Stmt* FindTopLevelLaunch(Function& host) { return FirstTopLevelLaunch(host); }

const Function* LaunchCallee(const Module& module, const Stmt& launch) {
  const std::string* callee = GetAttr<std::string>(launch.attrs, "callee");
  return callee ? module.FindFunction(*callee) : nullptr;
}

std::optional<LaunchedDevice> FindLaunchedDevice(const Module& module,
                                                 const Function& host) {
  const Stmt* launch = FindTopLevelLaunch(host);
  const Function* device = launch ? LaunchCallee(module, *launch) : nullptr;
  if (device == nullptr) return std::nullopt;
  return LaunchedDevice{launch, device};
}

std::string FreshName(const Function& function, const std::string& base) {
  std::set<std::string> taken;
  ForEachDefinedName(function,
                     [&](const std::string& name) { taken.insert(name); });
  std::string name = base;
  for (int suffix = 1; taken.count(name); ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  return name;
}

}  // namespace tessera::pallas
