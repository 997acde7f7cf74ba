// Result types of ops, following PyTorch semantics. The rules are listed in
// docs/ir.md ("Type inference"); keep the two in step.
#include "tessera/ir/type_inference.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "ir/scan_type.h"

namespace tessera {
namespace {

absl::Status Error(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

std::string OpName(OpKind op) { return std::string(OpInfoOf(op).name); }

std::string ShapeString(std::span<const Dim> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ", ";
    out += DimToString(shape[i]);
  }
  return out + "]";
}

bool IsValueType(const Type& type) {
  return type.is_scalar() || type.is_tensor();
}

absl::Status ExpectValue(OpKind op, const Type& type, int position) {
  if (IsValueType(type)) return absl::OkStatus();
  return Error(
      fmt::format("'{}' expects a scalar or tensor as operand {}, got {}",
                  OpName(op), position + 1, TypeToString(type)));
}

// The shape a value has for broadcasting: scalars are rank 0.
std::span<const Dim> ValueShape(const Type& type) {
  return type.is_tensor() ? std::span<const Dim>(type.shape)
                          : std::span<const Dim>();
}

// PyTorch's rule between a dimensioned operand and a scalar: the scalar only
// decides the dtype when it is of a higher category (bool < int < float).
DType PromoteOperands(const Type& a, const Type& b) {
  if (a.is_tensor() == b.is_tensor()) return PromoteDTypes(a.dtype, b.dtype);
  const Type& tensor = a.is_tensor() ? a : b;
  const Type& scalar = a.is_tensor() ? b : a;
  if (DTypeCategory(scalar.dtype) > DTypeCategory(tensor.dtype))
    return scalar.dtype;
  return tensor.dtype;
}

// Operand types seen through pointers, so inferring the type of an
// expression copies none of its operands' types (the printer and parser
// infer every op they meet).
class OperandTypes {
 public:
  // A scan of a 4-tuple: 4 inputs and 4 combine results.
  static constexpr size_t kMax = 8;
  void Add(const Type* type) { types_[size_++] = type; }
  size_t size() const { return size_; }
  const Type& operator[](size_t i) const { return *types_[i]; }
  std::span<const Type* const> all() const { return {types_.data(), size_}; }

 private:
  std::array<const Type*, kMax> types_{};
  size_t size_ = 0;
};

Type ValueOf(DType dtype, bool tensor, Shape shape) {
  return tensor ? Type::Tensor(dtype, std::move(shape)) : Type::Scalar(dtype);
}

// Required / optional attribute readers with clear messages.
template <typename T>
absl::StatusOr<T> TypedAttr(OpKind op, std::span<const Attr> attrs,
                            std::string_view name, std::string_view what) {
  const Attr* attr = FindAttr(attrs, name);
  if (attr == nullptr) {
    return Error(fmt::format("'{}' needs attribute '{}'", OpName(op), name));
  }
  if (const T* value = std::get_if<T>(&attr->value)) return *value;
  return Error(
      fmt::format("'{}' attribute '{}' must be {}", OpName(op), name, what));
}

absl::StatusOr<int64_t> IntAttr(OpKind op, std::span<const Attr> attrs,
                                std::string_view name) {
  return TypedAttr<int64_t>(op, attrs, name, "an integer");
}
absl::StatusOr<DType> DTypeAttr(OpKind op, std::span<const Attr> attrs,
                                std::string_view name) {
  return TypedAttr<DType>(op, attrs, name, "a dtype");
}

absl::StatusOr<Shape> ShapeAttr(OpKind op, std::span<const Attr> attrs) {
  const Attr* attr = FindAttr(attrs, "shape");
  if (attr == nullptr) {
    return Error(fmt::format("'{}' needs attribute 'shape'", OpName(op)));
  }
  if (const auto* dims = std::get_if<Shape>(&attr->value)) {
    for (const Dim& dim : *dims) {
      if (!dim.is_static() && dim.symbol.empty()) {
        return Error(fmt::format("'{}' shape has an unknown dim", OpName(op)));
      }
    }
    return *dims;
  }
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&attr->value)) {
    Shape dims;
    for (int64_t n : *ints) {
      if (n < 0) {
        return Error(
            fmt::format("'{}' shape has a negative dim {}", OpName(op), n));
      }
      dims.push_back(Dim::Static(n));
    }
    return dims;
  }
  return Error(
      fmt::format("'{}' attribute 'shape' must be a dim list", OpName(op)));
}

