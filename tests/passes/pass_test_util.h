// Helpers shared by the in-process tests and benchmarks of the `ssa` and
// `outline` passes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pass_testing {

std::string ReadFile(const std::string& path);
// Sorted paths of the files in `dir` whose name ends with `suffix`.
std::vector<std::string> ListFiles(const std::string& dir,
                                   std::string_view suffix);

// Runs one of "ssa" / "outline" the way the pass manager does: the required
// properties must hold, and the module's properties are updated afterwards.
absl::StatusOr<bool> RunPass(std::string_view name, Module& module,
                             DiagnosticEngine& diagnostics);
absl::Status RunPipeline(const std::vector<std::string>& names, Module& module,
                         DiagnosticEngine& diagnostics);

// The structured IR the frontend makes of an example kernel, obtained by
// running the driver (`tessera compile FILE --passes '' --emit=ir`).
absl::StatusOr<std::string> FrontendIR(const std::string& tessera_binary,
                                       const std::string& example_path);

// Problems with the names a function defines (parameters, assignment
// targets, loop vars, iter_args, results): a name defined twice, or one that
// is not a valid Python identifier. Empty when all is well.
std::vector<std::string> NameProblems(const Function& function);

}  // namespace tessera::pass_testing
