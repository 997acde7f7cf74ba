#include "tessera/ir/types.h"

#include <array>
#include <cstring>

namespace tessera {
namespace {

constexpr std::array<std::string_view, 10> kDTypeNames = {
    "bool", "i8",   "i16", "i32",    "i64",
    "f16",  "bf16", "f32", "f8e4m3", "f8e5m2"};

}  // namespace

int DTypeCategory(DType dtype) {
  if (dtype == DType::kBool) return 0;
  return IsFloat(dtype) ? 2 : 1;
}

std::string_view DTypeName(DType dtype) {
  size_t index = static_cast<size_t>(dtype);
  return index < kDTypeNames.size() ? kDTypeNames[index] : "?";
}

// Called for every type and many identifiers the parser meets: a dispatch
// on the first character and the length instead of a chain of compares.
std::optional<DType> ParseDType(std::string_view name) {
  const size_t size = name.size();
  if (size == 6 && name[0] == 'f' && name[1] == '8') {
    if (name == "f8e4m3") return DType::kF8E4M3;
    if (name == "f8e5m2") return DType::kF8E5M2;
    return std::nullopt;
  }
  if (size < 2 || size > 4) return std::nullopt;
  auto rest_is = [&](std::string_view rest) { return name.substr(1) == rest; };
  switch (name[0]) {
    case 'i':
      if (size == 2 && name[1] == '8') return DType::kI8;
      if (size != 3) return std::nullopt;
      if (rest_is("16")) return DType::kI16;
      if (rest_is("32")) return DType::kI32;
      if (rest_is("64")) return DType::kI64;
      return std::nullopt;
    case 'f':
      if (size != 3) return std::nullopt;
      if (rest_is("32")) return DType::kF32;
      if (rest_is("16")) return DType::kF16;
      return std::nullopt;
    case 'b':
      if (name == "bf16") return DType::kBF16;
      if (name == "bool") return DType::kBool;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

int DTypeBytes(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kI8:
    case DType::kF8E4M3:
    case DType::kF8E5M2:
      return 1;
    case DType::kI16:
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kI32:
    case DType::kF32:
      return 4;
    case DType::kI64:
      return 8;
  }
  return 4;
}

bool IsFloat(DType dtype) {
  return dtype == DType::kF16 || dtype == DType::kBF16 ||
         dtype == DType::kF32 || dtype == DType::kF8E4M3 ||
         dtype == DType::kF8E5M2;
}

bool IsInteger(DType dtype) {
  return dtype == DType::kI8 || dtype == DType::kI16 || dtype == DType::kI32 ||
         dtype == DType::kI64;
}

DType PromoteDTypes(DType a, DType b) {
  if (a == b) return a;
  int category_a = DTypeCategory(a);
  int category_b = DTypeCategory(b);
  if (category_a != category_b) return category_a > category_b ? a : b;
  // Same category, different dtypes: the wider one; the two 16-bit floats
  // have no common 16-bit type, so they meet at f32.
  if ((a == DType::kF16 && b == DType::kBF16) ||
      (a == DType::kBF16 && b == DType::kF16)) {
    return DType::kF32;
  }
  // The two fp8 formats have no common 8-bit type either (PyTorch refuses
  // to promote them; computing in f32 is exact for both).
  if (DTypeBytes(a) == 1 && DTypeBytes(b) == 1) return DType::kF32;
  return DTypeBytes(a) >= DTypeBytes(b) ? a : b;
}

std::string DimToString(const Dim& dim) {
  if (dim.is_static()) return std::to_string(dim.size);
  return dim.symbol.empty() ? "?" : dim.symbol;
}

namespace {
// Dim equality written out: most dims are static with empty symbols, and
// std::string's operator== would still call memcmp for them. The printer
// and verifier compare types for every value they see.
bool SameShape(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size != b[i].size) return false;
    const std::string& x = a[i].symbol;
    const std::string& y = b[i].symbol;
    if (x.size() != y.size()) return false;
    if (!x.empty() && std::memcmp(x.data(), y.data(), x.size()) != 0) {
      return false;
    }
  }
  return true;
}
}  // namespace

bool operator==(const Type& a, const Type& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case TypeKind::kNone:
      return true;
    case TypeKind::kScalar:
      return a.dtype == b.dtype;
    case TypeKind::kTile:
      return SameShape(a.shape, b.shape);
    case TypeKind::kTensor:
    case TypeKind::kRef:
      return a.dtype == b.dtype && SameShape(a.shape, b.shape);
  }
  return false;
}

namespace {

std::string ShapeToString(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ", ";
    out += DimToString(shape[i]);
  }
  out += ']';
  return out;
}

}  // namespace

std::string TypeToString(const Type& type) {
  switch (type.kind) {
    case TypeKind::kNone:
      return "none";
    case TypeKind::kScalar:
      return std::string(DTypeName(type.dtype));
    case TypeKind::kTensor:
      return std::string(DTypeName(type.dtype)) + ShapeToString(type.shape);
    case TypeKind::kRef:
      return "ref<" + std::string(DTypeName(type.dtype)) +
             ShapeToString(type.shape) + ">";
    case TypeKind::kTile:
      return "tile<" +
             (type.shape.empty() ? std::string("?")
                                 : DimToString(type.shape[0])) +
             ">";
  }
  return "none";
}

}  // namespace tessera
