// Result types of ops from their operand types and attributes, following
// PyTorch semantics (broadcasting, promotion, keepdim). The one source of
// truth shared by frontends, passes, the text parser and the verifier.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "tessera/ir/ir.h"

namespace tessera {

// Infers the result type of `op` applied to operands of `operand_types` with
// `indices` (load / subscript) and `attrs`. An error status explains what
// does not fit ("cannot broadcast f32[64, 128] with f32[64, 64]").
absl::StatusOr<Type> InferType(OpKind op, std::span<const Type> operand_types,
                               std::span<const Index> indices,
                               std::span<const Attr> attrs);
// Infers the type of `expr` from its operands' stored types.
absl::StatusOr<Type> InferType(const Expr& expr);

// Broadcast of two shapes (PyTorch rules); error when incompatible.
absl::StatusOr<Shape> BroadcastShapes(std::span<const Dim> a,
                                      std::span<const Dim> b);

}  // namespace tessera
