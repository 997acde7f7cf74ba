// Helpers shared by the call lowering: constant folds, the table of
// elementwise functions, and the argument handling of class Calls.
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

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Relu(double x) { return x > 0 ? x : 0.0; }
double Silu(double x) { return x * Sigmoid(x); }
double Gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double Rsqrt(double x) { return 1.0 / std::sqrt(x); }
double Neg(double x) { return -x; }
double Exp(double x) { return std::exp(x); }
double Exp2(double x) { return std::exp2(x); }
double Log(double x) { return std::log(x); }
double Log2(double x) { return std::log2(x); }
double Sqrt(double x) { return std::sqrt(x); }
double Tanh(double x) { return std::tanh(x); }
double Erf(double x) { return std::erf(x); }
double Abs(double x) { return std::fabs(x); }

const std::map<std::string, UnaryInfo, std::less<>>& UnaryFunctions() {
  static const auto* const table = new std::map<std::string, UnaryInfo,
                                                std::less<>>{
      {"exp", {OpKind::kExp, Exp}},    {"exp2", {OpKind::kExp2, Exp2}},
      {"log", {OpKind::kLog, Log}},    {"log2", {OpKind::kLog2, Log2}},
      {"sqrt", {OpKind::kSqrt, Sqrt}}, {"rsqrt", {OpKind::kRsqrt, Rsqrt}},
      {"tanh", {OpKind::kTanh, Tanh}}, {"sigmoid", {OpKind::kSigmoid, Sigmoid}},
      {"erf", {OpKind::kErf, Erf}},    {"abs", {OpKind::kAbs, Abs}},
      {"relu", {OpKind::kRelu, Relu}}, {"neg", {OpKind::kNeg, Neg}},
      {"silu", {OpKind::kSilu, Silu}}, {"gelu", {OpKind::kGelu, Gelu}},
      {"fabs", {OpKind::kAbs, Abs}},
  };
  return *table;
}

ExprList One(ExprPtr a) {
  ExprList v;
  v.push_back(std::move(a));
  return v;
}
ExprList Two(ExprPtr a, ExprPtr b) {
  ExprList v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return v;
}

