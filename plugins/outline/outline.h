// The `outline` pass: splits each kernel function into a host function and a
// device function (requires SSA form, keeps it).
//
// For a kernel @K whose top-level grid loop (`for ... in tile(...) {grid =
// true}`) is the only one:
//
//   func host @K          same params, results and attrs as the kernel; the
//                         statements before the grid loop, then
//                         `r... = launch @K_device grid(<grid
//                         dims>)(<live-ins>)`, then the statements after it.
//   func device @K_device params: one tile per grid dim (the grid loop's
//                         tile variables, same names and types), then the
//                         live-in values in order of first use in the body;
//                         body: the grid loop body, its trailing yield turned
//                         into `return`; results: the grid loop's results;
//                         attrs {kernel = "K"}.
//
// Live-ins are every name the body uses without defining it: value
// references and symbols inside types, attributes, index sizes and loop
// blocks. Shape symbols are always explicit parameters: a symbol that
// appears in the type of a device parameter or result (`x: ref<f32[m, k]>`)
// is itself a parameter (`m: i64`), passed the host value of the same name,
// so the device function has no free variable even inside types. A grid
// loop's iter_args (values carried across grid iterations) are parameters
// too, passed their initial values. Device parameters keep the names the
// values have in the kernel, so no expression or attribute needs renaming:
// the grid dims and attributes move to the launch unchanged, where every
// name they use is still defined.
#pragma once

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera {

// Outlines every kernel function of `module` (already in SSA form) in
// place; host and device functions are left as they are. Returns whether
// anything changed. A kernel without exactly one top-level grid loop is
// reported to `diagnostics` and yields an InvalidArgument status.
absl::StatusOr<bool> OutlineKernels(Module& module,
                                    DiagnosticEngine& diagnostics);

}  // namespace tessera
