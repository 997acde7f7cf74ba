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

// Parses `text` (the contents of `path`), lowers every @helion.kernel
// function and verifies the module. Errors go to `diagnostics`; the status
// is non-OK when any was reported.
absl::StatusOr<Module> CompilePython(std::string_view path,
                                     std::string_view text,
                                     const PipelineInfo& pipeline,
                                     DiagnosticEngine& diagnostics);

// The FrontendInfo the plugin registers ("helion-py", {".py"}).
FrontendInfo HelionFrontendInfo();

}  // namespace tessera::helion_py
