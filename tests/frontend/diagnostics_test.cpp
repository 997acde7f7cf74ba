// Each class of user error is reported as file:line:col with the source line
// and a caret under the offending sub-expression; several errors are
// reported in one run.
#include <gtest/gtest.h>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace {

const char* kHeader =
    "import torch\n"                    // 1
    "import helion\n"                   // 2
    "import helion.language as hl\n"    // 3
    "\n"                                // 4
    "@helion.kernel()\n"                // 5
    "def k(x, y):\n"                    // 6
    "    m, n = x.size()\n"             // 7
    "    out = torch.empty_like(x)\n"   // 8
    "    for tile_m in hl.tile(m):\n";  // 9 -> body lines start at 10

CompileResult CompileBody(const std::string& body) {
  return Compile(std::string(kHeader) + body + "    return out\n",
                 {{"x", "f32[256, 64]"}, {"y", "f32[256, 32]"}});
}

void ExpectError(const CompileResult& r, size_t index, uint32_t line,
                 uint32_t col, const std::string& message_part) {
  ASSERT_LT(index, r.errors.size()) << r.diagnostics;
  const Diagnostic& d = r.errors[index];
  EXPECT_EQ(d.file, "kernel.py");
  EXPECT_EQ(d.loc.line, line) << d.message;
  EXPECT_EQ(d.loc.col, col) << d.message;
  EXPECT_NE(d.message.find(message_part), std::string::npos) << d.message;
}

TEST(Diagnostics, UnsupportedStatement) {
  CompileResult r = CompileBody(
      "        while True:\n"
      "            pass\n");
  EXPECT_FALSE(r.module);
  ExpectError(r, 0, 10, 9, "'while' is not supported in a kernel");
  ASSERT_FALSE(r.errors[0].notes.empty());
  EXPECT_NE(r.errors[0].notes[0].message.find("supported statements"),
            std::string::npos);
  EXPECT_NE(r.diagnostics.find("kernel.py:10:9: error:"), std::string::npos)
      << r.diagnostics;
}

TEST(Diagnostics, UnsupportedExpressionSyntax) {
  CompileResult r = CompileBody("        v = [a for a in x]\n");
  ExpectError(r, 0, 10, 16, "comprehensions are not supported in a kernel");
}

TEST(Diagnostics, UnknownFunctionWithSuggestion) {
  CompileResult r =
      CompileBody("        out[tile_m, :] = torch.expp(x[tile_m, :])\n");
  ExpectError(r, 0, 10, 26,
              "unknown function 'torch.expp'; did you mean 'torch.exp'?");
  ASSERT_FALSE(r.errors[0].notes.empty());
  EXPECT_NE(r.errors[0].notes[0].message.find("supported functions of 'torch'"),
            std::string::npos);
  // The caret underlines the whole call.
  EXPECT_NE(r.diagnostics.find("\n                           ^" +
                               std::string(23, '~') + "\n"),
            std::string::npos)
      << r.diagnostics;
}

TEST(Diagnostics, UnknownFunctionWithoutSuggestion) {
  CompileResult r = CompileBody("        v = hl.frobnicate(x[tile_m, :])\n");
  ExpectError(r, 0, 10, 13, "unknown function 'helion.language.frobnicate'");
  EXPECT_EQ(r.errors[0].message.find("did you mean"), std::string::npos);
}

TEST(Diagnostics, ShapeMismatch) {
  CompileResult r =
      CompileBody("        out[tile_m, :] = x[tile_m, :] + y[tile_m, :]\n");
  ExpectError(r, 0, 10, 26, "cannot broadcast [128, 64] with [128, 32]");
  EXPECT_EQ(r.errors[0].loc.length, 27u);
}

TEST(Diagnostics, DtypeMismatchInDot) {
  CompileResult r =
      CompileBody("        v = hl.dot(x[tile_m, :], y[tile_m, :])\n");
  ExpectError(r, 0, 10, 13, "'dot' contraction dims differ");
}

TEST(Diagnostics, IndexWithWrongRank) {
  CompileResult r = CompileBody("        v = x[tile_m, :, 0]\n");
  ExpectError(r, 0, 10, 13,
              "too many indices for ref<f32[256, 64]>: 3 indices for rank 2");
}

TEST(Diagnostics, UndefinedNameWithSuggestion) {
  CompileResult r = CompileBody("        out[tile_m, :] = x[tile_mm, :]\n");
  ExpectError(r, 0, 10, 28, "undefined name 'tile_mm'; did you mean 'tile_m'?");
}

TEST(Diagnostics, StoreShapeMismatch) {
  CompileResult r = CompileBody("        out[tile_m, :] = y[tile_m, :]\n");
  ExpectError(r, 0, 10, 9, "cannot store a value of type f32[128, 32]");
}

TEST(Diagnostics, SeveralErrorsInOneRun) {
  CompileResult r = CompileBody(
      "        a = undefined_one\n"
      "        b = torch.expp(x[tile_m, :])\n"
      "        c = x[tile_m, :, :]\n"
      "        out[tile_m, :] = x[tile_m, :]\n"
      "        while False:\n"
      "            pass\n");
  ASSERT_EQ(r.errors.size(), 4u) << r.diagnostics;
  ExpectError(r, 0, 10, 13, "undefined name 'undefined_one'");
  ExpectError(r, 1, 11, 13, "unknown function 'torch.expp'");
  ExpectError(r, 2, 12, 13, "too many indices");
  ExpectError(r, 3, 14, 9, "'while' is not supported");
}

TEST(Diagnostics, PoisonDoesNotCascade) {
  CompileResult r = CompileBody(
      "        a = undefined_one\n"
      "        b = a + 1\n"
      "        out[tile_m, :] = b\n");
  EXPECT_EQ(r.errors.size(), 1u) << r.diagnostics;
}

TEST(Diagnostics, SyntaxErrorsInSeveralKernelsAndRendering) {
  CompileResult r = Compile(
      "import helion\n"
      "@helion.kernel\n"
      "def a(x):\n"
      "    y = 1 +\n"
      "    return y\n"
      "\n"
      "@helion.kernel\n"
      "def b(x):\n"
      "    y = x 2\n"
      "    return y\n");
  ASSERT_GE(r.errors.size(), 2u) << r.diagnostics;
  EXPECT_EQ(r.errors.back().loc.line, 9u);
  EXPECT_EQ(r.errors.back().loc.col, 11u);
  EXPECT_NE(r.diagnostics.find("    y = x 2\n"), std::string::npos)
      << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("\n            ^"), std::string::npos)
      << r.diagnostics;
}

TEST(Diagnostics, BadArgumentSpec) {
  CompileResult r =
      Compile(std::string(kHeader) +
                  "        out[tile_m, :] = x[tile_m, :]\n    return out\n",
              {{"x", "f32[256, "}});
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(
      r.errors[0].message.find("invalid type 'f32[256, ' for argument 'x'"),
      std::string::npos)
      << r.errors[0].message;
  EXPECT_EQ(r.errors[0].loc.line, 6u);
}

TEST(Diagnostics, NoKernelIsANoteNotAnError) {
  CompileResult r = Compile("import torch\n\ndef f(x):\n    return x\n");
  EXPECT_TRUE(r.errors.empty()) << r.diagnostics;
  ASSERT_TRUE(r.module.has_value());
  EXPECT_TRUE(r.module->functions.empty());
  EXPECT_NE(r.diagnostics.find("note: no @helion.kernel function found; "
                               "nothing to compile"),
            std::string::npos)
      << r.diagnostics;
}

}  // namespace
}  // namespace tessera::helion_py::testing
