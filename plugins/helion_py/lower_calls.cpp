// Calls: torch / torch.nn.functional / helion.language / math functions,
// Python builtins and tensor methods.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "fmt/format.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {
namespace {

struct UnaryInfo {
  OpKind op;
  double (*fold)(double);
};

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

std::vector<ExprPtr> One(ExprPtr a) {
  std::vector<ExprPtr> v;
  v.push_back(std::move(a));
  return v;
}
std::vector<ExprPtr> Two(ExprPtr a, ExprPtr b) {
  std::vector<ExprPtr> v;
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

}  // namespace

const std::vector<std::string>& KnownFunctions() {
  static const auto* const names =
      new std::vector<std::string>{"torch.empty",
                                   "torch.empty_like",
                                   "torch.zeros",
                                   "torch.zeros_like",
                                   "torch.ones",
                                   "torch.ones_like",
                                   "torch.full",
                                   "torch.full_like",
                                   "torch.exp",
                                   "torch.exp2",
                                   "torch.log",
                                   "torch.log2",
                                   "torch.sqrt",
                                   "torch.rsqrt",
                                   "torch.tanh",
                                   "torch.sigmoid",
                                   "torch.erf",
                                   "torch.abs",
                                   "torch.relu",
                                   "torch.neg",
                                   "torch.maximum",
                                   "torch.minimum",
                                   "torch.where",
                                   "torch.sum",
                                   "torch.amax",
                                   "torch.amin",
                                   "torch.mean",
                                   "torch.addmm",
                                   "torch.matmul",
                                   "torch.mm",
                                   "torch.bmm",
                                   "torch.baddbmm",
                                   "torch.promote_types",
                                   "torch.nn.functional.relu",
                                   "torch.nn.functional.gelu",
                                   "torch.nn.functional.silu",
                                   "torch.nn.functional.sigmoid",
                                   "torch.nn.functional.tanh",
                                   "torch.nn.functional.softmax",
                                   "helion.language.tile",
                                   "helion.language.zeros",
                                   "helion.language.full",
                                   "helion.language.specialize",
                                   "helion.language.register_block_size",
                                   "helion.language.dot",
                                   "helion.language.atomic_add",
                                   "helion.language.atomic_max",
                                   "helion.language.atomic_min",
                                   "math.sqrt",
                                   "math.exp",
                                   "math.log",
                                   "math.log2",
                                   "math.pow",
                                   "math.ceil",
                                   "math.floor",
                                   "math.erf",
                                   "math.tanh",
                                   "math.fabs",
                                   "builtins.float",
                                   "builtins.int",
                                   "builtins.bool",
                                   "builtins.len",
                                   "builtins.min",
                                   "builtins.max",
                                   "builtins.abs",
                                   "builtins.range"};
  return *names;
}

const std::vector<std::string>& KnownMethods() {
  static const auto* const names = new std::vector<std::string>{
      "size",      "numel",     "dim",          "to",         "float",
      "half",      "bfloat16",  "type_as",      "sum",        "amax",
      "amin",      "mean",      "exp",          "exp2",       "log",
      "log2",      "sqrt",      "rsqrt",        "tanh",       "sigmoid",
      "erf",       "abs",       "relu",         "neg",        "view",
      "reshape",   "transpose", "permute",      "t",          "squeeze",
      "unsqueeze", "expand",    "broadcast_to", "contiguous", "maximum",
      "minimum"};
  return *names;
}

bool IsBuiltinFunction(const std::string& name) {
  static const std::set<std::string, std::less<>> kBuiltins = {
      "float", "int", "bool", "len", "min", "max", "abs", "range"};
  return kBuiltins.count(name) != 0;
}

namespace {

// Helpers that need the lowering's state.
class Calls {
 public:
  Calls(KernelLowering& lowering, CallArgs& args) : L(lowering), args_(args) {}

  // An operand of a computation: refs must be indexed first.
  ExprPtr Operand(const Val& value, const Type* peer, SourceLoc loc) {
    if (value.IsRef()) {
      Diagnostic* d = L.Report(
          loc, fmt::format("cannot compute with {} directly", Describe(value)));
      L.Note(d, "index the tensor with tiles first, e.g. x[tile_m, :]");
      return nullptr;
    }
    return L.ToExpr(value, peer, loc);
  }

