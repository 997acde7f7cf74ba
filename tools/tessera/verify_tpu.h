// `tessera compile --verify-tpu`: each written module is compiled by the real
// TPU compiler (scripts/verify_tpu.py: libtpu, deviceless), whose first error
// comes back located at the kernel line that produced the rejected code.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/pipeline_info.h"

namespace tessera::cli {

// Runs the verifier on `modules` (paths of written .py files) for the
// pipeline's TPU generation and argument types. Its report goes to stdout;
// a rejection is an error in `diagnostics`.
absl::Status VerifyOnTpu(const std::vector<std::string>& modules,
                         const PipelineInfo& pipeline,
                         DiagnosticEngine& diagnostics);

// One line of the verifier's batch results: kind "ok" / "rejected" /
// "measured" for `module`, or "no-tpu" (module empty) when --measure found
// no TPU; `detail` is the compiler's summary, its error, or microseconds.
struct BatchVerdict {
  std::string kind;
  std::string module;
  std::string detail;
};

// Runs the verifier once on all `modules` (one Python process, libtpu
// loaded once) for the pipeline's generation and argument types; with
// `measure` > 0 it also times each on this host's TPU, if it has one.
absl::StatusOr<std::vector<BatchVerdict>> VerifyBatchOnTpu(
    const std::vector<std::string>& modules, const PipelineInfo& pipeline,
    int measure);

}  // namespace tessera::cli
