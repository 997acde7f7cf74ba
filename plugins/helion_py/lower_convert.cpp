// Conversions between Python values and IR: typed ops, constants with
// PyTorch promotion, sizes and shapes, dtypes, named refs.
#include <cmath>
#include <limits>

#include "fmt/format.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {

Val KernelLowering::MakeTyped(OpKind op, ExprList operands, AttrList attrs,
                              SourceLoc loc, IndexList indices) {
  std::vector<Type> types;
  types.reserve(operands.size());
  for (const ExprPtr& operand : operands) {
    if (!operand) return Val::Poison();
    types.push_back(operand->type);
  }
  absl::StatusOr<Type> type = InferType(op, types, indices, attrs);
  if (!type.ok()) {
    // Dims the op forces equal become one symbol for the next pass (and a
    // host check); this pass still fails here.
    std::vector<Type> forced = types;
    if (const Shape* target = GetAttr<Shape>(attrs, "shape");
        target && op == OpKind::kBroadcastTo && !types.empty()) {
      forced.push_back(Type::Tensor(types[0].dtype, *target));
    }
    UnifyOperandShapes(op, forced, loc);
    return Fail(loc, std::string(type.status().message()));
  }
  ExprPtr expr =
      MakeOp(op, *std::move(type), std::move(operands), std::move(attrs), loc);
  expr->indices = std::move(indices);
  return Val::Value(std::move(expr));
}

ExprPtr KernelLowering::ToExpr(const Val& value, const Type* peer,
                               SourceLoc loc) {
  // A Python number next to a scalar takes the scalar's dtype when of the
  // same kind (as PyTorch treats Python scalars); next to a tensor the
  // default dtypes already promote correctly.
  std::optional<DType> peer_dtype;
  if (peer && (peer->is_scalar() || peer->is_tensor()))
    peer_dtype = peer->dtype;
  switch (value.kind) {
    case ValKind::kValue:
      if (value.type().is_tile() || value.type().is_none()) break;
      return CloneExpr(*value.expr);
    case ValKind::kInt: {
      DType dtype = DType::kI64;
      if (peer && peer->is_scalar() && peer_dtype &&
          *peer_dtype != DType::kBool) {
        dtype = *peer_dtype;
      }
      if (IsFloat(dtype))
        return MakeFloatConst(static_cast<double>(value.i), dtype, loc);
      return MakeIntConst(value.i, dtype, loc);
    }
    case ValKind::kFloat: {
      DType dtype = DType::kF32;
      if (peer && peer->is_scalar() && peer_dtype && IsFloat(*peer_dtype)) {
        dtype = *peer_dtype;
      }
      return MakeFloatConst(value.f, dtype, loc);
    }
    case ValKind::kBool:
      return MakeBoolConst(value.b, loc);
    case ValKind::kPoison:
      return nullptr;
    case ValKind::kTile:
      Fail(loc,
           "a tile is not a value; use tile.index, tile.begin or tile.end");
      return nullptr;
    default:
      break;
  }
  Fail(loc,
       fmt::format("expected a number or tensor, got {}", Describe(value)));
  return nullptr;
}

ExprPtr KernelLowering::ToIndexExpr(const Val& value, SourceLoc loc) {
  if (value.kind == ValKind::kInt)
    return MakeIntConst(value.i, DType::kI64, loc);
  if (value.kind == ValKind::kPoison) return nullptr;
  if (value.IsScalar() && IsInteger(value.type().dtype)) {
    ExprPtr expr = CloneExpr(*value.expr);
    if (value.type().dtype != DType::kI64) {
      return MakeOp(
          OpKind::kCast, Type::Scalar(DType::kI64),
          [&] {
            ExprList v;
            v.push_back(std::move(expr));
            return v;
          }(),
          {Attr{"dtype", DType::kI64}}, loc);
    }
    return expr;
  }
  // `nnz.amax()` over a rows tile of one row (lower_jagged_rows.cpp).
  if (value.IsTensor() && value.type().rank() == 0 &&
      IsInteger(value.type().dtype)) {
    if (ExprPtr scalar = RowScalar(*value.expr)) {
      return ToIndexExpr(Val::Value(std::move(scalar)), loc);
    }
  }
  Fail(loc, fmt::format("expected an integer size, got {}", Describe(value)));
  return nullptr;
}

