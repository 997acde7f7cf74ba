#include "outline.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "ir_names.h"

namespace tessera {
namespace {

using NameSet = absl::flat_hash_set<std::string>;

bool IsGridLoop(const Stmt& stmt) {
  if (stmt.kind != StmtKind::kTileLoop) return false;
  const bool* grid = GetAttr<bool>(stmt.attrs, "grid");
  return grid != nullptr && *grid;
}

// The type of every value a function binds: parameters, shape symbols of
// parameter types, and every definition in the body (unique in SSA form).
std::map<std::string, Type> DefinitionTypes(const Function& function) {
  std::map<std::string, Type> types;
  for (const Value& param : function.params) types[param.name] = param.type;
  for (const Value& param : function.params) {
    passes::ForEachTypeSymbol(param.type, [&](const std::string& symbol) {
      types.emplace(symbol, Type::Scalar(DType::kI64));
    });
  }
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const Value& value : stmt.results) types[value.name] = value.type;
    for (const Value& value : stmt.vars) types[value.name] = value.type;
    for (const Value& value : stmt.iter_args) types[value.name] = value.type;
  });
  return types;
}

// The names a block uses without defining them, in order of first use.
class FreeNames {
 public:
  void Use(const std::string& name, const NameSet& defined) {
    if (defined.count(name) || !seen_.insert(name).second) return;
    order_.push_back(name);
  }

  void ScanBlock(const Block& block, NameSet defined) {
    for (const Stmt& stmt : block.stmts) {
      passes::ConstNameVisitor visitor{
          [&](const Expr& var) { Use(var.name, defined); },
          [&](const std::string& symbol) { Use(symbol, defined); },
      };
      passes::VisitStmtUses(stmt, visitor);
      // Only a statement with regions scopes names of its own: copying the
      // set for every statement made a long block quadratic.
      if (!stmt.regions.empty()) {
        NameSet inner = defined;
        for (const Value& var : stmt.vars) inner.insert(var.name);
        for (const Value& arg : stmt.iter_args) inner.insert(arg.name);
        for (const Block& region : stmt.regions) ScanBlock(region, inner);
      }
      for (const Value& result : stmt.results) defined.insert(result.name);
    }
  }

  const std::vector<std::string>& order() const { return order_; }

 private:
  NameSet seen_;
  std::vector<std::string> order_;
};