absl::StatusOr<int64_t> NormalizeDim(OpKind op, int64_t dim, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) {
    return Error(fmt::format("'{}' dim {} is out of range for rank {}",
                             OpName(op), dim, rank));
  }
  return dim < 0 ? dim + r : dim;
}

absl::StatusOr<Type> InferUnary(OpKind op, const Type& x) {
  if (auto status = ExpectValue(op, x, 0); !status.ok()) return status;
  DType dtype = x.dtype;
  switch (op) {
    case OpKind::kNot:
      dtype = DType::kBool;
      break;
    case OpKind::kNeg:
      if (dtype == DType::kBool) {
        return Error("'neg' is not defined for bool; use 'not'");
      }
      break;
    case OpKind::kAbs:
    case OpKind::kRelu:
      break;
    default:
      // Transcendental ops compute in floating point: integers and bools
      // become the default float dtype, as in PyTorch.
      if (!IsFloat(dtype)) dtype = DType::kF32;
      break;
  }
  return ValueOf(dtype, x.is_tensor(), x.shape);
}

absl::StatusOr<Type> InferBinary(OpKind op, const Type& a, const Type& b) {
  if (auto status = ExpectValue(op, a, 0); !status.ok()) return status;
  if (auto status = ExpectValue(op, b, 1); !status.ok()) return status;
  auto shape = BroadcastShapes(ValueShape(a), ValueShape(b));
  if (!shape.ok()) return shape.status();
  bool tensor = a.is_tensor() || b.is_tensor();
  OpCategory category = OpInfoOf(op).category;
  if (category == OpCategory::kCompare) {
    return ValueOf(DType::kBool, tensor, *std::move(shape));
  }
  DType dtype = PromoteOperands(a, b);
  switch (op) {
    case OpKind::kDiv:
      if (!IsFloat(dtype)) dtype = DType::kF32;
      break;
    case OpKind::kShl:
    case OpKind::kShr:
      if (!IsInteger(dtype)) {
        return Error(fmt::format("'{}' needs integer operands, got {}",
                                 OpName(op), DTypeName(dtype)));
      }
      break;
    case OpKind::kAnd:
    case OpKind::kOr:
    case OpKind::kXor:
      if (IsFloat(dtype)) {
        return Error(fmt::format("'{}' needs bool or integer operands, got {}",
                                 OpName(op), DTypeName(dtype)));
      }
      break;
    case OpKind::kCdiv:
      if (!IsInteger(a.dtype) || !IsInteger(b.dtype)) {
        return Error(fmt::format("'cdiv' needs integer operands, got {} and {}",
                                 TypeToString(a), TypeToString(b)));
      }
      break;
    default:
      if (dtype == DType::kBool &&
          (op == OpKind::kSub || op == OpKind::kFloorDiv ||
           op == OpKind::kMod)) {
        return Error(fmt::format("'{}' is not defined for bool", OpName(op)));
      }
      break;
  }
  return ValueOf(dtype, tensor, *std::move(shape));
}

absl::StatusOr<Type> InferWhere(const OperandTypes& types) {
  for (int i = 0; i < 3; ++i) {
    if (auto status = ExpectValue(OpKind::kWhere, types[i], i); !status.ok()) {
      return status;
    }
  }
  if (types[0].dtype != DType::kBool) {
    return Error(fmt::format("'where' condition must be bool, got {}",
                             TypeToString(types[0])));
  }
  auto shape = BroadcastShapes(ValueShape(types[1]), ValueShape(types[2]));
  if (!shape.ok()) return shape.status();
  shape = BroadcastShapes(ValueShape(types[0]), *shape);
  if (!shape.ok()) return shape.status();
  bool tensor =
      types[0].is_tensor() || types[1].is_tensor() || types[2].is_tensor();
  return ValueOf(PromoteOperands(types[1], types[2]), tensor,
                 *std::move(shape));
}

