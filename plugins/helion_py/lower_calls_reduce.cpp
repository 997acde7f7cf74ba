// Reductions, softmax and matrix products (torch.sum, torch.matmul,
// hl.dot, ...).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {

std::optional<Val> KernelLowering::CallReductionOrMatmul(const CallSite& site,
                                                         CallArgs& args) {
  const std::string& path = site.path;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& name = site.name;
  auto first = [&]() -> const Val* { return c.Required(0, "input", name); };
  static const std::map<std::string, OpKind, std::less<>> kReductions = {
      {"torch.sum", OpKind::kSum},
      {"torch.amax", OpKind::kAmax},
      {"torch.amin", OpKind::kAmin},
      {"torch.mean", OpKind::kMean}};
  if (auto it = kReductions.find(path); it != kReductions.end()) {
    const Val* x = first();
    if (!x) return Val::Poison();
    return c.Reduce(it->second, *x, c.Arg(1, "dim"), c.Arg(2, "keepdim"), loc);
  }
  if (path == "torch.nn.functional.softmax" || path == "torch.softmax") {
    const Val* x = first();
    if (!x) return Val::Poison();
    const Val* dim = c.Arg(1, "dim");
    if (!dim) return Fail(loc, "softmax needs dim=");
    Val keep = Val::Bool(true);
    Val m = c.Reduce(OpKind::kAmax, *x, dim, &keep, loc);
    Val shifted = Binary(BinaryOp::kSub, x->Clone(), std::move(m), loc);
    Val e = c.Unary(OpKind::kExp, Exp, shifted, loc);
    Val s = c.Reduce(OpKind::kSum, e, dim, &keep, loc);
    return Binary(BinaryOp::kDiv, std::move(e), std::move(s), loc);
  }
  if (path == "torch.log_softmax" ||
      path == "torch.nn.functional.log_softmax") {
    // x - max - log(sum(exp(x - max))), stable like softmax.
    const Val* x = first();
    if (!x) return Val::Poison();
    const Val* dim = c.Arg(1, "dim");
    if (!dim) return Fail(loc, "log_softmax needs dim=");
    Val keep = Val::Bool(true);
    Val m = c.Reduce(OpKind::kAmax, *x, dim, &keep, loc);
    Val shifted = Binary(BinaryOp::kSub, x->Clone(), std::move(m), loc);
    Val e = c.Unary(OpKind::kExp, Exp, shifted, loc);
    Val s = c.Reduce(OpKind::kSum, e, dim, &keep, loc);
    Val log_s = c.Unary(OpKind::kLog, UnaryFunctions().at("log").fold, s, loc);
    return Binary(BinaryOp::kSub, std::move(shifted), std::move(log_s), loc);
  }
  if (path == "torch.matmul" || path == "torch.mm") {
    const Val* a = c.Required(0, "input", name);
    const Val* b = c.Required(1, "other", name);
    if (!a || !b) return Val::Poison();
    return c.Dot(*a, *b, nullptr, std::nullopt, loc);
  }
  if (path == "torch.bmm" || path == "helion.language.dot") {
    bool is_dot = path == "helion.language.dot";
    const Val* a = c.Required(0, is_dot ? "mat1" : "input", name);
    const Val* b = c.Required(1, is_dot ? "mat2" : "mat2", name);
    if (!a || !b) return Val::Poison();
    const Val* acc = is_dot ? c.Arg(2, "acc") : nullptr;
    const Val* out = c.Arg(is_dot ? 3 : 2, "out_dtype");
    std::optional<DType> out_dtype;
    if (out && out->kind != ValKind::kNone) {
      out_dtype = ToDType(*out, c.LocOf(is_dot ? 3 : 2, "out_dtype"));
      if (!out_dtype) return Val::Poison();
    }
    // hl.dot without an accumulator is f32 (int32 for int8 operands) in
    // Helion, whatever the operands (bf16, f16, float8): unlike torch.mm,
    // the product is not rounded to the operands' dtype.
    if (is_dot && !out_dtype && (!acc || acc->kind == ValKind::kNone) &&
        a->IsValue() && b->IsValue()) {
      const bool int8 =
          a->type().dtype == DType::kI8 || b->type().dtype == DType::kI8;
      out_dtype = int8 ? DType::kI32 : DType::kF32;
    }
    return c.Dot(*a, *b, acc, out_dtype, loc);
  }
  if (path == "torch.addmm" || path == "torch.baddbmm") {
    const Val* acc = c.Required(0, "input", name);
    const Val* a = c.Required(1, "mat1", name);
    const Val* b = c.Required(2, "mat2", name);
    if (!acc || !a || !b) return Val::Poison();
    const Val* beta = c.Arg(99, "beta");
    const Val* alpha = c.Arg(99, "alpha");
    bool plain = (!beta || (beta->IsNumber() && beta->AsDouble() == 1)) &&
                 (!alpha || (alpha->IsNumber() && alpha->AsDouble() == 1));
    if (plain) return c.Dot(*a, *b, acc, std::nullopt, loc);
    // beta * input + alpha * (mat1 @ mat2), accumulated in input's dtype.
    std::optional<DType> dtype;
    if (acc->IsValue()) dtype = acc->type().dtype;
    Val product = c.Dot(*a, *b, nullptr, dtype, loc);
    Val scaled = Binary(BinaryOp::kMul, alpha ? alpha->Clone() : Val::Int(1),
                        std::move(product), loc);
    Val bias = Binary(BinaryOp::kMul, beta ? beta->Clone() : Val::Int(1),
                      acc->Clone(), loc);
    return Binary(BinaryOp::kAdd, std::move(bias), std::move(scaled), loc);
  }
  return std::nullopt;
}

}  // namespace tessera::helion_py
