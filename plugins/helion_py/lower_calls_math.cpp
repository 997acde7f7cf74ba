// Elementwise math calls (torch.*, F.*, math.*) and math on constants.
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

std::optional<Val> KernelLowering::CallElementwise(const CallSite& site,
                                                   CallArgs& args) {
  const std::string& path = site.path;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& module = site.module;
  const std::string& name = site.name;
  auto first = [&]() -> const Val* { return c.Required(0, "input", name); };
  // Elementwise math (torch.*, F.*, math.*).
  if (module == "torch" || module == "torch.nn.functional" ||
      module == "math") {
    auto it = UnaryFunctions().find(name);
    bool allowed = module != "math" || name == "sqrt" || name == "exp" ||
                   name == "log2" || name == "erf" || name == "tanh" ||
                   name == "fabs" ||
                   (name == "log" && args.positional.size() == 1);
    if (it != UnaryFunctions().end() && allowed &&
        (module != "torch.nn.functional" || name == "relu" || name == "gelu" ||
         name == "silu" || name == "sigmoid" || name == "tanh")) {
      const Val* x = first();
      if (!x) return Val::Poison();
      AttrList attrs;
      if (it->second.op == OpKind::kGelu) {
        const Val* approximate = c.Arg(1, "approximate");
        std::string mode = approximate ? approximate->text : "none";
        if (approximate && (approximate->kind != ValKind::kString ||
                            (mode != "none" && mode != "tanh"))) {
          return Fail(c.LocOf(1, "approximate"),
                      "approximate must be 'none' or 'tanh'");
        }
        attrs.push_back(Attr{"approximate", mode});
      }
      return c.Unary(it->second.op, it->second.fold, *x, c.LocOf(0, "input"),
                     std::move(attrs));
    }
  }
  if (path == "torch.maximum" || path == "torch.minimum") {
    const Val* a = c.Required(0, "input", name);
    const Val* b = c.Required(1, "other", name);
    if (!a || !b) return Val::Poison();
    return c.BinaryFn(name == "maximum" ? OpKind::kMaximum : OpKind::kMinimum,
                      *a, *b, loc);
  }
  if (path == "torch.clamp") {
    // clamp(x, min, max): maximum with min, then minimum with max.
    const Val* x = first();
    if (!x) return Val::Poison();
    Val result = x->Clone();
    const Val* low = c.Arg(1, "min");
    const Val* high = c.Arg(2, "max");
    if ((!low || low->kind == ValKind::kNone) &&
        (!high || high->kind == ValKind::kNone)) {
      return Fail(loc, "torch.clamp needs min= or max=");
    }
    if (low && low->kind != ValKind::kNone)
      result = c.BinaryFn(OpKind::kMaximum, result, *low, loc);
    if (high && high->kind != ValKind::kNone)
      result = c.BinaryFn(OpKind::kMinimum, result, *high, loc);
    return result;
  }
  if (path == "torch.broadcast_tensors") {
    // Arguments of known shapes (the runtime compiles for the call's) are
    // broadcast as PyTorch does: each one whose shape differs becomes a
    // broadcast view (Helion's add.py: x [m, n] with y [n]).
    if (std::optional<Val> broadcast = BroadcastTensors(args, loc)) {
      return std::move(*broadcast);
    }
    // Shape-generic: the arguments' dims are unified (the host function
    // checks them); a dim of size 1 that broadcasts needs --arg.
    for (size_t i = 1; i < args.positional.size(); ++i) {
      const Val& a = args.positional[0];
      const Val& b = args.positional[i];
      if (!a.IsValue() || !b.IsValue()) {
        return Fail(args.positional_locs[i],
                    "torch.broadcast_tensors needs tensors");
      }
      const Shape& sa = a.type().shape;
      const Shape& sb = b.type().shape;
      if (sa.size() != sb.size()) {
        Diagnostic* d = Report(
            loc, fmt::format("torch.broadcast_tensors of ranks {} and {}",
                             sa.size(), sb.size()));
        Note(d, "without --arg the arguments must have the same rank");
        return Val::Poison();
      }
      for (size_t d = 0; d < sa.size(); ++d) {
        if (sa[d] == sb[d]) continue;
        if (sa[d].is_static() && sb[d].is_static()) {
          return Fail(loc, fmt::format("torch.broadcast_tensors: dim {} is {} "
                                       "and {}; broadcasting a size-1 dim "
                                       "of a kernel argument is not supported",
                                       d, sa[d].size, sb[d].size));
        }
        UnifyDims(sa[d], sb[d], loc, "torch.broadcast_tensors");
      }
    }
    std::vector<Val> results;
    for (const Val& arg : args.positional) results.push_back(arg.Clone());
    return Val::Tuple(std::move(results));
  }
  if (path == "torch.where") {
    const Val* cond = c.Required(0, "condition", name);
    const Val* a = c.Required(1, "input", name);
    const Val* b = c.Required(2, "other", name);
    if (!cond || !a || !b) return Val::Poison();
    if (cond->IsNumber()) return (cond->AsDouble() != 0 ? a : b)->Clone();
    const Type* ta = a->IsValue() ? &a->type() : nullptr;
    const Type* tb = b->IsValue() ? &b->type() : nullptr;
    ExprPtr x = c.Operand(*cond, nullptr, c.LocOf(0, "condition"));
    ExprPtr y = x ? c.Operand(*a, tb, c.LocOf(1, "input")) : nullptr;
    ExprPtr z = y ? c.Operand(*b, ta, c.LocOf(2, "other")) : nullptr;
    if (!z) return Val::Poison();
    ExprList operands;
    operands.push_back(std::move(x));
    operands.push_back(std::move(y));
    operands.push_back(std::move(z));
    return MakeTyped(OpKind::kWhere, std::move(operands), {}, loc);
  }
  return std::nullopt;
}