absl::StatusOr<Type> InferReduction(OpKind op, const Type& x,
                                    std::span<const Attr> attrs) {
  if (!x.is_tensor()) {
    return Error(fmt::format("'{}' expects a tensor, got {}", OpName(op),
                             TypeToString(x)));
  }
  bool keepdim = false;
  if (const Attr* attr = FindAttr(attrs, "keepdim")) {
    const bool* value = std::get_if<bool>(&attr->value);
    if (value == nullptr) {
      return Error(
          fmt::format("'{}' attribute 'keepdim' must be a bool", OpName(op)));
    }
    keepdim = *value;
  }
  // Inline storage: the parser, printer and verifier infer every reduction
  // they meet, and these are rarely longer than a few dims.
  absl::InlinedVector<bool, 8> reduced(x.shape.size(), false);
  if (const Attr* attr = FindAttr(attrs, "dim")) {
    std::span<const int64_t> dims;
    if (const int64_t* one = std::get_if<int64_t>(&attr->value)) {
      dims = std::span<const int64_t>(one, 1);
    } else if (const auto* list =
                   std::get_if<std::vector<int64_t>>(&attr->value)) {
      dims = *list;
    } else {
      return Error(
          fmt::format("'{}' attribute 'dim' must be an integer or integer list",
                      OpName(op)));
    }
    for (int64_t dim : dims) {
      auto normalized = NormalizeDim(op, dim, x.shape.size());
      if (!normalized.ok()) return normalized.status();
      if (reduced[*normalized]) {
        return Error(fmt::format("'{}' reduces dim {} twice", OpName(op), dim));
      }
      reduced[*normalized] = true;
    }
  } else {
    std::fill(reduced.begin(), reduced.end(), true);
  }
  Shape shape;
  shape.reserve(x.shape.size());
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!reduced[i]) {
      shape.push_back(x.shape[i]);
    } else if (keepdim) {
      shape.push_back(Dim::Static(1));
    }
  }
  DType dtype = x.dtype;
  if (op == OpKind::kSum && !IsFloat(dtype)) dtype = DType::kI64;
  if (op == OpKind::kMean && !IsFloat(dtype)) {
    return Error(fmt::format("'mean' needs a floating-point input, got {}",
                             TypeToString(x)));
  }
  return Type::Tensor(dtype, std::move(shape));
}

absl::StatusOr<Type> InferDot(const OperandTypes& types,
                              std::span<const Attr> attrs) {
  const Type& a = types[0];
  const Type& b = types[1];
  if (!a.is_tensor() || !b.is_tensor() || a.rank() < 2 || b.rank() < 2) {
    return Error(
        fmt::format("'dot' needs two tensors of rank >= 2, got {} and {}",
                    TypeToString(a), TypeToString(b)));
  }
  const Dim& k_a = a.shape[a.rank() - 1];
  const Dim& k_b = b.shape[b.rank() - 2];
  if (!(k_a == k_b)) {
    return Error(fmt::format(
        "'dot' contraction dims differ: {} has {} columns, {} has {} rows",
        TypeToString(a), DimToString(k_a), TypeToString(b), DimToString(k_b)));
  }
  auto batch =
      BroadcastShapes(std::span<const Dim>(a.shape).first(a.rank() - 2),
                      std::span<const Dim>(b.shape).first(b.rank() - 2));
  if (!batch.ok()) return batch.status();
  Shape shape = *std::move(batch);
  shape.reserve(shape.size() + 2);
  shape.push_back(a.shape[a.rank() - 2]);
  shape.push_back(b.shape[b.rank() - 1]);
  std::optional<DType> acc_dtype;
  if (const Attr* attr = FindAttr(attrs, "acc_dtype")) {
    const DType* value = std::get_if<DType>(&attr->value);
    if (value == nullptr) {
      return Error("'dot' attribute 'acc_dtype' must be a dtype");
    }
    acc_dtype = *value;
  }
  DType dtype = acc_dtype.value_or(PromoteDTypes(a.dtype, b.dtype));
  if (types.size() == 3) {
    const Type& acc = types[2];
    if (!acc.is_tensor() || acc.shape != shape) {
      return Error(
          fmt::format("'dot' accumulator must be a tensor of shape {}, got {}",
                      ShapeString(shape), TypeToString(acc)));
    }
    if (acc_dtype && *acc_dtype != acc.dtype) {
      return Error(fmt::format("'dot' accumulator is {} but acc_dtype is {}",
                               DTypeName(acc.dtype), DTypeName(*acc_dtype)));
    }
    dtype = acc.dtype;
  }
  return Type::Tensor(dtype, std::move(shape));
}

