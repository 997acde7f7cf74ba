// Loops, ifs, yields and returns: iter_args / inits / results / yields in
// step, loop variables against their dims, and the scoping of regions.
#include <string>
#include <vector>

#include "fmt/format.h"
#include "verifier/function_verifier.h"
#include "verifier/stmt_summary.h"

namespace tessera::verifier {

void FunctionVerifier::VerifyLoop(const Stmt& stmt) {
  const bool is_tile = stmt.kind == StmtKind::kTileLoop;
  if (stmt.regions.size() != 1) {
    Error(fmt::format("loop must have exactly one body region, has {}",
                      stmt.regions.size()));
  }
  if (is_tile) {
    if (stmt.vars.empty() || stmt.vars.size() != stmt.dims.size()) {
      Error(fmt::format("tile loop has {} variable(s) but {} dim(s)",
                        stmt.vars.size(), stmt.dims.size()));
    }
  } else if (stmt.vars.size() != 1 || stmt.dims.size() != 1) {
    Error(
        fmt::format("range loop needs exactly one variable and one range, "
                    "has {} and {}",
                    stmt.vars.size(), stmt.dims.size()));
  }
  for (const LoopDim& dim : stmt.dims) {
    VerifyLoopDim(dim, is_tile ? "block size" : "step");
  }

  // Initial values are evaluated before the loop, in the enclosing scope.
  if (stmt.iter_args.size() != stmt.inits.size()) {
    Error(fmt::format("loop has {} iter_arg(s) but {} initial value(s)",
                      stmt.iter_args.size(), stmt.inits.size()));
  }
  for (size_t i = 0; i < stmt.inits.size(); ++i) {
    bool ok = VerifyExpr(stmt.inits[i].get());
    if (ok && i < stmt.iter_args.size() &&
        stmt.inits[i]->type != stmt.iter_args[i].type) {
      Error(
          fmt::format("initial value of iter_arg '{}' has type {}, "
                      "expected {}",
                      stmt.iter_args[i].name, TypeToString(stmt.inits[i]->type),
                      TypeToString(stmt.iter_args[i].type)));
    }
  }
  if (stmt.results.size() != stmt.iter_args.size()) {
    Error(fmt::format("loop has {} result(s) but {} iter_arg(s)",
                      stmt.results.size(), stmt.iter_args.size()));
  } else {
    for (size_t i = 0; i < stmt.results.size(); ++i) {
      if (stmt.results[i].type != stmt.iter_args[i].type) {
        Error(fmt::format(
            "loop result '{}' has type {} but iter_arg '{}' "
            "has type {}",
            stmt.results[i].name, TypeToString(stmt.results[i].type),
            stmt.iter_args[i].name, TypeToString(stmt.iter_args[i].type)));
      }
    }
  }

  const size_t mark = scope_.Mark();
  for (size_t i = 0; i < stmt.vars.size(); ++i) {
    const Value& var = stmt.vars[i];
    if (is_tile) {
      if (!var.type.is_tile() || var.type.shape.size() != 1) {
        Error(
            fmt::format("tile loop variable '{}' must be a tile, has type "
                        "{}",
                        var.name, TypeToString(var.type)));
      } else if (i < stmt.dims.size() &&
                 var.type.shape[0] != stmt.dims[i].block) {
        Error(fmt::format(
            "tile loop variable '{}' has type {} but its dim "
            "has block size {}",
            var.name, TypeToString(var.type), DimToString(stmt.dims[i].block)));
      }
    } else if (!IsIntegerScalar(var.type)) {
      Error(
          fmt::format("range loop variable '{}' must be an integer scalar, "
                      "has type {}",
                      var.name, TypeToString(var.type)));
    }
    Define(var, DefKind::kLoopVar);
  }
  for (const Value& arg : stmt.iter_args) {
    CheckTypeSymbols(arg.type, arg.name);
    Define(arg, DefKind::kIterArg);
  }
  if (!stmt.regions.empty()) {
    VerifyBlock(stmt.regions[0], Region{Region::kLoopBody, &stmt});
    current_ = &stmt;
  }
  Escapes escapes;
  scope_.PopTo(mark, ssa_ ? nullptr : &escapes);
  DefineEscapes(escapes);
  for (const Value& result : stmt.results) {
    CheckTypeSymbols(result.type, result.name);
    Define(result, DefKind::kResult);
  }
}

void FunctionVerifier::VerifyIf(const Stmt& stmt) {
  if (stmt.value == nullptr) {
    Error("if has no condition");
  } else if (VerifyExpr(stmt.value.get())) {
    const Type& cond = stmt.value->type;
    // A rank-0 tensor (a block's full reduction) is one value too.
    const bool one_value =
        cond.is_scalar() || (cond.is_tensor() && cond.shape.empty());
    if (!one_value || (cond.dtype != DType::kBool && !IsInteger(cond.dtype))) {
      Error(
          fmt::format("if condition must be a bool or integer scalar (or "
                      "rank-0 tensor), has type {}",
                      TypeToString(cond)));
    }
  }
  if (stmt.regions.size() != 2) {
    Error(
        fmt::format("if must have a then and an else region, has {} "
                    "region(s)",
                    stmt.regions.size()));
  }
  // Python scoping before SSA: what either branch assigns is visible after
  // the if, but the else branch does not see the then branch's names.
  Escapes escapes;
  for (size_t i = 0; i < stmt.regions.size() && i < 2; ++i) {
    const size_t mark = scope_.Mark();
    VerifyBlock(
        stmt.regions[i],
        Region{i == 0 ? Region::kThenBranch : Region::kElseBranch, &stmt});
    current_ = &stmt;
    scope_.PopTo(mark, ssa_ ? nullptr : &escapes);
  }
  DefineEscapes(escapes);
  for (const Value& result : stmt.results) {
    CheckTypeSymbols(result.type, result.name);
    Define(result, DefKind::kResult);
  }
}

void FunctionVerifier::VerifyYield(const Stmt& stmt, const Region& region) {
  std::vector<bool> ok;
  ok.reserve(stmt.operands.size());
  for (const ExprPtr& operand : stmt.operands) {
    ok.push_back(VerifyExpr(operand.get()));
  }
  if (region.kind == Region::kFunctionBody) {
    Error("yield outside a loop or if");
    return;
  }
  const bool in_loop = region.kind == Region::kLoopBody;
  const ValueList& expected =
      in_loop ? region.owner->iter_args : region.owner->results;
  const std::string_view owner_part = in_loop ? "iter_arg" : "result";
  if (stmt.operands.size() != expected.size()) {
    Error(
        fmt::format("yield has {} value(s) but the enclosing {} has {} "
                    "{}(s)",
                    stmt.operands.size(), in_loop ? "loop" : "if",
                    expected.size(), owner_part));
    return;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (ok[i] && stmt.operands[i]->type != expected[i].type) {
      Error(
          fmt::format("yield value {} ('{}') has type {} but {} '{}' has "
                      "type {}",
                      i, SummarizeExpr(*stmt.operands[i]),
                      TypeToString(stmt.operands[i]->type), owner_part,
                      expected[i].name, TypeToString(expected[i].type)));
    }
  }
}

void FunctionVerifier::VerifyReturn(const Stmt& stmt) {
  std::vector<bool> ok;
  ok.reserve(stmt.operands.size());
  for (const ExprPtr& operand : stmt.operands) {
    ok.push_back(VerifyExpr(operand.get()));
  }
  const std::vector<Type>& expected = function_.result_types;
  if (stmt.operands.size() != expected.size()) {
    Error(fmt::format("return has {} value(s) but @{} declares {} result(s)",
                      stmt.operands.size(), function_.name, expected.size()));
    return;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (ok[i] && stmt.operands[i]->type != expected[i]) {
      Error(
          fmt::format("return value {} ('{}') has type {} but @{} declares "
                      "{}",
                      i, SummarizeExpr(*stmt.operands[i]),
                      TypeToString(stmt.operands[i]->type), function_.name,
                      TypeToString(expected[i])));
    }
  }
}

}  // namespace tessera::verifier
