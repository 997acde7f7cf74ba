// Expression lowering: names, attributes, operators (with PyTorch
// promotion), indexing, loads and stores.
#include <cmath>
#include <limits>

#include "fmt/format.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {
namespace {

std::optional<DType> TorchDType(std::string_view name) {
  static const std::pair<std::string_view, DType> kDTypes[] = {
      {"float32", DType::kF32},       {"float", DType::kF32},
      {"bfloat16", DType::kBF16},     {"float16", DType::kF16},
      {"half", DType::kF16},          {"int32", DType::kI32},
      {"int", DType::kI32},           {"int64", DType::kI64},
      {"long", DType::kI64},          {"int16", DType::kI16},
      {"short", DType::kI16},         {"int8", DType::kI8},
      {"bool", DType::kBool},         {"float8_e4m3fn", DType::kF8E4M3},
      {"float8_e5m2", DType::kF8E5M2}};
  for (const auto& [key, dtype] : kDTypes) {
    if (key == name) return dtype;
  }
  return std::nullopt;
}

// Names Helion's examples import from helion._testing, as they are on a
// TPU: HALF_DTYPE is bfloat16 there (float16 elsewhere), LONG_INT_TYPE int32.
std::optional<Val> HelionTestingConstant(std::string_view path) {
  if (path == "helion._testing.HALF_DTYPE") return Val::DTypeOf(DType::kBF16);
  if (path == "helion._testing.LONG_INT_TYPE") return Val::DTypeOf(DType::kI32);
  return std::nullopt;
}

bool Truthy(const Val& v) {
  switch (v.kind) {
    case ValKind::kNone:
      return false;
    case ValKind::kString:
      return !v.text.empty();
    case ValKind::kTuple:
      return !v.elems.empty();
    case ValKind::kInt:
    case ValKind::kFloat:
    case ValKind::kBool:
      return v.AsDouble() != 0;
    default:
      return true;
  }
}

std::optional<OpKind> BinaryOpKind(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return OpKind::kAdd;
    case BinaryOp::kSub:
      return OpKind::kSub;
    case BinaryOp::kMul:
      return OpKind::kMul;
    case BinaryOp::kDiv:
      return OpKind::kDiv;
    case BinaryOp::kFloorDiv:
      return OpKind::kFloorDiv;
    case BinaryOp::kMod:
      return OpKind::kMod;
    case BinaryOp::kPow:
      return OpKind::kPow;
    case BinaryOp::kBitAnd:
      return OpKind::kAnd;
    case BinaryOp::kBitOr:
      return OpKind::kOr;
    case BinaryOp::kBitXor:
      return OpKind::kXor;
    case BinaryOp::kShl:
      return OpKind::kShl;
    case BinaryOp::kShr:
      return OpKind::kShr;
    default:
      return std::nullopt;
  }
}

std::string_view BinaryOpText(BinaryOp op) {
  static constexpr std::string_view kText[] = {
      "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"};
  return kText[static_cast<int>(op)];
}

}  // namespace

std::string Describe(const Val& value) {
  switch (value.kind) {
    case ValKind::kPoison:
      return "<error>";
    case ValKind::kNone:
      return "None";
    case ValKind::kInt:
      return "int";
    case ValKind::kFloat:
      return "float";
    case ValKind::kBool:
      return "bool";
    case ValKind::kString:
      return "str";
    case ValKind::kDType:
      return "dtype";
    case ValKind::kModule:
      return "'" + value.text + "'";
    case ValKind::kValue:
      return TypeToString(value.type());
    case ValKind::kTile:
      return fmt::format("tile<{}>", value.tile.block);
    case ValKind::kTuple:
      return value.is_list ? "list" : "tuple";
    case ValKind::kMethod:
      return "method '" + value.text + "'";
    case ValKind::kEllipsis:
      return "...";
    case ValKind::kSlice:
      return "slice";
    case ValKind::kCallable:
      return value.function ? "function '" + value.function->name + "'"
                            : "lambda";
    case ValKind::kCallTimeInt:
      return "a size known only at call time";
  }
  return "value";
}