std::optional<Val> KernelLowering::BroadcastTensors(const CallArgs& args,
                                                    SourceLoc loc) {
  Shape shape;
  bool differ = false;
  for (const Val& arg : args.positional) {
    if (!arg.IsValue()) return std::nullopt;
    for (const Dim& d : arg.type().shape) {
      if (!d.is_static()) return std::nullopt;
    }
    if (&arg == &args.positional[0]) {
      shape = arg.type().shape;
      continue;
    }
    differ = differ || arg.type().shape != shape;
    absl::StatusOr<Shape> joined = BroadcastShapes(shape, arg.type().shape);
    if (!joined.ok()) {
      return Fail(loc, fmt::format("torch.broadcast_tensors: {}",
                                   std::string(joined.status().message())));
    }
    shape = *joined;
  }
  if (!differ) return std::nullopt;
  std::vector<Val> results;
  for (const Val& arg : args.positional) {
    if (arg.type().shape == shape) {
      results.push_back(arg.Clone());
      continue;
    }
    ExprList operands;
    operands.push_back(CloneExpr(*arg.expr));
    results.push_back(MakeTyped(OpKind::kBroadcastTo, std::move(operands),
                                {Attr{"shape", shape}}, loc));
  }
  return Val::Tuple(std::move(results));
}

std::optional<Val> KernelLowering::CallMathConstant(const CallSite& site,
                                                    CallArgs& args) {
  const std::string& path = site.path;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& name = site.name;
  // math on constants.
  if (path == "math.pow") {
    const Val* a = c.Required(0, "x", name);
    const Val* b = c.Required(1, "y", name);
    if (!a || !b) return Val::Poison();
    if (a->IsNumber() && b->IsNumber())
      return Val::Float(std::pow(a->AsDouble(), b->AsDouble()));
    return Binary(BinaryOp::kPow, a->Clone(), b->Clone(), loc);
  }
  if (path == "math.log" && args.positional.size() == 2) {
    const Val& a = args.positional[0];
    const Val& b = args.positional[1];
    if (a.IsNumber() && b.IsNumber())
      return Val::Float(std::log(a.AsDouble()) / std::log(b.AsDouble()));
    return Fail(loc, "math.log(x, base) needs constants");
  }
  if (path == "math.ceil" || path == "math.floor") {
    const Val* x = c.Required(0, "x", name);
    if (!x) return Val::Poison();
    if (!x->IsNumber())
      return Fail(loc, fmt::format("math.{} needs a constant", name));
    double v =
        name == "ceil" ? std::ceil(x->AsDouble()) : std::floor(x->AsDouble());
    return Val::Int(static_cast<int64_t>(v));
  }
  return std::nullopt;
}

}  // namespace tessera::helion_py
