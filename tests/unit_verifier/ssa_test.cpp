// kSsaProperty: one definition per name, dominance without Python
// scoping, values leave regions only through yield / results.
#include "gtest/gtest.h"
#include "samples.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(SsaTest, EachNameIsDefinedOnce) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  a: i64 = 1 @3:3
  a: i64 = 2 @4:3
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module)));
  VerifyOutcome outcome = RunVerify(module, kSsa);
  EXPECT_TRUE(HasError(outcome, 4, 3,
                       "'a' is defined more than once in SSA form (previous "
                       "definition at 3:3)",
                       "a = 2"));
  EXPECT_TRUE(HasError(RunVerifyProperty(module, kSsaProperty), 4, 3,
                       "'a' is defined more than once", "a = 2"));
}

TEST(SsaTest, LoopVariablesIterArgsAndResultsAreDefinitionsToo) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for i: i64 in range(0:m:1) @3:3 {
  }
  for i: i64 in range(0:m:1) @4:3 {
  }
  s: i64 = for j: i64 in range(0:m:1) iter(m: i64 = m) @5:3 {
    yield m @6:5
  }
  c: bool = true @7:3
  s: i64 = if c @8:3 {
    yield 1 @9:5
  } else {
    yield 2 @10:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module, kSsa);
  EXPECT_TRUE(HasError(outcome, 4, 3, "'i' is defined more than once",
                       "for i in range"));
  EXPECT_TRUE(HasError(outcome, 5, 3,
                       "'m' is defined more than once in SSA form (previous "
                       "definition at 2:3)",
                       "s = for j in range"));
  EXPECT_TRUE(HasError(outcome, 8, 3,
                       "'s' is defined more than once in SSA form (previous "
                       "definition at 5:3)",
                       "s = if c"));
}

TEST(SsaTest, ParametersCountAsDefinitions) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: i64) @1:1 {
  x: i64 = 1 @2:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 2, 3,
                       "'x' is defined more than once in SSA form (previous "
                       "definition at 1:1)",
                       "x = 1"));
}

TEST(SsaTest, LoopBodyValuesDoNotEscapeTheLoop) {
  Module module = ParseTir(kSsaMatmul);
  // Store the body-local `acc3` after the loop instead of the result.
  StmtAt(module, 19, 5).value->name = "acc3";
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 19, 5,
                       "value 'acc3' is not dominated by its definition at "
                       "10:7",
                       "store out[tm, tn] = acc3"));
  // Structured IR would accept the same use (Python scoping).
  EXPECT_TRUE(IsClean(RunVerify(module)));
}

TEST(SsaTest, IfBranchValuesLeaveOnlyThroughResults) {
  Module module = ParseTir(kSsaMatmul);
  StmtAt(module, 19, 5).value->name = "r1";
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 19, 5,
                       "value 'r1' is not dominated by its definition at "
                       "15:7",
                       "store out[tm, tn] = r1"));
}

TEST(SsaTest, IterArgsAreVisibleOnlyInsideTheirLoop) {
  Module module = ParseTir(kSsaMatmul);
  StmtAt(module, 19, 5).value->name = "acc1";
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 19, 5,
                       "value 'acc1' is not dominated by its definition at "
                       "8:5",
                       "store out[tm, tn] = acc1"));
  // Iter_args never escape, not even in structured IR.
  EXPECT_FALSE(RunVerify(module).status.ok());
}

TEST(SsaTest, TypesNamingLoopCarriedValuesAreChecked) {
  // A carried value whose type names another SSA value (the dynamic-shape
  // case of issue 4): valid while the named value dominates the loop.
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  h: i64 = 16 @3:3
  for t: tile<8> in tile(0:m:8) {grid = true} @4:3 {
    z: f32[8, h] = full() {shape = dims[8, h], dtype = f32, value = 0.0} @5:5
    r: f32[8, h] = for i: i64 in range(0:4:1) iter(c: f32[8, h] = z) @6:5 {
      d: f32[8, h] = add(c, 1.0) @7:7
      yield d @8:7
    }
  }
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module, kSsa)));
  // Renaming `h` without renaming the types that name it leaves them stale.
  StmtAt(module, 3, 3).results[0].name = "h1";
  VerifyOutcome outcome = RunVerify(module, kSsa);
  EXPECT_TRUE(HasError(outcome, 5, 5,
                       "symbol 'h' in the type f32[8, h] of 'z' is not "
                       "defined",
                       "z = full()"));
  EXPECT_TRUE(HasError(outcome, 6, 5,
                       "symbol 'h' in the type f32[8, h] of 'c' is not "
                       "defined",
                       "r = for i in range"));
  EXPECT_TRUE(HasError(outcome, 6, 5,
                       "symbol 'h' in the type f32[8, h] of 'r' is not "
                       "defined"));
}

TEST(SsaTest, ParameterShapeSymbolsMustStayDefined) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: ref<f32[m, w]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  w: i64 = size(x) {dim = 1} @3:3
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module, kSsa)));
  StmtAt(module, 3, 3).results[0].name = "w1";
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 1, 1,
                       "symbol 'w' in the type ref<f32[m, w]> of parameter "
                       "'x' names no value of @k",
                       "func @k"));
}

}  // namespace
}  // namespace tessera::testing
