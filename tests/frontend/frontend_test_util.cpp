#include "frontend_test_util.h"

#include <fstream>
#include <sstream>

#include "frontend.h"
#include "gtest/gtest.h"
#include "tessera/ir/text.h"

namespace tessera::helion_py::testing {

CompileResult Compile(const std::string& text,
                      const std::map<std::string, std::string>& args,
                      const std::vector<int64_t>& block_sizes,
                      const std::string& path) {
  DiagnosticEngine diagnostics;
  diagnostics.AddSource(path, text);
  PipelineInfo pipeline;
  if (!args.empty() || !block_sizes.empty()) {
    KernelSpecialization spec;
    spec.args = args;
    spec.block_sizes = block_sizes;
    pipeline.kernels["*"] = spec;
  }
  CompileResult result;
  absl::StatusOr<Module> module =
      CompilePython(path, text, pipeline, diagnostics);
  if (module.ok()) {
    result.ir = PrintModule(*module);
    result.module = *std::move(module);
  }
  result.diagnostics = diagnostics.RenderAll();
  for (const Diagnostic& d : diagnostics.diagnostics()) {
    if (d.severity == Severity::kError) result.errors.push_back(d);
  }
  return result;
}

std::string ReadSource(const std::string& relative_path) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/" + relative_path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void ExpectIrHas(const CompileResult& r, const std::string& part) {
  EXPECT_NE(r.ir.find(part), std::string::npos)
      << "missing: " << part << "\n--- IR ---\n"
      << r.ir << r.diagnostics;
}

const std::vector<ExampleSpec>& Examples() {
  // Same shapes as EXAMPLES in examples/references.py.
  static const auto* const examples = new std::vector<ExampleSpec>{
      {"add", {{"x", "f32[256, 512]"}, {"y", "f32[256, 512]"}}},
      {"exp", {{"x", "f32[256, 512]"}}},
      {"softmax", {{"x", "f32[256, 512]"}}},
      {"matmul", {{"x", "f32[256, 384]"}, {"y", "f32[384, 512]"}}},
      {"matmul_bias_gelu",
       {{"x", "f32[256, 384]"}, {"y", "f32[384, 512]"}, {"bias", "f32[512]"}}},
      {"bmm", {{"A", "f32[4, 128, 256]"}, {"B", "f32[4, 256, 128]"}}},
      {"attention",
       {{"q_in", "f32[2, 4, 256, 64]"},
        {"k_in", "f32[2, 4, 512, 64]"},
        {"v_in", "f32[2, 4, 512, 64]"}}},
      {"split_k_matmul", {{"x", "f32[128, 1024]"}, {"y", "f32[1024, 256]"}}},
      {"layer_norm",
       {{"x", "f32[256, 512]"}, {"weight", "f32[512]"}, {"bias", "f32[512]"}}},
      {"rms_norm", {{"x", "f32[256, 512]"}, {"weight", "f32[512]"}}},
      {"row_sum", {{"x", "f32[256, 512]"}}},
      {"long_sum", {{"x", "f32[8, 4096]"}}},
      {"geglu", {{"a", "f32[256, 512]"}, {"b", "f32[256, 512]"}}},
      {"swiglu", {{"a", "f32[256, 512]"}, {"b", "f32[256, 512]"}}},
  };
  return *examples;
}

}  // namespace tessera::helion_py::testing