// ---------------------------------------------------------------------------
// Names and attributes
// ---------------------------------------------------------------------------
namespace {

// Nested Eval calls on this thread. The parser bounds each expression's
// height, but calls inline lambda and function bodies into the expression
// that calls them, so the lowering's recursion is bounded here, where every
// path passes (256 levels fit the stack of an ASan debug build). Once the
// limit is hit every Eval until the outermost returns is poison: a body
// that calls itself twice must not take 2^limit steps to fail.
constexpr int kMaxEvalDepth = 256;
thread_local int eval_depth = 0;
thread_local bool eval_overflow = false;

struct EvalDepthGuard {
  EvalDepthGuard() { ++eval_depth; }
  ~EvalDepthGuard() {
    if (--eval_depth == 0) eval_overflow = false;
  }
  EvalDepthGuard(const EvalDepthGuard&) = delete;
  EvalDepthGuard& operator=(const EvalDepthGuard&) = delete;
};

}  // namespace

Val KernelLowering::Eval(const Node& node) {
  EvalDepthGuard guard;
  if (eval_overflow) return Val::Poison();
  if (eval_depth > kMaxEvalDepth) {
    eval_overflow = true;
    return Fail(node.loc,
                fmt::format("expression is too deep to lower: more than {} "
                            "nested operations once calls are inlined (does "
                            "a function call itself?)",
                            kMaxEvalDepth));
  }
  switch (node.kind) {
    case NodeKind::kName: {
      if (auto it = env_.find(node.text); it != env_.end())
        return it->second.Clone();
      if (auto it = ended_loop_targets_.find(node.text);
          it != ended_loop_targets_.end()) {
        return Fail(node.loc,
                    fmt::format("'{}' is used after the loop at line {} that "
                                "defines it; a loop's tile or index exists "
                                "only inside the loop",
                                node.text, it->second.line));
      }
      if (auto it = imports_.find(node.text); it != imports_.end()) {
        if (auto constant = HelionTestingConstant(it->second))
          return std::move(*constant);
        return Val::Module(it->second);
      }
      if (auto it = functions_.find(node.text); it != functions_.end()) {
        Val function;
        function.kind = ValKind::kCallable;
        function.function = &it->second;
        return function;
      }
      if (IsBuiltinFunction(node.text))
        return Val::Module("builtins." + node.text);
      std::vector<std::string> candidates;
      for (const auto& [name, value] : env_) candidates.push_back(name);
      for (const auto& [name, path] : imports_) candidates.push_back(name);
      std::string closest = ClosestName(node.text, candidates);
      return Fail(node.loc,
                  closest.empty()
                      ? fmt::format("undefined name '{}'", node.text)
                      : fmt::format("undefined name '{}'; did you mean '{}'?",
                                    node.text, closest));
    }
    case NodeKind::kInt:
      return Val::Int(node.int_value);
    case NodeKind::kFloat:
      return Val::Float(node.float_value);
    case NodeKind::kBool:
      return Val::Bool(node.int_value != 0);
    case NodeKind::kString:
      return Val::String(node.text);
    case NodeKind::kNone:
      return Val::None();
    case NodeKind::kEllipsis: {
      Val v;
      v.kind = ValKind::kEllipsis;
      return v;
    }
    case NodeKind::kAttribute: {
      Val base = Eval(*node.children[0]);
      return EvalAttribute(std::move(base), node.text, node.loc);
    }
    case NodeKind::kCall: {
      Val callee = Eval(*node.children[0]);
      if (callee.kind == ValKind::kPoison) return callee;
      CallArgs args;
      args.loc = node.loc;
      bool poisoned = false;
      for (size_t i = 1; i < node.children.size(); ++i) {
        const Node& arg = *node.children[i];
        if (arg.kind == NodeKind::kStarred) {
          Val items = Eval(*arg.children[0]);
          if (items.kind != ValKind::kTuple) {
            poisoned = true;
            if (items.kind != ValKind::kPoison) {
              Fail(arg.loc, fmt::format("cannot unpack {} into arguments",
                                        Describe(items)));
            }
            continue;
          }
          for (Val& item : items.elems) {
            args.positional.push_back(std::move(item));
            args.positional_locs.push_back(arg.loc);
          }
          continue;
        }
        args.positional.push_back(Eval(arg));
        args.positional_locs.push_back(arg.loc);
        poisoned |= args.positional.back().kind == ValKind::kPoison;
      }
      for (const Keyword& keyword : node.keywords) {
        args.keywords.emplace_back(keyword.name, Eval(*keyword.value));
        args.keyword_locs.push_back(keyword.value->loc);
        poisoned |= args.keywords.back().second.kind == ValKind::kPoison;
      }
      if (poisoned) return Val::Poison();
      if (callee.kind == ValKind::kModule)
        return CallFunction(callee.text, args);
      if (callee.kind == ValKind::kMethod) {
        Val self = std::move(callee.elems[0]);
        return CallMethod(std::move(self), callee.text, args);
      }
      if (callee.kind == ValKind::kCallable && callee.callable != nullptr)
        return CallLambda(*callee.callable, args);
      if (callee.kind == ValKind::kCallable) {
        return Fail(node.children[0]->loc,
                    fmt::format("'{}' is a function of the file: it can be "
                                "called only as the combine function of "
                                "hl.associative_scan, which inlines it",
                                callee.function->name));
      }
      return Fail(node.children[0]->loc,
                  fmt::format("{} is not callable", Describe(callee)));
    }
    case NodeKind::kSubscript:
      return Subscript(node);
    case NodeKind::kSlice:
      return Fail(node.loc, "a slice is only valid inside []");
    case NodeKind::kBinary:
      return Binary(static_cast<BinaryOp>(node.op), Eval(*node.children[0]),
                    Eval(*node.children[1]), node.loc);
    case NodeKind::kUnary: {
      Val operand = Eval(*node.children[0]);
      if (operand.kind == ValKind::kPoison) return operand;
      switch (static_cast<UnaryOp>(node.op)) {
        case UnaryOp::kPos:
          return operand;
        case UnaryOp::kNot:
          if (!operand.IsValue()) return Val::Bool(!Truthy(operand));
          return MakeTyped(
              OpKind::kNot,
              [&] {
                ExprList v;
                v.push_back(std::move(operand.expr));
                return v;
              }(),
              {}, node.loc);
        case UnaryOp::kNeg:
          if (operand.kind == ValKind::kInt) return Val::Int(-operand.i);
          if (operand.kind == ValKind::kBool)
            return Val::Int(-int64_t{operand.b});
          if (operand.kind == ValKind::kFloat) return Val::Float(-operand.f);
          break;
        case UnaryOp::kInvert:
          if (IsIntLike(operand)) return Val::Int(~IntOf(operand));
          if (operand.IsValue() && operand.type().dtype == DType::kBool) {
            ExprList v;
            v.push_back(std::move(operand.expr));
            return MakeTyped(OpKind::kNot, std::move(v), {}, node.loc);
          }
          return Fail(node.loc, "'~' is supported only on bool values");
      }
      ExprPtr expr = ToExpr(operand, nullptr, node.loc);
      if (!expr) return Val::Poison();
      ExprList v;
      v.push_back(std::move(expr));
      return MakeTyped(OpKind::kNeg, std::move(v), {}, node.loc);
    }
    case NodeKind::kCompare: {
      std::vector<Val> operands;
      for (const NodePtr& child : node.children) {
        operands.push_back(Eval(*child));
        if (operands.back().kind == ValKind::kPoison) return Val::Poison();
      }
      Val result;
      for (size_t i = 0; i < node.compare_ops.size(); ++i) {
        Val pair = CompareVals(node.compare_ops[i], operands[i].Clone(),
                               operands[i + 1].Clone(), node.loc);
        if (pair.kind == ValKind::kPoison) return pair;
        if (i == 0) {
          result = std::move(pair);
        } else if (result.IsNumber() && pair.IsNumber()) {
          result = Val::Bool(Truthy(result) && Truthy(pair));
        } else {
          result = Binary(BinaryOp::kBitAnd, std::move(result), std::move(pair),
                          node.loc);
        }
      }
      return result;
    }
    case NodeKind::kBoolOp: {
      bool is_or = node.op == 1;
      Val result = Eval(*node.children[0]);
      for (size_t i = 1; i < node.children.size(); ++i) {
        if (result.kind == ValKind::kPoison) return result;
        if (!result.IsValue()) {
          // Python short-circuit on a constant.
          if (Truthy(result) == is_or) return result;
          result = Eval(*node.children[i]);
          continue;
        }
        Val next = Eval(*node.children[i]);
        if (next.kind == ValKind::kPoison) return next;
        result = Binary(is_or ? BinaryOp::kBitOr : BinaryOp::kBitAnd,
                        std::move(result), std::move(next), node.loc);
      }
      return result;
    }
    case NodeKind::kTuple:
    case NodeKind::kList: {
      std::vector<Val> elems;
      for (const NodePtr& child : node.children) {
        if (child->kind == NodeKind::kStarred) {
          Val items = Eval(*child->children[0]);
          if (items.kind == ValKind::kPoison) return items;
          if (items.kind != ValKind::kTuple) {
            return Fail(child->loc,
                        fmt::format("cannot unpack {}", Describe(items)));
          }
          for (Val& item : items.elems) elems.push_back(std::move(item));
          continue;
        }
        elems.push_back(Eval(*child));
        if (elems.back().kind == ValKind::kPoison) return Val::Poison();
      }
      return Val::Tuple(std::move(elems), node.kind == NodeKind::kList);
    }
    case NodeKind::kStarred:
      return Fail(node.loc,
                  "'*' unpacking is only valid in a list, a tuple or the "
                  "arguments of a call");
    case NodeKind::kLambda: {
      Val callable;
      callable.kind = ValKind::kCallable;
      callable.callable = &node;
      return callable;
    }
    case NodeKind::kIfExp: {
      Val test = Eval(*node.children[1]);
      if (test.kind == ValKind::kPoison) return test;
      if (test.IsValue()) {
        Diagnostic* d = Report(node.children[1]->loc,
                               "a conditional expression needs a compile-time "
                               "constant condition");
        Note(d, "use torch.where(cond, a, b) for a runtime choice");
        return Val::Poison();
      }
      return Eval(*node.children[Truthy(test) ? 0 : 2]);
    }
  }
  return Fail(node.loc, "unsupported expression");
}

