// `dot_default_block` (configs/pallas_gpu_triton.toml): kernels whose dots
// have wide operands lower with their default blocks capped, and the guess
// of which kernels those are (LikelyWideDots) saves the second lowering
// whenever it is right.
#include <gtest/gtest.h>

#include "frontend.h"
#include "frontend_test_util.h"
#include "tessera/ir/text.h"

namespace tessera::helion_py {
namespace {

struct Lowered {
  std::string ir;
  int64_t lowerings = 0;
};

Lowered Lower(const std::string& text,
              const std::map<std::string, std::string>& args) {
  PipelineInfo pipeline;
  if (!args.empty()) {
    KernelSpecialization spec;
    spec.args = args;
    pipeline.kernels["*"] = spec;
  }
  DiagnosticEngine diagnostics;
  diagnostics.AddSource("kernel.py", text);
  LoweringStats stats;
  absl::StatusOr<Module> module =
      LowerPython("kernel.py", text, pipeline, diagnostics, 64, &stats);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  return {module.ok() ? PrintModule(*module) : "", stats.lowerings};
}

const std::string kMatmul = testing::ReadSource("examples/matmul.py");

// Shape-generic (every tensor f32): guessed wide, capped on the first try.
TEST(DotBlockCap, F32MatmulIsCappedInOneLowering) {
  Lowered lowered = Lower(kMatmul, {});
  EXPECT_EQ(lowered.lowerings, 1);
  EXPECT_NE(lowered.ir.find("tile<64>"), std::string::npos) << lowered.ir;
}

// bf16 operands: guessed narrow, kept at 128 on the first try.
TEST(DotBlockCap, Bf16MatmulKeepsItsBlocksInOneLowering) {
  Lowered lowered =
      Lower(kMatmul, {{"x", "bf16[256, 512]"}, {"y", "bf16[512, 256]"}});
  EXPECT_EQ(lowered.lowerings, 1);
  EXPECT_EQ(lowered.ir.find("tile<64>"), std::string::npos) << lowered.ir;
}

// bf16 arguments converted to f32 before the dot: the guess (narrow) is
// wrong, the second lowering caps, as it would have from the start.
TEST(DotBlockCap, WrongGuessLowersAgainCapped) {
  const std::string text = R"(import torch
import helion
import helion.language as hl


@helion.kernel
def widened(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            a = x[tile_m, tile_k].to(torch.float32)
            b = y[tile_k, tile_n].to(torch.float32)
            acc = acc + a @ b
        out[tile_m, tile_n] = acc
    return out
)";
  Lowered lowered =
      Lower(text, {{"x", "bf16[256, 512]"}, {"y", "bf16[512, 256]"}});
  EXPECT_EQ(lowered.lowerings, 2);
  EXPECT_NE(lowered.ir.find("tile<64>"), std::string::npos) << lowered.ir;
}

}  // namespace
}  // namespace tessera::helion_py
