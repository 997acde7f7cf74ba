// Statement structure: each statement kind has the fields it needs. Most of
// these shapes cannot be written in the text format, so the tests parse a
// valid module and break one field.
#include "gtest/gtest.h"
#include "samples.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(StructureTest, AssignmentNeedsExactlyOneTarget) {
  Module module = ParseTir(kStructuredMatmul);
  Stmt& assign = StmtAt(module, 9, 7);
  assign.results.push_back(Value{"b", assign.results[0].type});
  EXPECT_TRUE(HasError(RunVerify(module), 9, 7,
                       "assignment must have exactly one target, has 2",
                       "a, b = load(x)[tm, tk]"));
}

TEST(StructureTest, AssignmentNeedsAValue) {
  Module module = ParseTir(kStructuredMatmul);
  StmtAt(module, 9, 7).value = nullptr;
  EXPECT_TRUE(HasError(RunVerify(module), 9, 7, "assignment has no value",
                       "a = <null>"));
}

TEST(StructureTest, StoreTargetMustBeARef) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    v: f32[64] = load(x)[t] @4:5
    store v[t] = v @5:5
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 5, 5,
                       "store target 'v' must be a ref, has type f32[64]",
                       "store v[t] = v"));
}

TEST(StructureTest, StoreTargetMustNameAValue) {
  Module module = ParseTir(kStructuredMatmul);
  Stmt& store = StmtAt(module, 11, 5);
  store.target = MakeOp(OpKind::kSize, Type::Scalar(DType::kI64), {},
                        {Attr{"dim", int64_t{0}}});
  EXPECT_TRUE(HasError(RunVerify(module), 11, 5,
                       "store target must name a ref, got 'size()'",
                       "store size()[tm, tn]"));
}

TEST(StructureTest, AtomicNeedsAKnownOp) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>, out: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    atomic {op = "add"} out[t] = load(x)[t] @4:5
    atomic {op = "mul"} out[t] = load(x)[t] @5:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 5, 5, "atomic needs an 'op' attribute",
                       "atomic mul out[t]"));
  EXPECT_EQ(outcome.diagnostics.size(), 1u) << outcome.rendered;
}

TEST(StructureTest, TileLoopNeedsOneVariablePerDim) {
  Module module = ParseTir(kStructuredMatmul);
  StmtAt(module, 6, 3).dims.pop_back();
  EXPECT_TRUE(HasError(RunVerify(module), 6, 3,
                       "tile loop has 2 variable(s) but 1 dim(s)",
                       "for tm, tn in tile(0:m:64)"));
}

TEST(StructureTest, TileLoopVariableIsATileOfTheDimBlock) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<32> in tile(0:m:64) {grid = true} @3:3 {
    v: f32[32] = load(x)[t] @4:5
  }
  for u: i64 in tile(0:m:64) @5:3 {
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 3, 3,
                       "tile loop variable 't' has type tile<32> but its "
                       "dim has block size 64",
                       "for t in tile(0:m:64)"));
  EXPECT_TRUE(HasError(outcome, 5, 3,
                       "tile loop variable 'u' must be a tile, has type i64",
                       "for u in tile"));
}

TEST(StructureTest, RangeLoopHasOneIntegerVariable) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for i: f32 in range(0:m:1) @3:3 {
  }
  for j: i64 in range(0:m:1) @4:3 {
  }
}
)");
  StmtAt(module, 4, 3).vars.push_back(Value{"j2", Type::Scalar(DType::kI64)});
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 3, 3,
                       "range loop variable 'i' must be an integer scalar, "
                       "has type f32",
                       "for i in range(0:m:1)"));
  EXPECT_TRUE(HasError(outcome, 4, 3,
                       "range loop needs exactly one variable and one range, "
                       "has 2 and 1",
                       "for j, j2 in range"));
}

