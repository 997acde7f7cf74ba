// Defaults in a kernel signature (eps: float = 1e-5) reach the IR as the
// function attribute `defaults`, one Python literal per parameter, so the
// generated host function can keep them.
#include <gtest/gtest.h>

#include "frontend_test_util.h"
#include "python_literal.h"

namespace tessera::helion_py::testing {
namespace {

std::string Kernel(const std::string& params) {
  return "import torch\nimport helion\nimport helion.language as hl\n\n"
         "SCALE = 0.5\n\n"
         "@helion.kernel()\ndef k(" +
         params +
         "):\n"
         "    m, n = x.size()\n"
         "    out = torch.empty([m, n], dtype=x.dtype)\n"
         "    for tile_m, tile_n in hl.tile([m, n]):\n"
         "        out[tile_m, tile_n] = x[tile_m, tile_n] * eps\n"
         "    return out\n";
}

const std::vector<std::string>* Defaults(const CompileResult& r) {
  if (!r.module || r.module->functions.empty()) return nullptr;
  return GetAttr<std::vector<std::string>>(r.module->functions[0].attrs,
                                           "defaults");
}

TEST(ParamDefaults, FloatDefaultIsSpelledAsPythonRepr) {
  CompileResult r = Compile(Kernel("x: torch.Tensor, eps: float = 1e-5"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  const auto* defaults = Defaults(r);
  ASSERT_NE(defaults, nullptr) << r.ir;
  EXPECT_EQ(*defaults, (std::vector<std::string>{"", "1e-05"}));
  EXPECT_NE(r.ir.find("defaults = strs[\"\", \"1e-05\"]"), std::string::npos)
      << r.ir;
}

TEST(ParamDefaults, NoDefaultsNoAttribute) {
  CompileResult r = Compile(Kernel("x: torch.Tensor, eps: float"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_EQ(Defaults(r), nullptr) << r.ir;
}

TEST(ParamDefaults, NegativeIntBoolNoneAndConstantDefaults) {
  CompileResult r =
      Compile(Kernel("x, eps: float = -2.0, k: int = -3, flag: bool = True, "
                     "s: float = SCALE"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  const auto* defaults = Defaults(r);
  ASSERT_NE(defaults, nullptr) << r.ir;
  EXPECT_EQ(*defaults,
            (std::vector<std::string>{"", "-2.0", "-3", "True", "0.5"}));
}

TEST(ParamDefaults, ExpressionDefaultIsAnError) {
  CompileResult r = Compile(Kernel("x, eps: float = 1e-5 * 2"));
  ASSERT_FALSE(r.errors.empty()) << r.ir;
  EXPECT_NE(r.errors[0].message.find("unsupported default value"),
            std::string::npos)
      << r.diagnostics;
}

}  // namespace
}  // namespace tessera::helion_py::testing
