// Compile speed of `ssa` and `outline` on the attention kernel, in-process.
// Each iteration clones the parsed (structured) module and runs the passes
// on the clone; BM_CloneOnly measures the clone alone so it can be
// subtracted.
#include <cstdio>
#include <filesystem>
#include <string>

#include "benchmark/benchmark.h"
#include "outline.h"
#include "pass_test_util.h"
#include "ssa.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

struct AttentionInput {
  Module module;
  std::string source;  // what the module was made from
};

// The frontend's IR of examples/attention.py when available, else the
// hand-written equivalent.
const AttentionInput& Attention() {
  static const AttentionInput input = [] {
    AttentionInput result;
    std::string text;
    if (std::filesystem::exists(TESSERA_ATTENTION_PY)) {
      absl::StatusOr<std::string> ir =
          pass_testing::FrontendIR(TESSERA_BINARY, TESSERA_ATTENTION_PY);
      if (ir.ok()) {
        text = *ir;
        result.source = "examples/attention.py via the frontend";
      } else {
        std::fprintf(stderr, "frontend failed, using the .tir: %s\n",
                     std::string(ir.status().message()).c_str());
      }
    }
    if (text.empty()) {
      text = pass_testing::ReadFile(TESSERA_ATTENTION_TIR);
      result.source = "tests/passes/ir/outline_attention.tir (hand-written)";
    }
    DiagnosticEngine diagnostics;
    absl::StatusOr<Module> module = ParseModule(text, "attention", diagnostics);
    if (!module.ok()) {
      std::fprintf(stderr, "cannot parse the attention IR:\n%s\n",
                   diagnostics.RenderAll().c_str());
      std::abort();
    }
    result.module = std::move(*module);
    return result;
  }();
  return input;
}

void BM_CloneOnly(benchmark::State& state) {
  const AttentionInput& input = Attention();
  for (auto _ : state) {
    Module module = CloneModule(input.module);
    benchmark::DoNotOptimize(module);
  }
  state.SetLabel(input.source);
}
BENCHMARK(BM_CloneOnly);

void BM_Ssa(benchmark::State& state) {
  const AttentionInput& input = Attention();
  for (auto _ : state) {
    Module module = CloneModule(input.module);
    DiagnosticEngine diagnostics;
    absl::StatusOr<bool> changed = ConvertToSSA(module, diagnostics);
    if (!changed.ok()) state.SkipWithError("ssa failed");
    benchmark::DoNotOptimize(module);
  }
  state.SetLabel(input.source);
}
BENCHMARK(BM_Ssa);

void BM_SsaOutline(benchmark::State& state) {
  const AttentionInput& input = Attention();
  for (auto _ : state) {
    Module module = CloneModule(input.module);
    DiagnosticEngine diagnostics;
    absl::StatusOr<bool> changed = ConvertToSSA(module, diagnostics);
    if (changed.ok()) changed = OutlineKernels(module, diagnostics);
    if (!changed.ok()) state.SkipWithError("ssa + outline failed");
    benchmark::DoNotOptimize(module);
  }
  state.SetLabel(input.source);
}
BENCHMARK(BM_SsaOutline);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
