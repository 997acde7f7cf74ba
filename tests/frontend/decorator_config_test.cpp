// A kernel's own `@helion.kernel(config=helion.Config(block_sizes=[...]))`
// gives its block sizes when the pipeline config gives none; GPU-tuned
// blocks that the TPU cannot tile are rounded up with a warning.
#include <gtest/gtest.h>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace decorator_config {

std::string Kernel(const std::string& decorator) {
  return "import torch\nimport helion\nimport helion.language as hl\n\n" +
         decorator +
         "\ndef k(x: torch.Tensor) -> torch.Tensor:\n"
         "    m, n = x.size()\n"
         "    out = torch.empty([m, n], dtype=x.dtype)\n"
         "    for tile_m, tile_n in hl.tile([m, n]):\n"
         "        out[tile_m, tile_n] = x[tile_m, tile_n] * 2.0\n"
         "    return out\n";
}

const std::map<std::string, std::string> kArgs = {{"x", "f32[1024, 2048]"}};

bool HasTiles(const CompileResult& r, int rows, int cols) {
  return r.ir.find("tile_m: tile<" + std::to_string(rows) + ">, tile_n: tile<" +
                   std::to_string(cols) + ">") != std::string::npos;
}

TEST(DecoratorConfig, BlockSizesOfTheKernelsOwnConfigApply) {
  CompileResult r = Compile(
      Kernel("@helion.kernel(config=helion.Config(block_sizes=[64, 512], "
             "num_warps=4))"),
      kArgs);
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(HasTiles(r, 64, 512)) << r.ir;
  EXPECT_EQ(r.diagnostics.find("warning"), std::string::npos) << r.diagnostics;
}

TEST(DecoratorConfig, WithoutAConfigTheDefaultsApply) {
  CompileResult r = Compile(Kernel("@helion.kernel()"), kArgs);
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(HasTiles(r, 128, 128)) << r.ir;
}

TEST(DecoratorConfig, ThePipelinesBlockSizesWin) {
  CompileResult r = Compile(
      Kernel("@helion.kernel(config=helion.Config(block_sizes=[64, 512]))"),
      kArgs, {256, 1024});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(HasTiles(r, 256, 1024)) << r.ir;
}

TEST(DecoratorConfig, GpuBlocksRoundUpToTheTpuTilingWithAWarning) {
  // Helion's long_sum.py tunes a row block of 1 for GPUs.
  CompileResult r =
      Compile(Kernel("@helion.kernel(\n    config=helion.Config(\n"
                     "        block_sizes=[1, 64], num_stages=4\n    )\n)"),
              kArgs);
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(HasTiles(r, 8, 128)) << r.ir;
  EXPECT_NE(r.diagnostics.find("kernel.py:7:9: warning: helion.Config block "
                               "size 1 of the hl.tile at line 13 rounds up "
                               "to 8: the tile indexes a sublane dim"),
            std::string::npos)
      << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("block size 64 of the hl.tile at line 13 "
                               "rounds up to 128: the tile indexes a lane "
                               "dim"),
            std::string::npos)
      << r.diagnostics;
}

TEST(DecoratorConfig, AConfigHeldInAVariableIsNotRead) {
  // fp8_gemm.py: `config = None` or a Config chosen at import time.
  CompileResult r = Compile(
      "CONFIG = None\n" + Kernel("@helion.kernel(config=CONFIG)"), kArgs);
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_TRUE(HasTiles(r, 128, 128)) << r.ir;
}

}  // namespace decorator_config
}  // namespace tessera::helion_py::testing
