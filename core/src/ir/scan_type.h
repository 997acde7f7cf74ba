// Type rules of the scan ops (`scan`, `scan_arg`); kept out of
// type_inference.cpp, which holds the elementwise / memory / host rules.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "tessera/ir/ir.h"

namespace tessera::internal {

// `types` are the operand types, in order; see docs/ir.md ("Scans").
absl::StatusOr<Type> InferScanType(OpKind op,
                                   std::span<const Type* const> types,
                                   std::span<const Attr> attrs);

}  // namespace tessera::internal
