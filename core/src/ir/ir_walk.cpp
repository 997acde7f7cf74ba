// Walkers over statements and expression trees, and what rewrites of an
// outlined kernel start from (its launch, fresh names).
#include "tessera/ir/ir.h"

namespace tessera {

// ---------------------------------------------------------------------------
// Walkers
// ---------------------------------------------------------------------------
void ForEachRootExpr(Stmt& stmt, const std::function<void(ExprPtr&)>& fn) {
  auto visit = [&](ExprPtr& expr) {
    if (expr) fn(expr);
  };
  visit(stmt.value);
  visit(stmt.target);
  for (Index& index : stmt.indices) visit(index.expr);
  for (LoopDim& dim : stmt.dims) {
    visit(dim.begin);
    visit(dim.end);
  }
  for (ExprPtr& init : stmt.inits) visit(init);
  for (ExprPtr& operand : stmt.operands) visit(operand);
}

void ForEachRootExpr(const Stmt& stmt,
                     const std::function<void(const Expr&)>& fn) {
  auto visit = [&](const ExprPtr& expr) {
    if (expr) fn(*expr);
  };
  visit(stmt.value);
  visit(stmt.target);
  for (const Index& index : stmt.indices) visit(index.expr);
  for (const LoopDim& dim : stmt.dims) {
    visit(dim.begin);
    visit(dim.end);
  }
  for (const ExprPtr& init : stmt.inits) visit(init);
  for (const ExprPtr& operand : stmt.operands) visit(operand);
}

void WalkExpr(const Expr& expr, const std::function<void(const Expr&)>& fn) {
  fn(expr);
  for (const ExprPtr& operand : expr.operands) {
    if (operand) WalkExpr(*operand, fn);
  }
  for (const Index& index : expr.indices) {
    if (index.expr) WalkExpr(*index.expr, fn);
  }
}

void WalkExprMutable(Expr& expr, const std::function<void(Expr&)>& fn) {
  fn(expr);
  for (ExprPtr& operand : expr.operands) {
    if (operand) WalkExprMutable(*operand, fn);
  }
  for (Index& index : expr.indices) {
    if (index.expr) WalkExprMutable(*index.expr, fn);
  }
}

void WalkStmts(Block& block, const std::function<void(Stmt&)>& fn) {
  for (Stmt& stmt : block.stmts) {
    fn(stmt);
    for (Block& region : stmt.regions) WalkStmts(region, fn);
  }
}

void WalkStmts(const Block& block, const std::function<void(const Stmt&)>& fn) {
  for (const Stmt& stmt : block.stmts) {
    fn(stmt);
    for (const Block& region : stmt.regions) WalkStmts(region, fn);
  }
}

void ForEachDefinedName(const Function& function,
                        const std::function<void(const std::string&)>& fn) {
  for (const Value& param : function.params) fn(param.name);
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const Value& result : stmt.results) fn(result.name);
    for (const Value& var : stmt.vars) fn(var.name);
    for (const Value& arg : stmt.iter_args) fn(arg.name);
  });
}

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

const Function* LaunchCallee(const Module& module, const Stmt& launch,
                             const Function* host) {
  const std::string* callee = GetAttr<std::string>(launch.attrs, "callee");
  if (callee == nullptr) return nullptr;
  const Function* begin = module.functions.data();
  const Function* end = begin + module.functions.size();
  if (host != nullptr && host >= begin && host + 1 < end &&
      host[1].name == *callee) {
    return host + 1;
  }
  return module.FindFunction(*callee);
}

std::optional<LaunchedDevice> FindLaunchedDevice(const Module& module,
                                                 const Function& host) {
  const Stmt* launch = FindTopLevelLaunch(host);
  const Function* device =
      launch ? LaunchCallee(module, *launch, &host) : nullptr;
  if (device == nullptr) return std::nullopt;
  return LaunchedDevice{launch, device};
}

FreshNames::FreshNames(const Function& function) {
  auto take_symbols = [&](const Type& type) {
    for (const Dim& dim : type.shape) {
      if (!dim.is_static()) taken_.insert(dim.symbol);
    }
  };
  for (const Value& param : function.params) take_symbols(param.type);
  for (const Type& result : function.result_types) take_symbols(result);
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const auto* values : {&stmt.results, &stmt.vars, &stmt.iter_args}) {
      for (const Value& value : *values) take_symbols(value.type);
    }
  });
  ForEachDefinedName(function,
                     [&](const std::string& name) { taken_.insert(name); });
}

std::string FreshNames::Take(const std::string& base) {
  std::string name = base;
  for (int suffix = 1; taken_.count(name); ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  taken_.insert(name);
  return name;
}

std::string FreshName(const Function& function, const std::string& base) {
  return FreshNames(function).Take(base);
}

}  // namespace tessera
