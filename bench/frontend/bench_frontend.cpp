// The frontend's part of compile time: parse + lower + verify of an example
// kernel file, in-process. Target for examples/attention.py: < 0.5 ms.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "frontend.h"

namespace {

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/examples/" + name +
                   ".py");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void CompileExample(benchmark::State& state, const std::string& name,
                    bool specialized) {
  std::string text = ReadExample(name);
  std::string path = "examples/" + name + ".py";
  tessera::PipelineInfo pipeline;
  if (specialized) {
    tessera::KernelSpecialization spec;
    spec.args = {{"q_in", "bf16[2, 4, 256, 64]"},
                 {"k_in", "bf16[2, 4, 512, 64]"},
                 {"v_in", "bf16[2, 4, 512, 64]"}};
    pipeline.kernels["*"] = spec;
  }
  for (auto _ : state) {
    tessera::DiagnosticEngine diagnostics;
    auto module =
        tessera::helion_py::CompilePython(path, text, pipeline, diagnostics);
    if (!module.ok()) {
      state.SkipWithError(diagnostics.RenderAll().c_str());
      break;
    }
    benchmark::DoNotOptimize(module);
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_FrontendAttention(benchmark::State& state) {
  CompileExample(state, "attention", false);
}
void BM_FrontendAttentionStatic(benchmark::State& state) {
  CompileExample(state, "attention", true);
}
void BM_FrontendMatmul(benchmark::State& state) {
  CompileExample(state, "matmul", false);
}

BENCHMARK(BM_FrontendAttention)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FrontendAttentionStatic)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FrontendMatmul)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
