#include "frontend.h"

#include <string>

#include "absl/status/status.h"
#include "flat_gathers.h"
#include "lower_internal.h"
#include "parser.h"
#include "tessera/ir/verifier.h"

namespace tessera::helion_py {

absl::StatusOr<Module> LowerPython(std::string_view path, std::string_view text,
                                   const PipelineInfo& pipeline,
                                   DiagnosticEngine& diagnostics) {
  std::string file(path);
  size_t errors_before = diagnostics.error_count();
  ParsedFile parsed = ParseFile(text, file, diagnostics);
  Module module;
  module.source_file = file;
  for (const KernelDef& kernel : parsed.kernels) {
    KernelLowering lowering(kernel, parsed, file, pipeline, diagnostics);
    std::optional<Function> function = lowering.Run();
    if (!function) continue;
    RewriteFlatGathers(*function);
    module.functions.push_back(*std::move(function));
  }
  if (diagnostics.error_count() != errors_before) {
    return absl::InvalidArgumentError("the kernel file has errors");
  }
  if (module.functions.empty()) {
    // Helion files often hold only helpers or drivers of kernels defined
    // elsewhere: nothing to compile is not an error (the driver decides,
    // `--require-kernel` makes it one).
    diagnostics.Report(Severity::kNote, file, SourceLoc{},
                       "no @helion.kernel function found; nothing to compile");
  }
  return module;
}

absl::StatusOr<Module> CompilePython(std::string_view path,
                                     std::string_view text,
                                     const PipelineInfo& pipeline,
                                     DiagnosticEngine& diagnostics) {
  absl::StatusOr<Module> module =
      LowerPython(path, text, pipeline, diagnostics);
  if (!module.ok() || module->functions.empty()) return module;
  if (absl::Status status = Verify(*module, diagnostics); !status.ok()) {
    return status;
  }
  return module;
}

namespace {

class HelionFrontend : public Frontend {
 public:
  absl::StatusOr<Module> Parse(std::string_view path, std::string_view text,
                               FrontendContext& ctx) override {
    // The pass manager verifies its input (verify-each, on by default), so
    // the driver's path does not verify the same module twice.
    return LowerPython(path, text, ctx.pipeline(), ctx.diagnostics());
  }
};

}  // namespace

FrontendInfo HelionFrontendInfo() {
  FrontendInfo info;
  info.name = "helion-py";
  info.description =
      "Helion-syntax Python kernels (@helion.kernel functions) to structured "
      "Tessera IR";
  info.extensions = {".py"};
  info.create = [] { return std::make_unique<HelionFrontend>(); };
  return info;
}

}  // namespace tessera::helion_py
