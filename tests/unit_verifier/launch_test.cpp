// The launch / device-function convention: grid tiles first, then one
// parameter per launch operand; types compared through the bindings.
#include "gtest/gtest.h"
#include "samples.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

Stmt& Launch(Module& module) { return StmtAt(module, 5, 3); }

TEST(LaunchTest, CalleeMustExist) {
  Module module = ParseTir(kOutlinedAdd);
  SetAttr(Launch(module).attrs, "callee", std::string("add_devce"));
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "launch of unknown function @add_devce; did you mean "
                       "@add_device?",
                       "launch @add_devce grid"));
}

TEST(LaunchTest, CalleeMustBeADeviceFunction) {
  Module module = ParseTir(kOutlinedAdd);
  SetAttr(Launch(module).attrs, "callee", std::string("add"));
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "launch callee @add is a host function; launches call "
                       "device functions",
                       "launch @add grid"));
}

TEST(LaunchTest, OnlyHostFunctionsLaunch) {
  Module module = ParseTir(kOutlinedAdd);
  FunctionNamed(module, "add").kind = FunctionKind::kKernel;
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "launch in kernel function @add; only host functions "
                       "launch",
                       "launch @add_device"));
}

TEST(LaunchTest, OperandsMatchTheParametersAfterTheTiles) {
  Module module = ParseTir(kOutlinedAdd);
  Launch(module).operands.pop_back();
  EXPECT_TRUE(HasError(RunVerify(module, kSsaOutlined), 5, 3,
                       "launch passes 4 operand(s) but @add_device takes 5 "
                       "after its 2 grid tile(s)",
                       "launch @add_device"));
}

TEST(LaunchTest, DeviceFunctionStartsWithOneTilePerGridDim) {
  Module module = ParseTir(kOutlinedAdd);
  Function& device = FunctionNamed(module, "add_device");
  device.params[1].type = Type::Tile(Dim::Static(256));
  VerifyOutcome outcome = RunVerify(module);
  EXPECT_TRUE(HasError(outcome, 5, 3,
                       "grid dim 1 has block size 128 but @add_device takes "
                       "its tile as 'tile_n: tile<256>'",
                       "launch @add_device"));
  device.params[1].type = Type::Scalar(DType::kI64);
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "parameter 1 ('tile_n') of @add_device must be the "
                       "tile of grid dim 1, has type i64"));
}

TEST(LaunchTest, TooFewParametersForTheGrid) {
  Module module = ParseTir(kOutlinedAdd);
  Function& device = FunctionNamed(module, "add_device");
  device.params.resize(1);
  device.body.stmts.clear();
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "@add_device has 1 parameter(s) but the launch grid "
                       "has 2 dim(s)"));
}

TEST(LaunchTest, OperandTypesMatchThroughTheBindings) {
  // Device symbols `dm`, `dn` are bound to the host's `m`, `n` by the last
  // two operands; swapping them makes x's type disagree.
  Module module = ParseTir(kOutlinedAdd);
  Stmt& launch = Launch(module);
  std::swap(launch.operands[3], launch.operands[4]);
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "launch operand 0 ('x') has type ref<f32[m, n]> but "
                       "parameter 'x' of @add_device has type "
                       "ref<f32[dm, dn]>",
                       "launch @add_device grid(0:m:64, 0:n:128)(x, y, out, "
                       "n, m)"));
}

TEST(LaunchTest, ResultsMatchTheDeviceResults) {
  Module module = ParseTir(kOutlinedAdd);
  Launch(module).results.push_back(Value{"r", Type::Scalar(DType::kI64)});
  EXPECT_TRUE(HasError(RunVerify(module), 5, 3,
                       "launch has 1 result(s) but @add_device returns 0",
                       "r = launch @add_device"));
}

}  // namespace
}  // namespace tessera::testing
