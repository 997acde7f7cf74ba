#include "expr_emitter.h"
#include <algorithm>

#include "fmt/format.h"
#include "py_text.h"
#include "python_writer.h"
#include "tessera/python_literal.h"

namespace tessera::pallas {
namespace {

bool IsParenthesized(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    return false;
  }
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (depth == 0 && i + 1 < text.size()) return false;
  }
  return true;
}

std::string ConstLiteral(const Expr& expr) {
  const Attr* value = expr.attr("value");
  if (value == nullptr) return "0";
  if (const bool* b = std::get_if<bool>(&value->value)) {
    return *b ? "True" : "False";
  }
  if (const int64_t* i = std::get_if<int64_t>(&value->value)) {
    if (expr.type.is_scalar() && IsFloat(expr.type.dtype)) {
      return PythonFloatLiteral(static_cast<double>(*i));
    }
    return fmt::format("{}", *i);
  }
  if (const double* d = std::get_if<double>(&value->value)) {
    return PythonFloatLiteral(*d);
  }
  return "0";
}

std::string AttrLiteral(const Attr* value, DType dtype) {
  if (value == nullptr) return "0";
  if (const bool* b = std::get_if<bool>(&value->value)) {
    return *b ? "True" : "False";
  }
  if (const int64_t* i = std::get_if<int64_t>(&value->value)) {
    return IsFloat(dtype) ? PythonFloatLiteral(static_cast<double>(*i))
                          : fmt::format("{}", *i);
  }
  if (const double* d = std::get_if<double>(&value->value)) {
    return PythonFloatLiteral(*d);
  }
  return "0";
}

std::vector<int64_t> IntList(const Attr* attr) {
  if (attr == nullptr) return {};
  if (const int64_t* one = std::get_if<int64_t>(&attr->value)) return {*one};
  if (const auto* list = std::get_if<std::vector<int64_t>>(&attr->value)) {
    return *list;
  }
  return {};
}

}  // namespace

std::string JnpDType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "jnp.bool_";
    case DType::kI8:
      return "jnp.int8";
    case DType::kI16:
      return "jnp.int16";
    case DType::kI32:
    case DType::kI64:
      return "jnp.int32";
    case DType::kF16:
      return "jnp.float16";
    case DType::kBF16:
      return "jnp.bfloat16";
    case DType::kF32:
      return "jnp.float32";
    case DType::kF8E4M3:
      return "jnp.float8_e4m3fn";
    case DType::kF8E5M2:
      return "jnp.float8_e5m2";
  }
  return "jnp.float32";
}

std::string ExprEmitter::Emit(const Expr& expr) {
  std::string text = Sub(expr);
  while (IsParenthesized(text)) text = text.substr(1, text.size() - 2);
  return text;
}

std::string ExprEmitter::ShapeTuple(const Shape& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += dims[i].is_static()
                ? fmt::format("{}", EmittedDimSize(dims[i].size))
                : EmittedDimSymbol(dims[i].symbol);
  }
  if (dims.size() == 1) text += ",";
  return text + ")";
}

std::string ExprEmitter::Var(const Expr& expr) {
  return SanitizeIdentifier(expr.name);
}

std::string ExprEmitter::Load(const Expr&) {
  Fail("'load' is only supported in device code");
  return "None";
}

std::string ExprEmitter::TileOp(const Expr& expr) {
  Fail(fmt::format("'{}' is only supported in device code",
                   OpInfoOf(expr.op).name));
  return "None";
}

std::string ExprEmitter::DeviceOp(const Expr& expr) {
  Fail(fmt::format("'{}' is only supported in device code",
                   OpInfoOf(expr.op).name));
  return "None";
}

std::string ExprEmitter::Size(const Expr& expr) {
  const int64_t* dim = GetAttr<int64_t>(expr.attrs, "dim");
  return fmt::format("{}.shape[{}]", Sub(*expr.operands[0]), dim ? *dim : 0);
}

std::string ExprEmitter::ReductionInput(const Expr& input, int64_t,
                                        std::string_view) {
  return Emit(input);
}

std::string ExprEmitter::DotOperand(const Expr& operand, int64_t) {
  return Emit(operand);
}

bool ExprEmitter::IsHalfFloatTensor(const Expr& expr) const {
  return HalfFloatMathInF32() && expr.type.is_tensor() &&
         (expr.type.dtype == DType::kBF16 || expr.type.dtype == DType::kF16);
}

