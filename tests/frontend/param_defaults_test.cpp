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

// `@helion.kernel(config=helion.Config(..., num_warps=4, num_stages=2))`
// reaches the IR as the kernel's `num_warps` / `num_stages` attrs (GPU
// backends launch with them); block sizes in the config are not read, and
// a decorator without them leaves no attr.
TEST(KernelLaunchHints, DecoratorConfigWarpsAndStagesBecomeAttrs) {
  std::string source = Kernel("x: torch.Tensor, eps: float = 1e-5");
  const std::string plain = "@helion.kernel()";
  const std::string configured =
      "@helion.kernel(\n    config=helion.Config(block_sizes=[64, 64], "
      "num_warps=4, num_stages=2),\n    static_shapes=True,\n)";
  std::string with_config = source;
  with_config.replace(with_config.find(plain), plain.size(), configured);
  CompileResult r = Compile(with_config);
  ASSERT_TRUE(r.module) << r.diagnostics;
  const AttrList& attrs = r.module->functions[0].attrs;
  ASSERT_NE(GetAttr<int64_t>(attrs, "num_warps"), nullptr) << r.ir;
  EXPECT_EQ(*GetAttr<int64_t>(attrs, "num_warps"), 4);
  ASSERT_NE(GetAttr<int64_t>(attrs, "num_stages"), nullptr) << r.ir;
  EXPECT_EQ(*GetAttr<int64_t>(attrs, "num_stages"), 2);
  EXPECT_NE(r.ir.find("num_warps = 4, num_stages = 2"), std::string::npos)
      << r.ir;

  CompileResult none = Compile(source);
  ASSERT_TRUE(none.module) << none.diagnostics;
  EXPECT_EQ(GetAttr<int64_t>(none.module->functions[0].attrs, "num_warps"),
            nullptr);
}

}  // namespace
}  // namespace tessera::helion_py::testing