Val KernelLowering::EvalAttribute(Val base, const std::string& name,
                                  SourceLoc loc) {
  switch (base.kind) {
    case ValKind::kPoison:
      return base;
    case ValKind::kModule: {
      std::string path = base.text + "." + name;
      if (auto constant = HelionTestingConstant(path))
        return std::move(*constant);
      if (base.text == "torch") {
        if (auto dtype = TorchDType(name)) return Val::DTypeOf(*dtype);
        if (name == "inf")
          return Val::Float(std::numeric_limits<double>::infinity());
        if (name == "nan")
          return Val::Float(std::numeric_limits<double>::quiet_NaN());
      }
      if (base.text == "math") {
        if (name == "pi") return Val::Float(M_PI);
        if (name == "e") return Val::Float(M_E);
        if (name == "inf")
          return Val::Float(std::numeric_limits<double>::infinity());
        if (name == "nan")
          return Val::Float(std::numeric_limits<double>::quiet_NaN());
      }
      return Val::Module(std::move(path));
    }
    case ValKind::kValue: {
      const Type& type = base.type();
      if (type.is_ref() || type.is_tensor()) {
        if (name == "shape") {
          std::vector<Val> dims;
          for (const Dim& dim : type.shape) dims.push_back(DimVal(dim));
          return Val::Tuple(std::move(dims));
        }
        if (name == "dtype") return Val::DTypeOf(type.dtype);
        if (name == "device") return Val::None();
        if (name == "ndim") return Val::Int(static_cast<int64_t>(type.rank()));
        if (name == "T") {
          CallArgs args;
          args.loc = loc;
          return CallMethod(std::move(base), "t", args);
        }
      }
      if (type.is_scalar() && name == "dtype") return Val::DTypeOf(type.dtype);
      const auto& methods = KnownMethods();
      if (std::find(methods.begin(), methods.end(), name) != methods.end()) {
        Val method;
        method.kind = ValKind::kMethod;
        method.text = name;
        method.elems.push_back(std::move(base));
        return method;
      }
      std::vector<std::string> attributes = {"shape", "dtype", "device", "ndim",
                                             "T"};
      attributes.insert(attributes.end(), methods.begin(), methods.end());
      std::string closest = ClosestName(name, attributes);
      Diagnostic* d = Report(
          loc,
          closest.empty()
              ? fmt::format("{} has no attribute '{}'", Describe(base), name)
              : fmt::format("{} has no attribute '{}'; did you mean '{}'?",
                            Describe(base), name, closest));
      std::string list;
      for (const std::string& m : methods)
        list += (list.empty() ? "" : ", ") + m;
      Note(d,
           "supported tensor attributes: shape, dtype, device, ndim, T; "
           "methods: " +
               list);
      return Val::Poison();
    }
    case ValKind::kTile: {
      ExprPtr tile =
          MakeVar(base.tile.name, Type::Tile(Dim::Static(base.tile.block)));
      ExprList operands;
      operands.push_back(std::move(tile));
      if (!base.tile.index_origin.empty() &&
          (name == "begin" || name == "end" || name == "index")) {
        // A jagged tile over absolute rows: Helion counts from 0.
        const OpKind op = name == "begin" ? OpKind::kTileBegin
                          : name == "end" ? OpKind::kTileEnd
                                          : OpKind::kTileIndex;
        Val absolute = MakeTyped(op, std::move(operands), {}, loc);
        const Expr* start = DefinitionOf(base.tile.index_origin);
        Val origin = Val::Value(
            MakeVar(base.tile.index_origin,
                    start ? start->type : Type::Scalar(DType::kI32)));
        if (name != "index") {
          origin = Val::Value(ToIndexExpr(origin, loc));
        }
        return Binary(BinaryOp::kSub, std::move(absolute), std::move(origin),
                      loc);
      }
      if (name == "begin")
        return MakeTyped(OpKind::kTileBegin, std::move(operands), {}, loc);
      if (name == "end")
        return MakeTyped(OpKind::kTileEnd, std::move(operands), {}, loc);
      if (name == "index") return TileIndexOf(base, loc);
      if (name == "block_size") return Val::Int(base.tile.block);
      if (name == "id") {
        // The tile's position in its loop: begin // block_size.
        if (!base.tile.zero_based) {
          return Fail(loc,
                      "tile.id of an hl.tile(begin, end) loop is not "
                      "supported; use (tile.begin - begin) // tile.block_size");
        }
        Val begin = MakeTyped(OpKind::kTileBegin, std::move(operands), {}, loc);
        return Binary(BinaryOp::kFloorDiv, std::move(begin),
                      Val::Int(base.tile.block), loc);
      }
      Diagnostic* d =
          Report(loc, fmt::format("a tile has no attribute '{}'", name));
      Note(d, "supported tile attributes: begin, end, index, block_size, id");
      return Val::Poison();
    }
    default:
      break;
  }
  return Fail(loc,
              fmt::format("{} has no attribute '{}'", Describe(base), name));
}

