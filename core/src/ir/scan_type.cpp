// Result types of `scan` and `scan_arg`. The combine function of a scan is
// elementwise, so its results are scalars of the scanned members' dtypes:
// the backend applies it to whole blocks at once.
#include "ir/scan_type.h"

#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace tessera::internal {
namespace {

absl::Status Error(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

absl::StatusOr<int64_t> RequiredInt(std::string_view op,
                                    std::span<const Attr> attrs,
                                    std::string_view name) {
  const Attr* attr = FindAttr(attrs, name);
  if (attr == nullptr) {
    return Error(fmt::format("'{}' needs attribute '{}'", op, name));
  }
  if (const int64_t* value = std::get_if<int64_t>(&attr->value)) return *value;
  return Error(fmt::format("'{}' attribute '{}' must be an integer", op, name));
}

absl::StatusOr<Type> InferScanArg(std::span<const Attr> attrs) {
  auto index = RequiredInt("scan_arg", attrs, "index");
  if (!index.ok()) return index.status();
  if (*index < 0) return Error("'scan_arg' index must be >= 0");
  const DType* dtype = GetAttr<DType>(attrs, "dtype");
  if (dtype == nullptr) {
    return Error("'scan_arg' needs a dtype attribute 'dtype'");
  }
  return Type::Scalar(*dtype);
}

}  // namespace

absl::StatusOr<Type> InferScanType(OpKind op,
                                   std::span<const Type* const> types,
                                   std::span<const Attr> attrs) {
  if (op == OpKind::kScanArg) return InferScanArg(attrs);
  if (types.size() % 2 != 0) {
    return Error(fmt::format(
        "'scan' takes k inputs and k combine results, got {} operands",
        types.size()));
  }
  const size_t k = types.size() / 2;
  const Type& first = *types[0];
  if (!first.is_tensor() || first.shape.empty()) {
    return Error(
        fmt::format("'scan' input 1 must be a tensor of rank >= 1, "
                    "got {}",
                    TypeToString(first)));
  }
  for (size_t j = 0; j < k; ++j) {
    const Type& input = *types[j];
    if (!input.is_tensor() || input.shape != first.shape) {
      return Error(fmt::format(
          "'scan' inputs must be tensors of one shape, got {} and {}",
          TypeToString(first), TypeToString(input)));
    }
    const Type& combined = *types[k + j];
    if (!combined.is_scalar() || combined.dtype != input.dtype) {
      return Error(fmt::format(
          "'scan' combine result {} must be a scalar {} (the dtype of input "
          "{}), got {}",
          j + 1, DTypeName(input.dtype), j + 1, TypeToString(combined)));
    }
  }
  auto dim = RequiredInt("scan", attrs, "dim");
  if (!dim.ok()) return dim.status();
  const int64_t rank = static_cast<int64_t>(first.shape.size());
  if (*dim < 0 || *dim >= rank) {
    return Error(
        fmt::format("'scan' dim {} is out of range for rank {}", *dim, rank));
  }
  const Attr* reverse = FindAttr(attrs, "reverse");
  if (reverse != nullptr && !std::holds_alternative<bool>(reverse->value)) {
    return Error("'scan' attribute 'reverse' must be a bool");
  }
  auto result = RequiredInt("scan", attrs, "result");
  if (!result.ok()) return result.status();
  if (*result < 0 || *result >= static_cast<int64_t>(k)) {
    return Error(fmt::format("'scan' result {} is out of range for {} input{}",
                             *result, k, k == 1 ? "" : "s"));
  }
  return *types[*result];
}

}  // namespace tessera::internal
