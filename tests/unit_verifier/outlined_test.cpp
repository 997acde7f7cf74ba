// kOutlinedProperty: host + device functions only, one launch per host,
// no free variables, no reference to another function's values.
#include "gtest/gtest.h"
#include "samples.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(OutlinedTest, NoKernelFunctionsRemain) {
  Module module = ParseTir(kStructuredMatmul);
  VerifyOutcome outcome = RunVerifyProperty(module, kOutlinedProperty);
  EXPECT_TRUE(HasError(outcome, 1, 1,
                       "kernel function @matmul is left; outlined IR has only "
                       "host and device functions",
                       "func @matmul"));
  EXPECT_TRUE(HasError(RunVerify(module, {kOutlinedProperty}), 1, 1,
                       "kernel function @matmul is left"));
}

TEST(OutlinedTest, HostFunctionHasExactlyOneLaunch) {
  Module module = ParseTir(kOutlinedAdd);
  Function& host = FunctionNamed(module, "add");
  Stmt launch = CloneStmt(host.body.stmts[3]);
  host.body.stmts.insert(host.body.stmts.begin() + 3, std::move(launch));
  EXPECT_TRUE(HasError(RunVerify(module, kSsaOutlined), 1, 1,
                       "host function @add must contain exactly one launch, "
                       "has 2",
                       "func @add"));
  host.body.stmts.erase(host.body.stmts.begin() + 3,
                        host.body.stmts.begin() + 5);
  EXPECT_TRUE(HasError(RunVerifyProperty(module, kOutlinedProperty), 1, 1,
                       "must contain exactly one launch, has 0"));
}

TEST(OutlinedTest, DeviceFunctionHasNoFreeVariables) {
  Module module = ParseTir(kOutlinedAdd);
  // The device body reads `m`, a value of the host function.
  Stmt& assign = StmtAt(module, 8, 5);
  assign.value = MakeOp(OpKind::kAdd, Type::Scalar(DType::kI64), [] {
    ExprList operands;
    operands.push_back(MakeVar("m", Type::Scalar(DType::kI64)));
    operands.push_back(MakeIntConst(1));
    return operands;
  }());
  assign.results[0].type = Type::Scalar(DType::kI64);
  EXPECT_TRUE(HasError(RunVerifyProperty(module, kOutlinedProperty), 8, 5,
                       "free variable 'm': it is neither a parameter of "
                       "@add_device nor defined in it (it is a value of "
                       "function @add)",
                       "s = add(m, 1)"));
  EXPECT_TRUE(HasError(RunVerify(module, kSsaOutlined), 8, 5,
                       "value 'm' is not defined in @add_device; it is a "
                       "value of function @add",
                       "s = add(m, 1)"));
}

TEST(OutlinedTest, SymbolsInDeviceTypesAreNotFreeEither) {
  // The device parameter types name the host's `m`, `n` instead of the
  // device's own `dm`, `dn`.
  Module module = ParseTir(R"(
module "kernels/test.py" properties [ssa, outlined]

func host @add(x: ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  n: i64 = size(x) {dim = 1} @3:3
  launch @add_device grid(0:m:64) (x) @4:3
}

func device @add_device(tile_m: tile<64>, x: ref<f32[m, n]>) @5:1 {
  v: f32[64, n] = load(x)[tile_m, :] @6:3
}
)");
  VerifyOutcome property = RunVerifyProperty(module, kOutlinedProperty);
  EXPECT_TRUE(HasError(property, 5, 1,
                       "free variable 'm': it is neither a parameter of "
                       "@add_device nor defined in it (it is a value of "
                       "function @add)",
                       "func @add_device"));
  EXPECT_TRUE(HasError(property, 5, 1, "free variable 'n'"));
  VerifyOutcome full = RunVerify(module, kSsaOutlined);
  EXPECT_TRUE(HasError(full, 5, 1,
                       "symbol 'm' in the type ref<f32[m, n]> of parameter "
                       "'x' names no value of @add_device (it is a value of "
                       "function @add)",
                       "func @add_device"));
}

TEST(OutlinedTest, LaunchCalleeIsADeviceFunction) {
  Module module = ParseTir(kOutlinedAdd);
  FunctionNamed(module, "add_device").kind = FunctionKind::kHost;
  VerifyOutcome outcome = RunVerifyProperty(module, kOutlinedProperty);
  EXPECT_TRUE(HasError(outcome, 5, 3,
                       "launch callee @add_device is not a device function of "
                       "the module",
                       "launch @add_device grid(0:m:64, 0:n:128)"));
}

TEST(OutlinedTest, DeviceFunctionsDoNotLaunch) {
  Module module = ParseTir(kOutlinedAdd);
  Function& host = FunctionNamed(module, "add");
  Function& device = FunctionNamed(module, "add_device");
  device.body.stmts.push_back(CloneStmt(host.body.stmts[3]));
  EXPECT_TRUE(HasError(RunVerifyProperty(module, kOutlinedProperty), 5, 3,
                       "launch in device function @add_device; only host "
                       "functions launch"));
  EXPECT_TRUE(HasError(RunVerify(module, kSsaOutlined), 5, 3,
                       "launch in device function @add_device; only host "
                       "functions launch"));
}

}  // namespace
}  // namespace tessera::testing