Val KernelLowering::DimVal(const Dim& dim) {
  if (dim.is_static()) return Val::Int(dim.size);
  return Val::Value(MakeVar(dim.symbol, Type::Scalar(DType::kI64)), true);
}

std::optional<Dim> KernelLowering::ToDim(const Val& value, SourceLoc loc) {
  switch (value.kind) {
    case ValKind::kInt:
      if (value.i < 0) break;
      return Dim::Static(value.i);
    case ValKind::kTile:
      return Dim::Static(value.tile.block);
    case ValKind::kPoison:
      return std::nullopt;
    case ValKind::kValue: {
      if (!value.IsScalar() || !IsInteger(value.type().dtype)) break;
      if (value.expr->op == OpKind::kVar) return Dim::Symbol(value.expr->name);
      std::string name = Fresh("size");
      if (in_device()) device_symbols_.insert(name);
      ExprPtr expr = ToIndexExpr(value, loc);
      if (!expr) return std::nullopt;
      Emit(MakeAssign(Value{name, Type::Scalar(DType::kI64)}, std::move(expr),
                      loc));
      // A previous lowering found this size equal to a parameter's dim
      // (UnifyDims): the region takes that dim.
      return Substitute(Dim::Symbol(name), aliases_);
    }
    default:
      break;
  }
  Fail(loc, fmt::format("expected a size (an int, a size of a tensor or a "
                        "tile), got {}",
                        Describe(value)));
  return std::nullopt;
}

std::optional<Shape> KernelLowering::ToShape(const Val& value, SourceLoc loc) {
  Shape shape;
  if (value.kind == ValKind::kTuple) {
    for (const Val& elem : value.elems) {
      std::optional<Dim> dim = ToDim(elem, loc);
      if (!dim) return std::nullopt;
      shape.push_back(*dim);
    }
    return shape;
  }
  std::optional<Dim> dim = ToDim(value, loc);
  if (!dim) return std::nullopt;
  shape.push_back(*dim);
  return shape;
}

std::optional<DType> KernelLowering::ToDType(const Val& value, SourceLoc loc) {
  if (value.kind == ValKind::kDType) return value.dtype;
  if (value.kind == ValKind::kPoison) return std::nullopt;
  if (value.kind == ValKind::kModule &&
      value.text.starts_with("torch.float8_")) {
    Diagnostic* d = Report(loc, fmt::format("{} is not supported", value.text));
    Note(d, "the fp8 dtypes are torch.float8_e4m3fn and torch.float8_e5m2");
    return std::nullopt;
  }
  if (value.kind == ValKind::kModule &&
      (value.text == "torch.float64" || value.text == "torch.double")) {
    Fail(loc, "float64 is not supported on TPU; use torch.float32");
    return std::nullopt;
  }
  Fail(loc, fmt::format("expected a torch dtype, got {}", Describe(value)));
  return std::nullopt;
}

Val KernelLowering::MaterializeRef(Val value, const std::string& hint,
                                   SourceLoc loc) {
  if (!value.IsValue() || value.expr->op == OpKind::kVar) return value;
  std::string name = Fresh(hint);
  Type type = value.type();
  // The statement stands where its expression was written, so that a
  // backend that rejects it points there (`y.T[tm, tn]` in device code).
  if (!loc.known()) loc = value.expr->loc;
  Emit(MakeAssign(Value{name, type}, std::move(value.expr), loc));
  return Val::Value(MakeVar(name, type));
}

}  // namespace tessera::helion_py
