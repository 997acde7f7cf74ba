#include "test_util.h"

#include <gtest/gtest.h>

#include "tessera/ir/text.h"

namespace tessera::testing {

const char kSmallKernelText[] = R"(module "small.py"

func kernel @scale(x: ref<f32[m]>) -> (ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:5
  out: ref<f32[m]> = empty() {shape = dims[m], dtype = f32} @3:5
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @4:5 {
    v: f32[64] = load(x)[tile_m] @5:9
    v: f32[64] = mul(v, 2.0) @6:9
    store out[tile_m] = v @7:9
  }
  return out @8:5
}
)";

Module ParseOrDie(const std::string& text) {
  DiagnosticEngine diagnostics;
  diagnostics.AddSource("test.tir", text);
  absl::StatusOr<Module> module = ParseModule(text, "test.tir", diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  if (!module.ok()) return Module{};
  return std::move(*module);
}

std::string AllMessages(const DiagnosticEngine& diagnostics) {
  return diagnostics.RenderAll();
}

std::vector<Diagnostic> Errors(const DiagnosticEngine& diagnostics) {
  std::vector<Diagnostic> errors;
  for (const Diagnostic& diagnostic : diagnostics.diagnostics()) {
    if (diagnostic.severity == Severity::kError) errors.push_back(diagnostic);
  }
  return errors;
}

void AddInProcessPlugin(PluginRegistry& registry, const std::string& name,
                        PluginContents contents) {
  LoadedPlugin plugin;
  plugin.name = name;
  plugin.version = "0.0.0";
  const std::string problem = registry.Add(plugin, std::move(contents));
  ASSERT_EQ(problem, "");
}

}  // namespace tessera::testing