absl::StatusOr<Type> InferIndexed(OpKind op, const Type& base,
                                  std::span<const Index> indices) {
  static const Type kNoType;
  if (op == OpKind::kSliceView) {
    // A view keeps whole dims, ranges and new axes, and drops the dims an
    // integer picks: the same shape rule as a load, on the ref itself.
    if (!base.is_ref()) {
      return Error(fmt::format("'slice_view' expects a ref, got {}",
                               TypeToString(base)));
    }
    for (const Index& index : indices) {
      if (index.kind == IndexKind::kTile || index.kind == IndexKind::kGather ||
          index.kind == IndexKind::kShiftedTile) {
        return Error(
            "'slice_view' takes only ':', None, integer and range indices");
      }
    }
    auto shape = InferIndexed(OpKind::kLoad, base, indices);
    if (!shape.ok()) return shape.status();
    if (shape->is_scalar()) {
      return Error("'slice_view' must keep at least one dim");
    }
    return Type::Ref(base.dtype, shape->shape);
  }
  if (op == OpKind::kHostRead) {
    // One element of a ref, read by the host: a scalar index per dim.
    if (!base.is_ref()) {
      return Error(
          fmt::format("'host_read' expects a ref, got {}", TypeToString(base)));
    }
    if (indices.size() != base.shape.size()) {
      return Error(
          fmt::format("'host_read' needs one index per dim of {}, got {}",
                      TypeToString(base), indices.size()));
    }
    for (size_t i = 0; i < indices.size(); ++i) {
      const Index& index = indices[i];
      if (index.kind != IndexKind::kScalar || index.expr == nullptr ||
          !index.expr->type.is_scalar() || !IsInteger(index.expr->type.dtype)) {
        return Error(
            fmt::format("'host_read' index {} must be an integer scalar", i));
      }
    }
    return Type::Scalar(base.dtype);
  }
  bool is_load = op == OpKind::kLoad;
  if (is_load ? !base.is_ref() : !base.is_tensor()) {
    return Error(fmt::format("'{}' expects a {}, got {}", OpName(op),
                             is_load ? "ref" : "tensor", TypeToString(base)));
  }
  Shape shape;
  // New axes add dims, scalar indices drop them: this bound is never
  // exceeded, so the shape is allocated once.
  shape.reserve(base.shape.size() + indices.size());
  size_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Index& index = indices[i];
    const Type& index_type = index.expr ? index.expr->type : kNoType;
    if (index.kind == IndexKind::kNewAxis) {
      shape.push_back(Dim::Static(1));
      continue;
    }
    if (dim >= base.shape.size()) {
      return Error(fmt::format("too many indices for {}: {} dims",
                               TypeToString(base), base.shape.size()));
    }
    switch (index.kind) {
      case IndexKind::kSlice:
        shape.push_back(base.shape[dim]);
        break;
      case IndexKind::kTile:
        if (!is_load) {
          return Error("'subscript' takes only ':', None and integer indices");
        }
        if (!index_type.is_tile() || index_type.shape.size() != 1) {
          return Error(fmt::format("index {} must be a tile, got {}", i,
                                   TypeToString(index_type)));
        }
        shape.push_back(index_type.shape[0]);
        break;
      case IndexKind::kGather:
      case IndexKind::kShiftedTile:
        if (!is_load) {
          return Error("'subscript' takes only ':', None and integer indices");
        }
        if (!index_type.is_tensor() || index_type.shape.size() != 1 ||
            !IsInteger(index_type.dtype)) {
          return Error(fmt::format(
              "{} index {} must be {}, got {}",
              index.kind == IndexKind::kGather ? "gather" : "shifted", i,
              index.kind == IndexKind::kGather
                  ? "a rank-1 integer tensor"
                  : "a shifted tile index (i32[block])",
              TypeToString(index_type)));
        }
        // Side-by-side gathers zip, as PyTorch's advanced indexing does:
        // element i reads (a[i], b[i]), one result dim for both.
        if (index.kind == IndexKind::kGather && i > 0 &&
            indices[i - 1].kind == IndexKind::kGather) {
          if (!(shape.back() == index_type.shape[0])) {
            return Error(fmt::format(
                "gather indices {} and {} must have the same length to be "
                "zipped, got {} and {}",
                i - 1, i, TypeToString(indices[i - 1].expr->type),
                TypeToString(index_type)));
          }
          break;
        }
        shape.push_back(index_type.shape[0]);
        break;
      case IndexKind::kScalar:
      case IndexKind::kRange:
        if (!index_type.is_scalar() || !IsInteger(index_type.dtype)) {
          return Error(fmt::format("index {} must be an integer scalar, got {}",
                                   i, TypeToString(index_type)));
        }
        if (index.kind == IndexKind::kRange) {
          if (!is_load) {
            return Error(
                "'subscript' takes only ':', None and integer indices");
          }
          if (!index.size.is_static() && index.size.symbol.empty()) {
            return Error(fmt::format("range index {} has no size", i));
          }
          shape.push_back(index.size);
        }
        break;
      case IndexKind::kNewAxis:
        break;
    }
    ++dim;
  }
  for (; dim < base.shape.size(); ++dim) shape.push_back(base.shape[dim]);
  // A load of one element (every dim indexed by a scalar) is a scalar: it
  // can bound loops, index other refs and decide an `if`, as in PyTorch.
  if (is_load && shape.empty()) return Type::Scalar(base.dtype);
  return Type::Tensor(base.dtype, std::move(shape));
}

