// Definitions before uses in structured IR (Python scoping), and symbols
// inside types as uses.
#include <string>

#include "gtest/gtest.h"
#include "samples.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(NamesTest, UseOfAnUndefinedValueSuggestsACloseName) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  total: i64 = 1 @2:3
  b: i64 = add(totl: i64, 1) @3:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 3, 3,
                       "value 'totl' is not defined; did you mean 'total'?",
                       "b = add(totl, 1)"));
}

TEST(NamesTest, UseBeforeTheDefinitionIsNotDominated) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  b: i64 = add(a: i64, 1) @2:3
  a: i64 = 1 @3:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 2, 3,
                       "value 'a' is not dominated by its definition at 3:3",
                       "b = add(a, 1)"));
}

TEST(NamesTest, StructuredIrSeesWhatALoopAssignsAfterTheLoop) {
  // Python scoping: the ssa pass promotes `last` to a loop-carried value.
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for i: i64 in range(0:m:1) @3:3 {
    last: i64 = i @4:5
  }
  b: i64 = add(last, 1) @5:3
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module)));
  // The same use in SSA form is outside the loop that defines `last`.
  EXPECT_TRUE(HasError(RunVerify(module, {kSsaProperty}), 5, 3,
                       "value 'last' is not dominated by its definition at "
                       "4:5",
                       "b = add(last, 1)"));
}

TEST(NamesTest, LoopVariablesDoNotOutliveTheirLoop) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for i: i64 in range(0:m:1) @3:3 {
  }
  b: i64 = add(i, 1) @4:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 4, 3,
                       "value 'i' is not dominated by its definition at 3:3",
                       "b = add(i, 1)"));
}

TEST(NamesTest, LoopBodyCannotReadANameItDefinesLater) {
  // On the first iteration `acc` would be unbound.
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for i: i64 in range(0:m:1) @3:3 {
    acc: i64 = add(acc: i64, i) @4:5
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 4, 5,
                       "value 'acc' is not dominated by its definition at 4:5",
                       "acc = add(acc, i)"));
}

TEST(NamesTest, ElseBranchDoesNotSeeTheThenBranch) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  c: bool = true @2:3
  if c @3:3 {
    a: i64 = 1 @4:5
  } else {
    b: i64 = a @6:5
  }
  d: i64 = a @7:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 6, 5,
                       "value 'a' is not dominated by its definition at 4:5",
                       "b = a"));
  // After the if, Python scoping makes `a` visible again.
  EXPECT_EQ(outcome.diagnostics.size(), 1u) << outcome.rendered;
}

TEST(NamesTest, SymbolsInTypesAreUses) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  out: ref<f32[m, q]> = empty() {shape = dims[m, q], dtype = f32} @3:3
  for t: tile<bm> in tile(0:m:bm) {grid = true} @4:3 {
  }
  bm: i64 = 64 @5:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 3, 3,
                       "symbol 'q' in attribute 'shape' is not defined",
                       "out = empty()"));
  EXPECT_TRUE(HasError(outcome, 3, 3,
                       "symbol 'q' in the type ref<f32[m, q]> of 'out' is not "
                       "defined"));
  EXPECT_TRUE(HasError(outcome, 4, 3,
                       "symbol 'bm' used as a block size is not dominated by "
                       "its definition at 5:3",
                       "for t in tile(0:m:bm)"));
}

TEST(NamesTest, SymbolsNameIntegerScalars) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  h: f32 = 0.5 @2:3
  out: ref<f32[h]> = empty() {shape = dims[h], dtype = f32} @3:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 3, 3,
                       "symbol 'h' in attribute 'shape' names a value of type "
                       "f32; dims must name integer scalars",
                       "out = empty()"));
}

TEST(NamesTest, ParameterShapeSymbolsNameValuesOfTheFunction) {
  // `n` is never defined: nothing gives the second dim of x a value.
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m, n]>) -> (ref<f32[m, r]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  r: i64 = 4 @3:3
  out: ref<f32[m, r]> = empty() {shape = dims[m, r], dtype = f32} @4:3
  return out @5:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 1, 1,
                       "symbol 'n' in the type ref<f32[m, n]> of parameter "
                       "'x' names no value of @k",
                       "func @k"));
  EXPECT_EQ(outcome.diagnostics.size(), 1u) << outcome.rendered;
}

TEST(NamesTest, ParameterShapeSymbolsAreBoundOnEntry) {
  // A load's type names `n` before `n = size(x)`: the shape of x is known
  // on entry, so this is fine.
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    v: f32[64, n] = load(x)[t, :] @4:5
  }
  n: i64 = size(x) {dim = 1} @5:3
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module)));
}

TEST(NamesTest, ParametersAreDeclaredOnce) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: i64, x: i64) @1:1 {
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 1, 1,
                       "parameter 'x' is declared twice", "func @k"));
}

TEST(NamesTest, StructuredIrMayReassignNames) {
  Module module = ParseTir(kStructuredMatmul);
  EXPECT_TRUE(IsClean(RunVerify(module)));
  EXPECT_TRUE(HasError(RunVerify(module, {kSsaProperty}), 10, 7,
                       "'acc' is defined more than once in SSA form (previous "
                       "definition at 7:5)",
                       "acc = dot(a, load(y)[tk, tn], acc)"));
}

TEST(NamesTest, ManyUndefinedNamesAreAllReportedCheaply) {
  // Suggestions scan every visible name, so only the first few problems of
  // a function get one; the rest are still reported.
  constexpr int kStatements = 4000;
  std::string text = "module \"kernels/test.py\"\nfunc kernel @k() @1:1 {\n";
  for (int i = 0; i < kStatements; ++i) {
    text += "  a" + std::to_string(i) + ": i64 = add(b" + std::to_string(i) +
            ": i64, 1) @" + std::to_string(i + 2) + ":3\n";
  }
  text += "}\n";
  Module module = ParseTir(text);
  VerifyOutcome outcome = RunVerify(module);
  ASSERT_EQ(outcome.diagnostics.size(), static_cast<size_t>(kStatements));
  int suggestions = 0;
  for (const Diagnostic& diagnostic : outcome.diagnostics) {
    if (diagnostic.message.find("did you mean") != std::string::npos) {
      ++suggestions;
    }
  }
  EXPECT_LE(suggestions, 16);
  EXPECT_TRUE(HasError(outcome, kStatements + 1, 3,
                       "value 'b3999' is not defined",
                       "a3999 = add(b3999, 1)"));
}

}  // namespace
}  // namespace tessera::testing
