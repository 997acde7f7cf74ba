// The first lowering pass starts from the leading asserts' aliases and a
// reading of the subscripts (plugins/helion_py/lower_first_pass.cpp). These
// tests pin both halves of that contract: a right start saves the second
// pass, and a wrong one costs a pass but never changes the result.
#include <gtest/gtest.h>

#include "frontend_test_util.h"
#include "lower_internal.h"
#include "parser.h"
#include "tessera/ir/text.h"

namespace tessera::helion_py::testing {
namespace {

struct Lowered {
  bool ok = false;
  std::string ir;  // the printed function when ok
  int full_passes = 0;
  std::string diagnostics;
  size_t errors = 0;
};

Lowered LowerFirstKernel(const std::string& text,
                         const std::map<std::string, std::string>& args = {}) {
  const std::string path = "first_pass.py";
  DiagnosticEngine diagnostics;
  diagnostics.AddSource(path, text);
  PipelineInfo pipeline;
  if (!args.empty()) pipeline.kernels["*"].args = args;
  ParsedFile parsed = ParseFile(text, path, diagnostics);
  Lowered result;
  if (parsed.kernels.empty()) {
    result.diagnostics = "no kernel parsed\n" + diagnostics.RenderAll();
    return result;
  }
  KernelLowering lowering(parsed.kernels.front(), parsed, path, pipeline,
                          diagnostics);
  std::optional<Function> function = lowering.Run();
  if (function) {
    Module module;
    module.functions.push_back(*std::move(function));
    result.ok = true;
    result.ir = PrintModule(module);
  }
  result.full_passes = lowering.full_passes();
  result.diagnostics = diagnostics.RenderAll();
  result.errors = diagnostics.error_count();
  return result;
}

std::string KernelSource(const std::string& body) {
  return "import torch\nimport helion\nimport helion.language as hl\n\n"
         "@helion.kernel()\ndef k(x: torch.Tensor, y: torch.Tensor):\n" +
         body;
}

// The loop header line of the first tile loop, locations stripped.
std::string GridHeader(const std::string& ir) {
  size_t at = ir.find("for ");
  if (at == std::string::npos) return "";
  return ir.substr(at, ir.find(" @", at) - at);
}

TEST(FirstPass, AttentionNeedsOnePass) {
  Lowered r = LowerFirstKernel(ReadSource("examples/attention.py"));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  // Its asserts unify n with v's rows and the head dims; tile_b indexes a
  // leading dim (block 1), tile_m and tile_n minor ones (128).
  EXPECT_EQ(r.full_passes, 1);
  EXPECT_NE(r.ir.find("tile_b: tile<1>, tile_m: tile<128>"), std::string::npos)
      << r.ir;
}

TEST(FirstPass, EveryExampleKernelNeedsAtMostTwoPasses) {
  for (const ExampleSpec& example : Examples()) {
    Lowered r = LowerFirstKernel(ReadSource("examples/" + example.name + ".py"),
                                 example.args);
    ASSERT_TRUE(r.ok) << example.name << "\n" << r.diagnostics;
    EXPECT_LE(r.full_passes, 2) << example.name;
  }
}

TEST(FirstPass, WrongGuessCostsAPassNotAWrongBlock) {
  // `x.view(x.size())` hides the view's rank from the syntactic reading,
  // which takes `xv[tb]` for a rank-1 (lane) use; xv has rank 3, so tb
  // indexes a leading dim and gets block 1 after a second pass.
  Lowered r =
      LowerFirstKernel(KernelSource("    b, m, n = x.size()\n"
                                    "    xv = x.view(x.size())\n"
                                    "    out = torch.zeros_like(x)\n"
                                    "    for tb in hl.tile(b):\n"
                                    "        out[tb, :, :] = xv[tb] * 2.0\n"
                                    "    return out\n"));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.full_passes, 2);
  EXPECT_EQ(GridHeader(r.ir).rfind("for tb: tile<1> in", 0), 0u) << r.ir;
}

TEST(FirstPass, LeadingAssertAliasesParamsInTheFirstPass) {
  // The only alias is the assert's (y's rows are x's columns); the quiet
  // pass over the leading statements learns it before the first full pass,
  // which then learns nothing new.
  Lowered r =
      LowerFirstKernel(KernelSource("    assert x.size(1) == y.size(0)\n"
                                    "    out = torch.empty_like(x)\n"
                                    "    for tm in hl.tile(x.size(0)):\n"
                                    "        out[tm, :] = x[tm, :] * 2.0\n"
                                    "    return out\n"));
  ASSERT_TRUE(r.ok) << r.diagnostics;
  EXPECT_EQ(r.full_passes, 1);
  EXPECT_NE(r.ir.find("y: ref<f32[x_d1]>"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("shape_checks"), std::string::npos) << r.ir;
}

TEST(FirstPass, FalseAssertIsReportedOnce) {
  // The quiet prefix pass that learns aliases reports nothing itself.
  Lowered r =
      LowerFirstKernel(KernelSource("    assert x.size(0) == 3\n"
                                    "    out = torch.empty_like(x)\n"
                                    "    for tm in hl.tile(x.size(0)):\n"
                                    "        out[tm, :] = x[tm, :]\n"
                                    "    return out\n"),
                       {{"x", "f32[8, 128]"}, {"y", "f32[8, 128]"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errors, 1u) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("assertion is always false: 8 != 3"),
            std::string::npos)
      << r.diagnostics;
}

}  // namespace
}  // namespace tessera::helion_py::testing
