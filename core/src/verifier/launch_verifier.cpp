// Launch statements: the callee, the grid, and the launch/device-function
// calling convention documented in tessera/ir/verifier.h.
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "verifier/function_verifier.h"
#include "verifier/stmt_summary.h"

namespace tessera::verifier {
namespace {

// What a device parameter is bound to at one launch, as far as types are
// concerned: a host value's name or a constant.
struct ParamBinding {
  const std::string* host_symbol = nullptr;
  std::optional<int64_t> constant;
};
using ParamBindings = absl::flat_hash_map<std::string_view, ParamBinding>;

// Compares a device-side dim with a host-side one. Device symbols name
// device values: a symbol bound to a launch operand must match what the
// operand is; a symbol the device function computes itself (say a size()
// query in its body) is not known at the launch and matches any dim.
bool DimsMatch(const Dim& device, const Dim& host,
               const ParamBindings& bindings) {
  if (device.is_static()) return host == device;
  auto it = bindings.find(device.symbol);
  if (it == bindings.end()) return true;
  if (it->second.host_symbol != nullptr) {
    return !host.is_static() && host.symbol == *it->second.host_symbol;
  }
  if (it->second.constant.has_value()) {
    return host.is_static() && host.size == *it->second.constant;
  }
  return true;
}

bool TypesMatch(const Type& device, const Type& host,
                const ParamBindings& bindings) {
  if (device.kind != host.kind || device.shape.size() != host.shape.size()) {
    return false;
  }
  if (!device.is_tile() && !device.is_none() && device.dtype != host.dtype) {
    return false;
  }
  for (size_t i = 0; i < device.shape.size(); ++i) {
    if (!DimsMatch(device.shape[i], host.shape[i], bindings)) return false;
  }
  return true;
}

}  // namespace

void FunctionVerifier::VerifyLaunch(const Stmt& stmt) {
  if (function_.kind != FunctionKind::kHost) {
    Error(fmt::format("launch in {} function @{}; only host functions launch",
                      FunctionKindName(function_.kind), function_.name));
  }
  if (stmt.dims.empty()) Error("launch has an empty grid");
  for (const LoopDim& dim : stmt.dims) VerifyLoopDim(dim, "grid block size");
  bool operands_ok = true;
  for (const ExprPtr& operand : stmt.operands) {
    operands_ok &= VerifyExpr(operand.get());
  }
  if (!stmt.vars.empty() || !stmt.iter_args.empty() || !stmt.inits.empty()) {
    Error("launch has loop variables or iter_args");
  }

  const std::string* callee_name = GetAttr<std::string>(stmt.attrs, "callee");
  const Function* callee = nullptr;
  if (callee_name == nullptr || callee_name->empty()) {
    Error("launch has no 'callee' attribute");
  } else if ((callee = index_.FindFunction(*callee_name)) == nullptr) {
    std::string suggestion = ClosestName(*callee_name, index_.FunctionNames());
    Error(fmt::format("launch of unknown function @{}{}", *callee_name,
                      suggestion.empty()
                          ? ""
                          : fmt::format("; did you mean @{}?", suggestion)));
  } else if (callee->kind != FunctionKind::kDevice) {
    Error(
        fmt::format("launch callee @{} is a {} function; launches call "
                    "device functions",
                    callee->name, FunctionKindName(callee->kind)));
    callee = nullptr;
  }
  if (callee != nullptr && operands_ok) {
    VerifyLaunchAgainstCallee(stmt, *callee);
  }

  for (const Value& result : stmt.results) {
    CheckTypeSymbols(result.type, result.name);
    Define(result, DefKind::kResult);
  }
}

void FunctionVerifier::VerifyLaunchAgainstCallee(const Stmt& stmt,
                                                 const Function& callee) {
  const size_t grid_rank = stmt.dims.size();
  const size_t param_count = callee.params.size();
  if (param_count < grid_rank) {
    Error(
        fmt::format("@{} has {} parameter(s) but the launch grid has {} "
                    "dim(s); a device function takes one tile per grid dim "
                    "first",
                    callee.name, param_count, grid_rank));
    return;
  }
  if (stmt.operands.size() != param_count - grid_rank) {
    Error(fmt::format(
        "launch passes {} operand(s) but @{} takes {} after "
        "its {} grid tile(s)",
        stmt.operands.size(), callee.name, param_count - grid_rank, grid_rank));
    return;
  }

  ParamBindings bindings;
  for (size_t i = 0; i < stmt.operands.size(); ++i) {
    const Expr& operand = *stmt.operands[i];
    ParamBinding binding;
    if (operand.op == OpKind::kVar) {
      binding.host_symbol = &operand.name;
    } else if (const int64_t* value =
                   operand.op == OpKind::kConst
                       ? GetAttr<int64_t>(operand.attrs, "value")
                       : nullptr) {
      binding.constant = *value;
    }
    bindings.emplace(callee.params[grid_rank + i].name, binding);
  }

  for (size_t i = 0; i < grid_rank; ++i) {
    const Value& tile = callee.params[i];
    if (!tile.type.is_tile() || tile.type.shape.size() != 1) {
      Error(
          fmt::format("parameter {} ('{}') of @{} must be the tile of grid "
                      "dim {}, has type {}",
                      i, tile.name, callee.name, i, TypeToString(tile.type)));
    } else if (!DimsMatch(tile.type.shape[0], stmt.dims[i].block, bindings)) {
      Error(
          fmt::format("grid dim {} has block size {} but @{} takes its tile "
                      "as '{}: {}'",
                      i, DimToString(stmt.dims[i].block), callee.name,
                      tile.name, TypeToString(tile.type)));
    }
  }
  for (size_t i = 0; i < stmt.operands.size(); ++i) {
    const Value& param = callee.params[grid_rank + i];
    const Type& host = stmt.operands[i]->type;
    if (!TypesMatch(param.type, host, bindings)) {
      Error(
          fmt::format("launch operand {} ('{}') has type {} but parameter "
                      "'{}' of @{} has type {}",
                      i, SummarizeExpr(*stmt.operands[i]), TypeToString(host),
                      param.name, callee.name, TypeToString(param.type)));
    }
  }
  if (stmt.results.size() != callee.result_types.size()) {
    Error(fmt::format("launch has {} result(s) but @{} returns {}",
                      stmt.results.size(), callee.name,
                      callee.result_types.size()));
    return;
  }
  for (size_t i = 0; i < stmt.results.size(); ++i) {
    if (!TypesMatch(callee.result_types[i], stmt.results[i].type, bindings)) {
      Error(fmt::format("launch result '{}' has type {} but @{} returns {}",
                        stmt.results[i].name,
                        TypeToString(stmt.results[i].type), callee.name,
                        TypeToString(callee.result_types[i])));
    }
  }
}

}  // namespace tessera::verifier
