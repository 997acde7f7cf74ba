// The mosaic launcher's matmul family (plgpu.wgmma over an emit_pipeline of
// swizzled TMA blocks), on the outlined IR of tests/pallas_gpu/inputs
// (`tessera compile examples/<kernel>.py --config
// configs/pallas_gpu_mosaic.toml --emit=ir` at bf16).
#include <gtest/gtest.h>

#include "gpu_test_util.h"

namespace tessera::pallas {
namespace {

Result EmitMosaic(const std::string& text) {
  GpuModuleOptions options;
  options.launcher = Launcher::kMosaicGpu;
  return Emit(text, options);
}

std::string Input(const std::string& name) {
  return ReadInput(name, GPU_INPUTS);
}

TEST(GpuMosaicWgmma, MatmulIsAWgmmaPipelineIntoAnF32Accumulator) {
  Result result = EmitMosaic(Input("matmul_bf16.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  for (const char* part : {
           "acc_ref[...] = plgpu.layout_cast(acc, plgpu.Layout.WGMMA)",
           "smem_transforms = (plgpu.TilingTransform((8, 64)), "
           "plgpu.SwizzleTransform(128))",
           "def _tile_k_body(_, x_block, y_block):",
           "plgpu.wgmma(acc_ref, x_block, y_block)",
           "plgpu.wgmma_wait(1)",
           "(128, 128), lambda tile_k: (tile_m, tile_k),",
           "(128, 128), lambda tile_k: (tile_k, tile_n),",
           "transforms=smem_transforms, delay_release=1),",
           "max_concurrent_steps=2,",
           ")(x, y)",
           "acc_3 = pl.run_scoped(_tile_k_wgmma, plgpu.ACC((128, 128), "
           "jnp.float32))",
           "out[...] = acc_3.astype(jnp.bfloat16)",
           "from jax.experimental.pallas import mosaic_gpu as plgpu",
       }) {
    EXPECT_TRUE(Contains(result.code, part)) << part << "\n" << result.code;
  }
  // Nothing of the Triton launcher.
  EXPECT_FALSE(Contains(result.code, "pltriton")) << result.code;
}

// The launch is pl.kernel over a Mosaic GPU mesh (jax 0.11 lowers no
// Mosaic GPU pallas_call): the program indices are the mesh's named axes,
// x and y reach the kernel as GMEM refs, and the output block passes through
// shared memory in one emit_pipeline step.
TEST(GpuMosaicWgmma, LaunchIsAKernelOverAMosaicGpuMesh) {
  Result result = EmitMosaic(Input("matmul_bf16.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  for (const char* part : {
           "tile_m = jax.lax.axis_index(\"tile_m\")",
           "def _matmul_program(x, y, out):",
           "def _matmul_blocks(_, out):\n"
           "                _matmul_kernel(x, y, out)",
           "out_specs=[\n"
           "                    plgpu.BlockSpec((128, 128), lambda _: (tile_m, "
           "tile_n)),\n"
           "                ],\n"
           "            )(out)",
           "out = pl.kernel(\n"
           "            _matmul_program,",
           "mesh=plgpu.Mesh(",
           "grid_names=(\"tile_m\", \"tile_n\"),",
           "interpret=_mosaic_gpu_interpret(interpret),",
           "return InterpretGPUParams()",
       }) {
    EXPECT_TRUE(Contains(result.code, part)) << part << "\n" << result.code;
  }
  for (const char* absent : {"pl.pallas_call", "pl.program_id"}) {
    EXPECT_FALSE(Contains(result.code, absent)) << absent << "\n"
                                                << result.code;
  }
}

TEST(GpuMosaicWgmma, OutputIsByteIdentical) {
  Result first = EmitMosaic(Input("matmul_bias_gelu_bf16.tir"));
  Result second = EmitMosaic(Input("matmul_bias_gelu_bf16.tir"));
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_EQ(first.code, second.code);
}

// The bias row meets the accumulator: loaded in the accumulator's layout
// reduced over the rows, broadcast explicitly.
TEST(GpuMosaicWgmma, EpilogueRowIsLoadedInTheAccumulatorsLayout) {
  Result result = EmitMosaic(Input("matmul_bias_gelu_bf16.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "jax.lax.broadcast_in_dim(plgpu.load(bias, (), "
                       "layout=plgpu.Layout.WGMMA.reduce(0)), (128, 128), "
                       "(1,))"))
      << result.code;
}

// A batch block of 1 is squeezed from the pipeline's blocks; the 2-D
// accumulator is reshaped back to the IR's 3-D value.
TEST(GpuMosaicWgmma, BatchedDotSqueezesTheBatchBlock) {
  Result result = EmitMosaic(Input("bmm_bf16.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(Contains(result.code,
                       "(None, 128, 128), lambda tile_k: "
                       "(tile_b, tile_m, tile_k),"))
      << result.code;
  EXPECT_TRUE(Contains(result.code,
                       "jnp.reshape(pl.run_scoped(_tile_k_wgmma, "
                       "plgpu.ACC((128, 128), jnp.float32)), (1, 128, 128))"))
      << result.code;
}

// Split-K: the pipeline starts at the grid's k chunk, and hl.atomic_add is
// a TMA reduce-add of the staged block into the GMEM output, a ref the
// kernel writes in place (its zeros are the initial values).
TEST(GpuMosaicWgmma, SplitKAddsIntoGlobalMemoryByTmaReduction) {
  Result result = EmitMosaic(Input("split_k_matmul_bf16.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  for (const char* part : {
           "lambda inner_k: (tile_m, outer_k + inner_k),",
           "_atomic_add_block(out.at[pl.ds(",
           "plgpu.copy_smem_to_gmem(staging, dst, reduction_op=\"add\")",
           "out_ref = jax.new_ref(out_padded, memory_space=plgpu.GMEM)",
           "def _split_k_matmul_program(x, y, out_init):\n"
           "            _split_k_matmul_kernel(x, y, out_init, out_init)",
           "out_type=(),",
           ")(x_padded, y_padded, out_ref)\n"
           "        out = jax.freeze(out_ref)",
       }) {
    EXPECT_TRUE(Contains(result.code, part)) << part << "\n" << result.code;
  }
}

// An output with initial values whose blocks pass through shared memory:
// its ref is read through in_specs and written through out_specs of the
// same pipeline step.
TEST(GpuMosaicWgmma, AliasedStagedOutputIsReadAndWrittenInPlace) {
  Result result = EmitMosaic(Input("aliased_output_bf16.tir"));
  ASSERT_TRUE(result.ok) << result.diagnostics;
  for (const char* part : {
           "def _bump_program(x, y, out_init):",
           "def _bump_blocks(_, x, y, out_init, out):\n"
           "                _bump_kernel(x, y, out_init, out)",
           ")(x, y, out_init, out_init)",
           "out_ref = jax.new_ref(out_padded, memory_space=plgpu.GMEM)",
           ")(x_padded, y_padded, out_ref)\n"
           "        out = jax.freeze(out_ref)",
       }) {
    EXPECT_TRUE(Contains(result.code, part)) << part << "\n" << result.code;
  }
}

TEST(GpuMosaicWgmma, F32OperandsAreALocatedError) {
  Result result = EmitMosaic(Replaced(Input("matmul_bf16.tir"), "bf16", "f32"));
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics,
                       "examples/matmul.py:28:9: error: the mosaic launcher "
                       "of pallas-gpu lowers dots of bf16 or f16 operands "
                       "only"))
      << result.diagnostics;
}

// num_stages is the wgmma pipeline's depth under mosaic; each stage holds
// a block of both operands in shared memory (2 x 32 KiB at 128x128 bf16).
TEST(GpuMosaicWgmma, NumStagesIsThePipelinesDepth) {
  GpuModuleOptions options;
  options.launcher = Launcher::kMosaicGpu;
  options.num_stages = 3;
  Result deeper = Emit(Input("matmul_bf16.tir"), options);
  ASSERT_TRUE(deeper.ok) << deeper.diagnostics;
  EXPECT_TRUE(Contains(deeper.code, "max_concurrent_steps=3,")) << deeper.code;
  options.num_stages = 4;
  Result too_deep = Emit(Input("matmul_bf16.tir"), options);
  EXPECT_FALSE(too_deep.ok);
  EXPECT_TRUE(Contains(too_deep.diagnostics,
                       "error: the blocks of the mosaic launcher take 288 KiB "
                       "of shared memory (pipeline stages 4), more than the "
                       "GPU's 227 KiB per program; choose smaller blocks or "
                       "fewer stages"))
      << too_deep.diagnostics;
}

// A contraction block of 8 bf16 (16 bytes) is no swizzle's row.
TEST(GpuMosaicWgmma, BlocksWgmmaCannotTakeAreALocatedError) {
  Result result = EmitMosaic(Replaced(Input("matmul_bf16.tir"),
                                      "tile_k: tile<128> in tile(0:256:128)",
                                      "tile_k: tile<8> in tile(0:256:8)"));
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics,
                       "examples/matmul.py:28:9: error: this dot's blocks "
                       "(128x128x8) do not fit plgpu.wgmma"))
      << result.diagnostics;
}

