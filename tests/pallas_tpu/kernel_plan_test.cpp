// The launcher-dependent part of the KernelPlan (PlanInnerLoops): which refs
// an inner loop streams, what its launcher keeps in VMEM, and the grid's
// dimension semantics -- the one description the emitters, the legality
// checks and the cost model read.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kernel_plan.h"
#include "module_emitter.h"
#include "tessera/ir/text.h"

namespace tessera::pallas {
namespace {

struct Planned {
  Module module;
  KernelPlan plan;
};

// Plans the first host function of tests/pallas_tpu/inputs/<name>.
Planned PlanInput(const std::string& name, Launcher launcher, bool prefetch) {
  std::ifstream in(std::string(PALLAS_TPU_INPUTS) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module = ParseModule(text.str(), name, diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  Planned planned{std::move(module).value_or(Module{}), {}};
  for (const Function& function : planned.module.functions) {
    if (function.kind != FunctionKind::kHost) continue;
    absl::StatusOr<KernelPlan> plan =
        BuildKernelPlan(planned.module, function, launcher, diagnostics);
    EXPECT_TRUE(plan.ok()) << diagnostics.RenderAll();
    planned.plan = std::move(plan).value_or(KernelPlan{});
    PlanInnerLoops(planned.plan, prefetch);
    break;
  }
  return planned;
}

TEST(KernelPlan, UnrollKeepsNothingInVmemForItsInnerLoops) {
  Planned matmul = PlanInput("matmul.tir", Launcher::kUnroll, true);
  ASSERT_EQ(matmul.plan.inner_loops.size(), 1u);
  const InnerLoopPlan& inner = matmul.plan.inner_loops[0];
  EXPECT_EQ(inner.tile, "tile_k");
  EXPECT_TRUE(inner.streamed.empty());
  EXPECT_TRUE(inner.buffers.empty());
  EXPECT_EQ(matmul.plan.InnerLoop(inner.loop), &inner);
  EXPECT_EQ(matmul.plan.dimension_semantics,
            (std::vector<std::string>{"parallel", "parallel"}));
}

TEST(KernelPlan, EmitPipelineCarriesInScratchAndDoubleBuffersStreams) {
  Planned matmul = PlanInput("matmul.tir", Launcher::kEmitPipeline, true);
  ASSERT_EQ(matmul.plan.inner_loops.size(), 1u);
  const InnerLoopPlan& inner = matmul.plan.inner_loops[0];
  ASSERT_EQ(inner.streamed.size(), 2u);  // x and y
  EXPECT_EQ(matmul.plan.refs[inner.streamed[0]].name, "x");
  EXPECT_EQ(matmul.plan.refs[inner.streamed[1]].name, "y");
  ASSERT_EQ(inner.buffers.size(), 3u);
  const LoopBuffer& acc = inner.buffers[0];
  EXPECT_EQ(acc.kind, LoopBuffer::Kind::kCarried);
  EXPECT_EQ(acc.shape, (std::vector<int64_t>{16, 128}));
  EXPECT_EQ(acc.bytes(), 16 * 128 * 4);
  EXPECT_EQ(acc.copies, 1);
  const LoopBuffer& x_block = inner.buffers[1];
  EXPECT_EQ(x_block.kind, LoopBuffer::Kind::kStreamedBlock);
  EXPECT_EQ(x_block.shape, (std::vector<int64_t>{16, 128}));
  EXPECT_EQ(x_block.copies, 2);
  EXPECT_EQ(inner.buffers[2].shape, (std::vector<int64_t>{128, 128}));
}

TEST(KernelPlan, ForiLoopUsesDmaSemaphoresAndOneSlotPerPrefetchedCopy) {
  for (bool prefetch : {true, false}) {
    Planned matmul = PlanInput("matmul.tir", Launcher::kForiLoop, prefetch);
    ASSERT_EQ(matmul.plan.inner_loops.size(), 1u);
    const InnerLoopPlan& inner = matmul.plan.inner_loops[0];
    const int64_t slots = prefetch ? 2 : 1;
    ASSERT_EQ(inner.buffers.size(), 3u) << prefetch;
    EXPECT_EQ(inner.buffers[0].kind, LoopBuffer::Kind::kSemaphores);
    EXPECT_EQ(inner.buffers[0].shape, (std::vector<int64_t>{2, slots}));
    EXPECT_EQ(inner.buffers[0].bytes(), 0);
    for (size_t i = 1; i < inner.buffers.size(); ++i) {
      EXPECT_EQ(inner.buffers[i].kind, LoopBuffer::Kind::kStreamedBlock);
      EXPECT_EQ(inner.buffers[i].copies, slots);
    }
  }
}

TEST(KernelPlan, AtomicTargetsMakeTheirGridDimsArbitrary) {
  Planned split_k = PlanInput("split_k.tir", Launcher::kEmitPipeline, true);
  bool any_arbitrary = false;
  for (const std::string& semantics : split_k.plan.dimension_semantics) {
    EXPECT_TRUE(semantics == "parallel" || semantics == "arbitrary");
    any_arbitrary = any_arbitrary || semantics == "arbitrary";
  }
  EXPECT_TRUE(any_arbitrary);
  EXPECT_EQ(split_k.plan.dimension_semantics.back(), "arbitrary");
}

TEST(KernelPlan, RejectsAnInnerBlockThatDoesNotDivideItsChunk) {
  // A 256-wide step in a 384-wide chunk would read (and add) the first half
  // of the next program's chunk: a located error, not wrong sums.
  std::ifstream in(std::string(PALLAS_TPU_INPUTS) + "/split_k.tir");
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"0:k:256", "0:k:384"},
        {"outer_k: tile<256>", "outer_k: tile<384>"},
        {"for inner_k: tile<128>", "for inner_k: tile<256>"},
        {"tile_end(outer_k):128", "tile_end(outer_k):256"}}) {
    size_t at = source.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    source.replace(at, from.size(), to);
  }
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module =
      ParseModule(source, "split_k.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  absl::StatusOr<KernelPlan> plan = BuildKernelPlan(
      *module, module->functions[0], Launcher::kUnroll, diagnostics);
  EXPECT_FALSE(plan.ok());
  EXPECT_NE(diagnostics.RenderAll().find(
                "split_k.tir:5:5: error: the inner block 256 does not divide "
                "the block 384 of tile 'outer_k'"),
            std::string::npos)
      << diagnostics.RenderAll();
}

}  // namespace
}  // namespace tessera::pallas