std::string ExprEmitter::F32Operand(const Expr& operand) {
  if (!IsHalfFloatTensor(operand)) return Sub(operand);
  return fmt::format("{}.astype(jnp.float32)", Sub(operand));
}

std::string ExprEmitter::Sub(const Expr& expr) {
  auto operand = [&](size_t i) { return Sub(*expr.operands[i]); };
  auto call = [&](std::string_view jnp_name) {
    const std::string fn = MathFunction(jnp_name, expr);
    std::string args;
    for (size_t i = 0; i < expr.operands.size(); ++i) {
      if (i) args += ", ";
      args += Emit(*expr.operands[i]);
    }
    return fmt::format("{}({})", fn, args);
  };
  // Mosaic has no int8 vector arithmetic ("Only vector<i16> and
  // vector<i32> are supported"): int8 operands are computed in int32 and
  // an int8 result is truncated back, which wraps exactly as int8 would.
  auto is_int8_tensor = [](const Expr& e) {
    return e.type.is_tensor() && e.type.dtype == DType::kI8;
  };
  // JAX does not promote 8-bit floats implicitly (TypePromotionError),
  // where PyTorch does (`torch.maximum(m_f32, qk_f8)` is f32): such an
  // operand of a wider float result is cast to it.
  auto promoted_f8 = [&](const Expr& e) {
    const bool f8 =
        e.type.dtype == DType::kF8E4M3 || e.type.dtype == DType::kF8E5M2;
    return f8 && IsFloat(expr.type.dtype) && expr.type.dtype != e.type.dtype;
  };
  auto widened = [&](size_t i) {
    const Expr& e = *expr.operands[i];
    if (promoted_f8(e)) {
      return fmt::format("{}.astype({})", Sub(e), JnpDType(expr.type.dtype));
    }
    return is_int8_tensor(e) ? fmt::format("{}.astype(jnp.int32)", Sub(e))
                             : operand(i);
  };
  // The same as a call argument (no parentheses needed).
  auto widened_arg = [&](size_t i) {
    const Expr& e = *expr.operands[i];
    if (promoted_f8(e)) {
      return fmt::format("{}.astype({})", Sub(e), JnpDType(expr.type.dtype));
    }
    return is_int8_tensor(e) ? fmt::format("{}.astype(jnp.int32)", Sub(e))
                             : Emit(e);
  };
  auto narrowed = [&](std::string text) {
    return is_int8_tensor(expr) ? fmt::format("{}.astype(jnp.int8)", text)
                                : text;
  };
  auto binary = [&](std::string_view op) {
    return narrowed(fmt::format("({} {} {})", widened(0), op, widened(1)));
  };
  auto half_in_f32 = [&](std::string_view op) {
    const DType dtype = expr.type.dtype;
    return fmt::format("({} {} {}).astype({})", F32Operand(*expr.operands[0]),
                       op, F32Operand(*expr.operands[1]), JnpDType(dtype));
  };
  switch (expr.op) {
    case OpKind::kVar:
      return Var(expr);
    case OpKind::kConst:
      return ConstLiteral(expr);
    case OpKind::kSize:
      return Size(expr);
    case OpKind::kTranspose:
      if (expr.operands[0]->type.is_tensor()) {
        const auto* perm = GetAttr<std::vector<int64_t>>(expr.attrs, "perm");
        std::string perm_text = "(";
        if (perm) {
          for (size_t i = 0; i < perm->size(); ++i) {
            perm_text += fmt::format("{}{}", i ? ", " : "", (*perm)[i]);
          }
          if (perm->size() == 1) perm_text += ",";
        }
        return fmt::format("jnp.transpose({}, {})", Emit(*expr.operands[0]),
                           perm_text + ")");
      }
      Fail("'transpose' of a ref is only supported as a host statement");
      return "None";
    case OpKind::kReshape:
      if (expr.operands[0]->type.is_tensor()) {
        // A bool vector is reshaped as int32 (see Subscript).
        if (expr.operands[0]->type.dtype == DType::kBool) {
          return fmt::format("(jnp.reshape({}.astype(jnp.int32), {}) != 0)",
                             Paren(Emit(*expr.operands[0])),
                             ShapeTuple(expr.type.shape));
        }
        return fmt::format("jnp.reshape({}, {})", Emit(*expr.operands[0]),
                           ShapeTuple(expr.type.shape));
      }
      Fail("'reshape' of a ref is only supported as a host statement");
      return "None";
    case OpKind::kEmpty:
    case OpKind::kAllocFull:
      Fail(fmt::format("'{}' is only supported as a host statement",
                       OpInfoOf(expr.op).name));
      return "None";
    case OpKind::kLoad:
      return Load(expr);
    case OpKind::kSubscript:
      return Subscript(expr);
    case OpKind::kSliceView:
      // On the host a view of an array is the array's slice (a copy XLA
      // may fuse into the pallas_call's operand); the device sees a ref.
      if (!expr.operands[0]->type.is_ref()) {
        Fail("'slice_view' expects a ref");
        return "None";
      }
      return Subscript(expr);
    case OpKind::kHostRead:
      // The host function reads it before the launch (host_reads.h).
      Fail("'host_read' is only supported as a host statement");
      return "None";
    case OpKind::kTileBegin:
    case OpKind::kTileEnd:
    case OpKind::kTileIndex:
    case OpKind::kTileSize:
      return TileOp(expr);
    case OpKind::kArange:
      return fmt::format("jax.lax.broadcasted_iota(jnp.int32, ({},), 0)",
                         expr.type.shape.empty() ? 1 : expr.type.shape[0].size);
    case OpKind::kNeg:
      return narrowed(fmt::format("(-{})", widened(0)));
    case OpKind::kExp:
      return call("jnp.exp");
    case OpKind::kExp2:
      return call("jnp.exp2");
    case OpKind::kLog:
      return call("jnp.log");
    case OpKind::kLog2:
      // ln(x) / ln(2) with a Python constant: jnp.log2 also takes the log
      // of a constant 2 of x's dtype, and a bf16 scalar log does not
      // legalize in Mosaic ("failed to legalize operation 'math.log'").
      return fmt::format("(jnp.log({}) * {})", Emit(*expr.operands[0]),
                         PythonFloatLiteral(1.4426950408889634074));
    case OpKind::kSqrt:
      return call("jnp.sqrt");
    case OpKind::kRsqrt:
      return call("jax.lax.rsqrt");
    case OpKind::kTanh:
      return call("jnp.tanh");
    case OpKind::kSigmoid:
      return call("jax.nn.sigmoid");
    case OpKind::kErf:
      return call("jax.lax.erf");
    case OpKind::kAbs:
      return narrowed(fmt::format("jnp.abs({})", widened_arg(0)));
    case OpKind::kRelu:
      return call("jax.nn.relu");
    case OpKind::kGelu: {
      const std::string* approximate =
          GetAttr<std::string>(expr.attrs, "approximate");
      if (approximate != nullptr && *approximate == "tanh") {
        return fmt::format("jax.nn.gelu({}, approximate=True)",
                           Emit(*expr.operands[0]));
      }
      // Exact GELU through erf: jax.nn.gelu(approximate=False) lowers via
      // erfc, which Pallas TPU cannot lower.
      std::string x = Sub(*expr.operands[0]);
      return fmt::format("(0.5 * {} * (1.0 + jax.lax.erf({} * {})))", x, x,
                         PythonFloatLiteral(0.70710678118654752440));
    }
    case OpKind::kSilu:
      return call("jax.nn.silu");
    case OpKind::kNot:
      return call("jnp.logical_not");
    case OpKind::kAdd:
      return binary("+");
    case OpKind::kSub:
      return binary("-");
    case OpKind::kMul:
      return binary("*");
    case OpKind::kDiv:
      return IsHalfFloatTensor(expr) ? half_in_f32("/") : binary("/");
    case OpKind::kFloorDiv:
      return binary("//");
    case OpKind::kMod:
      return binary("%");
    case OpKind::kPow:
      return binary("**");
    case OpKind::kMaximum:
      return narrowed(
          fmt::format("jnp.maximum({}, {})", widened_arg(0), widened_arg(1)));
    case OpKind::kMinimum:
      return narrowed(
          fmt::format("jnp.minimum({}, {})", widened_arg(0), widened_arg(1)));
    case OpKind::kAnd:
      return binary("&");
    case OpKind::kOr:
      return binary("|");
    case OpKind::kXor:
      return binary("^");
    case OpKind::kShl:
      return binary("<<");
    case OpKind::kShr:
      return binary(">>");
    case OpKind::kCdiv:
      return call("pl.cdiv");
    case OpKind::kEq:
      return binary("==");
    case OpKind::kNe:
      return binary("!=");
    case OpKind::kLt:
      return binary("<");
    case OpKind::kLe:
      return binary("<=");
    case OpKind::kGt:
      return binary(">");
    case OpKind::kGe:
      return binary(">=");
    case OpKind::kWhere:
      return call("jnp.where");
    case OpKind::kSum:
    case OpKind::kAmax:
    case OpKind::kAmin:
    case OpKind::kMean:
      return Reduction(expr);
    case OpKind::kDot:
      return Dot(expr);
    case OpKind::kFull: {
      const DType* dtype = GetAttr<DType>(expr.attrs, "dtype");
      DType dt = dtype ? *dtype : expr.type.dtype;
      const auto* shape = GetAttr<Shape>(expr.attrs, "shape");
      std::string shape_text = ShapeTuple(shape ? *shape : expr.type.shape);
      return fmt::format("jnp.full({}, {}, {})", shape_text,
                         AttrLiteral(expr.attr("value"), dt), JnpDType(dt));
    }
    case OpKind::kCast: {
      const DType* dtype = GetAttr<DType>(expr.attrs, "dtype");
      DType dt = dtype ? *dtype : expr.type.dtype;
      const Expr& x = *expr.operands[0];
      if (x.type.is_tensor()) {
        return fmt::format("{}.astype({})", operand(0), JnpDType(dt));
      }
      return fmt::format("jnp.asarray({}, {})", Emit(x), JnpDType(dt));
    }
    case OpKind::kBroadcastTo: {
      const auto* shape = GetAttr<Shape>(expr.attrs, "shape");
      return fmt::format("jnp.broadcast_to({}, {})", Emit(*expr.operands[0]),
                         ShapeTuple(shape ? *shape : expr.type.shape));
    }
    case OpKind::kRepeatLanes: {
      const int64_t* reps = GetAttr<int64_t>(expr.attrs, "reps");
      const size_t rank = expr.operands[0]->type.shape.size();
      std::string tuple = "(";
      for (size_t i = 0; i + 1 < rank; ++i) tuple += "1, ";
      tuple += fmt::format("{}{})", reps ? *reps : 1, rank == 1 ? "," : "");
      return fmt::format("jnp.tile({}, {})", Emit(*expr.operands[0]), tuple);
    }
    case OpKind::kProgramId:
    case OpKind::kNumPrograms:
    case OpKind::kScratch:
      return DeviceOp(expr);
    case OpKind::kScan:
      return Scan(expr);
    case OpKind::kScanArg:
      return ScanArg(expr);
    case OpKind::kNumOps:
      break;
  }
  Fail("unknown op");
  return "None";
}

