// libFuzzer target: the helion-py frontend (its IR must round-trip). Built a
// second time as helion_pipeline (TESSERA_FUZZ_PIPELINE): kernels it accepts
// then run the whole pallas-tpu pipeline of one launcher (chosen by the
// input's size), what `tessera compile fuzz.py --config
// configs/pallas_<launcher>.toml` runs, where exit 2 (a failure without a
// diagnostic) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontend.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (TESSERA_FUZZ_PIPELINE) {
    fuzz::RunPipeline(text, /*is_tir=*/false, static_cast<unsigned>(size));
    return 0;
  }
  // The frontend linked in, no plugins: shapes from --arg-like specs half
  // of the time (chosen by the input's size), symbolic otherwise.
  DiagnosticEngine diagnostics;
  diagnostics.AddSource("fuzz.py", std::string(text));
  PipelineInfo pipeline;
  if (size % 2 == 0) {
    KernelSpecialization spec;
    spec.args = {{"x", "bf16[256, 200]"}, {"y", "f32[200, 128]"}};
    spec.block_sizes = {64, 128};
    pipeline.kernels["*"] = spec;
  }
  absl::StatusOr<Module> module =
      helion_py::CompilePython("fuzz.py", text, pipeline, diagnostics);
  fuzz::CheckStatusMatchesDiagnostics(module.status(), 0, diagnostics,
                                      "the frontend");
  (void)diagnostics.RenderAll();
  if (module.ok()) fuzz::CheckRoundTrip(*module, "the frontend's module");
  return 0;
}
