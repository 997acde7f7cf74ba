// Types of the Tessera IR.
//
//   scalar   i64, f32, bf16, ...                 a single value
//   tensor   f32[64, 128], bf16[bm, d]            a value (registers / on-chip
//   memory) ref      ref<f32[m, n]>                       an addressable tensor
//   in
//                                                  memory (kernel arguments,
//                                                  host allocations, views,
//                                                  device scratch)
//   tile     tile<64>                             a tile of one loop dim,
//                                                  bound by a tile loop; the
//                                                  dim is its block size
//
// A Dim is either static (>= 0) or symbolic: it names a scalar value in scope
// (a size query like `m`, a block size like `block_k`). Passes that rename
// values must rename the symbols inside types too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/node_memory.h"

namespace tessera {

enum class DType : uint8_t {
  kBool,
  kI8,
  kI16,
  kI32,
  kI64,
  kF16,
  kBF16,
  kF32,
  kF8E4M3,  // float8_e4m3fn (torch / jnp): 4 exponent bits, no infinities
  kF8E5M2,  // float8_e5m2
};

// "f32", "bf16", ...; the spelling used by the text format and the CLI.
std::string_view DTypeName(DType dtype);
std::optional<DType> ParseDType(std::string_view name);
// Size of one element in bytes (bool is 1).
int DTypeBytes(DType dtype);
bool IsFloat(DType dtype);
bool IsInteger(DType dtype);  // i8..i64 (not bool)
// The PyTorch category order: bool 0 < integers 1 < floats 2.
int DTypeCategory(DType dtype);
// PyTorch-style promotion of two tensor dtypes (float beats int, wider
// beats narrower, f16 + bf16 -> f32).
DType PromoteDTypes(DType a, DType b);

struct Dim {
  static constexpr int64_t kSymbolic = -1;

  int64_t size = kSymbolic;  // >= 0 when static
  std::string symbol;        // the value a symbolic dim names

  static Dim Static(int64_t n) { return Dim{n, {}}; }
  static Dim Symbol(std::string name) {
    return Dim{kSymbolic, std::move(name)};
  }
  bool is_static() const { return size >= 0; }

  friend bool operator==(const Dim& a, const Dim& b) {
    return a.size == b.size && a.symbol == b.symbol;
  }
};
std::string DimToString(const Dim& dim);  // "64" or "m"

// The dims of a tensor or ref type (or of a `dims[...]` attribute). A
// std::vector whose buffer lives next to the IR nodes that own it.
using Shape = std::vector<Dim, IrAllocator<Dim>>;

enum class TypeKind : uint8_t { kNone, kScalar, kTensor, kRef, kTile };

struct Type {
  TypeKind kind = TypeKind::kNone;
  DType dtype = DType::kF32;  // unused for kTile / kNone
  // kTensor / kRef: the shape (rank 0 allowed for tensors); kTile: exactly
  // one dim, the block size.
  Shape shape;

  static Type None() { return Type{}; }
  static Type Scalar(DType dtype) { return Type{TypeKind::kScalar, dtype, {}}; }
  static Type Tensor(DType dtype, Shape shape) {
    return Type{TypeKind::kTensor, dtype, std::move(shape)};
  }
  static Type Ref(DType dtype, Shape shape) {
    return Type{TypeKind::kRef, dtype, std::move(shape)};
  }
  static Type Tile(Dim block) {
    return Type{TypeKind::kTile, DType::kI64, {std::move(block)}};
  }

  bool is_none() const { return kind == TypeKind::kNone; }
  bool is_scalar() const { return kind == TypeKind::kScalar; }
  bool is_tensor() const { return kind == TypeKind::kTensor; }
  bool is_ref() const { return kind == TypeKind::kRef; }
  bool is_tile() const { return kind == TypeKind::kTile; }
  size_t rank() const { return kind == TypeKind::kTile ? 0 : shape.size(); }

  friend bool operator==(const Type& a, const Type& b);
};

// Text form: "f32", "f32[64, m]", "ref<bf16[m, n]>", "tile<64>", "none".
std::string TypeToString(const Type& type);

}  // namespace tessera
