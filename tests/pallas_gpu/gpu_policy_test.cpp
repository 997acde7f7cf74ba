// The pallas-gpu launch policy and the Triton launcher's GPU spellings, on
// the outlined IR of tests/pallas_tpu/inputs.
#include <gtest/gtest.h>

#include "gpu_test_util.h"

namespace tessera::pallas {
namespace {

// 256^3 f32 matmul with 128x128x128 blocks (the TPU pipeline's output; its
// TPU-only properties dropped).
std::string Matmul() {
  return Replaced(ReadInput("cost_matmul.tir"),
                  ", pre_broadcast, atomic_accumulated", "");
}

// 128x128 f32 blocks: 8 warps keep the accumulator at 64 values per
// thread; 128 KiB of operands per stage leave room for one stage only.
TEST(GpuPolicy, F32MatmulGetsEightWarpsAndOneStage) {
  Result result = Emit(Matmul());
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "pltriton.CompilerParams(num_warps=8, num_stages=1)"))
      << result.code;
  EXPECT_TRUE(Contains(result.code,
                       "launcher triton, num_warps 8, "
                       "num_stages 1"));
}

TEST(GpuPolicy, Bf16MatmulKeepsThreeStages) {
  std::string text = Matmul();
  text = Replaced(text, "x: ref<f32[", "x: ref<bf16[");
  text = Replaced(text, "y: ref<f32[", "y: ref<bf16[");
  Result result = Emit(text);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "pltriton.CompilerParams(num_warps=8, num_stages=3)"))
      << result.code;
}

TEST(GpuPolicy, StagesThatOverflowSharedMemoryAreALocatedError) {
  GpuModuleOptions options;
  options.num_stages = 2;
  Result result = Emit(Matmul(), options);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics, "examples/matmul.py:26:5: error:"))
      << result.diagnostics;
  EXPECT_TRUE(Contains(result.diagnostics,
                       "256.0 KiB of shared memory with num_stages 2"))
      << result.diagnostics;
}

// k_grid_matmul bf16 (tessera compile --emit=ir, 128x128 blocks): the
// atomic_add of the dot's result inside the loop takes it out of the MMA
// layout through 64 KiB of shared memory next to the 64 KiB of operands per
// stage; sm_90a measured 256 KiB with 3 stages, 192 KiB with 2.
TEST(GpuPolicy, StoredDotResultInALoopCountsItsLayoutConversion) {
  Result result = Emit(ReadInput("k_grid_matmul_bf16.tir", GPU_INPUTS));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "pltriton.CompilerParams(num_warps=8, num_stages=2)"))
      << result.code;
}

// attention f32 at 128x128 blocks: f32 dots are FMA loops whose carried
// acc (128x128) and qk (128x128) are live together; 8 warps spill 88 B
// (bf16, on tensor cores, compiles: conformance_gpu's attention rows).
TEST(GpuPolicy, F32DotLoopLiveSetPastEightWarpsIsALocatedError) {
  Result result = Emit(ReadInput("attention_f32.tir", GPU_INPUTS));
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(
      Contains(result.diagnostics, "examples/attention.py:44:5: error:"))
      << result.diagnostics;
  EXPECT_TRUE(Contains(result.diagnostics, "keeps 33024 values live"))
      << result.diagnostics;
}