absl::StatusOr<Type> InferHost(OpKind op, const OperandTypes& types,
                               std::span<const Attr> attrs) {
  switch (op) {
    case OpKind::kSize: {
      const Type& x = types[0];
      if (!x.is_ref() && !x.is_tensor()) {
        return Error(fmt::format("'size' expects a ref or tensor, got {}",
                                 TypeToString(x)));
      }
      auto dim = IntAttr(op, attrs, "dim");
      if (!dim.ok()) return dim.status();
      auto normalized = NormalizeDim(op, *dim, x.shape.size());
      if (!normalized.ok()) return normalized.status();
      return Type::Scalar(DType::kI64);
    }
    case OpKind::kEmpty:
    case OpKind::kAllocFull:
    case OpKind::kScratch:
    case OpKind::kFull: {
      auto shape = ShapeAttr(op, attrs);
      if (!shape.ok()) return shape.status();
      auto dtype = DTypeAttr(op, attrs, "dtype");
      if (!dtype.ok()) return dtype.status();
      if (op == OpKind::kAllocFull || op == OpKind::kFull) {
        const Attr* value = FindAttr(attrs, "value");
        if (value == nullptr ||
            !(std::holds_alternative<bool>(value->value) ||
              std::holds_alternative<int64_t>(value->value) ||
              std::holds_alternative<double>(value->value))) {
          return Error(
              fmt::format("'{}' needs a scalar attribute 'value'", OpName(op)));
        }
      }
      // An accumulator scratch names the ref parameter it stands for.
      if (op == OpKind::kScratch) {
        const Attr* accumulates = FindAttr(attrs, "accumulates");
        if (accumulates != nullptr &&
            !std::holds_alternative<std::string>(accumulates->value)) {
          return Error("'scratch' attribute 'accumulates' must be a string");
        }
      }
      if (op == OpKind::kFull) return Type::Tensor(*dtype, *std::move(shape));
      return Type::Ref(*dtype, *std::move(shape));
    }
    case OpKind::kReshape: {
      const Type& x = types[0];
      if (!x.is_ref() && !x.is_tensor()) {
        return Error(fmt::format("'reshape' expects a ref or tensor, got {}",
                                 TypeToString(x)));
      }
      auto shape = ShapeAttr(op, attrs);
      if (!shape.ok()) return shape.status();
      // nullopt: a symbolic dim, or a count past int64 (not checked).
      auto static_count = [](const Shape& dims) -> std::optional<int64_t> {
        int64_t count = 1;
        for (const Dim& dim : dims) {
          if (!dim.is_static() ||
              __builtin_mul_overflow(count, dim.size, &count)) {
            return std::nullopt;
          }
        }
        return count;
      };
      auto from = static_count(x.shape);
      auto to = static_count(*shape);
      if (from && to && *from != *to) {
        return Error(fmt::format("cannot reshape {} ({} elements) to {}",
                                 TypeToString(x), *from, ShapeString(*shape)));
      }
      return Type{x.kind, x.dtype, *std::move(shape)};
    }
    case OpKind::kTranspose: {
      const Type& x = types[0];
      if (!x.is_ref() && !x.is_tensor()) {
        return Error(fmt::format("'transpose' expects a ref or tensor, got {}",
                                 TypeToString(x)));
      }
      const auto* perm = GetAttr<std::vector<int64_t>>(attrs, "perm");
      if (perm == nullptr) {
        return Error("'transpose' needs an integer list attribute 'perm'");
      }
      if (perm->size() != x.shape.size()) {
        return Error(fmt::format("'transpose' perm has {} entries for rank {}",
                                 perm->size(), x.shape.size()));
      }
      std::vector<bool> seen(x.shape.size(), false);
      Shape shape;
      for (int64_t axis : *perm) {
        if (axis < 0 || axis >= static_cast<int64_t>(x.shape.size()) ||
            seen[axis]) {
          return Error("'transpose' perm is not a permutation");
        }
        seen[axis] = true;
        shape.push_back(x.shape[axis]);
      }
      return Type{x.kind, x.dtype, std::move(shape)};
    }
    default:
      break;
  }
  return Error(fmt::format("no type rule for '{}'", OpName(op)));
}

