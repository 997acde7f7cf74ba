// `tessera compile --verify-tpu`: each written module is compiled by the real
// TPU compiler (scripts/verify_tpu.py: libtpu, deviceless), whose first error
// comes back located at the kernel line that produced the rejected code.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/diagnostics.h"
#include "tessera/pipeline_info.h"

namespace tessera::cli {

// Runs the verifier on `modules` (paths of written .py files) for the
// pipeline's TPU generation and argument types. Its report goes to stdout;
// a rejection is an error in `diagnostics`.
absl::Status VerifyOnTpu(const std::vector<std::string>& modules,
                         const PipelineInfo& pipeline,
                         DiagnosticEngine& diagnostics);

}  // namespace tessera::cli
