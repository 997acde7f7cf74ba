// The `scaled-reductions` pass: a max or min reduction scaled by a positive
// constant is taken over the scaled operand instead, when that scaled
// operand is computed in the same block anyway (requires SSA form, keeps
// it).
//
// Flash attention written as in Helion's examples scales the row maximum
// and then the scores:
//
//   m_ij = maximum(m_i, mul(amax(qk) {dim = 2}, 0.1275))
//   qk_1 = sub(mul(qk, 0.1275), subscript(m_ij)[:, :, None])
//
// The pass names the scaled scores once and reduces them:
//
//   qk_scaled = mul(qk, 0.1275)
//   m_ij = maximum(m_i, amax(qk_scaled) {dim = 2})
//   qk_1 = sub(qk_scaled, subscript(m_ij)[:, :, None])
//
// which is how pallas.ops.gpu's attention computes it, and ran 1.1 % faster
// on an H200 (Triton; bench/gpu/README.md). The rewrite is exact: for a
// finite c > 0 rounding x * c is monotonic in x, so max_i(x_i * c) rounds to
// the same value as max_i(x_i) * c (NaN and infinities included). Only a
// constant scale qualifies (a shape-specialized compile folds
// `1 / sqrt(d) * log2(e)` into one); a scale whose sign is unknown, an
// integer operand, or a scaled operand computed nowhere else (the rewrite
// would then add a full-size multiply) is left alone.
#pragma once

#include "absl/status/statusor.h"
#include "tessera/ir/ir.h"

namespace tessera {

// Rewrites every function of `module` (in SSA form) in place. Returns
// whether anything changed.
absl::StatusOr<bool> ScaleReductionOperands(Module& module);

}  // namespace tessera