std::string LastComponent(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}
std::string ModuleOf(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

ExprPtr Calls::Operand(const Val& value, const Type* peer, SourceLoc loc) {
  Val computable = value.Clone();
  if (!L.Computable(computable, loc)) return nullptr;
  return L.ToExpr(computable, peer, loc);
}

const Val* Calls::Arg(size_t index, std::string_view name) {
  return args_.Get(index, name);
}

SourceLoc Calls::LocOf(size_t index, std::string_view name) {
  return args_.LocOf(index, name);
}

const Val* Calls::Required(size_t index, std::string_view name,
                           std::string_view fn) {
  const Val* value = Arg(index, name);
  if (value == nullptr) {
    L.Fail(args_.loc, fmt::format("{}() is missing argument '{}'", fn, name));
  }
  return value;
}

Val Calls::Unary(OpKind op, double (*fold)(double), const Val& x, SourceLoc loc,
                 AttrList attrs) {
  if (x.IsNumber()) {
    if (op == OpKind::kAbs && x.kind == ValKind::kInt)
      return Val::Int(x.i < 0 ? -x.i : x.i);
    if (op == OpKind::kNeg && x.kind == ValKind::kInt) return Val::Int(-x.i);
    return Val::Float(fold(x.AsDouble()));
  }
  ExprPtr operand = Operand(x, nullptr, loc);
  if (!operand) return Val::Poison();
  return L.MakeTyped(op, One(std::move(operand)), std::move(attrs), loc);
}

Val Calls::BinaryFn(OpKind op, const Val& a, const Val& b, SourceLoc loc) {
  if (a.IsNumber() && b.IsNumber()) {
    bool ints = a.kind == ValKind::kInt && b.kind == ValKind::kInt;
    if (op == OpKind::kMaximum) {
      return ints ? Val::Int(std::max(a.i, b.i))
                  : Val::Float(std::max(a.AsDouble(), b.AsDouble()));
    }
    if (op == OpKind::kMinimum) {
      return ints ? Val::Int(std::min(a.i, b.i))
                  : Val::Float(std::min(a.AsDouble(), b.AsDouble()));
    }
  }
  return L.MakeBinaryOp(op, a.Clone(), b.Clone(), loc);
}

Val Calls::Reduce(OpKind op, const Val& input, const Val* dim,
                  const Val* keepdim, SourceLoc loc) {
  if (input.IsRef() && !L.in_device()) {
    Val whole = L.LoadWhole(input, loc);
    if (!whole.IsValue()) return Val::Poison();
    return Reduce(op, whole, dim, keepdim, loc);
  }
  const Val& x = input;
  if (!x.IsTensor()) {
    if (x.IsRef()) {
      Operand(x, nullptr, loc);
      return Val::Poison();
    }
    return L.Fail(
        loc, fmt::format("a reduction needs a tensor, got {}", Describe(x)));
  }
  AttrList attrs;
  int64_t rank = static_cast<int64_t>(x.type().rank());
  auto normalize = [&](int64_t d) -> std::optional<int64_t> {
    if (d < -rank || d >= rank) return std::nullopt;
    return d < 0 ? d + rank : d;
  };
  if (dim && dim->kind != ValKind::kNone) {
    if (dim->kind == ValKind::kInt) {
      auto d = normalize(dim->i);
      if (!d)
        return L.Fail(loc, fmt::format("dim {} is out of range for {}", dim->i,
                                       Describe(x)));
      attrs.push_back(Attr{"dim", *d});
    } else if (dim->kind == ValKind::kTuple) {
      std::vector<int64_t> dims;
      for (const Val& elem : dim->elems) {
        auto d = elem.kind == ValKind::kInt ? normalize(elem.i) : std::nullopt;
        if (!d) return L.Fail(loc, "reduction dims must be integers in range");
        dims.push_back(*d);
      }
      attrs.push_back(Attr{"dim", dims});
    } else {
      return L.Fail(
          loc, "a reduction dim must be an integer or a tuple of integers");
    }
  }
  bool keep = false;
  if (keepdim && keepdim->kind != ValKind::kNone) {
    if (!keepdim->IsNumber())
      return L.Fail(loc, "keepdim must be True or False");
    keep = keepdim->AsDouble() != 0;
  }
  attrs.push_back(Attr{"keepdim", keep});
  return L.MakeTyped(op, One(CloneExpr(*x.expr)), std::move(attrs), loc);
}

Val Calls::Dot(const Val& a, const Val& b, const Val* acc,
               std::optional<DType> out_dtype, SourceLoc loc) {
  ExprPtr x = Operand(a, nullptr, loc);
  if (!x) return Val::Poison();
  ExprPtr y = Operand(b, nullptr, loc);
  if (!y) return Val::Poison();
  AttrList attrs;
  if (out_dtype && !acc) attrs.push_back(Attr{"acc_dtype", *out_dtype});
  if (acc == nullptr || acc->kind == ValKind::kNone) {
    return L.MakeTyped(OpKind::kDot, Two(std::move(x), std::move(y)),
                       std::move(attrs), loc);
  }
  std::vector<Type> types = {x->type, y->type};
  absl::StatusOr<Type> product = InferType(OpKind::kDot, types, {}, {});
  if (!product.ok())
    return L.Fail(loc, std::string(product.status().message()));
  ExprPtr z = Operand(*acc, nullptr, loc);
  if (!z) return Val::Poison();
  if (!z->type.is_tensor() || z->type.shape != product->shape) {
    // addmm(bias, a, b): the accumulator broadcasts to the product.
    Val broadcast = L.MakeTyped(OpKind::kBroadcastTo, One(std::move(z)),
                                {Attr{"shape", product->shape}}, loc);
    if (broadcast.kind == ValKind::kPoison) return broadcast;
    z = std::move(broadcast.expr);
  }
  ExprList operands;
  operands.push_back(std::move(x));
  operands.push_back(std::move(y));
  operands.push_back(std::move(z));
  return L.MakeTyped(OpKind::kDot, std::move(operands), {}, loc);
}

std::optional<AttrValue> Calls::FillValue(const Val& value, DType dtype,
                                          SourceLoc loc) {
  if (!value.IsNumber()) {
    L.Fail(loc, fmt::format("the fill value must be a constant number, got {}",
                            Describe(value)));
    return std::nullopt;
  }
  if (IsFloat(dtype)) return AttrValue(value.AsDouble());
  if (dtype == DType::kBool) return AttrValue(value.AsDouble() != 0);
  return AttrValue(static_cast<int64_t>(value.AsDouble()));
}

Val Calls::Allocate(Shape shape, DType dtype, std::optional<Val> fill,
                    SourceLoc loc, bool device_only) {
  if (device_only && !L.in_device()) {
    return L.Fail(loc,
                  "hl.zeros / hl.full are valid only inside an hl.tile loop");
  }
  AttrList attrs = {Attr{"shape", std::move(shape)}, Attr{"dtype", dtype}};
  if (L.in_device()) {
    auto value = FillValue(fill ? fill->Clone() : Val::Int(0), dtype, loc);
    if (!value) return Val::Poison();
    attrs.push_back(Attr{"value", *value});
    return L.MakeTyped(OpKind::kFull, {}, std::move(attrs), loc);
  }
  if (!fill) return L.MakeTyped(OpKind::kEmpty, {}, std::move(attrs), loc);
  auto value = FillValue(*fill, dtype, loc);
  if (!value) return Val::Poison();
  attrs.push_back(Attr{"value", *value});
  return L.MakeTyped(OpKind::kAllocFull, {}, std::move(attrs), loc);
}

std::optional<DType> Calls::DTypeArg(size_t index,
                                     std::optional<DType> fallback) {
  const Val* value = Arg(index, "dtype");
  if (value == nullptr || value->kind == ValKind::kNone) return fallback;
  return L.ToDType(*value, LocOf(index, "dtype"));
}

std::optional<Shape> Calls::ShapeArgs(size_t count) {
  if (args_.positional.empty()) {
    const Val* size = Arg(99, "size");
    if (size == nullptr) {
      L.Fail(args_.loc, "missing shape");
      return std::nullopt;
    }
    return L.ToShape(*size, args_.loc);
  }
  if (args_.positional[0].kind == ValKind::kTuple) {
    return L.ToShape(args_.positional[0], args_.positional_locs[0]);
  }
  Shape shape;
  for (size_t i = 0; i < count; ++i) {
    std::optional<Dim> dim =
        L.ToDim(args_.positional[i], args_.positional_locs[i]);
    if (!dim) return std::nullopt;
    shape.push_back(*dim);
  }
  return shape;
}

Val Calls::Reshape(const Val& self, size_t first, SourceLoc loc) {
  std::vector<Val> targets;
  if (args_.positional.size() == first + 1 &&
      args_.positional[first].kind == ValKind::kTuple) {
    for (const Val& v : args_.positional[first].elems)
      targets.push_back(v.Clone());
  } else {
    for (size_t i = first; i < args_.positional.size(); ++i) {
      targets.push_back(args_.positional[i].Clone());
    }
  }
  const Type& type = self.type();
  // Infer a -1 entry: the source's size divided by the other entries,
  // cancelling equal symbols so that shapes stay symbolic and exact.
  int64_t source_static = 1;
  std::multiset<std::string> source_symbols;
  for (const Dim& d : type.shape) {
    if (d.is_static())
      source_static *= d.size;
    else
      source_symbols.insert(d.symbol);
  }
  int64_t target_static = 1;
  std::multiset<std::string> remaining = source_symbols;
  bool cancels = true;
  int inferred = -1;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Val& t = targets[i];
    if (t.kind == ValKind::kInt && t.i == -1) {
      if (inferred >= 0) return L.Fail(loc, "only one dim can be -1");
      inferred = static_cast<int>(i);
      continue;
    }
    std::optional<Dim> dim = L.ToDim(t, loc);
    if (!dim) return Val::Poison();
    if (dim->is_static()) {
      target_static *= std::max<int64_t>(dim->size, 1);
    } else if (auto it = remaining.find(dim->symbol); it != remaining.end()) {
      remaining.erase(it);
    } else {
      cancels = false;
    }
  }
  Shape shape;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (static_cast<int>(i) != inferred) {
      shape.push_back(*L.ToDim(targets[i], loc));
      continue;
    }
    if (cancels && source_static % target_static == 0) {
      int64_t factor = source_static / target_static;
      if (remaining.empty()) {
        shape.push_back(Dim::Static(factor));
        continue;
      }
      if (remaining.size() == 1 && factor == 1) {
        shape.push_back(Dim::Symbol(*remaining.begin()));
        continue;
      }
      Val product = Val::Int(factor);
      for (const std::string& symbol : remaining) {
        product = product.kind == ValKind::kInt && product.i == 1
                      ? L.DimVal(Dim::Symbol(symbol))
                      : L.Binary(BinaryOp::kMul, std::move(product),
                                 L.DimVal(Dim::Symbol(symbol)), loc);
      }
      std::optional<Dim> dim = L.ToDim(product, loc);
      if (!dim) return Val::Poison();
      shape.push_back(*dim);
      continue;
    }
    // numel // (product of the other entries), computed at run time.
    Val numel = Val::Int(1);
    for (const Dim& d : type.shape) {
      numel = L.Binary(BinaryOp::kMul, std::move(numel), L.DimVal(d), loc);
    }
    for (size_t k = 0; k < targets.size(); ++k) {
      if (static_cast<int>(k) == inferred) continue;
      numel = L.Binary(BinaryOp::kFloorDiv, std::move(numel),
                       targets[k].Clone(), loc);
    }
    std::optional<Dim> dim = L.ToDim(numel, loc);
    if (!dim) return Val::Poison();
    shape.push_back(*dim);
  }
  return L.MakeTyped(OpKind::kReshape, One(CloneExpr(*self.expr)),
                     {Attr{"shape", std::move(shape)}}, loc);
}

Val Calls::Transpose(const Val& self, std::vector<int64_t> perm,
                     SourceLoc loc) {
  int64_t rank = static_cast<int64_t>(self.type().rank());
  for (int64_t& axis : perm) {
    if (axis < -rank || axis >= rank) {
      return L.Fail(loc, fmt::format("dim {} is out of range for {}", axis,
                                     Describe(self)));
    }
    if (axis < 0) axis += rank;
  }
  return L.MakeTyped(OpKind::kTranspose, One(CloneExpr(*self.expr)),
                     {Attr{"perm", std::move(perm)}}, loc);
}

std::optional<int64_t> Calls::IntArg(size_t index, std::string_view name,
                                     SourceLoc loc) {
  const Val* value = Arg(index, name);
  if (value == nullptr || value->kind != ValKind::kInt) {
    L.Fail(value ? LocOf(index, name) : loc,
           fmt::format("argument '{}' must be an integer constant", name));
    return std::nullopt;
  }
  return value->i;
}

}  // namespace tessera::helion_py
