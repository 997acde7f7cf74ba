// Helion-compatibility constructs (issue 14): nesting, '*' unpacking,
// lambdas and Callable parameters, compile-time parameters, dims unified by
// the kernel's operations (host shape checks), tensor.new_*, slice(),
// tile.id, torch.clamp / broadcast_tensors, files without kernels.
#include <gtest/gtest.h>

#include <string>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace helion_compat {

std::string Kernel(const std::string& params, const std::string& body) {
  return "import torch\nimport helion\nimport helion.language as hl\n\n"
         "@helion.kernel()\ndef k(" +
         params + "):\n" + body;
}

bool Has(const CompileResult& r, const std::string& text) {
  return r.ir.find(text) != std::string::npos;
}

TEST(HelionCompat, SizeArithmeticWithStarredShapeIsNotTooDeep) {
  CompileResult r = Compile(
      Kernel("x, weight",
             "    m_block = hl.register_block_size(x.size(0))\n"
             "    partial = x.new_empty(\n"
             "        [(x.size(0) + m_block - 1) // m_block, *weight.shape], "
             "dtype=torch.float32\n"
             "    )\n"
             "    for tile in hl.tile(x.size(0), block_size=m_block):\n"
             "        partial[tile.id, :] = x[tile, :].sum(0)\n"
             "    return partial\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "floordiv(sub(add(x_d0, 128), 1), 128)")) << r.ir;
  EXPECT_TRUE(Has(r, "partial[scalar(floordiv(tile_begin(\"tile\"), 128)), :]"))
      << r.ir;
}

TEST(HelionCompat, DeepParenthesesWithinTheLimitParse) {
  std::string expr = std::string(40, '(') + "1" + std::string(40, ')');
  CompileResult r = Compile(Kernel("x", "    y = " + expr +
                                            "\n    out = torch.empty_like(x)\n"
                                            "    for t in hl.tile(x.size(0)):\n"
                                            "        out[t] = x[t] * y\n"
                                            "    return out\n"));
  EXPECT_TRUE(r.module) << r.diagnostics;
  CompileResult deep =
      Compile(Kernel("x", "    y = " + std::string(100, '(') + "1" +
                              std::string(100, ')') + "\n    return x\n"));
  EXPECT_FALSE(deep.module);
  EXPECT_NE(deep.diagnostics.find("nested too deeply (limit 64)"),
            std::string::npos);
}

TEST(HelionCompat, ShapeSubscriptImpliesRank) {
  CompileResult r = Compile(Kernel("x",
                                   "    n = x.shape[1]\n"
                                   "    out = torch.empty([x.shape[0], n])\n"
                                   "    for t in hl.tile(x.shape[0]):\n"
                                   "        out[t, :] = x[t, :]\n"
                                   "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "x: ref<f32[x_d0, x_d1]>")) << r.ir;
}

TEST(HelionCompat, LambdaDefaultIsInlined) {
  CompileResult r =
      Compile(Kernel("x, epilogue=lambda acc, tile: torch.relu(acc) * 2.0",
                     "    out = torch.empty_like(x)\n"
                     "    for t in hl.tile(x.size(0)):\n"
                     "        out[t] = epilogue(x[t], (t,))\n"
                     "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "relu(")) << r.ir;
  EXPECT_TRUE(Has(r, "func kernel @k(x: ref<f32[x_d0]>)")) << r.ir;
}

TEST(HelionCompat, CallableWithoutDefaultIsALocatedError) {
  CompileResult r = Compile(Kernel("x, score_mod: Callable", "    return x\n"));
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("callable argument 'score_mod' has no "
                                     "lambda default"),
            std::string::npos);
  EXPECT_EQ(r.errors[0].loc.line, 6u);
}

TEST(HelionCompat, ConstexprAndStrAreCompileTimeValues) {
  const std::string source =
      Kernel("x, squared: hl.constexpr = False, mode: str = 'id'",
             "    out = torch.empty_like(x)\n"
             "    for t in hl.tile(x.size(0)):\n"
             "        v = x[t]\n"
             "        if squared:\n"
             "            v = v * v\n"
             "        if mode == 'neg':\n"
             "            v = -v\n"
             "        out[t] = v\n"
             "    return out\n");
  CompileResult plain = Compile(source);
  ASSERT_TRUE(plain.module) << plain.diagnostics;
  EXPECT_FALSE(Has(plain, "mul(")) << plain.ir;
  EXPECT_TRUE(Has(plain,
                  "static_params = strs[\"1:squared=False\", "
                  "\"2:mode='id'\"]"))
      << plain.ir;
  CompileResult chosen =
      Compile(source, {{"squared", "True"}, {"mode", "'neg'"}});
  ASSERT_TRUE(chosen.module) << chosen.diagnostics;
  EXPECT_TRUE(Has(chosen, "mul(")) << chosen.ir;
  EXPECT_TRUE(Has(chosen, "neg(")) << chosen.ir;
  EXPECT_TRUE(Has(chosen, "\"1:squared=True\", \"2:mode='neg'\"")) << chosen.ir;
}

TEST(HelionCompat, BroadcastAndMatmulUnifySymbolicDims) {
  CompileResult r =
      Compile(Kernel("x, w, b",
                     "    out = torch.empty([x.size(0), w.size(1)])\n"
                     "    for t in hl.tile(x.size(0)):\n"
                     "        out[t, :] = (x[t, :] @ w[:, :]) + b[None, :]\n"
                     "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "w: ref<f32[x_d1, w_d1]>, b: ref<f32[w_d1]>")) << r.ir;
  EXPECT_TRUE(Has(r,
                  "w.0==x.1:kernel.py:9: kernel 'k' needs w.size(0) == "
                  "x.size(1) (matmul contraction)"))
      << r.ir;
  EXPECT_TRUE(Has(r,
                  "b.0==w.1:kernel.py:9: kernel 'k' needs b.size(0) == "
                  "w.size(1) (broadcast)"))
      << r.ir;
}

TEST(HelionCompat, StoreUnifiesRegionAndValue) {
  CompileResult r =
      Compile(Kernel("x, y",
                     "    out = torch.empty([x.size(0), x.size(1)])\n"
                     "    for t in hl.tile(x.size(0)):\n"
                     "        out[t, :] = y[t, :]\n"
                     "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "(store)")) << r.ir;
}

TEST(HelionCompat, NewZerosSliceClampBroadcastTensors) {
  CompileResult r = Compile(Kernel(
      "x, y",
      "    x, y = torch.broadcast_tensors(x, y)\n"
      "    out = y.new_zeros(x.size())\n"
      "    for t in hl.tile(x.size(0)):\n"
      "        v = torch.clamp(x[t, slice(None)] + y[t, :], min=0.0, max=6.0)\n"
      "        out[t, :] = v\n"
      "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "maximum(")) << r.ir;
  EXPECT_TRUE(Has(r, "minimum(")) << r.ir;
  EXPECT_TRUE(Has(r, "torch.broadcast_tensors")) << r.ir;
}

TEST(HelionCompat, HostCodeAfterTheKernelReadsWholeArrays) {
  CompileResult r = Compile(
      Kernel("x",
             "    partial = torch.empty_like(x)\n"
             "    for t in hl.tile(x.size(0)):\n"
             "        partial[t, :] = torch.log_softmax(x[t, :], dim=-1)\n"
             "    return partial.sum(0) / x.size(0), torch.sum(partial)\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(Has(r, "sum(load(partial)[:, :]) {dim = 0, keepdim = false}"))
      << r.ir;
  EXPECT_TRUE(Has(r, "log(sum(exp(")) << r.ir;
}

TEST(HelionCompat, HelionTestingDTypesAndFp8) {
  CompileResult half = Compile(
      "import torch\nimport helion\nimport helion.language as hl\n"
      "from helion._testing import HALF_DTYPE\n\n@helion.kernel()\n"
      "def k(x):\n"
      "    out = torch.empty(x.size(), dtype=HALF_DTYPE)\n"
      "    for t in hl.tile(x.size(0)):\n"
      "        out[t] = x[t]\n"
      "    return out\n");
  ASSERT_TRUE(half.module) << half.diagnostics;
  EXPECT_TRUE(Has(half, "-> (ref<bf16[x_d0]>)")) << half.ir;
  CompileResult fp8 = Compile(
      Kernel("x",
             "    out = torch.empty(x.size(), dtype=torch.float8_e4m3fn)\n"
             "    out2 = torch.empty(x.size(), dtype=torch.float8_e5m2)\n"
             "    return out, out2\n"));
  ASSERT_TRUE(fp8.module) << fp8.diagnostics;
  EXPECT_TRUE(Has(fp8, "ref<f8e4m3[x_d0]>")) << fp8.ir;
  EXPECT_TRUE(Has(fp8, "ref<f8e5m2[x_d0]>")) << fp8.ir;
  CompileResult fnuz = Compile(
      Kernel("x",
             "    out = torch.empty(x.size(), dtype=torch.float8_e4m3fnuz)\n"
             "    return out\n"));
  ASSERT_FALSE(fnuz.errors.empty());
  EXPECT_NE(
      fnuz.errors[0].message.find("torch.float8_e4m3fnuz is not supported"),
      std::string::npos);
  EXPECT_EQ(fnuz.errors[0].loc.line, 7u);
}

TEST(HelionCompat, FileWithoutKernelsIsANote) {
  CompileResult r = Compile("import torch\n\ndef main():\n    pass\n");
  EXPECT_TRUE(r.errors.empty()) << r.diagnostics;
  ASSERT_TRUE(r.module);
  EXPECT_TRUE(r.module->functions.empty());
}

}  // namespace helion_compat
}  // namespace tessera::helion_py::testing