std::string ExprEmitter::Scan(const Expr&) {
  Fail("'scan' is only supported in device code");
  return "None";
}

std::string ExprEmitter::ScanArg(const Expr& expr) {
  const int64_t* index = GetAttr<int64_t>(expr.attrs, "index");
  if (index == nullptr || *index < 0 ||
      *index >= static_cast<int64_t>(scan_params_.size())) {
    Fail("'scan_arg' outside a scan's combine function");
    return "None";
  }
  return scan_params_[*index];
}

std::string ExprEmitter::CombineLambda(const Expr& scan) {
  const size_t k = scan.operands.size() / 2;
  std::vector<std::string> saved = std::move(scan_params_);
  scan_params_.clear();
  for (std::string_view side : {"left", "right"}) {
    for (size_t j = 0; j < k; ++j) {
      scan_params_.push_back(k == 1 ? std::string(side)
                                    : fmt::format("{}{}", side, j));
    }
  }
  std::string params;
  for (size_t i = 0; i < scan_params_.size(); ++i) {
    params += (i ? ", " : "") + scan_params_[i];
  }
  std::string results;
  for (size_t j = 0; j < k; ++j) {
    results += (j ? ", " : "") + Emit(*scan.operands[k + j]);
  }
  scan_params_ = std::move(saved);
  return fmt::format("lambda {}: ({}{})", params, results, k == 1 ? "," : "");
}