// ---------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------
Val KernelLowering::TileIndexOf(const Val& tile, SourceLoc loc) {
  ExprList operands;
  operands.push_back(
      MakeVar(tile.tile.name, Type::Tile(Dim::Static(tile.tile.block))));
  return MakeTyped(OpKind::kTileIndex, std::move(operands), {}, loc);
}

Val KernelLowering::Binary(BinaryOp op, Val lhs, Val rhs, SourceLoc loc) {
  if (lhs.kind == ValKind::kPoison || rhs.kind == ValKind::kPoison)
    return Val::Poison();
  if (lhs.kind == ValKind::kTuple && rhs.kind == ValKind::kTuple &&
      op == BinaryOp::kAdd) {
    for (Val& elem : rhs.elems) lhs.elems.push_back(std::move(elem));
    return lhs;
  }
  if (lhs.IsNumber() && rhs.IsNumber()) {
    bool ints = IsIntLike(lhs) && IsIntLike(rhs);
    if (ints) {
      int64_t a = IntOf(lhs), b = IntOf(rhs), r = 0;
      bool overflow = false;
      switch (op) {
        case BinaryOp::kAdd:
          overflow = __builtin_add_overflow(a, b, &r);
          return overflow ? Fail(loc, "integer overflow") : Val::Int(r);
        case BinaryOp::kSub:
          overflow = __builtin_sub_overflow(a, b, &r);
          return overflow ? Fail(loc, "integer overflow") : Val::Int(r);
        case BinaryOp::kMul:
          overflow = __builtin_mul_overflow(a, b, &r);
          return overflow ? Fail(loc, "integer overflow") : Val::Int(r);
        case BinaryOp::kDiv:
          if (b == 0) return Fail(loc, "division by zero");
          return Val::Float(static_cast<double>(a) / static_cast<double>(b));
        case BinaryOp::kFloorDiv:
        case BinaryOp::kMod: {
          if (b == 0) return Fail(loc, "division by zero");
          if (a == std::numeric_limits<int64_t>::min() && b == -1)
            return Fail(loc, "integer overflow");
          int64_t q = a / b, m = a % b;
          if (m != 0 && ((m < 0) != (b < 0))) {
            --q;
            m += b;
          }
          return Val::Int(op == BinaryOp::kFloorDiv ? q : m);
        }
        case BinaryOp::kPow: {
          if (b < 0) return Val::Float(std::pow(double(a), double(b)));
          int64_t result = 1;
          for (int64_t k = 0; k < b; ++k) {
            if (__builtin_mul_overflow(result, a, &result))
              return Fail(loc, "integer overflow");
            if (result == 0 || result == 1) break;
          }
          return Val::Int(result);
        }
        case BinaryOp::kBitAnd:
          return Val::Int(a & b);
        case BinaryOp::kBitOr:
          return Val::Int(a | b);
        case BinaryOp::kBitXor:
          return Val::Int(a ^ b);
        case BinaryOp::kShl:
          if (b < 0 || b > 62) return Fail(loc, "shift count out of range");
          return Val::Int(static_cast<int64_t>(static_cast<uint64_t>(a) << b));
        case BinaryOp::kShr:
          if (b < 0 || b > 63) return Fail(loc, "shift count out of range");
          return Val::Int(a >> b);
        case BinaryOp::kMatMul:
          break;
      }
    } else {
      double a = lhs.AsDouble(), b = rhs.AsDouble();
      switch (op) {
        case BinaryOp::kAdd:
          return Val::Float(a + b);
        case BinaryOp::kSub:
          return Val::Float(a - b);
        case BinaryOp::kMul:
          return Val::Float(a * b);
        case BinaryOp::kDiv:
          if (b == 0) return Fail(loc, "division by zero");
          return Val::Float(a / b);
        case BinaryOp::kFloorDiv:
          if (b == 0) return Fail(loc, "division by zero");
          return Val::Float(std::floor(a / b));
        case BinaryOp::kMod: {
          if (b == 0) return Fail(loc, "division by zero");
          double m = std::fmod(a, b);
          if (m != 0 && ((m < 0) != (b < 0))) m += b;
          return Val::Float(m);
        }
        case BinaryOp::kPow:
          return Val::Float(std::pow(a, b));
        default:
          break;
      }
    }
    return Fail(loc,
                fmt::format("unsupported operator '{}' on {} and {}",
                            BinaryOpText(op), Describe(lhs), Describe(rhs)));
  }
  if (op == BinaryOp::kMatMul) {
    CallArgs args;
    args.loc = loc;
    args.positional.push_back(std::move(lhs));
    args.positional.push_back(std::move(rhs));
    args.positional_locs = {loc, loc};
    return CallFunction("torch.matmul", args);
  }
  // Tile arithmetic is index arithmetic, as in Helion: `tile + offset` is
  // `tile.index + offset` (a shifted tile index, `k[tile_n + start, :]`).
  auto int_scalar = [](const Val& v) {
    return IsIntLike(v) || (v.IsScalar() && IsInteger(v.type().dtype));
  };
  if ((op == BinaryOp::kAdd || op == BinaryOp::kSub) &&
      lhs.kind == ValKind::kTile && int_scalar(rhs)) {
    lhs = TileIndexOf(lhs, loc);
  } else if (op == BinaryOp::kAdd && rhs.kind == ValKind::kTile &&
             int_scalar(lhs)) {
    rhs = TileIndexOf(rhs, loc);
  }
  if (!Computable(lhs, loc) || !Computable(rhs, loc)) return Val::Poison();
  // Size arithmetic stays readable: 1 * n and n * 1 are n.
  auto is_int_scalar = [](const Val& v) {
    return v.IsScalar() && IsInteger(v.type().dtype);
  };
  if (op == BinaryOp::kMul && IsIntLike(lhs) && IntOf(lhs) == 1 &&
      is_int_scalar(rhs)) {
    return rhs;
  }
  if (op == BinaryOp::kMul && IsIntLike(rhs) && IntOf(rhs) == 1 &&
      is_int_scalar(lhs)) {
    return lhs;
  }
  std::optional<OpKind> kind = BinaryOpKind(op);
  if (!kind) {
    return Fail(loc, fmt::format("operator '{}' is not supported in a kernel",
                                 BinaryOpText(op)));
  }
  return MakeBinaryOp(*kind, std::move(lhs), std::move(rhs), loc);
}

