#include "verifier/module_index.h"

#include <string>

#include "fmt/format.h"

namespace tessera::verifier {

ModuleIndex::ModuleIndex(const Module& module, Reporter& reporter)
    : module_(module) {
  functions_.reserve(module.functions.size());
  for (const Function& function : module.functions) {
    auto [it, inserted] = functions_.try_emplace(function.name, &function);
    if (!inserted) {
      reporter.FunctionError(
          function,
          fmt::format("function @{} is defined more than once (first at "
                      "{}:{})",
                      function.name, it->second->loc.line,
                      it->second->loc.col));
    }
  }
}

const Function* ModuleIndex::FindFunction(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

std::vector<std::string> ModuleIndex::FunctionNames() const {
  std::vector<std::string> names;
  names.reserve(module_.functions.size());
  for (const Function& function : module_.functions) {
    names.push_back(function.name);
  }
  return names;
}

const Function* ModuleIndex::OtherFunctionDefining(
    std::string_view name, const Function* except) const {
  if (!owners_built_) {
    for (const Function& function : module_.functions) {
      ForEachDefinition(
          function, [&](const std::string& value, const Type&, const Stmt*) {
            std::vector<const Function*>& owners = owners_[value];
            if (owners.empty() || owners.back() != &function) {
              owners.push_back(&function);
            }
          });
    }
    owners_built_ = true;
  }
  auto it = owners_.find(name);
  if (it == owners_.end()) return nullptr;
  for (const Function* owner : it->second) {
    if (owner != except) return owner;
  }
  return nullptr;
}

}  // namespace tessera::verifier
