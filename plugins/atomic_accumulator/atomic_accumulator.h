// The `atomic-accumulator` pass (requires SSA and outlined IR, keeps both,
// produces the `atomic_accumulated` property).
//
// A TPU has no atomics: an `atomic` into an output block shared by several
// grid cells is a read-modify-write of the block while it stays resident in
// VMEM across the grid dims that do not map it. This pass makes that
// accumulation explicit in each device function, so that every launcher
// lowers it the same way and bf16 / f16 outputs are not rounded per cell.
// For every ref parameter `out` that is the target of atomics:
//
//   out_acc: ref<f32[block...]> = scratch() {shape = dims[block...],
//                                            dtype = f32, accumulates = "out"}
//   if <first cell> { store out_acc[:, ...] = cast(load(out)[idx], f32) }
//   ...
//   atomic {op} out_acc[idx'] = cast(value, f32)      # was: atomic out[idx]
//   ...
//   if <last cell> { store out[idx] = cast(load(out_acc)[:, ...], bf16) }
//   return
//
//  * The accumulator covers the target's per-grid-cell block: a dim indexed
//    by a grid tile has that tile's block size (and is `:` in idx'); a dim
//    indexed by `:`, an inner-loop tile or an index that does not depend on
//    the grid is the whole (static) ref dim, indexed as before.
//  * Its dtype is f32 when the target is bf16 or f16, the target's otherwise.
//    The value is cast to it; a cast of the value to the narrow target dtype
//    (what the frontend writes for an f32 partial sum into a bf16 output)
//    is dropped first, so nothing is rounded before the write-back.
//  * "First" / "last" cell: every grid dim the block does not map, whose
//    extent is not statically 1, is at `program_id == 0` /
//    `program_id == num_programs - 1` (no condition when there is no such
//    dim). Those dims are listed in the device function's attribute
//    `arbitrary_grid_dims` (IR grid indices): the backend must not run them
//    in parallel. The output holds the caller's initial values, which the
//    first cell loads.
//
// Problems the pass cannot handle are diagnosed at the statement: a ref that
// is both a target of atomics and loaded or stored directly, atomics on one
// ref with different block mappings, a scalar / range index that depends on
// a grid tile, a whole dim of symbolic extent.
#pragma once

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/properties.h"

namespace tessera {

// Rewrites every device function of `module` in place; returns whether
// anything changed. Atomics that already target a non-parameter ref (an
// accumulator) are left alone, so the pass is idempotent. With `remarks`,
// says for each target where it accumulates (a remark at its first atomic).
absl::StatusOr<bool> AccumulateAtomics(Module& module,
                                       DiagnosticEngine& diagnostics,
                                       bool remarks = false);

// The property the pass produces: every atomic of a device function
// accumulates into a VMEM scratch named after the ref it stands for (f32 for
// a bf16 / f16 ref), as above. The verifier lives next to the pass
// (atomic_accumulator_verifier.cpp).
PropertyInfo AtomicAccumulatedPropertyInfo();
// The accumulator's dtype for a target of `target` dtype: f32 for bf16 / f16,
// the target's own otherwise (the pass makes it, its verifier checks it).
DType AccumulatorDType(DType target);
// Its handle, registering it if need be (for code that runs the pass
// in-process, such as tests; the plugin registers it from its entry point).
Property AtomicAccumulatedProperty();

}  // namespace tessera