absl::StatusOr<Type> InferConstruct(OpKind op, const OperandTypes& types,
                                    std::span<const Attr> attrs) {
  switch (op) {
    case OpKind::kCast: {
      const bool ref = types[0].is_ref();  // on the host: a whole array
      if (auto status = ExpectValue(op, types[0], 0); !ref && !status.ok()) {
        return status;
      }
      auto dtype = DTypeAttr(op, attrs, "dtype");
      if (!dtype.ok()) return dtype.status();
      return ref ? Type::Ref(*dtype, types[0].shape)
                 : ValueOf(*dtype, types[0].is_tensor(), types[0].shape);
    }
    case OpKind::kBroadcastTo: {
      // A ref too: a host view (broadcast_tensors of kernel arguments).
      const bool ref = types[0].is_ref();
      if (auto status = ExpectValue(op, types[0], 0); !ref && !status.ok()) {
        return status;
      }
      auto shape = ShapeAttr(op, attrs);
      if (!shape.ok()) return shape.status();
      auto result =
          BroadcastShapes(ref ? types[0].shape : ValueShape(types[0]), *shape);
      if (!result.ok() || *result != *shape) {
        return Error(fmt::format("cannot broadcast {} to {}",
                                 TypeToString(types[0]), ShapeString(*shape)));
      }
      return ref ? Type::Ref(types[0].dtype, *std::move(shape))
                 : Type::Tensor(types[0].dtype, *std::move(shape));
    }
    case OpKind::kArange: {
      // A compile-time length: an iota is a register value (a block).
      auto size = IntAttr(op, attrs, "size");
      if (!size.ok()) return size.status();
      if (*size < 1) return Error("'arange' size must be >= 1");
      return Type::Tensor(DType::kI32, {Dim::Static(*size)});
    }
    case OpKind::kRepeatLanes: {
      const Type& x = types[0];
      if (!x.is_tensor() || x.shape.empty()) {
        return Error(
            fmt::format("'repeat_lanes' expects a tensor of rank >= 1, "
                        "got {}",
                        TypeToString(x)));
      }
      auto reps = IntAttr(op, attrs, "reps");
      if (!reps.ok()) return reps.status();
      if (*reps < 1) return Error("'repeat_lanes' reps must be >= 1");
      Shape shape = x.shape;
      Dim& last = shape.back();
      if (*reps != 1) {
        if (!last.is_static()) {
          return Error(
              fmt::format("'repeat_lanes' needs a static last dim, got {}",
                          TypeToString(x)));
        }
        last = Dim::Static(last.size * *reps);
      }
      return Type::Tensor(x.dtype, std::move(shape));
    }
    default:
      break;
  }
  return Error(fmt::format("no type rule for '{}'", OpName(op)));
}

}  // namespace