TEST(StructureTest, LoopBoundsAndBlockSizesAreIntegers) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  h: f32 = 0.5 @3:3
  for t: tile<64> in tile(0:h:64) {grid = true} @4:3 {
  }
  for u: tile<0> in tile(0:m:0) @5:3 {
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 4, 3,
                       "loop end 'h' must be an integer scalar, has type f32",
                       "for t in tile(0:h:64)"));
  EXPECT_TRUE(HasError(outcome, 5, 3, "block size must be positive, is 0",
                       "for u in tile(0:m:0)"));
}

TEST(StructureTest, IfNeedsAConditionAndTwoRegions) {
  Module module = ParseTir(kSsaMatmul);
  Stmt& if_stmt = StmtAt(module, 14, 5);
  if_stmt.regions.pop_back();
  EXPECT_TRUE(HasError(RunVerify(module, {kSsaProperty}), 14, 5,
                       "if must have a then and an else region, has 1",
                       "res = if flag"));
}

TEST(StructureTest, IfConditionIsABoolOrIntegerScalar) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  h: f32 = 0.5 @2:3
  if h @3:3 {
  } else {
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 3, 3,
                       "if condition must be a bool or integer scalar (or "
                       "rank-0 tensor), has type f32",
                       "if h"));
}

TEST(StructureTest, IfConditionMayBeARankZeroBoolTensor) {
  // A block's full reduction compared to a constant: one run-time value.
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[64]>) @1:1 {
  v: f32[64] = load(x)[:] @2:3
  if gt(sum(v) {dim = 0}, 0.0) @3:3 {
  } else {
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(outcome.diagnostics.empty()) << outcome.rendered;
}

TEST(StructureTest, OnlyLoopsAndIfsHaveRegions) {
  Module module = ParseTir(kStructuredMatmul);
  StmtAt(module, 11, 5).regions.emplace_back();
  EXPECT_TRUE(HasError(RunVerify(module), 11, 5,
                       "only loops and ifs have nested regions",
                       "store out[tm, tn] = acc"));
}

TEST(StructureTest, LoopNeedsExactlyOneBody) {
  Module module = ParseTir(kStructuredMatmul);
  StmtAt(module, 8, 5).regions.emplace_back();
  EXPECT_TRUE(HasError(RunVerify(module), 8, 5,
                       "loop must have exactly one body region, has 2",
                       "for tk in tile(0:k:128)"));
}

TEST(StructureTest, EveryProblemIsReportedNotJustTheFirst) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  a: f32 = exp(zz: f32) @3:3
  for t: tile<32> in tile(0:m:64) {grid = true} @4:3 {
    store x[t, t] = 1.0 @5:5
  }
  return x @6:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_EQ(outcome.diagnostics.size(), 4u) << outcome.rendered;
  EXPECT_TRUE(HasError(outcome, 3, 3, "value 'zz' is not defined"));
  EXPECT_TRUE(HasError(outcome, 4, 3, "tile loop variable 't'"));
  EXPECT_TRUE(HasError(outcome, 5, 5, "indexed with 2 non-None indices"));
  EXPECT_TRUE(HasError(outcome, 6, 3, "return has 1 value(s)"));
  EXPECT_EQ(outcome.status.message(), "IR verification failed with 4 errors");
}

TEST(StructureTest, MessagesRenderAsFileLineColErrorInStatement) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  a: f32 = exp(zz: f32) @3:7
}
)");
  DiagnosticEngine diagnostics;
  EXPECT_FALSE(Verify(module, diagnostics).ok());
  ASSERT_EQ(diagnostics.diagnostics().size(), 1u);
  std::string rendered = diagnostics.Render(diagnostics.diagnostics()[0]);
  EXPECT_EQ(rendered.substr(0, rendered.find('\n')),
            "kernels/test.py:3:7: error: value 'zz' is not defined in 'a = "
            "exp(zz)'");
}

}  // namespace
}  // namespace tessera::testing
