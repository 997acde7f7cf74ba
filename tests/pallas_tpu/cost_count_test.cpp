// Counts over symbolic sizes (cost_model/count.*): constant folding, exact
// division, readable byte-stable Python, and the model's counts for a
// kernel with symbolic shapes written in the host's names.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "cost_model/count.h"
#include "cost_model/estimate.h"
#include "module_emitter.h"
#include "tessera/ir/text.h"
#include "test_inputs.h"

namespace tessera::pallas {
namespace {

TEST(Count, ConstantsFold) {
  Count a = Count(3) * Count(4) + Count(2);
  EXPECT_TRUE(a.is_constant());
  EXPECT_EQ(a.constant(), 14);
  EXPECT_EQ(CeilDiv(Count(300), 128).constant(), 3);
  EXPECT_EQ(FloorDiv(Count(300), 128).constant(), 2);
  EXPECT_EQ(Mod(Count(300), 128).constant(), 44);
  EXPECT_EQ(RoundUp(Count(300), 128).constant(), 384);
  EXPECT_EQ(Count::Python("42").constant(), 42);
  EXPECT_EQ(Count().ToPython(), "0");
}

TEST(Count, SymbolsMakeSortedPolynomials) {
  const Count m = Count::Python("m"), n = Count::Python("x.shape[1]");
  const Count count = Count(2) * n * m + m + Count(5) - Count(5);
  EXPECT_FALSE(count.is_constant());
  EXPECT_EQ(count.ToPython(), "m + 2 * m * x.shape[1]");
  EXPECT_EQ((count - m * Count(2) * n).ToPython(), "m");
  EXPECT_EQ((Count(0) - m).ToPython(), "-m");
  EXPECT_EQ(count.StaticOr(-1), -1);
}

TEST(Count, DivisionIsExactWhenTheCoefficientsAllowIt) {
  const Count m = Count::Python("m");
  // The host pads m to 128; its blocks of 128 are then cdiv(m, 128).
  const Count padded = RoundUp(m, 128);
  EXPECT_EQ(padded.ToPython(), "128 * pl.cdiv(m, 128)");
  EXPECT_EQ(CeilDiv(padded, 128).ToPython(), "pl.cdiv(m, 128)");
  EXPECT_EQ(Mod(padded, 64).ToPython(), "0");
  EXPECT_EQ(CeilDiv(m + Count(1), 8).ToPython(), "pl.cdiv(m + 1, 8)");
  EXPECT_EQ(FloorDiv(m + Count(1), 8).ToPython(), "(m + 1) // 8");
  EXPECT_EQ((Count(4) * Mod(m, 128)).ToPython(), "4 * (m % 128)");
}

// A count past int64 saturates, never wraps to a negative (issue 33: a 4e6
// x 4e6 matmul's pl.CostEstimate said flops=-627208515966861312).
TEST(Count, CountsSaturateInsteadOfWrapping) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const Count n(4'000'000);
  EXPECT_EQ((Count(2) * n * n * n).constant(), kMax);
  EXPECT_EQ((Count(kMax) + Count(1)).constant(), kMax);
  EXPECT_EQ((Count(0) - Count(kMax) - Count(kMax)).constant(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(CeilDiv(Count(kMax), 128).constant(), kMax / 128);
  const Count m = Count::Python("m");
  EXPECT_EQ((m * Count(kMax) * Count(2)).ToPython(), "9223372036854775807 * m");
  EXPECT_EQ((Count(0) - Count(kMax) - Count(kMax)).ToPython(),
            "-9223372036854775807");
}

TEST(CostModel, SymbolicShapesGiveCountsInTheHostsNames) {
  DiagnosticEngine diagnostics;
  auto module =
      ParseModule(ReadInput("cost_add_symbolic.tir"), "input.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  auto plan = BuildKernelPlan(*module, module->functions[0],
                              Launcher::kEmitPipeline, diagnostics);
  ASSERT_TRUE(plan.ok()) << diagnostics.RenderAll();
  SymbolicSizes sizes;
  sizes.device_symbols = {{"x_d0", "M"}, {"x_d1", "N"}};
  sizes.grid_begin = {"0", "0"};
  sizes.grid_end = {"M", "N"};
  CostOptions options;
  options.sizes = &sizes;
  auto model = ModelKernelPlan(*plan, *TpuHardwareByName("v6e"), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_FALSE(model->estimate.ok());  // no timing without static shapes
  // One add per element of every (128, 128) block, ragged blocks included.
  EXPECT_EQ(model->counts.flops.ToPython(),
            "16384 * pl.cdiv(M, 128) * pl.cdiv(N, 128)");
  EXPECT_EQ(model->counts.transcendentals.ToPython(), "0");
  // x, y and out (f32): whole blocks, then the ragged row / column blocks
  // padded to (8, 128) tiles.
  const std::string bytes = model->counts.bytes_accessed.ToPython();
  EXPECT_NE(bytes.find("196608 * (M // 128) * (N // 128)"), std::string::npos)
      << bytes;
  EXPECT_NE(bytes.find("pl.cdiv(M % 128, 8)"), std::string::npos) << bytes;

  // A symbol the host does not name: no counts rather than a NameError.
  sizes.device_symbols.erase("x_d1");
  EXPECT_FALSE(ModelKernelPlan(*plan, *TpuHardwareByName("v6e"), options).ok());
}

}  // namespace
}  // namespace tessera::pallas
