// `tessera compile --verify-tpu`: each written module is compiled by the real
// TPU compiler (scripts/verify_tpu.py: libtpu, deviceless), whose first error
// comes back located at the kernel line that produced the rejected code.
#pragma once

#include <cstddef>
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

// What a batch check reports while it runs (on the calling thread).
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  // modules[index] has its verdicts (called in the order they come in).
  virtual void Checked(size_t index,
                       const std::vector<BatchVerdict>& verdicts) = 0;
  // Called a few times a second while the checks run.
  virtual void Waiting() {}
};

// Runs the verifier on all `modules` for the pipeline's generation and
// argument types in `jobs` Python processes at once (each loads libtpu once
// and checks every jobs-th module); the verdicts come back in the order of
// `modules` whatever the order the processes finish in. With `measure` > 0
// it also times each on this host's TPU, if it has one, in one process
// (the TPU is one device: concurrent timings would disturb each other).
absl::StatusOr<std::vector<BatchVerdict>> VerifyBatchOnTpu(
    const std::vector<std::string>& modules, const PipelineInfo& pipeline,
    int measure, int jobs, BatchObserver* observer);

}  // namespace tessera::cli
