// Turns a Tessera module into plain Python/NumPy source: one module per
// kernel, runnable without JAX. Works on every form the core can express:
// structured kernels (before or after `ssa`) and outlined host/device pairs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/backend.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace numpy_reference {

struct EmitOptions {
  // Compute every floating-point value in float64 instead of its IR dtype.
  bool float64 = false;
  // Appended to the kernel name to form the file name ("add_numpy.py").
  std::string file_suffix = "_numpy";
};

// One file per kernel: a kernel function, or a host function together with
// the device functions it launches. Unsupported constructs are reported to
// `diagnostics` with their location and yield a non-OK status.
absl::StatusOr<std::vector<tessera::EmittedFile>> EmitNumpyModules(
    const tessera::Module& module, const EmitOptions& options,
    tessera::DiagnosticEngine& diagnostics);

}  // namespace numpy_reference
