// The `pre-broadcast` pass: in each device function, loop-carried values of
// inner loops that are broadcast with `x[..., None]` against wider operands
// (the running row statistics `m_i`, `l_i` of attention) are carried with a
// trailing dim of `lanes` instead, so the TPU never re-broadcasts them
// inside the loop:
//   - the iter_arg, its initial value and the loop result get the lane dim
//     (the initial value is broadcast, or created wide when it is a `full`);
//   - `x[..., None]` of such a value is the value itself; where the other
//     operand is k * lanes wide (head_dim 256, 512) it is `repeat_lanes`d
//     (jnp.tile), inside the loop body and in the code after it;
//   - values computed from them elementwise stay wide; reductions that feed
//     them keep their reduced dim (keepdim) so they broadcast;
//   - every other use reads the original value back (`x[..., 0]`).
// A candidate is carried wide only if it meets at least one wider operand
// and every operand it meets is a multiple of `lanes` wide; the loop records
// the carried values in its attributes {pre_broadcast = [...], lanes = N}.
// With the `unroll` launcher (no carried scratch) the pass does nothing.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/properties.h"

namespace tessera {

struct PreBroadcastOptions {
  int64_t lanes = 128;
  // Emit remarks saying what was carried wide and why a candidate was not.
  bool remarks = false;
};

// Rewrites every device function of `module` (SSA, outlined) in place;
// returns whether anything changed.
absl::StatusOr<bool> PreBroadcast(Module& module,
                                  const PreBroadcastOptions& options,
                                  DiagnosticEngine& diagnostics);

// The property the pass produces: the carried values each loop lists in its
// `pre_broadcast` attribute end in a static dim of `lanes` (init, iter_arg
// and result), and no `x[..., None]` is applied to them. The verifier lives
// next to the pass (pre_broadcast_verifier.cpp).
PropertyInfo PreBroadcastPropertyInfo();
// Its handle, registering it if need be (for code that runs the pass
// in-process, such as tests; the plugin registers it from its entry point).
Property PreBroadcastProperty();

}  // namespace tessera