std::string ExprEmitter::Reduction(const Expr& expr) {
  std::string_view fn = "jnp.sum";
  std::string_view fill = "0";
  switch (expr.op) {
    case OpKind::kAmax:
      fn = "jnp.max";
      fill = IsFloat(expr.type.dtype) ? "-jnp.inf" : "jnp.iinfo(jnp.int32).min";
      break;
    case OpKind::kAmin:
      fn = "jnp.min";
      fill = IsFloat(expr.type.dtype) ? "jnp.inf" : "jnp.iinfo(jnp.int32).max";
      break;
    case OpKind::kMean:
      fn = "jnp.mean";
      break;
    default:
      break;
  }
  const Expr& input = *expr.operands[0];
  const int64_t rank = static_cast<int64_t>(input.type.shape.size());
  std::vector<int64_t> dims = IntList(expr.attr("dim"));
  if (dims.empty() && expr.attr("dim") == nullptr) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  for (int64_t& d : dims) {
    if (d < 0) d += rank;
  }
  std::string input_text = Emit(input);
  // A mean over a dim with a padded tail: the masked sum over the true
  // count.
  std::string divisor;
  for (int64_t d : dims) {
    if (expr.op != OpKind::kMean) break;
    if (PaddedDimSize(input, d)) {
      fn = "jnp.sum";
      int64_t count = 1;
      for (int64_t r : dims) {
        const Dim& dim = input.type.shape[r];
        if (dim.is_static()) {
          count *= dim.size;
        } else {
          divisor += " / " + DimSymbol(dim.symbol);
        }
      }
      if (count != 1) divisor = fmt::format(" / {}", count) + divisor;
      input_text = ReductionInput(input, d, "0");
      break;
    }
  }
  if (expr.op != OpKind::kMean) {
    for (int64_t d : dims) {
      // Re-emitting through the hook masks one dim at a time.
      if (d == dims.front()) input_text = ReductionInput(input, d, fill);
    }
  }
  const bool* keepdim = GetAttr<bool>(expr.attrs, "keepdim");
  std::string axis;
  if (dims.size() == 1) {
    axis = fmt::format("{}", dims[0]);
  } else {
    axis = "(";
    for (size_t i = 0; i < dims.size(); ++i) {
      axis += fmt::format("{}{}", i ? ", " : "", dims[i]);
    }
    axis += dims.size() == 1 ? ",)" : ")";
  }
  const bool sums = expr.op == OpKind::kSum || expr.op == OpKind::kMean;
  if (sums && IsHalfFloatTensor(expr)) {
    std::string sum =
        fmt::format("{}({}, axis={}{}, dtype=jnp.float32)", fn, input_text,
                    axis, keepdim && *keepdim ? ", keepdims=True" : "");
    if (!divisor.empty()) sum = "(" + sum + divisor + ")";
    return fmt::format("{}.astype({})", sum, JnpDType(expr.type.dtype));
  }
  std::string text = fmt::format("{}({}, axis={}{})", fn, input_text, axis,
                                 keepdim && *keepdim ? ", keepdims=True" : "");
  return divisor.empty() ? text : "(" + text + divisor + ")";
}

