// The TPU cost model on hand-counted kernels (inputs/cost_*.tir, made by
// `tessera compile examples/K.py --arg ... --emit=ir`): bytes with block
// reuse, tile padding and ragged edges, flops, the inner pipeline of
// emit_pipeline, VMEM overflow, and monotonicity.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "atomic_accumulator.h"
#include "cost_model/estimate.h"
#include "module_emitter.h"
#include "pre_broadcast.h"
#include "tessera/ir/text.h"
#include "test_inputs.h"

namespace tessera::pallas {
namespace {

// Replaces every occurrence of `from` in `text` (to rescale shapes).
std::string Replace(std::string text, const std::string& from,
                    const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

KernelEstimate Estimate(const std::string& text, Launcher launcher,
                        const std::string& tpu = "v6e",
                        CostOptions options = CostOptions{}) {
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "input.tir", diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  const TpuHardware* hardware = TpuHardwareByName(tpu);
  EXPECT_NE(hardware, nullptr);
  for (const Function& function : module->functions) {
    if (function.kind != FunctionKind::kHost) continue;
    auto plan = BuildKernelPlan(*module, function, launcher, diagnostics);
    EXPECT_TRUE(plan.ok()) << diagnostics.RenderAll();
    auto estimate = EstimateKernelPlan(*plan, *hardware, options);
    EXPECT_TRUE(estimate.ok()) << estimate.status();
    return *estimate;
  }
  ADD_FAILURE() << "no host function";
  return {};
}

TEST(CostModel, ElementwiseBlock) {
  // out = x + y, f32[256, 512], blocks 128 x 128: 2 x 4 steps, each block
  // copied once per direction.
  KernelEstimate estimate =
      Estimate(ReadInput("cost_add.tir"), Launcher::kEmitPipeline);
  ASSERT_EQ(estimate.stages.size(), 1u);
  EXPECT_EQ(estimate.stages[0].steps, 8);
  EXPECT_DOUBLE_EQ(estimate.bytes_accessed, 3.0 * 256 * 512 * 4);
  EXPECT_DOUBLE_EQ(estimate.flops, 256.0 * 512);
  EXPECT_DOUBLE_EQ(estimate.transcendentals, 0);
  // 8 steps of 2 input + 1 output blocks (64 KiB each), double-buffered,
  // and the compiler's scratch as legality's VMEM plan counts it: twice the
  // largest named value (none: the sum goes straight to the store) + 1 MiB.
  EXPECT_EQ(estimate.vmem_peak_bytes, 3 * 2 * 128 * 128 * 4 + 1024 * 1024);
  DiagnosticEngine diagnostics;
  auto module =
      ParseModule(ReadInput("cost_add.tir"), "input.tir", diagnostics);
  ASSERT_TRUE(module.ok());
  EXPECT_EQ(CompilerScratch(*module->FindFunction("add_device")).bytes,
            1024 * 1024);
  // Memory-bound: at least the bytes at the HBM bandwidth.
  const TpuHardware& v6e = *TpuHardwareByName("v6e");
  EXPECT_GE(estimate.time_s, estimate.bytes_accessed / v6e.hbm_bytes_per_s);
}

TEST(CostModel, RaggedShapeMovesTilePaddedEdgeBlocks) {
  // f32[200, 300] in 128 x 128 blocks: rows 128 + 72 (a multiple of 8),
  // columns 128 + 128 + 44 padded to 128 lanes: 200 x 384 per operand.
  KernelEstimate estimate =
      Estimate(ReadInput("cost_add_ragged.tir"), Launcher::kEmitPipeline);
  EXPECT_EQ(estimate.stages[0].steps, 6);
  EXPECT_DOUBLE_EQ(estimate.bytes_accessed, 3.0 * 200 * 384 * 4);
  // The kernel computes whole blocks, edge blocks included.
  EXPECT_DOUBLE_EQ(estimate.flops, 6.0 * 128 * 128);
}

TEST(CostModel, UnrollMatmulReusesTheLhsBlockAcrossTheInnerGridDim) {
  // unroll: x keeps the block (128, 256) picked by tile_m alone; tile_n is
  // the inner grid dim, so x is copied once per tile_m (2 copies), y's
  // block (256, 128) changes every step (4 copies), out once per step.
  KernelEstimate estimate =
      Estimate(ReadInput("cost_matmul.tir"), Launcher::kUnroll);
  ASSERT_EQ(estimate.stages.size(), 1u);
  EXPECT_DOUBLE_EQ(estimate.stages[0].bytes,
                   (2.0 * 128 * 256 + 4.0 * 256 * 128 + 4.0 * 128 * 128) * 4);
  // 2 m n k, plus the accumulation of the second k block into acc.
  EXPECT_DOUBLE_EQ(estimate.flops, 2.0 * 256 * 256 * 256 + 4.0 * 2 * 128 * 128);
}

TEST(CostModel, EmitPipelineInnerLoop) {
  // emit_pipeline: x and y stream through the tile_k pipeline, two
  // (128, 128) f32 blocks each per grid step, the grid writes out.
  KernelEstimate estimate =
      Estimate(ReadInput("cost_matmul.tir"), Launcher::kEmitPipeline);
  ASSERT_EQ(estimate.stages.size(), 2u);
  const StageEstimate& grid = estimate.stages[0];
  const StageEstimate& loop = estimate.stages[1];
  EXPECT_EQ(loop.kind, "loop");
  EXPECT_EQ(loop.steps, 2);
  EXPECT_EQ(loop.runs, 4);
  EXPECT_DOUBLE_EQ(loop.bytes, 4.0 * 2 * 2 * 128 * 128 * 4);
  EXPECT_DOUBLE_EQ(grid.bytes, 4.0 * 128 * 128 * 4);
  EXPECT_DOUBLE_EQ(estimate.flops, 2.0 * 256 * 256 * 256 + 8.0 * 128 * 128);
  // The grid waits for its inner pipelines.
  EXPECT_GE(grid.time_s, loop.time_s);
  EXPECT_EQ(grid.bound, "inner loop");
}

TEST(CostModel, CopiesThatAreNotPrefetchedAreSerial) {
  // fori_loop without its two-slot prefetch waits for every inner copy:
  // per step overhead + compute + copies instead of the larger of the two.
  std::string text = ReadInput("cost_matmul.tir");
  CostOptions serial;
  serial.prefetch = false;
  KernelEstimate overlapped = Estimate(text, Launcher::kForiLoop);
  KernelEstimate waiting = Estimate(text, Launcher::kForiLoop, "v6e", serial);
  const StageEstimate& a = overlapped.stages[1];
  const StageEstimate& b = waiting.stages[1];
  EXPECT_DOUBLE_EQ(a.bytes, b.bytes);
  EXPECT_GT(b.time_s, a.time_s);
  EXPECT_NEAR(b.time_s - b.exposed_memory_s, b.overhead_s + b.compute_s, 1e-12);
  // Two slots per streamed block instead of one.
  EXPECT_GT(overlapped.vmem_peak_bytes, waiting.vmem_peak_bytes);
}

TEST(CostModel, CostEstimateInTheGeneratedCallMatchesTheModel) {
  DiagnosticEngine diagnostics;
  auto module =
      ParseModule(ReadInput("cost_matmul.tir"), "in.tir", diagnostics);
  ASSERT_TRUE(module.ok());
  ModuleOptions options;
  options.tpu = *TpuGenerationByName("v6e");
  KernelCost cost;
  auto file = EmitKernelModule(*module, module->functions[0], options,
                               diagnostics, &cost);
  ASSERT_TRUE(file.ok()) << diagnostics.RenderAll();
  ASSERT_TRUE(cost.estimate.has_value()) << cost.problem;
  EXPECT_NE(file->contents.find("cost_estimate=pl.CostEstimate(flops=33685504, "
                                "transcendentals=0, bytes_accessed=1310720)"),
            std::string::npos)
      << file->contents;
}

TEST(CostModel, VmemOverflowIsReported) {
  // 4096 x 8192 f32 blocks: 128 MiB each, 3 operands double-buffered.
  std::string text =
      Replace(ReadInput("cost_add.tir"), "256, 512", "4096, 8192");
  text = Replace(text, "tile<128>", "tile<4096>");
  text = Replace(text, "0:256:128", "0:4096:4096");
  text = Replace(text, "0:512:128", "0:8192:4096");
  KernelEstimate estimate = Estimate(text, Launcher::kEmitPipeline, "v5e");
  EXPECT_GT(estimate.vmem_peak_bytes, estimate.vmem_capacity_bytes);
  ASSERT_FALSE(estimate.notes.empty());
  EXPECT_NE(estimate.notes.back().find("exceeds the v5e capacity"),
            std::string::npos)
      << estimate.notes.back();
}

TEST(CostModel, SymbolicShapesAreAnError) {
  DiagnosticEngine diagnostics;
  auto module =
      ParseModule(ReadInput("cost_add_symbolic.tir"), "input.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  auto plan = BuildKernelPlan(*module, module->functions[0],
                              Launcher::kEmitPipeline, diagnostics);
  ASSERT_TRUE(plan.ok()) << diagnostics.RenderAll();
  auto estimate =
      EstimateKernelPlan(*plan, *TpuHardwareByName("v6e"), CostOptions{});
  ASSERT_FALSE(estimate.ok());
  EXPECT_NE(estimate.status().message().find("pass --arg"), std::string::npos);
}

TEST(CostModel, BoundNamesWhatLimitsTheStage) {
  // 128 x 128 f32 blocks: 192 KiB per step, less time than a DMA's latency.
  KernelEstimate small = Estimate(ReadInput("cost_add.tir"), Launcher::kUnroll);
  EXPECT_EQ(small.stages[0].bound, "step overhead");
  // 512 x 2048 blocks: 12 MiB per step, bandwidth-bound.
  std::string text =
      Replace(ReadInput("cost_add.tir"), "256, 512", "4096, 8192");
  text = Replace(text, "tile<128>, tile_n: tile<128>",
                 "tile<512>, tile_n: tile<2048>");
  text = Replace(text, "0:256:128", "0:4096:512");
  text = Replace(text, "0:512:128", "0:8192:2048");
  EXPECT_EQ(Estimate(text, Launcher::kUnroll).stages[0].bound, "HBM");
  // bf16 matmul with 2048^3 blocks: 1024 flops per byte copied, MXU-bound
  // inner pipeline; the grid waits for it.
  std::string matmul = Replace(ReadInput("cost_matmul.tir"), "128", "2048");
  matmul = Replace(Replace(matmul, "256", "8192"), "f32[", "bf16[");
  KernelEstimate big = Estimate(matmul, Launcher::kEmitPipeline);
  ASSERT_EQ(big.stages.size(), 2u);
  EXPECT_EQ(big.stages[1].bound, "MXU");
  EXPECT_EQ(big.stages[0].bound, "inner loop");
  EXPECT_GT(big.stages[0].roofline_fraction, 0.5);
}

TEST(CostModel, MoreBytesOrFlopsNeverLowerTheEstimate) {
  for (Launcher launcher :
       {Launcher::kUnroll, Launcher::kEmitPipeline, Launcher::kForiLoop}) {
    for (const std::string tpu : {"v5e", "v6e", "v7x"}) {
      double previous = 0;
      for (const std::string size : {"256", "512", "1024", "2048"}) {
        std::string text = Replace(ReadInput("cost_matmul.tir"), "256", size);
        KernelEstimate f32 = Estimate(text, launcher, tpu);
        KernelEstimate bf16 =
            Estimate(Replace(text, "f32[", "bf16["), launcher, tpu);
        EXPECT_GE(f32.time_s, previous) << size << " " << tpu;
        // bf16 operands halve the bytes at the same flops.
        EXPECT_LE(bf16.time_s, f32.time_s) << size << " " << tpu;
        EXPECT_LE(bf16.bytes_accessed, f32.bytes_accessed);
        previous = f32.time_s;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::pallas