absl::StatusOr<Shape> BroadcastShapes(std::span<const Dim> a,
                                      std::span<const Dim> b) {
  // Fast paths for the common cases (same shape, or a scalar operand): the
  // printer and parser infer every op they meet.
  if (b.empty() || std::equal(a.begin(), a.end(), b.begin(), b.end())) {
    return Shape(a.begin(), a.end());
  }
  if (a.empty()) return Shape(b.begin(), b.end());
  // Align from the right, as PyTorch does; a missing leading dim is 1.
  const size_t rank = std::max(a.size(), b.size());
  const size_t a_pad = rank - a.size();
  const size_t b_pad = rank - b.size();
  auto is_one = [](const Dim& dim) { return dim.is_static() && dim.size == 1; };
  Shape result;
  result.reserve(rank);
  for (size_t i = 0; i < rank; ++i) {
    const Dim* da = i < a_pad ? nullptr : &a[i - a_pad];
    const Dim* db = i < b_pad ? nullptr : &b[i - b_pad];
    if (da == nullptr || (db != nullptr && is_one(*da))) {
      result.push_back(*db);
    } else if (db == nullptr || is_one(*db) || *da == *db) {
      result.push_back(*da);
    } else {
      return Error(fmt::format("cannot broadcast {} with {}", ShapeString(a),
                               ShapeString(b)));
    }
  }
  return result;
}