bool KernelLowering::ReportRefOperand(const Val& value, SourceLoc loc) {
  if (!value.IsRef()) return false;
  Diagnostic* d = Report(
      loc, fmt::format("cannot compute with {} directly", Describe(value)));
  Note(d, "index the tensor with tiles first, e.g. x[tile_m, :]");
  return true;
}

bool KernelLowering::Computable(Val& value, SourceLoc loc) {
  // Host code after the kernel (`grad_w_blocks.sum(0)`): the whole array.
  if (value.IsRef() && !in_device()) value = LoadWhole(value, loc);
  return value.kind != ValKind::kPoison && !ReportRefOperand(value, loc);
}

Val KernelLowering::MakeBinaryOp(OpKind op, Val lhs, Val rhs, SourceLoc loc) {
  if (!Computable(lhs, loc) || !Computable(rhs, loc)) return Val::Poison();
  const Type* lhs_type = lhs.IsValue() ? &lhs.type() : nullptr;
  const Type* rhs_type = rhs.IsValue() ? &rhs.type() : nullptr;
  ExprPtr a = ToExpr(lhs, rhs_type, loc);
  if (!a) return Val::Poison();
  ExprPtr b = ToExpr(rhs, lhs_type, loc);
  if (!b) return Val::Poison();
  ExprList operands;
  operands.push_back(std::move(a));
  operands.push_back(std::move(b));
  return MakeTyped(op, std::move(operands), {}, loc);
}