std::string ExprEmitter::Dot(const Expr& expr) {
  // A transpose of the last two dims of an operand folds into the
  // contracting dims (k.transpose(1, 2) in attention).
  auto swaps_last_two = [](const Expr& e) {
    if (e.op != OpKind::kTranspose || !e.operands[0]->type.is_tensor()) {
      return false;
    }
    const auto* perm = GetAttr<std::vector<int64_t>>(e.attrs, "perm");
    if (perm == nullptr || perm->size() < 2) return false;
    const size_t n = perm->size();
    for (size_t i = 0; i + 2 < n; ++i) {
      if ((*perm)[i] != static_cast<int64_t>(i)) return false;
    }
    return (*perm)[n - 2] == static_cast<int64_t>(n - 1) &&
           (*perm)[n - 1] == static_cast<int64_t>(n - 2);
  };
  const bool a_t = swaps_last_two(*expr.operands[0]);
  const bool b_t = swaps_last_two(*expr.operands[1]);
  const Expr& a = a_t ? *expr.operands[0]->operands[0] : *expr.operands[0];
  const Expr& b = b_t ? *expr.operands[1]->operands[0] : *expr.operands[1];
  const size_t rank_a = a.type.shape.size();
  const size_t rank_b = b.type.shape.size();
  // A batch of one on a target whose dots are 2-D: the batch dim is
  // reshaped away and back.
  const bool squeeze_batch = rank_a == 3 && rank_b == 3 && TwoDimDotsOnly() &&
                             a.type.shape[0] == Dim::Static(1) &&
                             b.type.shape[0] == Dim::Static(1);
  if (rank_a == 3 && TwoDimDotsOnly() && !squeeze_batch) {
    Fail(
        "a batched dot needs a batch block of 1 on this target (its dots "
        "are 2-D)");
    return "None";
  }
  std::string dims;
  if (squeeze_batch) {
    dims = fmt::format("((({},), ({},)), ((), ()))", a_t ? 0 : 1, b_t ? 1 : 0);
  } else if (rank_a == rank_b && (rank_a == 2 || rank_a == 3)) {
    const size_t batch = rank_a - 2;
    const size_t a_contract = a_t ? batch : batch + 1;
    const size_t b_contract = b_t ? batch + 1 : batch;
    dims = batch == 0 ? fmt::format("((({},), ({},)), ((), ()))", a_contract,
                                    b_contract)
                      : fmt::format("((({},), ({},)), ((0,), (0,)))",
                                    a_contract, b_contract);
  } else {
    Fail(
        fmt::format("dot of ranks {} and {} is not supported", rank_a, rank_b));
    return "None";
  }
  const DType result = expr.type.dtype;
  const std::string preferred = IsFloat(result) ? "jnp.float32" : "jnp.int32";
  std::string a_text =
      DotOperand(a, static_cast<int64_t>(rank_a) - (a_t ? 2 : 1));
  std::string b_text =
      DotOperand(b, static_cast<int64_t>(rank_b) - (b_t ? 1 : 2));
  if (squeeze_batch) {
    const auto unbatched = [&](const std::string& text, const Expr& operand) {
      const Shape& shape = operand.type.shape;
      return fmt::format("jnp.reshape({}, {})", text,
                         ShapeTuple(Shape(shape.begin() + 1, shape.end())));
    };
    a_text = unbatched(a_text, a);
    b_text = unbatched(b_text, b);
  }
  const DType common = PromoteDTypes(a.type.dtype, b.type.dtype);
  if (a.type.dtype != b.type.dtype) {
    // Mixed operands (f32 probabilities x bf16 values) meet in the
    // promoted dtype, as in PyTorch.
    if (a.type.dtype != common) {
      a_text = fmt::format("({}).astype({})", a_text, JnpDType(common));
    }
    if (b.type.dtype != common) {
      b_text = fmt::format("({}).astype({})", b_text, JnpDType(common));
    }
  }
  std::string text = fmt::format(
      "jax.lax.dot_general({}, {}, {}, preferred_element_type={}{})", a_text,
      b_text, dims, preferred, DotKeywords(common));
  if (JnpDType(result) != preferred) {
    text = fmt::format("{}.astype({})", text, JnpDType(result));
  }
  if (squeeze_batch) {
    text =
        fmt::format("jnp.reshape({}, {})", text, ShapeTuple(expr.type.shape));
  }
  if (expr.operands.size() == 3) {
    return fmt::format("({} + {})", Sub(*expr.operands[2]), text);
  }
  return text;
}