// layer_norm f32 [200, 300] (tessera compile --emit=ir): Triton's tensors
// are powers of two, so the whole row of 300 is a block of 512, zero-padded
// on the host; the means mask the tail and divide by 300, not 512; the
// 128-row tile's block stays 128 (the grid's edge block is padded too).
TEST(GpuTriton, WholeDimsAreRoundedUpToAPowerOfTwoAndMasked) {
  GpuModuleOptions options;
  options.num_warps = 16;  // 128 x 512 f32 rows: more than the policy allows
  Result result =
      Emit(ReadInput("layer_norm_ragged_f32.tir", GPU_INPUTS), options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code, "pl.BlockSpec((128, 512), lambda tile_m"))
      << result.code;
  EXPECT_TRUE(Contains(result.code, "_pad_to_multiple(x, (128, 512))"))
      << result.code;
  EXPECT_TRUE(Contains(
      result.code,
      "jnp.sum(_mask_tail(acc, 1, 0, 300, 0), axis=1, keepdims=True) / 300"))
      << result.code;
  EXPECT_TRUE(Contains(result.code, "_mask_tail("));
  EXPECT_FALSE(Contains(result.code, "jnp.mean(")) << result.code;
  // The default launch is rejected: a 128 x 512 f32 tile needs 32 warps.
  Result checked = Emit(ReadInput("layer_norm_ragged_f32.tir", GPU_INPUTS));
  EXPECT_FALSE(checked.ok);
  EXPECT_TRUE(Contains(checked.diagnostics, "a tile of 65536 elements"))
      << checked.diagnostics;
}

// `@helion.kernel(config=helion.Config(num_warps=4, num_stages=1))`: the
// frontend records them on the kernel (host function attrs); they apply
// where the pipeline config leaves the choice to the policy.
TEST(GpuPolicy, KernelConfigWarpsAndStagesApplyUnlessConfigured) {
  std::string text =
      Replaced(Matmul(), "-> (ref<f32[256, 256]>) @18:1",
               "-> (ref<f32[256, 256]>) {num_warps = 4, num_stages = 1} @18:1");
  ASSERT_NE(text, Matmul());
  Result result = Emit(text);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "pltriton.CompilerParams(num_warps=4, num_stages=1)"))
      << result.code;
  GpuModuleOptions configured;
  configured.num_warps = 16;
  Result overridden = Emit(text, configured);
  ASSERT_TRUE(overridden.ok) << overridden.diagnostics;
  EXPECT_TRUE(Contains(overridden.code,
                       "pltriton.CompilerParams(num_warps=16, num_stages=1)"))
      << overridden.code;
}

