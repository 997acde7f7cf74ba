// Scans: hl.associative_scan(combine_fn, x_or_tuple, dim, reverse=False),
// hl.cumsum / hl.cumprod (and torch.cumsum / torch.cumprod in a kernel).
//
// Each becomes one IR `scan` per member of the scanned tuple (docs/ir.md,
// "Scans"): the inputs, and the combine function's results as elementwise
// expressions over `scan_arg` leaves. The combine function is inlined here:
// a lambda, a function of the kernel's file (its assignments and return
// evaluated as expressions), or a torch function such as torch.maximum.
// As in Helion (one tl.associative_scan per block), a scan runs within the
// block of its tile: a running value across tiles is the kernel's business
// (segment_reduction.py flushes each block's last row with an atomic).
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"

namespace tessera::helion_py {
namespace {

// The combine op of hl.cumsum / hl.cumprod (and torch's), else nullopt.
std::optional<OpKind> FixedCombine(const std::string& path) {
  if (path == "helion.language.cumsum" || path == "torch.cumsum") {
    return OpKind::kAdd;
  }
  if (path == "helion.language.cumprod" || path == "torch.cumprod") {
    return OpKind::kMul;
  }
  return std::nullopt;
}

// The first op of a combine result that is not elementwise on the
// combine's parameters (a load, a value of the kernel, a tile), or null.
const Expr* NotElementwise(const Expr& expr) {
  const Expr* found = nullptr;
  WalkExpr(expr, [&](const Expr& e) {
    if (found != nullptr) return;
    switch (OpInfoOf(e.op).category) {
      case OpCategory::kUnary:
      case OpCategory::kBinary:
      case OpCategory::kCompare:
      case OpCategory::kSelect:
        return;
      default:
        if (e.op == OpKind::kConst || e.op == OpKind::kCast ||
            e.op == OpKind::kScanArg) {
          return;
        }
        found = &e;
    }
  });
  return found;
}

}  // namespace

std::optional<Val> KernelLowering::CallScan(const CallSite& site,
                                            CallArgs& args) {
  const std::string& path = site.path;
  const std::optional<OpKind> fixed = FixedCombine(path);
  if (!fixed && path != "helion.language.associative_scan") return std::nullopt;
  Calls c(*this, args);
  const SourceLoc loc = args.loc;
  const std::string shown =
      (path.starts_with("torch.") ? "torch." : "hl.") + site.name;
  const bool is_torch = path.starts_with("torch.");
  const size_t first = fixed ? 0 : 1;
  const Val* fn = fixed ? nullptr : c.Required(0, "combine_fn", shown);
  const char* input_name = is_torch ? "input" : "input_tensor";
  const Val* input = c.Required(first, input_name, shown);
  const Val* dim = c.Required(first + 1, "dim", shown);
  if ((!fixed && fn == nullptr) || input == nullptr || dim == nullptr) {
    return Val::Poison();
  }
  if (is_torch) {
    if (const Val* dtype = c.Arg(99, "dtype");
        dtype != nullptr && dtype->kind != ValKind::kNone) {
      return Fail(c.LocOf(99, "dtype"),
                  fmt::format("{}(dtype=...) is not supported; cast the "
                              "input or the result instead",
                              shown));
    }
  }
  bool reverse = false;
  if (const Val* r = is_torch ? nullptr : c.Arg(first + 2, "reverse")) {
    if (!IsIntLike(*r)) {
      return Fail(c.LocOf(first + 2, "reverse"),
                  fmt::format("{}: reverse must be a compile-time bool, got {}",
                              shown, Describe(*r)));
    }
    reverse = IntOf(*r) != 0;
  }
  if (!in_device()) {
    return Fail(loc, fmt::format("{} is only valid inside an hl.tile loop "
                                 "(it scans a block)",
                                 shown));
  }
  if (fn != nullptr && fn->kind != ValKind::kCallable &&
      fn->kind != ValKind::kModule) {
    return Fail(c.LocOf(0, "combine_fn"),
                fmt::format("{}: combine_fn must be a function of the file, "
                            "a lambda or a torch function, got {}",
                            shown, Describe(*fn)));
  }

  // The members scanned together.
  const bool is_tuple = input->kind == ValKind::kTuple;
  if (fixed && is_tuple) {
    return Fail(c.LocOf(first, input_name),
                fmt::format("{} scans one tensor, got a tuple", shown));
  }
  std::vector<const Val*> members;
  if (is_tuple) {
    for (const Val& elem : input->elems) members.push_back(&elem);
  } else {
    members.push_back(input);
  }
  const SourceLoc input_loc = c.LocOf(first, input_name);
  if (members.empty() || members.size() > 4) {
    return Fail(input_loc, fmt::format("{} scans 1 to 4 tensors, got {}", shown,
                                       members.size()));
  }
  ExprList inputs;
  for (const Val* member : members) {
    ExprPtr expr = c.Operand(*member, nullptr, input_loc);
    if (!expr) return Val::Poison();
    if (!expr->type.is_tensor() || expr->type.shape.empty()) {
      return Fail(input_loc, fmt::format("{} scans tensors (blocks), got {}",
                                         shown, Describe(*member)));
    }
    if (expr->type.dtype == DType::kBool) {
      return Fail(input_loc, fmt::format("{} of a bool tensor is not "
                                         "supported; cast it to an integer "
                                         "dtype first",
                                         shown));
    }
    if (!inputs.empty() && expr->type.shape != inputs[0]->type.shape) {
      return Fail(input_loc,
                  fmt::format("{}: the scanned tensors must have one shape, "
                              "got {} and {}",
                              shown, TypeToString(inputs[0]->type),
                              TypeToString(expr->type)));
    }
    inputs.push_back(std::move(expr));
  }
  const int64_t rank = static_cast<int64_t>(inputs[0]->type.shape.size());
  if (!IsIntLike(*dim)) {
    return Fail(c.LocOf(first + 1, "dim"),
                fmt::format("{}: dim must be a compile-time int, got {}", shown,
                            Describe(*dim)));
  }
  int64_t axis = IntOf(*dim);
  if (axis < -rank || axis >= rank) {
    return Fail(c.LocOf(first + 1, "dim"),
                fmt::format("{}: dim {} is not a dim of the scanned block {}",
                            shown, axis, TypeToString(inputs[0]->type)));
  }
  if (axis < 0) axis += rank;

  // The combine function's parameters: the left members, then the right.
  const size_t k = inputs.size();
  std::vector<Val> params;
  for (size_t side = 0; side < 2; ++side) {
    for (size_t j = 0; j < k; ++j) {
      const DType dtype = inputs[j]->type.dtype;
      params.push_back(Val::Value(MakeOp(
          OpKind::kScanArg, Type::Scalar(dtype), {},
          {{"index", static_cast<int64_t>(side * k + j)}, {"dtype", dtype}},
          loc)));
    }
  }
  std::vector<Val> combined;
  if (fixed) {
    combined.push_back(MakeTyped(
        *fixed, Two(std::move(params[0].expr), std::move(params[1].expr)), {},
        loc));
  } else {
    combined = InlineCombine(*fn, std::move(params), k, loc);
  }
  if (combined.size() != k) return Val::Poison();
  ExprList combine;
  for (size_t j = 0; j < k; ++j) {
    const Type scalar = Type::Scalar(inputs[j]->type.dtype);
    ExprPtr result = ToExpr(combined[j], &scalar, loc);
    if (!result) return Val::Poison();
    if (!result->type.is_scalar()) {
      return Fail(loc, fmt::format("the combine function's result {} is {}, "
                                   "not an element: it must compute on its "
                                   "parameters only",
                                   j + 1, TypeToString(result->type)));
    }
    if (const Expr* bad = NotElementwise(*result)) {
      return Fail(bad->loc.line != 0 ? bad->loc : loc,
                  fmt::format("the combine function's result {} uses '{}': "
                              "only elementwise math on its parameters is "
                              "supported in a scan",
                              j + 1, OpInfoOf(bad->op).name));
    }
    // The scan keeps each member's dtype (Helion / Triton do too).
    if (result->type.dtype != scalar.dtype) {
      result = MakeOp(OpKind::kCast, scalar, One(std::move(result)),
                      {{"dtype", scalar.dtype}}, loc);
    }
    combine.push_back(std::move(result));
  }

  std::vector<Val> results;
  for (size_t j = 0; j < k; ++j) {
    ExprList operands;
    for (const ExprPtr& x : inputs) operands.push_back(CloneExpr(*x));
    for (const ExprPtr& e : combine) operands.push_back(CloneExpr(*e));
    results.push_back(MakeTyped(OpKind::kScan, std::move(operands),
                                {{"dim", axis},
                                 {"reverse", reverse},
                                 {"result", static_cast<int64_t>(j)}},
                                loc));
    if (results.back().kind == ValKind::kPoison) return Val::Poison();
  }
  if (!is_tuple) return std::move(results[0]);
  return Val::Tuple(std::move(results));
}

std::vector<Val> KernelLowering::InlineCombine(const Val& fn,
                                               std::vector<Val> params,
                                               size_t k, SourceLoc loc) {
  const size_t count = params.size();
  Val result;
  if (fn.kind == ValKind::kCallable && fn.function != nullptr) {
    const KernelDef& function = *fn.function;
    if (function.params.size() != count) {
      Diagnostic* d =
          Report(loc, fmt::format("the combine function '{}' takes {} "
                                  "parameter{}; a scan of {} tensor{} passes "
                                  "{} (the left members, then the right)",
                                  function.name, function.params.size(),
                                  function.params.size() == 1 ? "" : "s", k,
                                  k == 1 ? "" : "s", count));
      Note(d, fmt::format("'{}' is defined at line {}", function.name,
                          function.loc.line));
      return {};
    }
    result = InlineFunction(function, std::move(params), loc);
  } else {
    CallArgs args;
    args.loc = loc;
    for (Val& param : params) {
      args.positional.push_back(std::move(param));
      args.positional_locs.push_back(loc);
    }
    result = fn.kind == ValKind::kCallable ? CallLambda(*fn.callable, args)
                                           : CallFunction(fn.text, args);
  }
  if (result.kind == ValKind::kPoison) return {};
  std::vector<Val> members;
  if (result.kind == ValKind::kTuple) {
    for (Val& elem : result.elems) members.push_back(std::move(elem));
  } else {
    members.push_back(std::move(result));
  }
  if (members.size() != k) {
    Fail(loc, fmt::format("the combine function returns {} value{} for a "
                          "scan of {} tensor{}",
                          members.size(), members.size() == 1 ? "" : "s", k,
                          k == 1 ? "" : "s"));
    return {};
  }
  return members;
}

Val KernelLowering::InlineFunction(const KernelDef& function,
                                   std::vector<Val> params, SourceLoc loc) {
  // The body sees its parameters and the file's globals, not the kernel's
  // locals (Python scoping); the kernel's names come back afterwards.
  std::unordered_map<std::string, Val> saved = std::move(env_);
  env_.clear();
  for (const auto& [name, node] : constants_) env_[name] = Eval(*node);
  for (size_t i = 0; i < params.size(); ++i) {
    env_[function.params[i].name] = std::move(params[i]);
  }
  std::optional<Val> returned;
  bool failed = false;
  auto bind = [&](const Node& target, const Val& value, auto&& self) -> bool {
    if (target.kind == NodeKind::kName) {
      env_[target.text] = value.Clone();
      return true;
    }
    if ((target.kind == NodeKind::kTuple || target.kind == NodeKind::kList) &&
        value.kind == ValKind::kTuple &&
        value.elems.size() == target.children.size()) {
      for (size_t i = 0; i < target.children.size(); ++i) {
        if (!self(*target.children[i], value.elems[i], self)) return false;
      }
      return true;
    }
    Fail(target.loc,
         "a combine function can assign only names and tuples "
         "of names (of matching length)");
    return false;
  };
  for (const PyStmt& stmt : function.body) {
    if (returned || failed) break;
    switch (stmt.kind) {
      case PyStmtKind::kPass:
        break;
      case PyStmtKind::kExpr:
        // A docstring.
        if (stmt.value && stmt.value->kind == NodeKind::kString) break;
        Fail(stmt.loc,
             "a combine function may only assign names and return values");
        failed = true;
        break;
      case PyStmtKind::kAssign: {
        Val value = Eval(*stmt.value);
        if (value.kind == ValKind::kPoison) {
          failed = true;
          break;
        }
        for (const NodePtr& target : stmt.targets) {
          if (!bind(*target, value, bind)) failed = true;
        }
        break;
      }
      case PyStmtKind::kReturn:
        if (!stmt.value) {
          Fail(stmt.loc, "a combine function must return its result");
          failed = true;
          break;
        }
        returned = Eval(*stmt.value);
        break;
      default:
        Fail(stmt.loc, fmt::format("a combine function may only assign names "
                                   "and return values (no loops, ifs or "
                                   "other statements); '{}' is not inlined",
                                   function.name));
        failed = true;
        break;
    }
  }
  env_ = std::move(saved);
  if (failed) return Val::Poison();
  if (!returned) {
    return Fail(loc, fmt::format("the combine function '{}' returns nothing",
                                 function.name));
  }
  return std::move(*returned);
}

}  // namespace tessera::helion_py
