// Types and shapes: op types against InferType, value references against
// their definitions, index ranks, store broadcasting, constants.
#include "gtest/gtest.h"
#include "samples.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(TypesTest, OpTypeMustEqualTheInferredType) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    v: f32[64] = load(x)[t] @4:5
    w: bf16[64] = exp(v) : bf16[64] @5:5
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 5, 5,
                       "'exp' has type bf16[64] but its operands and "
                       "attributes give f32[64]",
                       "w = exp(v)"));
}

TEST(TypesTest, OpThatDoesNotTypeCheckIsReported) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    v: f32[64] = load(x)[t] @4:5
    z: f32[32] = full() {shape = dims[32], dtype = f32, value = 0.0} @5:5
    w: f32[64] = add(v, z) : f32[64] @6:5
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 6, 5,
                       "invalid 'add': cannot broadcast [64] with [32]",
                       "w = add(v, z)"));
}

TEST(TypesTest, AssignedTypeMatchesTheValue) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  a: f32 = 1 @2:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 2, 3,
                       "'a' is declared as f32 but its value has type i64",
                       "a = 1"));
}

TEST(TypesTest, ValueReferenceHasTheTypeOfItsDefinition) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  a: f32 = 1.0 @2:3
  b: bf16 = neg(a: bf16) @3:3
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 3, 3,
                       "'a' is used with type bf16 but its definition at 2:3 "
                       "has type f32",
                       "b = neg(a)"));
}

TEST(TypesTest, ReassignedNameHasTheTypeOfItsLatestDefinition) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  a: f32 = 1.0 @2:3
  a: bf16 = cast(a) {dtype = bf16} @3:3
  b: bf16 = neg(a) @4:3
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module)));
}

TEST(TypesTest, LoadIndexCountMatchesTheRefRank) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  n: i64 = size(x) {dim = 1} @3:3
  for t: tile<64> in tile(0:m:64) {grid = true} @4:3 {
    v: f32[64, n] = load(x)[t] @5:5
    w: f32[64, 1, n] = load(x)[t, None, :] @6:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 5, 5,
                       "operand of 'load' has type ref<f32[m, n]> of rank 2 "
                       "but is indexed with 1 non-None indices",
                       "v = load(x)[t]"));
  EXPECT_EQ(outcome.diagnostics.size(), 1u) << outcome.rendered;
}

TEST(TypesTest, StoreIndexCountMatchesTheRefRank) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    store x[t] = 0.0 @4:5
  }
}
)");
  EXPECT_TRUE(HasError(RunVerify(module), 4, 5,
                       "store target 'x' has type ref<f32[m, n]> of rank 2 "
                       "but is indexed with 1 non-None indices",
                       "store x[t] = 0"));
}

TEST(TypesTest, StoredValueBroadcastsToTheIndexedRegion) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  n: i64 = size(x) {dim = 1} @3:3
  for t: tile<64>, u: tile<128> in tile(0:m:64, 0:n:128) {grid = true} @4:3 {
    row: f32[64, 1] = full() {shape = dims[64, 1], dtype = f32, value = 0.0} @5:5
    store x[t, u] = row @6:5
    bad: f32[64, 64] = full() {shape = dims[64, 64], dtype = f32, value = 0.0} @7:5
    store x[t, u] = bad @8:5
    store x[t, :] = row @9:5
    atomic {op = "add"} x[t, u] = bad @10:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 8, 5,
                       "store value of type f32[64, 64] does not broadcast to "
                       "the indexed region [64, 128] of 'x'",
                       "store x[t, u] = bad"));
  EXPECT_TRUE(HasError(outcome, 10, 5,
                       "atomic value of type f32[64, 64] does not broadcast",
                       "atomic add x[t, u] = bad"));
  EXPECT_EQ(outcome.diagnostics.size(), 2u) << outcome.rendered;
}

TEST(TypesTest, TileIndexIsATileAndScalarIndexAnInteger) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  h: f32 = 0.5 @3:3
  v: f32[] = load(x)[scalar(h)] : f32[] @4:3
}
)");
  Stmt& load = StmtAt(module, 4, 3);
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 4, 3,
                       "scalar index 'h' must be an integer scalar, has type "
                       "f32",
                       "v = load(x)[scalar(h)]"));
  load.value->indices[0].kind = IndexKind::kTile;
  EXPECT_TRUE(HasError(RunVerify(module), 4, 3,
                       "tile index 'h' must be a tile, has type f32",
                       "v = load(x)[h]"));
}

TEST(TypesTest, ShiftedIndexIsATileIndexPlusOrMinusAnInteger) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for t: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    good: f32[64] = load(x)[shifted(sub(tile_index(t), m))] @4:5
    i: i32[64] = tile_index(t) @5:5
    bad: f32[64] = load(x)[shifted(mul(i, 2))] : f32[64] @6:5
  }
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 6, 5,
                       "shifted tile index 'mul(i, 2)' must be tile_index(t) "
                       "plus or minus an integer scalar, has type i32[64]",
                       "bad = load(x)[shifted(mul(i, 2))]"));
  EXPECT_EQ(outcome.diagnostics.size(), 1u) << outcome.rendered;
}

TEST(TypesTest, RangeIndexSizeIsAUseOfItsSymbol) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k(x: ref<f32[m]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  v: f32[q] = load(x)[range(0, q)] @3:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 3, 3,
                       "symbol 'q' in the size of a range index is not "
                       "defined",
                       "v = load(x)[range(0, q)]"));
  EXPECT_TRUE(HasError(outcome, 3, 3,
                       "symbol 'q' in the type f32[q] of 'v' is not defined"));
}

TEST(TypesTest, SubscriptIndexCountMatchesTheTensorRank) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  z: f32[4, 8] = full() {shape = dims[4, 8], dtype = f32, value = 0.0} @2:3
  a: f32[4, 1, 8] = subscript(z)[:, None, :] @3:3
  b: f32[4, 8] = subscript(z)[:] @4:3
}
)");
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 4, 3,
                       "operand of 'subscript' has type f32[4, 8] of rank 2 "
                       "but is indexed with 1 non-None indices",
                       "b = subscript(z)[:]"));
  EXPECT_EQ(outcome.diagnostics.size(), 1u) << outcome.rendered;
}

TEST(TypesTest, ConstantValueFitsItsDtype) {
  Module module = ParseTir(R"(
module "kernels/test.py"
func kernel @k() @1:1 {
  a: i32 = 3:i32 @2:3
  b: bf16 = 0.5:bf16 @3:3
}
)");
  EXPECT_TRUE(IsClean(RunVerify(module)));
  StmtAt(module, 3, 3).value->attrs[0].value = true;
  EXPECT_TRUE(HasError(RunVerify(module), 3, 3,
                       "constant 'true' of type bf16 needs a scalar type",
                       "b = true"));
}

}  // namespace
}  // namespace tessera::testing
