// The (8, 128) block rule per dtype and the VMEM budget per TPU generation.
#include <gtest/gtest.h>

#include <vector>

#include "legality.h"

namespace tessera::pallas {
namespace {

std::optional<std::string> Check(std::vector<BlockDim> block, DType dtype) {
  return CheckBlockShape(block, dtype);
}

TEST(BlockRule, F32NeedsEightSublanesAnd128Lanes) {
  EXPECT_FALSE(Check({{8, false}, {128, false}}, DType::kF32).has_value());
  EXPECT_FALSE(Check({{64, false}, {512, false}}, DType::kF32).has_value());
  auto sublanes = Check({{4, false}, {128, false}}, DType::kF32);
  ASSERT_TRUE(sublanes.has_value());
  EXPECT_NE(sublanes->find("multiple of 8 (sublanes for f32)"),
            std::string::npos)
      << *sublanes;
  auto lanes = Check({{8, false}, {64, false}}, DType::kF32);
  ASSERT_TRUE(lanes.has_value());
  EXPECT_NE(lanes->find("multiple of 128 (lanes)"), std::string::npos);
}

TEST(BlockRule, SixteenBitTypesNeedSixteenSublanes) {
  for (DType dtype : {DType::kBF16, DType::kF16}) {
    auto problem = Check({{8, false}, {128, false}}, dtype);
    ASSERT_TRUE(problem.has_value());
    EXPECT_NE(problem->find("multiple of 16"), std::string::npos) << *problem;
    EXPECT_FALSE(Check({{16, false}, {128, false}}, dtype).has_value());
  }
}

TEST(BlockRule, EightBitTypesNeedThirtyTwoSublanes) {
  auto problem = Check({{16, false}, {128, false}}, DType::kI8);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("multiple of 32 (sublanes for i8)"),
            std::string::npos)
      << *problem;
  EXPECT_FALSE(Check({{32, false}, {256, false}}, DType::kI8).has_value());
}

TEST(BlockRule, FullDimsAreAlwaysLegal) {
  // (3, 100) is legal when both equal the array's dims.
  EXPECT_FALSE(Check({{3, true}, {100, true}}, DType::kF32).has_value());
  EXPECT_FALSE(Check({{12, true}, {128, false}}, DType::kBF16).has_value());
  // Leading dims are unconstrained.
  EXPECT_FALSE(
      Check({{1, false}, {8, false}, {128, false}}, DType::kF32).has_value());
  // Only the full-dim flag excuses a ragged size.
  EXPECT_TRUE(Check({{8, false}, {100, false}}, DType::kF32).has_value());
}

TEST(BlockRule, RankOneBlocksFollowTheLoweringRule) {
  // f32: powers of two from 128; bf16 from 256; any multiple of 1024.
  EXPECT_FALSE(Check({{128, false}}, DType::kF32).has_value());
  auto bf16 = Check({{128, false}}, DType::kBF16);
  ASSERT_TRUE(bf16.has_value());
  EXPECT_NE(bf16->find("power of two of at least 256 (for bf16)"),
            std::string::npos)
      << *bf16;
  EXPECT_FALSE(Check({{256, false}}, DType::kBF16).has_value());
  EXPECT_TRUE(Check({{384, false}}, DType::kF32).has_value());
  EXPECT_FALSE(Check({{3072, false}}, DType::kF32).has_value());
  EXPECT_FALSE(Check({{100, true}}, DType::kBF16).has_value());
}

TEST(TpuGenerations, CapacitiesAndDefaultLimits) {
  constexpr int64_t kMiB = 1024 * 1024;
  auto v5e = TpuGenerationByName("v5e");
  auto v6e = TpuGenerationByName("v6e");
  auto v7x = TpuGenerationByName("v7x");
  ASSERT_TRUE(v5e && v6e && v7x);
  EXPECT_EQ(v5e->vmem_capacity_bytes, 128 * kMiB);
  EXPECT_EQ(v5e->default_scoped_vmem_bytes, 16 * kMiB);
  EXPECT_EQ(v6e->vmem_capacity_bytes, 128 * kMiB);
  EXPECT_EQ(v6e->default_scoped_vmem_bytes, 32 * kMiB);
  EXPECT_EQ(v7x->vmem_capacity_bytes, 64 * kMiB);
  EXPECT_EQ(v7x->default_scoped_vmem_bytes, 32 * kMiB);
  EXPECT_FALSE(TpuGenerationByName("v4").has_value());
}

TEST(Vmem, CountsBuffersTimesCopies) {
  auto v6e = *TpuGenerationByName("v6e");
  std::vector<VmemBuffer> buffers = {{"input x", 64 * 1024, 2},
                                     {"scratch acc", 32 * 1024, 1}};
  VmemPlan plan = PlanVmem(buffers, v6e);
  EXPECT_EQ(plan.total_bytes, 2 * 64 * 1024 + 32 * 1024);
  EXPECT_FALSE(plan.vmem_limit_bytes.has_value());
  EXPECT_TRUE(plan.error.empty());
}

TEST(Vmem, AboveDefaultLimitSetsVmemLimitBytes) {
  constexpr int64_t kMiB = 1024 * 1024;
  auto v5e = *TpuGenerationByName("v5e");
  std::vector<VmemBuffer> buffers = {{"input x", 10 * kMiB, 2}};
  VmemPlan plan = PlanVmem(buffers, v5e);
  EXPECT_TRUE(plan.error.empty());
  ASSERT_TRUE(plan.vmem_limit_bytes.has_value());
  EXPECT_GE(*plan.vmem_limit_bytes, 20 * kMiB);
  EXPECT_LE(*plan.vmem_limit_bytes, v5e.vmem_capacity_bytes);
  // The same footprint fits v6e's default limit.
  auto v6e = *TpuGenerationByName("v6e");
  EXPECT_FALSE(PlanVmem(buffers, v6e).vmem_limit_bytes.has_value());
}

TEST(Vmem, AboveCapacityNamesTheLargestBuffers) {
  constexpr int64_t kMiB = 1024 * 1024;
  auto v7x = *TpuGenerationByName("v7x");
  std::vector<VmemBuffer> buffers = {{"block (16, 128) of out", 8 * 1024, 2},
                                     {"block (2048, 4096) of x", 32 * kMiB, 2},
                                     {"loop-carried acc", 4 * kMiB, 1}};
  VmemPlan plan = PlanVmem(buffers, v7x);
  ASSERT_FALSE(plan.error.empty());
  EXPECT_NE(plan.error.find("68.02 MiB"), std::string::npos) << plan.error;
  EXPECT_NE(plan.error.find("64.00 MiB of a TPU v7x"), std::string::npos)
      << plan.error;
  // Largest first.
  size_t x = plan.error.find("block (2048, 4096) of x x 2 = 64.00 MiB");
  size_t acc = plan.error.find("loop-carried acc");
  ASSERT_NE(x, std::string::npos) << plan.error;
  ASSERT_NE(acc, std::string::npos);
  EXPECT_LT(x, acc);
}

}  // namespace
}  // namespace tessera::pallas