  const Val* Arg(size_t index, std::string_view name) {
    return args_.Get(index, name);
  }
  SourceLoc LocOf(size_t index, std::string_view name) {
    return args_.LocOf(index, name);
  }

  const Val* Required(size_t index, std::string_view name,
                      std::string_view fn) {
    const Val* value = Arg(index, name);
    if (value == nullptr) {
      L.Fail(args_.loc, fmt::format("{}() is missing argument '{}'", fn, name));
    }
    return value;
  }

  Val Unary(OpKind op, double (*fold)(double), const Val& x, SourceLoc loc,
            std::vector<Attr> attrs = {}) {
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

  Val BinaryFn(OpKind op, const Val& a, const Val& b, SourceLoc loc) {
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
    const Type* ta = a.IsValue() ? &a.type() : nullptr;
    const Type* tb = b.IsValue() ? &b.type() : nullptr;
    ExprPtr x = Operand(a, tb, loc);
    if (!x) return Val::Poison();
    ExprPtr y = Operand(b, ta, loc);
    if (!y) return Val::Poison();
    return L.MakeTyped(op, Two(std::move(x), std::move(y)), {}, loc);
  }

  Val Reduce(OpKind op, const Val& x, const Val* dim, const Val* keepdim,
             SourceLoc loc) {
    if (!x.IsTensor()) {
      if (x.IsRef()) {
        Operand(x, nullptr, loc);
        return Val::Poison();
      }
      return L.Fail(
          loc, fmt::format("a reduction needs a tensor, got {}", Describe(x)));
    }
    std::vector<Attr> attrs;
    int64_t rank = static_cast<int64_t>(x.type().rank());
    auto normalize = [&](int64_t d) -> std::optional<int64_t> {
      if (d < -rank || d >= rank) return std::nullopt;
      return d < 0 ? d + rank : d;
    };
    if (dim && dim->kind != ValKind::kNone) {
      if (dim->kind == ValKind::kInt) {
        auto d = normalize(dim->i);
        if (!d)
          return L.Fail(loc, fmt::format("dim {} is out of range for {}",
                                         dim->i, Describe(x)));
        attrs.push_back(Attr{"dim", *d});
      } else if (dim->kind == ValKind::kTuple) {
        std::vector<int64_t> dims;
        for (const Val& elem : dim->elems) {
          auto d =
              elem.kind == ValKind::kInt ? normalize(elem.i) : std::nullopt;
          if (!d)
            return L.Fail(loc, "reduction dims must be integers in range");
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

  // dot(a, b[, acc]) with an optional result dtype.
  Val Dot(const Val& a, const Val& b, const Val* acc,
          std::optional<DType> out_dtype, SourceLoc loc) {
    ExprPtr x = Operand(a, nullptr, loc);
    if (!x) return Val::Poison();
    ExprPtr y = Operand(b, nullptr, loc);
    if (!y) return Val::Poison();
    std::vector<Attr> attrs;
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
    std::vector<ExprPtr> operands;
    operands.push_back(std::move(x));
    operands.push_back(std::move(y));
    operands.push_back(std::move(z));
    return L.MakeTyped(OpKind::kDot, std::move(operands), {}, loc);
  }

  // Fill value as an attribute of the dtype's kind.
  std::optional<AttrValue> FillValue(const Val& value, DType dtype,
                                     SourceLoc loc) {
    if (!value.IsNumber()) {
      L.Fail(loc,
             fmt::format("the fill value must be a constant number, got {}",
                         Describe(value)));
      return std::nullopt;
    }
    if (IsFloat(dtype)) return AttrValue(value.AsDouble());
    if (dtype == DType::kBool) return AttrValue(value.AsDouble() != 0);
    return AttrValue(static_cast<int64_t>(value.AsDouble()));
  }

  // torch.empty / zeros / ones / full and hl.zeros / hl.full: a host
  // allocation outside the tile loops, a tensor value inside.
  Val Allocate(std::vector<Dim> shape, DType dtype, std::optional<Val> fill,
               SourceLoc loc, bool device_only) {
    if (device_only && !L.in_device()) {
      return L.Fail(loc,
                    "hl.zeros / hl.full are valid only inside an hl.tile loop");
    }
    std::vector<Attr> attrs = {Attr{"shape", std::move(shape)},
                               Attr{"dtype", dtype}};
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

  std::optional<DType> DTypeArg(size_t index, std::optional<DType> fallback) {
    const Val* value = Arg(index, "dtype");
    if (value == nullptr || value->kind == ValKind::kNone) return fallback;
    return L.ToDType(*value, LocOf(index, "dtype"));
  }

  // Shape from `(shape)` or `(*ints)` starting at positional 0.
  std::optional<std::vector<Dim>> ShapeArgs(size_t count) {
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
    std::vector<Dim> shape;
    for (size_t i = 0; i < count; ++i) {
      std::optional<Dim> dim =
          L.ToDim(args_.positional[i], args_.positional_locs[i]);
      if (!dim) return std::nullopt;
      shape.push_back(*dim);
    }
    return shape;
  }

  Val Reshape(const Val& self, size_t first, SourceLoc loc) {
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
    std::vector<Dim> shape;
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

  Val Transpose(const Val& self, std::vector<int64_t> perm, SourceLoc loc) {
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

  std::optional<int64_t> IntArg(size_t index, std::string_view name,
                                SourceLoc loc) {
    const Val* value = Arg(index, name);
    if (value == nullptr || value->kind != ValKind::kInt) {
      L.Fail(value ? LocOf(index, name) : loc,
             fmt::format("argument '{}' must be an integer constant", name));
      return std::nullopt;
    }
    return value->i;
  }

  KernelLowering& L;
  CallArgs& args_;
};

}  // namespace

Val KernelLowering::CallFunction(const std::string& path, CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  std::string module = ModuleOf(path);
  std::string name = LastComponent(path);
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
      std::vector<Attr> attrs;
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
    std::vector<ExprPtr> operands;
    operands.push_back(std::move(x));
    operands.push_back(std::move(y));
    operands.push_back(std::move(z));
    return MakeTyped(OpKind::kWhere, std::move(operands), {}, loc);
  }
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
  if (path == "torch.nn.functional.softmax") {
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
  if (path == "torch.promote_types") {
    const Val* a = c.Required(0, "type1", name);
    const Val* b = c.Required(1, "type2", name);
    if (!a || !b) return Val::Poison();
    auto da = ToDType(*a, c.LocOf(0, "type1"));
    auto db = ToDType(*b, c.LocOf(1, "type2"));
    if (!da || !db) return Val::Poison();
    return Val::DTypeOf(PromoteDTypes(*da, *db));
  }
  // Allocations.
  if (path == "torch.empty" || path == "torch.zeros" || path == "torch.ones") {
    size_t count = args.positional.size();
    auto shape = c.ShapeArgs(count);
    if (!shape) return Val::Poison();
    auto dtype = c.DTypeArg(99, DType::kF32);
    if (!dtype) return Val::Poison();
    std::optional<Val> fill;
    if (name == "zeros") fill = Val::Int(0);
    if (name == "ones") fill = Val::Int(1);
    return c.Allocate(*shape, *dtype, std::move(fill), loc, false);
  }
  if (path == "torch.full" || path == "helion.language.full" ||
      path == "helion.language.zeros") {
    bool zeros = name == "zeros";
    const Val* shape_arg = c.Required(0, "shape", name);
    if (!shape_arg) return Val::Poison();
    const Val* fill = zeros ? nullptr : c.Required(1, "value", name);
    if (!zeros && !fill) fill = c.Arg(1, "fill_value");
    if (!zeros && !fill) return Val::Poison();
    auto shape = ToShape(*shape_arg, c.LocOf(0, "shape"));
    if (!shape) return Val::Poison();
    DType fallback = DType::kF32;
    if (path == "torch.full" && fill->kind == ValKind::kInt)
      fallback = DType::kI64;
    if (path == "torch.full" && fill->kind == ValKind::kBool)
      fallback = DType::kBool;
    auto dtype = c.DTypeArg(zeros ? 1 : 2, fallback);
    if (!dtype) return Val::Poison();
    return c.Allocate(*shape, *dtype, zeros ? Val::Int(0) : fill->Clone(), loc,
                      module == "helion.language");
  }
  if (path == "torch.empty_like" || path == "torch.zeros_like" ||
      path == "torch.ones_like" || path == "torch.full_like") {
    const Val* like = first();
    if (!like) return Val::Poison();
    if (!like->IsValue() || like->IsScalar()) {
      return Fail(
          c.LocOf(0, "input"),
          fmt::format("{}() needs a tensor, got {}", name, Describe(*like)));
    }
    std::optional<Val> fill;
    if (name == "zeros_like") fill = Val::Int(0);
    if (name == "ones_like") fill = Val::Int(1);
    if (name == "full_like") {
      const Val* value = c.Required(1, "fill_value", name);
      if (!value) return Val::Poison();
      fill = value->Clone();
    }
    auto dtype = c.DTypeArg(name == "full_like" ? 2 : 1, like->type().dtype);
    if (!dtype) return Val::Poison();
    return c.Allocate(like->type().shape, *dtype, std::move(fill), loc, false);
  }
  // helion.language
  if (path == "helion.language.tile") {
    return Fail(loc,
                "hl.tile(...) is used as the iterator of a for loop: "
                "for tile in hl.tile(n)");
  }
  if (path == "helion.language.specialize") {
    const Val* x = c.Required(0, "value", name);
    return x ? x->Clone() : Val::Poison();
  }
  if (path == "helion.language.register_block_size") {
    if (args.positional.empty() || args.positional.size() > 2) {
      return Fail(loc, "hl.register_block_size takes (max) or (min, max)");
    }
    const Val& extent = args.positional.back();
    std::optional<Dim> dim;
    if (extent.kind == ValKind::kInt) dim = Dim::Static(extent.i);
    return Val::Int(RegisterBlockSize(dim));
  }
  if (path == "helion.language.atomic_add" ||
      path == "helion.language.atomic_max" ||
      path == "helion.language.atomic_min") {
    Atomic(name.substr(std::string("atomic_").size()), args);
    return Val::None();
  }
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
  // Python builtins.
  if (module == "builtins") {
    if (name == "range") {
      return Fail(loc,
                  "range(...) is supported only as the iterator of a for loop");
    }
    if (name == "float" || name == "int" || name == "bool") {
      if (args.positional.empty()) {
        return name == "float" ? Val::Float(0)
               : name == "int" ? Val::Int(0)
                               : Val::Bool(false);
      }
      const Val& x = args.positional[0];
      if (x.kind == ValKind::kString && name == "float") {
        std::string text = x.text;
        std::transform(text.begin(), text.end(), text.begin(), ::tolower);
        double inf = std::numeric_limits<double>::infinity();
        if (text == "inf" || text == "+inf" || text == "infinity")
          return Val::Float(inf);
        if (text == "-inf" || text == "-infinity") return Val::Float(-inf);
        if (text == "nan")
          return Val::Float(std::numeric_limits<double>::quiet_NaN());
        char* end = nullptr;
        double v = std::strtod(x.text.c_str(), &end);
        if (end && *end == '\0' && !x.text.empty()) return Val::Float(v);
        return Fail(args.positional_locs[0],
                    "could not convert string to float");
      }
      if (x.IsNumber()) {
        if (name == "float") return Val::Float(x.AsDouble());
        if (name == "bool") return Val::Bool(x.AsDouble() != 0);
        double v = x.AsDouble();
        if (!(std::fabs(v) < 9.2e18))
          return Fail(args.positional_locs[0], "integer overflow");
        return Val::Int(static_cast<int64_t>(v));
      }
      if (x.IsScalar()) {
        DType dtype = name == "float" ? DType::kF32
                      : name == "int" ? DType::kI64
                                      : DType::kBool;
        return MakeTyped(OpKind::kCast, One(CloneExpr(*x.expr)),
                         {Attr{"dtype", dtype}}, loc);
      }
      return Fail(
          args.positional_locs[0],
          fmt::format("{}() of {} is not supported", name, Describe(x)));
    }
    if (name == "len") {
      const Val* x = c.Required(0, "obj", name);
      if (!x) return Val::Poison();
      if (x->kind == ValKind::kTuple)
        return Val::Int(static_cast<int64_t>(x->elems.size()));
      if (x->IsValue() && !x->IsScalar() && x->type().rank() > 0)
        return DimVal(x->type().shape[0]);
      return Fail(loc,
                  fmt::format("len() of {} is not supported", Describe(*x)));
    }
    if (name == "abs") {
      const Val* x = c.Required(0, "x", name);
      if (!x) return Val::Poison();
      return c.Unary(OpKind::kAbs, Abs, *x, loc);
    }
    if (name == "min" || name == "max") {
      std::vector<Val> items;
      if (args.positional.size() == 1 &&
          args.positional[0].kind == ValKind::kTuple) {
        for (const Val& v : args.positional[0].elems)
          items.push_back(v.Clone());
      } else {
        for (const Val& v : args.positional) items.push_back(v.Clone());
      }
      if (items.empty())
        return Fail(loc, fmt::format("{}() needs arguments", name));
      Val result = std::move(items[0]);
      for (size_t i = 1; i < items.size(); ++i) {
        result = c.BinaryFn(name == "max" ? OpKind::kMaximum : OpKind::kMinimum,
                            result, items[i], loc);
        if (result.kind == ValKind::kPoison) return result;
      }
      return result;
    }
  }
  // Unknown: did you mean, and what is supported in that module.
  std::vector<std::string> candidates;
  std::vector<std::string> in_module;
  for (const std::string& known : KnownFunctions()) {
    candidates.push_back(known);
    if (ModuleOf(known) == module) in_module.push_back(LastComponent(known));
  }
  std::string shown = module == "builtins" ? name : path;
  std::string closest = ClosestName(name, in_module);
  if (!closest.empty() && module != "builtins")
    closest = module + "." + closest;
  Diagnostic* d =
      Report(loc, closest.empty()
                      ? fmt::format("unknown function '{}'", shown)
                      : fmt::format("unknown function '{}'; did you mean '{}'?",
                                    shown, closest));
  if (!in_module.empty()) {
    std::string list;
    for (const std::string& n : in_module)
      list += (list.empty() ? "" : ", ") + n;
    Note(d, fmt::format("supported functions of '{}': {}", module, list));
  } else {
    Note(
        d,
        "supported modules: torch, torch.nn.functional, helion.language, math");
  }
  return Val::Poison();
}

Val KernelLowering::CallMethod(Val self, const std::string& name,
                               CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const Type type = self.type();
  if (name == "size") {
    const Val* dim = c.Arg(0, "dim");
    if (dim == nullptr || dim->kind == ValKind::kNone) {
      std::vector<Val> dims;
      for (const Dim& d : type.shape) dims.push_back(DimVal(d));
      return Val::Tuple(std::move(dims));
    }
    if (dim->kind != ValKind::kInt)
      return Fail(c.LocOf(0, "dim"), "size(dim) needs an integer constant");
    int64_t rank = static_cast<int64_t>(type.rank());
    int64_t d = dim->i < 0 ? dim->i + rank : dim->i;
    if (d < 0 || d >= rank) {
      return Fail(c.LocOf(0, "dim"),
                  fmt::format("dim {} is out of range for {}", dim->i,
                              TypeToString(type)));
    }
    return DimVal(type.shape[d]);
  }
  if (name == "dim") return Val::Int(static_cast<int64_t>(type.rank()));
  if (name == "numel") {
    Val product = Val::Int(1);
    for (const Dim& d : type.shape)
      product = Binary(BinaryOp::kMul, std::move(product), DimVal(d), loc);
    return product;
  }
  if (name == "contiguous") return self;
  if (name == "view" || name == "reshape") return c.Reshape(self, 0, loc);
  if (name == "t" || name == "transpose" || name == "permute") {
    std::vector<int64_t> perm(type.rank());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    if (name == "t") {
      if (type.rank() > 2) return Fail(loc, "t() needs a tensor of rank <= 2");
      std::reverse(perm.begin(), perm.end());
    } else if (name == "transpose") {
      auto a = c.IntArg(0, "dim0", loc);
      auto b = c.IntArg(1, "dim1", loc);
      if (!a || !b) return Val::Poison();
      int64_t rank = static_cast<int64_t>(type.rank());
      int64_t x = *a < 0 ? *a + rank : *a, y = *b < 0 ? *b + rank : *b;
      if (x < 0 || x >= rank || y < 0 || y >= rank)
        return Fail(loc, "transpose dims out of range");
      std::swap(perm[x], perm[y]);
    } else {
      std::vector<Val> dims;
      if (args.positional.size() == 1 &&
          args.positional[0].kind == ValKind::kTuple) {
        for (const Val& v : args.positional[0].elems) dims.push_back(v.Clone());
      } else {
        for (const Val& v : args.positional) dims.push_back(v.Clone());
      }
      perm.clear();
      for (const Val& v : dims) {
        if (v.kind != ValKind::kInt)
          return Fail(loc, "permute dims must be integer constants");
        perm.push_back(v.i);
      }
    }
    return c.Transpose(self, std::move(perm), loc);
  }
  if (name == "squeeze" || name == "unsqueeze") {
    auto d = c.IntArg(0, "dim", loc);
    if (!d) return Val::Poison();
    int64_t rank =
        static_cast<int64_t>(type.rank()) + (name == "unsqueeze" ? 1 : 0);
    int64_t axis = *d < 0 ? *d + rank : *d;
    if (axis < 0 || axis >= rank)
      return Fail(loc, fmt::format("dim {} is out of range", *d));
    std::vector<Dim> shape = type.shape;
    if (name == "squeeze") {
      if (!(shape[axis] == Dim::Static(1))) return self;  // PyTorch: no-op
      shape.erase(shape.begin() + axis);
    } else {
      shape.insert(shape.begin() + axis, Dim::Static(1));
    }
    if (type.is_ref()) {
      return MakeTyped(OpKind::kReshape, One(CloneExpr(*self.expr)),
                       {Attr{"shape", std::move(shape)}}, loc);
    }
    std::vector<Index> indices;
    for (int64_t i = 0;
         i < static_cast<int64_t>(type.rank()) + (name == "unsqueeze"); ++i) {
      if (i == axis) {
        indices.push_back(
            name == "squeeze"
                ? Index(IndexKind::kScalar, MakeIntConst(0, DType::kI64, loc))
                : Index(IndexKind::kNewAxis));
        if (name == "unsqueeze") continue;
      } else {
        indices.push_back(Index(IndexKind::kSlice));
      }
    }
    return MakeTyped(OpKind::kSubscript, One(CloneExpr(*self.expr)), {}, loc,
                     std::move(indices));
  }
  // Everything below computes on values.
  if (self.IsRef()) {
    Diagnostic* d = Report(loc, fmt::format("cannot call '{}' on {} directly",
                                            name, Describe(self)));
    Note(d, "index the tensor with tiles first, e.g. x[tile_m, :]." + name +
                "(...)");
    return Val::Poison();
  }
  if (name == "to" || name == "float" || name == "half" || name == "bfloat16" ||
      name == "type_as") {
    std::optional<DType> dtype;
    if (name == "float") dtype = DType::kF32;
    if (name == "half") dtype = DType::kF16;
    if (name == "bfloat16") dtype = DType::kBF16;
    if (name == "type_as") {
      const Val* other = c.Required(0, "other", name);
      if (!other) return Val::Poison();
      if (!other->IsValue()) return Fail(loc, "type_as needs a tensor");
      dtype = other->type().dtype;
    }
    if (name == "to") {
      for (size_t i = 0; i < args.positional.size() && !dtype; ++i) {
        const Val& v = args.positional[i];
        if (v.kind == ValKind::kDType)
          dtype = v.dtype;
        else if (v.IsValue() && !v.IsScalar())
          dtype = v.type().dtype;
        else if (v.kind != ValKind::kNone && v.kind != ValKind::kString) {
          dtype = ToDType(v, args.positional_locs[i]);
          if (!dtype) return Val::Poison();
        }
      }
      if (const Val* kw = c.Arg(99, "dtype")) {
        dtype = ToDType(*kw, c.LocOf(99, "dtype"));
        if (!dtype) return Val::Poison();
      }
      if (!dtype) return self;  // device moves are no-ops
    }
    if (type.dtype == *dtype) return self;
    return MakeTyped(OpKind::kCast, One(std::move(self.expr)),
                     {Attr{"dtype", *dtype}}, loc);
  }
  static const std::map<std::string, OpKind, std::less<>> kReductions = {
      {"sum", OpKind::kSum},
      {"amax", OpKind::kAmax},
      {"amin", OpKind::kAmin},
      {"mean", OpKind::kMean}};
  if (auto it = kReductions.find(name); it != kReductions.end()) {
    return c.Reduce(it->second, self, c.Arg(0, "dim"), c.Arg(1, "keepdim"),
                    loc);
  }
  if (auto it = UnaryFunctions().find(name); it != UnaryFunctions().end()) {
    return c.Unary(it->second.op, it->second.fold, self, loc);
  }
  if (name == "maximum" || name == "minimum") {
    const Val* other = c.Required(0, "other", name);
    if (!other) return Val::Poison();
    return c.BinaryFn(name == "maximum" ? OpKind::kMaximum : OpKind::kMinimum,
                      self, *other, loc);
  }
  if (name == "expand" || name == "broadcast_to") {
    std::vector<Val> sizes;
    if (args.positional.size() == 1 &&
        args.positional[0].kind == ValKind::kTuple) {
      for (const Val& v : args.positional[0].elems) sizes.push_back(v.Clone());
    } else {
      for (const Val& v : args.positional) sizes.push_back(v.Clone());
    }
    std::vector<Dim> shape;
    size_t offset = sizes.size() - std::min(sizes.size(), type.rank());
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i].kind == ValKind::kInt && sizes[i].i == -1 && i >= offset) {
        shape.push_back(type.shape[i - offset]);
        continue;
      }
      std::optional<Dim> dim = ToDim(sizes[i], loc);
      if (!dim) return Val::Poison();
      shape.push_back(*dim);
    }
    return MakeTyped(OpKind::kBroadcastTo, One(std::move(self.expr)),
                     {Attr{"shape", std::move(shape)}}, loc);
  }
  return Fail(loc, fmt::format("method '{}' is not supported on {}", name,
                               Describe(self)));
}

void KernelLowering::Atomic(const std::string& op, CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const Val* target = c.Required(0, "target", "atomic_" + op);
  const Val* index = c.Required(1, "index", "atomic_" + op);
  const Val* value = c.Required(2, "value", "atomic_" + op);
  if (!target || !index || !value) return;
  if (!target->IsRef()) {
    Fail(c.LocOf(0, "target"),
         fmt::format("the target of an atomic must be a tensor "
                     "argument or allocation, got {}",
                     Describe(*target)));
    return;
  }
  if (!in_device()) {
    Fail(loc, "an atomic must be inside an hl.tile loop");
    return;
  }
  Val base = MaterializeRef(target->Clone(), "view");
  std::vector<Val> items;
  std::vector<SourceLoc> locs;
  if (index->kind == ValKind::kTuple) {
    for (const Val& v : index->elems) {
      items.push_back(v.Clone());
      locs.push_back(c.LocOf(1, "index"));
    }
  } else {
    items.push_back(index->Clone());
    locs.push_back(c.LocOf(1, "index"));
  }
  std::vector<Index> indices;
  if (!BuildIndices(base.type(), std::move(items), std::move(locs), true,
                    c.LocOf(1, "index"), indices)) {
    return;
  }
  std::vector<Type> types = {base.type()};
  absl::StatusOr<Type> region = InferType(OpKind::kLoad, types, indices, {});
  if (!region.ok()) {
    Fail(c.LocOf(1, "index"), std::string(region.status().message()));
    return;
  }
  ExprPtr stored = CoerceForStore(value->Clone(), *region, c.LocOf(2, "value"));
  if (!stored) return;
  Stmt stmt;
  stmt.kind = tessera::StmtKind::kAtomic;
  stmt.loc = loc;
  stmt.target = std::move(base.expr);
  stmt.indices = std::move(indices);
  stmt.value = std::move(stored);
  SetAttr(stmt.attrs, "op", op);
  Emit(std::move(stmt));
}

}  // namespace tessera::helion_py