std::string ExprEmitter::Subscript(const Expr& expr) {
  // Mosaic cannot change the shape of a bool vector (a mask `valid[:, None]`
  // is "infer-vector-layout: unsupported shape cast"): reshape it as int32
  // and compare back.
  const Expr& base = *expr.operands[0];
  const bool bool_new_axis =
      base.type.is_tensor() && base.type.dtype == DType::kBool &&
      std::any_of(
          expr.indices.begin(), expr.indices.end(),
          [](const Index& index) { return index.kind == IndexKind::kNewAxis; });
  std::string text =
      (bool_new_axis ? fmt::format("{}.astype(jnp.int32)", Paren(Emit(base)))
                     : Sub(base)) +
      "[";
  for (size_t i = 0; i < expr.indices.size(); ++i) {
    if (i) text += ", ";
    const Index& index = expr.indices[i];
    switch (index.kind) {
      case IndexKind::kSlice:
        text += ":";
        break;
      case IndexKind::kNewAxis:
        text += "None";
        break;
      case IndexKind::kScalar:
        text += Emit(*index.expr);
        break;
      case IndexKind::kRange:
        text += fmt::format("{}:{} + {}", Sub(*index.expr), Sub(*index.expr),
                            index.size.is_static()
                                ? fmt::format("{}", index.size.size)
                                : DimSymbol(index.size.symbol));
        break;
      case IndexKind::kTile:
      case IndexKind::kShiftedTile:
        Fail("a tile index on a value (not a ref) is not supported");
        text += ":";
        break;
      case IndexKind::kGather:
        Fail("a gather from a value (not a ref) is not supported");
        text += ":";
        break;
    }
  }
  if (expr.indices.empty()) text += "...";
  if (bool_new_axis) return "(" + text + "] != 0)";
  return text + "]";
}

}  // namespace tessera::pallas