namespace {

absl::StatusOr<Type> Infer(OpKind op, const OperandTypes& operand_types,
                           std::span<const Index> indices,
                           std::span<const Attr> attrs) {
  const OpInfo& info = OpInfoOf(op);
  int count = static_cast<int>(operand_types.size());
  if (count < info.min_operands ||
      (info.max_operands >= 0 && count > info.max_operands)) {
    if (info.min_operands == info.max_operands) {
      return Error(fmt::format("'{}' takes {} operand{}, got {}", info.name,
                               info.min_operands,
                               info.min_operands == 1 ? "" : "s", count));
    }
    return Error(fmt::format("'{}' takes {} to {} operands, got {}", info.name,
                             info.min_operands, info.max_operands, count));
  }
  if (!info.has_indices && !indices.empty()) {
    return Error(fmt::format("'{}' takes no indices", info.name));
  }
  for (size_t i = 0; i < operand_types.size(); ++i) {
    if (operand_types[i].is_none()) {
      return Error(fmt::format("'{}' has an operand of type none", info.name));
    }
  }
  switch (info.category) {
    case OpCategory::kLeaf:
      if (op == OpKind::kConst) {
        const Attr* value = FindAttr(attrs, "value");
        if (value == nullptr) return Error("'const' needs attribute 'value'");
        if (std::holds_alternative<bool>(value->value)) {
          return Type::Scalar(DType::kBool);
        }
        if (std::holds_alternative<int64_t>(value->value)) {
          return Type::Scalar(DType::kI64);
        }
        if (std::holds_alternative<double>(value->value)) {
          return Type::Scalar(DType::kF32);
        }
        return Error("'const' value must be a bool, integer or float");
      }
      return Error("the type of a value reference comes from its definition");
    case OpCategory::kHost:
      return InferHost(op, operand_types, attrs);
    case OpCategory::kMemory:
      // Index operand types travel in the index expressions.
      return InferIndexed(op, operand_types[0], indices);
    case OpCategory::kTile: {
      const Type& tile = operand_types[0];
      if (!tile.is_tile() || tile.shape.size() != 1) {
        return Error(fmt::format("'{}' expects a tile, got {}", info.name,
                                 TypeToString(tile)));
      }
      if (op == OpKind::kTileIndex) {
        return Type::Tensor(DType::kI32, {tile.shape[0]});
      }
      return Type::Scalar(DType::kI64);
    }
    case OpCategory::kUnary:
      return InferUnary(op, operand_types[0]);
    case OpCategory::kBinary:
    case OpCategory::kCompare:
      return InferBinary(op, operand_types[0], operand_types[1]);
    case OpCategory::kSelect:
      return InferWhere(operand_types);
    case OpCategory::kReduction:
      return InferReduction(op, operand_types[0], attrs);
    case OpCategory::kContraction:
      return InferDot(operand_types, attrs);
    case OpCategory::kConstruct:
      if (op == OpKind::kFull) return InferHost(op, operand_types, attrs);
      return InferConstruct(op, operand_types, attrs);
    case OpCategory::kDevice:
      if (op == OpKind::kScratch) return InferHost(op, operand_types, attrs);
      {
        auto axis = IntAttr(op, attrs, "axis");
        if (!axis.ok()) return axis.status();
        if (*axis < 0) {
          return Error(fmt::format("'{}' axis must be >= 0", info.name));
        }
        return Type::Scalar(DType::kI32);
      }
    case OpCategory::kScan:
      return internal::InferScanType(op, operand_types.all(), attrs);
  }
  return Error(fmt::format("no type rule for '{}'", info.name));
}

}  // namespace

absl::StatusOr<Type> InferType(OpKind op, std::span<const Type> operand_types,
                               std::span<const Index> indices,
                               std::span<const Attr> attrs) {
  if (operand_types.size() > OperandTypes::kMax) {
    return Error(fmt::format("'{}' takes at most {} operands, got {}",
                             OpInfoOf(op).name, OpInfoOf(op).max_operands,
                             operand_types.size()));
  }
  OperandTypes types;
  for (const Type& type : operand_types) types.Add(&type);
  return Infer(op, types, indices, attrs);
}

absl::StatusOr<Type> InferType(const Expr& expr) {
  if (expr.op == OpKind::kVar) return expr.type;
  const OpInfo& info = OpInfoOf(expr.op);
  if (expr.operands.size() > OperandTypes::kMax) {
    return Error(fmt::format("'{}' takes at most {} operands, got {}",
                             info.name, info.max_operands,
                             expr.operands.size()));
  }
  OperandTypes types;
  for (const ExprPtr& operand : expr.operands) {
    if (!operand) {
      return Error(fmt::format("'{}' has a missing operand", info.name));
    }
    types.Add(&operand->type);
  }
  return Infer(expr.op, types, expr.indices, expr.attrs);
}

}  // namespace tessera