class Outliner {
 public:
  Outliner(Module& module, DiagnosticEngine& diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  absl::StatusOr<bool> Run() {
    for (const Function& function : module_.functions) {
      function_names_.insert(function.name);
    }
    std::vector<Function> functions;
    bool changed = false;
    for (Function& function : module_.functions) {
      if (function.kind != FunctionKind::kKernel) {
        functions.push_back(std::move(function));
        continue;
      }
      absl::StatusOr<std::optional<Function>> device = Outline(function);
      if (!device.ok()) return device.status();
      functions.push_back(std::move(function));
      if (device->has_value()) {
        functions.push_back(std::move(**device));
        changed = true;
      }
    }
    module_.functions = std::move(functions);
    if (errors_ != 0) {
      return absl::InvalidArgumentError(
          fmt::format("outline: {} error(s) in the input program", errors_));
    }
    return changed;
  }

 private:
  void Error(SourceLoc loc, std::string message) {
    diagnostics_.Error(module_.source_file, loc, std::move(message));
    ++errors_;
  }

  // Finds the kernel's grid loop: exactly one, at the top level. Reports
  // and returns nullopt otherwise.
  std::optional<size_t> FindGridLoop(const Function& kernel) {
    std::vector<size_t> top_level;
    for (size_t i = 0; i < kernel.body.stmts.size(); ++i) {
      if (IsGridLoop(kernel.body.stmts[i])) top_level.push_back(i);
    }
    bool nested = false;
    for (const Stmt& stmt : kernel.body.stmts) {
      for (const Block& region : stmt.regions) {
        WalkStmts(region, [&](const Stmt& inner) {
          if (!IsGridLoop(inner)) return;
          Error(inner.loc,
                fmt::format("the grid loop of kernel '{}' must be at the top "
                            "level of the kernel, not nested in another "
                            "statement",
                            kernel.name));
          nested = true;
        });
      }
    }
    if (nested) return std::nullopt;
    if (top_level.empty()) {
      Error(kernel.loc,
            fmt::format("kernel '{}' has no grid loop (an outer hl.tile loop "
                        "with {{grid = true}}); there is nothing to launch",
                        kernel.name));
      return std::nullopt;
    }
    if (top_level.size() > 1) {
      Error(kernel.body.stmts[top_level[1]].loc,
            fmt::format("kernel '{}' has {} grid loops; a kernel launches one "
                        "grid, so write one outer hl.tile loop",
                        kernel.name, top_level.size()));
      return std::nullopt;
    }
    return top_level[0];
  }

  absl::StatusOr<std::optional<Function>> Outline(Function& kernel) {
    std::optional<size_t> grid_index = FindGridLoop(kernel);
    if (!grid_index) return std::optional<Function>();
    const std::string device_name = kernel.name + "_device";
    if (!function_names_.insert(device_name).second) {
      Error(kernel.loc,
            fmt::format("cannot outline kernel '{}': the module already has a "
                        "function named '{}'",
                        kernel.name, device_name));
      return std::optional<Function>();
    }

    const std::map<std::string, Type> types = DefinitionTypes(kernel);
    Stmt& grid = kernel.body.stmts[*grid_index];
    if (grid.regions.size() != 1 || grid.vars.size() != grid.dims.size() ||
        grid.iter_args.size() != grid.inits.size() ||
        grid.iter_args.size() != grid.results.size()) {
      return absl::InternalError(fmt::format(
          "outline: malformed grid loop in kernel '{}'", kernel.name));
    }

    // Live-ins: what the body uses, then what the types of the parameters
    // and results mention (shape symbols), until closed.
    NameSet tile_names;
    for (const Value& var : grid.vars) tile_names.insert(var.name);
    FreeNames free;
    free.ScanBlock(grid.regions[0], tile_names);
    std::vector<std::string> live_ins = free.order();
    NameSet listed(live_ins.begin(), live_ins.end());
    auto add_symbols = [&](const Type& type) {
      passes::ForEachTypeSymbol(type, [&](const std::string& symbol) {
        if (tile_names.count(symbol) || !listed.insert(symbol).second) return;
        live_ins.push_back(symbol);
      });
    };
    for (const Value& var : grid.vars) add_symbols(var.type);
    for (const Value& result : grid.results) add_symbols(result.type);

    std::map<std::string, size_t> iter_arg_index;
    for (size_t i = 0; i < grid.iter_args.size(); ++i) {
      iter_arg_index[grid.iter_args[i].name] = i;
    }

    Function device;
    device.name = device_name;
    device.kind = FunctionKind::kDevice;
    device.loc = grid.loc;
    device.params = grid.vars;
    SetAttr(device.attrs, "kernel", kernel.name);

    Stmt launch;
    launch.kind = StmtKind::kLaunch;
    launch.loc = grid.loc;
    SetAttr(launch.attrs, "callee", device_name);
    for (const Attr& attr : grid.attrs) {
      if (attr.name != "grid") launch.attrs.push_back(attr);
    }

    // live_ins grows while its parameter types are scanned.
    for (size_t i = 0; i < live_ins.size(); ++i) {
      const std::string name = live_ins[i];
      auto iter_arg = iter_arg_index.find(name);
      if (iter_arg != iter_arg_index.end()) {
        const Value& value = grid.iter_args[iter_arg->second];
        device.params.push_back(value);
        launch.operands.push_back(CloneExpr(*grid.inits[iter_arg->second]));
        add_symbols(value.type);
        continue;
      }
      auto type = types.find(name);
      if (type == types.end()) {
        return absl::InternalError(fmt::format(
            "outline: '{}' is used in the grid loop of kernel '{}' but "
            "defined nowhere in it (is the input in SSA form?)",
            name, kernel.name));
      }
      device.params.push_back(Value{name, type->second});
      launch.operands.push_back(MakeVar(name, type->second, grid.loc));
      add_symbols(type->second);
    }

    Block body = std::move(grid.regions[0]);
    if (!body.stmts.empty() && body.stmts.back().kind == StmtKind::kYield) {
      body.stmts.back().kind = StmtKind::kReturn;
    } else if (!grid.results.empty()) {
      return absl::InternalError(fmt::format(
          "outline: the grid loop of kernel '{}' has results but its body "
          "does not end with a yield",
          kernel.name));
    } else {
      body.stmts.push_back(MakeReturn({}));
    }
    device.body = std::move(body);
    for (const Value& result : grid.results) {
      device.result_types.push_back(result.type);
    }

    launch.results = std::move(grid.results);
    launch.dims = std::move(grid.dims);
    kernel.body.stmts[*grid_index] = std::move(launch);
    kernel.kind = FunctionKind::kHost;
    return std::optional<Function>(std::move(device));
  }

  Module& module_;
  DiagnosticEngine& diagnostics_;
  NameSet function_names_;
  size_t errors_ = 0;
};

}  // namespace

absl::StatusOr<bool> OutlineKernels(Module& module,
                                    DiagnosticEngine& diagnostics) {
  return Outliner(module, diagnostics).Run();
}

}  // namespace tessera