// A symbolic whole dim (layer_norm.tir: x is [m, n]) is rounded when the
// host function is traced: padded to pl.next_power_of_2(n), the kernel's
// shapes take it as a kwarg, reductions mask past n.
TEST(GpuTriton, SymbolicWholeDimsAreRoundedWhenTraced) {
  Result result = Emit(ReadInput("layer_norm.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(
      Contains(result.code, "_pad_to_multiple(x, (16, pl.next_power_of_2(n)))"))
      << result.code;
  EXPECT_TRUE(Contains(result.code,
                       "out_specs=pl.BlockSpec((16, pl.next_power_of_2(n))"))
      << result.code;
  EXPECT_TRUE(Contains(result.code, "_mask_tail(")) << result.code;
}

// The module of tests/pallas_tpu/inputs/`input` must hold every one of
// `parts` and none of `absent`.
void ExpectModule(const std::string& input, GpuModuleOptions options,
                  std::initializer_list<const char*> parts,
                  std::initializer_list<const char*> absent = {}) {
  Result result = Emit(ReadInput(input), options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  for (const char* part : parts) {
    EXPECT_TRUE(Contains(result.code, part)) << part << "\n" << result.code;
  }
  for (const char* part : absent) {
    EXPECT_FALSE(Contains(result.code, part)) << part << "\n" << result.code;
  }
}

GpuModuleOptions WithWarpsStagesLegality(int64_t warps, int64_t stages,
                                         bool check_legality) {
  GpuModuleOptions options;
  options.num_warps = warps;
  options.num_stages = stages;
  options.check_legality = check_legality;
  return options;
}

// (The launch sits under the host's empty-grid guard's `else:`.)
// Its [16, n] tiles are sized when traced: the policy's helper picks the
// warps from the static choice (4) and the traced rows, up to 16, or raises
// the located error of the tile loop (launch @4:3). A configured num_warps
// is kept (most=0: the tiles checked against Triton's tensor limit only);
// with unchecked legality nothing is checked when traced.
TEST(GpuPolicy, TilesWithCallTimeDimsAreSizedWhenTraced) {
  ExpectModule("layer_norm.tir", {},
               {"def _triton_num_warps(tiles, live, tile_warps, least, most,",
                "num_warps=_triton_num_warps(\n"
                "                        tiles=((\"acc f32[16, n]\", (16, "
                "pl.next_power_of_2(n))),",
                "                    live=(),\n"
                "                        tile_warps=1, least=4, most=16,\n"
                "                        where=\"layer_norm.tir:4:3\", "
                "kernel=\"layer_norm\"),",
                "num_warps 4 or more when traced"});
  ExpectModule("layer_norm.tir", WithWarpsStagesLegality(2, 0, true),
               {"least=2, most=0,"});
  ExpectModule("layer_norm.tir", WithWarpsStagesLegality(0, 0, false),
               {"CompilerParams(num_warps=4, num_stages=3)"},
               {"_triton_num_warps"});
}

// attention.tir's head dim d is a call-time size: its k and v blocks
// ([1, d, 128] f32, streamed by the loop) and q ([1, 128, d], resident) are
// sized when traced, the stages chosen then from the default 3; a kernel's
// helion.Config(num_stages=2) is kept, and checked when traced. Its f32
// dots' live set (m_i, l_i and acc carried, qk the largest temporary) is
// weighed when traced too: at d = 128, 33024 values, past 8 warps.
TEST(GpuPolicy, DotsWithCallTimeDimsChooseStagesWhenTraced) {
  ExpectModule(
      "attention.tir", {},
      {"live=((\"an inner loop with f32 dots keeps {} values live "
       "(its carried tiles and its largest temporary)\", max(256 + "
       "128 * pl.next_power_of_2(d), 16640 + 128 * "
       "pl.next_power_of_2(d)), 112),),\n"
       "                        tile_warps=8, least=8, most=8,\n",
       "num_stages=_triton_num_stages(\n"
       "                        streamed=512 * pl.next_power_of_2(d) + "
       "512 * pl.next_power_of_2(d),\n"
       "                        converted=0,\n"
       "                        resident=65536 + 512 * "
       "pl.next_power_of_2(d),\n",
       "pipelined=True, stages=3, fixed=False,\n"
       "                        where=\"outline_attention.tir:13:3\"",
       "def _triton_num_stages(streamed,",
       "num_stages 3 or fewer when traced"});
  ExpectModule("attention.tir", WithWarpsStagesLegality(0, 2, true),
               {"stages=2, fixed=True,\n"});
  ExpectModule("attention.tir", WithWarpsStagesLegality(0, 0, false),
               {"CompilerParams(num_warps=8, num_stages=3)"},
               {"_triton_num_warps", "_triton_num_stages"});
}

TEST(GpuPolicy, ConfiguredWarpsAreKept) {
  GpuModuleOptions options;
  options.num_warps = 4;
  Result result = Emit(Matmul(), options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code, "num_warps=4, num_stages=1"));
}

TEST(GpuPolicy, TileTooLargeForSixteenWarpsIsALocatedError) {
  std::string text = Matmul();
  text = Replaced(text, "256", "1024");
  text = Replaced(text, "128", "512");
  Result result = Emit(text);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics, "a tile of 262144 elements"))
      << result.diagnostics;
}

