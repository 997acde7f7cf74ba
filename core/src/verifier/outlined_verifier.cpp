#include "verifier/outlined_verifier.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace tessera::verifier {
namespace {

// Finds the names one function uses but does not define.
class FreeVariableScan {
 public:
  FreeVariableScan(const Function& function, const ModuleIndex& index,
                   Reporter& reporter)
      : function_(function), index_(index), reporter_(reporter) {}

  void Run() {
    ForEachDefinition(function_, [&](const std::string& name, const Type&,
                                     const Stmt*) { defined_.insert(name); });
    for (const Value& param : function_.params) UseType(param.type, nullptr);
    for (const Type& type : function_.result_types) UseType(type, nullptr);
    WalkStmts(function_.body, [&](const Stmt& stmt) { ScanStmt(stmt); });
  }

 private:
  void ScanStmt(const Stmt& stmt) {
    for (const Value& value : stmt.results) UseType(value.type, &stmt);
    for (const Value& value : stmt.vars) UseType(value.type, &stmt);
    for (const Value& value : stmt.iter_args) UseType(value.type, &stmt);
    for (const LoopDim& dim : stmt.dims) UseDim(dim.block, &stmt);
    for (const Index& index : stmt.indices) UseDim(index.size, &stmt);
    UseAttrs(stmt.attrs, &stmt);
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op == OpKind::kVar) Use(expr.name, &stmt);
        UseType(expr.type, &stmt);
        for (const Index& index : expr.indices) UseDim(index.size, &stmt);
        UseAttrs(expr.attrs, &stmt);
      });
    });
  }

  void UseAttrs(const AttrList& attrs, const Stmt* stmt) {
    for (const Attr& attr : attrs) {
      if (const auto* dims = std::get_if<Shape>(&attr.value)) {
        for (const Dim& dim : *dims) UseDim(dim, stmt);
      }
    }
  }
  void UseType(const Type& type, const Stmt* stmt) {
    for (const Dim& dim : type.shape) UseDim(dim, stmt);
  }
  void UseDim(const Dim& dim, const Stmt* stmt) {
    if (!dim.is_static() && !dim.symbol.empty()) Use(dim.symbol, stmt);
  }

  void Use(const std::string& name, const Stmt* stmt) {
    if (defined_.contains(name) || !reported_.insert(name).second) return;
    std::string what = fmt::format(
        "free variable '{}': it is neither a parameter of @{} nor defined in "
        "it",
        name, function_.name);
    if (const Function* owner =
            index_.OtherFunctionDefining(name, &function_)) {
      what += fmt::format(" (it is a value of function @{})", owner->name);
    }
    if (stmt != nullptr) {
      reporter_.StmtError(*stmt, what);
    } else {
      reporter_.FunctionError(function_, what);
    }
  }

  const Function& function_;
  const ModuleIndex& index_;
  Reporter& reporter_;
  absl::flat_hash_set<std::string_view> defined_;
  absl::flat_hash_set<std::string_view> reported_;
};

}  // namespace

void CheckOutlinedStructure(const Module& module, const ModuleIndex& index,
                            Reporter& reporter, bool check_callees) {
  for (const Function& function : module.functions) {
    std::vector<const Stmt*> launches;
    WalkStmts(function.body, [&](const Stmt& stmt) {
      if (stmt.kind == StmtKind::kLaunch) launches.push_back(&stmt);
    });
    switch (function.kind) {
      case FunctionKind::kKernel:
        reporter.FunctionError(
            function, fmt::format("kernel function @{} is left; outlined IR "
                                  "has only host and device functions",
                                  function.name));
        break;
      case FunctionKind::kHost:
        if (launches.size() != 1) {
          reporter.FunctionError(
              function,
              fmt::format("host function @{} must contain exactly one launch, "
                          "has {}",
                          function.name, launches.size()));
        }
        break;
      case FunctionKind::kDevice:
        if (check_callees) {
          for (const Stmt* launch : launches) {
            reporter.StmtError(
                *launch, fmt::format("launch in device function @{}; only "
                                     "host functions launch",
                                     function.name));
          }
        }
        break;
    }
    if (!check_callees || function.kind != FunctionKind::kHost) continue;
    for (const Stmt* launch : launches) {
      const std::string* callee_name =
          GetAttr<std::string>(launch->attrs, "callee");
      const Function* callee =
          callee_name == nullptr ? nullptr : index.FindFunction(*callee_name);
      if (callee == nullptr || callee->kind != FunctionKind::kDevice) {
        reporter.StmtError(
            *launch,
            fmt::format("launch callee @{} is not a device function of the "
                        "module",
                        callee_name == nullptr ? "" : *callee_name));
      }
    }
  }
}

void CheckNoFreeVariables(const Module& module, const ModuleIndex& index,
                          Reporter& reporter) {
  for (const Function& function : module.functions) {
    FreeVariableScan(function, index, reporter).Run();
  }
}

}  // namespace tessera::verifier