Val KernelLowering::CompareVals(CompareOp op, Val lhs, Val rhs, SourceLoc loc) {
  if (op == CompareOp::kIs || op == CompareOp::kIsNot) {
    bool same = lhs.kind == rhs.kind &&
                (lhs.kind == ValKind::kNone ||
                 (lhs.kind == ValKind::kDType && lhs.dtype == rhs.dtype));
    if (lhs.IsValue() || rhs.IsValue()) same = false;
    return Val::Bool(op == CompareOp::kIs ? same : !same);
  }
  if (op == CompareOp::kIn || op == CompareOp::kNotIn) {
    return Fail(loc, "'in' is not supported in a kernel");
  }
  if ((lhs.kind == ValKind::kDType && rhs.kind == ValKind::kDType) ||
      (lhs.kind == ValKind::kString && rhs.kind == ValKind::kString)) {
    bool equal = lhs.kind == ValKind::kString ? lhs.text == rhs.text
                                              : lhs.dtype == rhs.dtype;
    if (op == CompareOp::kEq) return Val::Bool(equal);
    if (op == CompareOp::kNe) return Val::Bool(!equal);
  }
  if (lhs.IsNumber() && rhs.IsNumber()) {
    double a = lhs.AsDouble(), b = rhs.AsDouble();
    if (IsIntLike(lhs) && IsIntLike(rhs)) {
      int64_t x = IntOf(lhs), y = IntOf(rhs);
      switch (op) {
        case CompareOp::kLt:
          return Val::Bool(x < y);
        case CompareOp::kLe:
          return Val::Bool(x <= y);
        case CompareOp::kGt:
          return Val::Bool(x > y);
        case CompareOp::kGe:
          return Val::Bool(x >= y);
        case CompareOp::kEq:
          return Val::Bool(x == y);
        case CompareOp::kNe:
          return Val::Bool(x != y);
        default:
          break;
      }
    }
    switch (op) {
      case CompareOp::kLt:
        return Val::Bool(a < b);
      case CompareOp::kLe:
        return Val::Bool(a <= b);
      case CompareOp::kGt:
        return Val::Bool(a > b);
      case CompareOp::kGe:
        return Val::Bool(a >= b);
      case CompareOp::kEq:
        return Val::Bool(a == b);
      case CompareOp::kNe:
        return Val::Bool(a != b);
      default:
        break;
    }
  }
  if (lhs.kind == ValKind::kPoison || rhs.kind == ValKind::kPoison)
    return Val::Poison();
  if (lhs.kind == ValKind::kTuple && rhs.kind == ValKind::kTuple &&
      (op == CompareOp::kEq || op == CompareOp::kNe)) {
    // Shapes: equal when every size is equal; symbolic sizes are compared
    // by name (asserts use this to unify shapes).
    bool equal = lhs.elems.size() == rhs.elems.size();
    for (size_t i = 0; equal && i < lhs.elems.size(); ++i) {
      const Val& a = lhs.elems[i];
      const Val& b = rhs.elems[i];
      if (a.IsNumber() && b.IsNumber()) {
        equal = a.AsDouble() == b.AsDouble();
      } else if (a.IsValue() && b.IsValue() && a.expr->op == OpKind::kVar &&
                 b.expr->op == OpKind::kVar) {
        equal = a.expr->name == b.expr->name;
      } else {
        equal = false;
      }
    }
    return Val::Bool(op == CompareOp::kEq ? equal : !equal);
  }
  static constexpr OpKind kKinds[] = {OpKind::kLt, OpKind::kLe, OpKind::kGt,
                                      OpKind::kGe, OpKind::kEq, OpKind::kNe};
  const Type* lhs_type = lhs.IsValue() ? &lhs.type() : nullptr;
  const Type* rhs_type = rhs.IsValue() ? &rhs.type() : nullptr;
  ExprPtr a = ToExpr(lhs, rhs_type, loc);
  if (!a) return Val::Poison();
  ExprPtr b = ToExpr(rhs, lhs_type, loc);
  if (!b) return Val::Poison();
  ExprList operands;
  operands.push_back(std::move(a));
  operands.push_back(std::move(b));
  return MakeTyped(kKinds[static_cast<int>(op)], std::move(operands), {}, loc);
}

}  // namespace tessera::helion_py