// Pallas's Triton lowering has no batch dims in dot_general.
// A batch block of 1 indexing every access is squeezed out of the values
// (unit_tiles.h): the dots are 2-D with no reshapes around them.
TEST(GpuTriton, BatchedDotWithABatchBlockOfOneIsTwoDimensional) {
  Result result = Emit(ReadInput("bmm.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_FALSE(Contains(result.code, "jnp.reshape(")) << result.code;
  EXPECT_FALSE(Contains(result.code, "((0,), (0,))")) << result.code;
  EXPECT_TRUE(Contains(result.code, "jax.lax.dot_general(")) << result.code;
}

// Attention's values lose their batch dim: 2-D scores, reductions over
// axis 1, the statistics broadcast as [:, None], the batch read at the
// tile's program id.
TEST(GpuTriton, UnitBatchTileIsSqueezedFromEveryValue) {
  GpuModuleOptions unchecked;  // f32 128x128 blocks: past the live-set rule
  unchecked.check_legality = false;
  Result result = Emit(ReadInput("attention_f32.tir", GPU_INPUTS), unchecked);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  for (const char* part :
       {"acc = jnp.full((128, 128), 0.0, jnp.float32)", "jnp.max(qk, axis=1)",
        "m_ij[:, None]", "q = q_view[tile_b, :, :]"}) {
    EXPECT_TRUE(Contains(result.code, part)) << part << "\n" << result.code;
  }
  // The host's views stay reshapes; the kernel has none.
  EXPECT_FALSE(Contains(result.code, "jnp.reshape(jax.lax.dot_general("))
      << result.code;
  EXPECT_FALSE(Contains(result.code, "jnp.reshape(q,")) << result.code;
}

// f32 dots are TF32 unless dot_precision = "ieee" (seen on an H200: TF32
// errs near 1e-3 of the result); bf16 dots take no precision either way.
TEST(GpuTriton, F32DotsAreTf32UnlessIeeeIsAsked) {
  Result tf32 = Emit(Matmul());
  ASSERT_TRUE(tf32.ok) << tf32.diagnostics;
  EXPECT_FALSE(Contains(tf32.code, "precision=")) << tf32.code;
  GpuModuleOptions options;
  options.f32_dots_ieee = true;
  Result ieee = Emit(Matmul(), options);
  ASSERT_TRUE(ieee.ok) << ieee.diagnostics;
  EXPECT_TRUE(Contains(ieee.code,
                       "preferred_element_type=jnp.float32, "
                       "precision=jax.lax.Precision.HIGHEST)"))
      << ieee.code;
  std::string bf16 = Replaced(Matmul(), "x: ref<f32[", "x: ref<bf16[");
  bf16 = Replaced(bf16, "y: ref<f32[", "y: ref<bf16[");
  Result half = Emit(bf16, options);
  ASSERT_TRUE(half.ok) << half.diagnostics;
  EXPECT_FALSE(Contains(half.code, "precision=")) << half.code;
}

// Triton divides only f32/f64: a bf16 division is computed in f32.
TEST(GpuTriton, HalfPrecisionDivisionAndSumRunInF32) {
  Result result = Emit(Replaced(ReadInput("softmax.tir"), "f32", "bf16"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code, "dtype=jnp.float32).astype(jnp.bfloat16)"))
      << result.code;
  EXPECT_TRUE(Contains(result.code, ".astype(jnp.float32) / ")) << result.code;
}

// Pallas's Triton atomics take an index tuple, never an Ellipsis.
TEST(GpuTriton, WholeBlockAtomicIsATupleOfSlices) {
  Result result = Emit(ReadInput("split_k.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "pltriton.atomic_add(out, (slice(None),) * "
                       "len(out.shape), "))
      << result.code;
}

TEST(GpuMosaic, PartialAxisReductionIsALocatedError) {
  GpuModuleOptions options;
  options.launcher = Launcher::kMosaicGpu;
  Result result = Emit(ReadInput("softmax.tir"), options);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics,
                       "softmax.tir:6:5: error: the mosaic launcher of "
                       "pallas-gpu does not lower reductions"))
      << result.diagnostics;
}

// An output the plan keeps whole (a grid from a call-time offset) would be
// copied back by every program at once: a located error, not a race.
TEST(GpuMosaic, OutputBlockSharedByProgramsIsALocatedError) {
  GpuModuleOptions options;
  options.launcher = Launcher::kMosaicGpu;
  Result result =
      Emit(ReadInput("offset_grid_output_f32.tir", GPU_INPUTS), options);
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics,
                       "second_half.py:10:5: error: the mosaic launcher of "
                       "pallas-gpu cannot write output 'out' here: its block "
                       "is the same for every program along grid tile "
                       "'tile_m'"))
      << result.diagnostics;
  // The triton launcher writes global memory directly: no race.
  options.launcher = Launcher::kTriton;
  EXPECT_TRUE(
      Emit(ReadInput("offset_grid_output_f32.tir", GPU_INPUTS), options).ok);
}

}  // namespace
}  // namespace tessera::pallas