// One warpgroup holds the f32 accumulator: a 128 x 256 block is 256
// registers a thread (it spilled on an H200: 107 TFLOP/s against 594 at
// 128 x 128); 64 x 256 is 128 and compiles.
TEST(GpuMosaicWgmma, AccumulatorsPastTheRegistersAreALocatedError) {
  auto blocks = [](int64_t bm, int64_t bn) {
    std::string text = Input("matmul_bf16.tir");
    for (auto [from, to] :
         {std::pair<std::string, std::string>{"f32[128, 128]",
                                              "f32[ROWS, COLS]"},
          {"dims[128, 128]", "dims[ROWS, COLS]"},
          {"grid(0:256:128, 0:256:128)", "grid(0:256:ROWS, 0:256:COLS)"},
          {"tile_m: tile<128>", "tile_m: tile<ROWS>"},
          {"tile_n: tile<128>", "tile_n: tile<COLS>"},
          {"tile_k: tile<128> in tile(0:256:128)",
           "tile_k: tile<64> in tile(0:256:64)"}}) {
      text = Replaced(text, from, to);
    }
    text = Replaced(text, "ROWS", std::to_string(bm));
    return Replaced(text, "COLS", std::to_string(bn));
  };
  Result wide = EmitMosaic(blocks(128, 256));
  EXPECT_FALSE(wide.ok);
  EXPECT_TRUE(Contains(wide.diagnostics,
                       "examples/matmul.py:28:9: error: this dot's blocks "
                       "(128x256x64) do not fit plgpu.wgmma: its f32 "
                       "accumulator needs 256 registers a thread of the one "
                       "warpgroup that holds it, more than 224"))
      << wide.diagnostics;
  Result narrow = EmitMosaic(blocks(64, 256));
  EXPECT_TRUE(narrow.ok) << narrow.diagnostics;
  EXPECT_TRUE(Contains(narrow.code, "plgpu.ACC((64, 256), jnp.float32)"))
      << narrow.code;
}

// A loop that does more than accumulate one dot is named, not lowered.
TEST(GpuMosaicWgmma, OtherDotLoopsAreALocatedError) {
  Result result = EmitMosaic(ReadInput("k_grid_matmul_bf16.tir", GPU_INPUTS));
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(Contains(result.diagnostics,
                       "error: the mosaic launcher of pallas-gpu lowers an "
                       "inner tile loop with a dot only as the accumulation"))
      << result.diagnostics;
}

}  // namespace
}  // namespace tessera::pallas
