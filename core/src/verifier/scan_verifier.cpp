// The structure of a `scan` that its type rule cannot see: the combine
// results are trees of elementwise ops over `scan_arg` leaves and constants
// (no loads, values or tiles: the backend applies them to whole blocks, and
// a value of the enclosing function would be captured), and each scan_arg
// names a member of the left or right operand with that member's dtype.
#include <string>

#include "fmt/format.h"
#include "tessera/ir/type_inference.h"
#include "verifier/function_verifier.h"

namespace tessera::verifier {
namespace {

bool IsCombineOp(OpKind op) {
  switch (OpInfoOf(op).category) {
    case OpCategory::kUnary:
    case OpCategory::kBinary:
    case OpCategory::kCompare:
    case OpCategory::kSelect:
      return op != OpKind::kCdiv;
    default:
      return op == OpKind::kConst || op == OpKind::kCast ||
             op == OpKind::kScanArg;
  }
}

}  // namespace

bool FunctionVerifier::VerifyScanOperands(const Expr& scan) {
  const size_t k = scan.operands.size() / 2;
  bool ok = true;
  for (size_t i = 0; i < scan.operands.size(); ++i) {
    const Expr* operand = scan.operands[i].get();
    if (i < k || operand == nullptr) {
      ok &= VerifyExpr(operand);
    } else {
      ok &= VerifyCombine(*operand, scan);
    }
  }
  return ok;
}

bool FunctionVerifier::VerifyCombine(const Expr& expr, const Expr& scan) {
  if (!IsCombineOp(expr.op)) {
    Error(fmt::format(
        "'{}' is not allowed in the combine function of a 'scan' (only "
        "elementwise ops, casts, constants and scan_arg)",
        expr.op < OpKind::kNumOps ? OpInfoOf(expr.op).name : "<invalid op>"));
    return false;
  }
  if (expr.op == OpKind::kConst) return VerifyConst(expr);
  bool ok = true;
  for (const ExprPtr& operand : expr.operands) {
    if (operand == nullptr) {
      Error("missing expression");
      return false;
    }
    ok &= VerifyCombine(*operand, scan);
  }
  if (!ok) return false;
  absl::StatusOr<Type> inferred = InferType(expr);
  if (!inferred.ok()) {
    Error(fmt::format("invalid '{}' in a scan's combine function: {}",
                      OpInfoOf(expr.op).name,
                      std::string(inferred.status().message())));
    return false;
  }
  if (*inferred != expr.type) {
    Error(
        fmt::format("'{}' in a scan's combine function has type {} but its "
                    "operands and attributes give {}",
                    OpInfoOf(expr.op).name, TypeToString(expr.type),
                    TypeToString(*inferred)));
    return false;
  }
  if (expr.op != OpKind::kScanArg) return true;
  const size_t k = scan.operands.size() / 2;
  const int64_t index = *GetAttr<int64_t>(expr.attrs, "index");
  if (index >= static_cast<int64_t>(2 * k)) {
    Error(
        fmt::format("'scan_arg' index {} is out of range for a scan of {} "
                    "input{} (0 .. {})",
                    index, k, k == 1 ? "" : "s", 2 * k - 1));
    return false;
  }
  const Expr* member = scan.operands[index % k].get();
  if (member != nullptr && member->type.dtype != expr.type.dtype) {
    Error(
        fmt::format("'scan_arg' index {} has dtype {} but scan input {} is "
                    "{}",
                    index, DTypeName(expr.type.dtype), index % k + 1,
                    TypeToString(member->type)));
    return false;
  }
  return true;
}

}  // namespace tessera::verifier
