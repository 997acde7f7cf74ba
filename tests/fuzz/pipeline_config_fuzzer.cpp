// libFuzzer target: the TOML pipeline config reader, then the resolution of
// what it names against the build tree's plugins (unknown names, option
// types, "did you mean"), as `tessera pipeline --config` does.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "driver/pipeline_config.h"
#include "driver/pipeline_resolution.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string text(reinterpret_cast<const char*>(data), size);
  DiagnosticEngine diagnostics;
  diagnostics.AddSource("fuzz.toml", text);
  absl::StatusOr<PipelineConfig> config =
      ParsePipelineConfig(text, "fuzz.toml", "", diagnostics);
  fuzz::CheckStatusMatchesDiagnostics(config.status(), 0, diagnostics,
                                      "the config parser");
  if (config.ok()) {
    // Resolution must not look at plugin_paths on disk: they are data here.
    config->plugin_paths.clear();
    ResolveRequest request;
    request.input_path = (size % 2) != 0 ? "kernel.py" : "";
    request.need_frontend = (size % 2) != 0;
    request.need_backend = (size % 3) != 0;
    const size_t errors_before = diagnostics.error_count();
    absl::StatusOr<ResolvedPipeline> pipeline =
        ResolvePipeline(*config, PipelineOverrides{}, fuzz::BuildTreePlugins(),
                        request, diagnostics);
    fuzz::CheckStatusMatchesDiagnostics(pipeline.status(), errors_before,
                                        diagnostics, "pipeline resolution");
  }
  (void)diagnostics.RenderAll();
  return 0;
}
