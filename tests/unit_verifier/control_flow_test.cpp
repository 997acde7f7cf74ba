// Loops carrying values (iter_args / yield / results), if results, yield and
// return placement.
#include "gtest/gtest.h"
#include "samples.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(ControlFlowTest, IterArgsAreParallelToInits) {
  Module module = ParseTir(kSsaMatmul);
  StmtAt(module, 8, 5).inits.clear();
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 8, 5,
                       "loop has 1 iter_arg(s) but 0 initial value(s)",
                       "acc2 = for tk in tile(0:k:128)"));
}

TEST(ControlFlowTest, InitialValueHasTheIterArgType) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  z: f32 = 0.0 @3:3
  s: i64 = for i: i64 in range(0:m:1) iter(c: i64 = z) @4:3 {
    yield c @5:5
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 4, 3,
                       "initial value of iter_arg 'c' has type f32, expected "
                       "i64",
                       "s = for i in range"));
}

TEST(ControlFlowTest, LoopResultsMatchIterArgs) {
  Module module = ParseTir(kSsaMatmul);
  Stmt& loop = StmtAt(module, 8, 5);
  loop.results[0].type = Type::Tensor(DType::kF32, {Dim::Static(64)});
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 8, 5,
                       "loop result 'acc2' has type f32[64] but iter_arg "
                       "'acc1' has type f32[64, 128]",
                       "acc2 = for tk"));
  loop.results.clear();
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 8, 5,
                       "loop has 0 result(s) but 1 iter_arg(s)", "for tk"));
}

TEST(ControlFlowTest, LoopYieldMatchesIterArgs) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  s: i64, t: i64 = for i: i64 in range(0:m:1) iter(c: i64 = m, d: i64 = m) @3:3 {
    yield c @4:5
  }
  u: i64 = for j: i64 in range(0:m:1) iter(e: i64 = m) @5:3 {
    f: f32 = 1.0 @6:5
    yield f @7:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module, kSsa);
  EXPECT_TRUE(HasError(outcome, 4, 5,
                       "yield has 1 value(s) but the enclosing loop has 2 "
                       "iter_arg(s)",
                       "yield c"));
  EXPECT_TRUE(HasError(outcome, 7, 5,
                       "yield value 0 ('f') has type f32 but iter_arg 'e' "
                       "has type i64",
                       "yield f"));
}

TEST(ControlFlowTest, LoopWithIterArgsEndsWithAYield) {
  Module module = ParseTir(kSsaMatmul);
  StmtAt(module, 8, 5).regions[0].stmts.pop_back();
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 8, 5,
                       "loop body must end with a yield of 1 value(s)",
                       "acc2 = for tk"));
}

TEST(ControlFlowTest, IfResultsMatchTheYieldsOfBothBranches) {
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa]
func kernel @k() @1:1 {
  c: bool = true @2:3
  a: i64, b: i64 = if c @3:3 {
    yield 1, 2 @4:5
  } else {
    yield 1 @6:5
  }
  d: i64 = if c @7:3 {
    yield 1.5 @8:5
  } else {
    yield 3 @10:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module, kSsa);
  EXPECT_TRUE(HasError(outcome, 6, 5,
                       "yield has 1 value(s) but the enclosing if has 2 "
                       "result(s)",
                       "yield 1"));
  EXPECT_TRUE(HasError(outcome, 8, 5,
                       "yield value 0 ('1.5') has type f32 but result 'd' "
                       "has type i64",
                       "yield 1.5"));
  EXPECT_EQ(outcome.diagnostics.size(), 2u) << outcome.rendered;
}

TEST(ControlFlowTest, IfWithResultsNeedsAYieldInEachBranch) {
  Module module = ParseTir(kSsaMatmul);
  StmtAt(module, 14, 5).regions[0].stmts.pop_back();
  EXPECT_TRUE(HasError(RunVerify(module, kSsa), 14, 5,
                       "then branch must end with a yield of 1 value(s)",
                       "res = if flag"));
}

TEST(ControlFlowTest, YieldOnlyInsideALoopOrIf) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  yield @2:3
}
)");
  EXPECT_TRUE(
      HasError(RunVerify(module), 2, 3, "yield outside a loop or if", "yield"));
}

TEST(ControlFlowTest, NothingFollowsAYieldOrReturn) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[4]>) -> (ref<f32[4]>) @1:1 {
  for i: i64 in range(0:4:1) @2:3 {
    yield @3:5
    a: i64 = 1 @4:5
  }
  return x @5:3
  b: i64 = 2 @6:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 4, 5, "statement after 'yield' is unreachable",
                       "a = 1"));
  EXPECT_TRUE(HasError(outcome, 6, 3, "statement after 'return' is unreachable",
                       "b = 2"));
}

TEST(ControlFlowTest, ReturnMatchesTheFunctionResults) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[4]>, y: ref<f32[8]>) -> (ref<f32[4]>) @1:1 {
  c: bool = true @2:3
  if c @3:3 {
    return x, x @4:5
  } else {
    return y @6:5
  }
  return x @7:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 4, 5,
                       "return has 2 value(s) but @k declares 1 result(s)",
                       "return x, x"));
  EXPECT_TRUE(HasError(outcome, 6, 5,
                       "return value 0 ('y') has type ref<f32[8]> but @k "
                       "declares ref<f32[4]>",
                       "return y"));
}

TEST(ControlFlowTest, FunctionWithResultsEndsWithAReturn) {
  Module module = ParseTir(kStructuredMatmul);
  FunctionNamed(module, "matmul").body.stmts.pop_back();
  EXPECT_TRUE(HasError(RunVerify(module), 1, 1,
                       "@matmul declares 1 result(s) but its body does not "
                       "end with a return",
                       "func @matmul"));
}

}  // namespace
}  // namespace tessera::testing
