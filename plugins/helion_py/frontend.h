// The helion-py frontend: Helion-syntax Python kernels to structured
// Tessera IR. Exposed for in-process use by tests and benchmarks; the
// plugin (plugin.cpp) registers the same entry point.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/frontend.h"
#include "tessera/ir/ir.h"
#include "tessera/pipeline_info.h"

namespace tessera::helion_py {

// Parses `text` (the contents of `path`) and lowers every @helion.kernel
// function. Errors go to `diagnostics`; the status is non-OK when any was
// reported. The module is not verified: the plugin's frontend returns it
// as is, and the pass manager verifies it on input (verify-each).
// What LowerPython did, for tests of its cost: each kernel lowers once, or
// twice when its first lowering's guess about capped blocks was wrong or it
// reported something (see LowerKernel).
struct LoweringStats {
  int64_t lowerings = 0;
};

// `dot_default_block`: when positive, a kernel with a dot whose operands
// are not 16-bit floats (f32, or converted to fp8) lowers with its default
// blocks (the tile dims no block_size=, helion.Config or config gives)
// capped at it: the frontend's 128 suits the TPU's MXU and VMEM, but such
// dots keep their operands in registers on Triton (the `dot_default_block`
// option, set by configs/pallas_gpu_triton.toml).
absl::StatusOr<Module> LowerPython(std::string_view path, std::string_view text,
                                   const PipelineInfo& pipeline,
                                   DiagnosticEngine& diagnostics,
                                   int64_t dot_default_block = 0,
                                   LoweringStats* stats = nullptr,
                                   bool exact_block_sizes = false);

// LowerPython, then the verifier: for callers without a pass manager
// (unit tests, the frontend fuzzer, bench_frontend).
absl::StatusOr<Module> CompilePython(std::string_view path,
                                     std::string_view text,
                                     const PipelineInfo& pipeline,
                                     DiagnosticEngine& diagnostics);

// The FrontendInfo the plugin registers ("helion-py", {".py"}).
FrontendInfo HelionFrontendInfo();

}  // namespace tessera::helion_py
