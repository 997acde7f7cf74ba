// A grid step's compute on hand-counted cases: the vector work of an
// online-softmax step as the real compiler's bundle dump shows it
// (docs/cost_model.md, "Co-issue"), and how chained trips combine MXU and
// vector cycles.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cost_model/plan_view.h"
#include "cost_model/work.h"
#include "module_emitter.h"
#include "tessera/ir/text.h"

namespace tessera::pallas {
namespace {

const TpuHardware& V6e() { return *TpuHardwareByName("v6e"); }

TEST(CostWork, OnlineSoftmaxStepMatchesTheCompilersUnitCounts) {
  // examples/attention.py, unroll, bf16 q / k / v [1, 2, 1024, 128],
  // blocks [1, 512, 1024]: one trip, scores qk f32 [1, 512, 1024] = 512
  // vregs in 64 groups of 8 rows; row statistics [1, 512] = 64 vregs.
  std::ifstream in(std::string(PALLAS_TPU_INPUTS) +
                   "/cost_attention_512x1024.tir");
  std::stringstream text;
  text << in.rdbuf();
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text.str(), "input.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  const Function* host = nullptr;
  for (const Function& function : module->functions) {
    if (function.kind == FunctionKind::kHost) host = &function;
  }
  ASSERT_NE(host, nullptr);
  auto plan = BuildKernelPlan(*module, *host, Launcher::kUnroll, diagnostics);
  ASSERT_TRUE(plan.ok()) << diagnostics.RenderAll();
  auto view = ViewKernelPlan(*plan, true, nullptr);
  ASSERT_TRUE(view.ok()) << view.status();
  const StepWork work = CountStepWork(*view, 0, V6e());
  // EUP: exp2 of qk (512) + exp2 of alpha (64) + 1 / l_i (64): the dump's
  // 576 vpow2 + 64 vrcp.
  EXPECT_DOUBLE_EQ(work.eup_ops, 640);
  // XLU: amax and sum, one cross-lane reduce per 8-row group, 4 slot uses
  // each: the dump's 512.
  EXPECT_DOUBLE_EQ(work.lane_reduces, 128);
  EXPECT_DOUBLE_EQ(work.xlu_ops, 512);
  // Spills: qk (2 uses), p (2 uses), bf16 p (a dot operand): 512 + 512 +
  // 256 vregs stored and loaded (the dump: 1175 stores, 1143 of them spills).
  EXPECT_DOUBLE_EQ(work.vst - 32, 1280);  // + the output block's 32 stores
  // VALU within 10 % of the dump's 3426 (EUP pushes included).
  EXPECT_NEAR(work.valu_ops, 3426, 343);
  EXPECT_DOUBLE_EQ(work.chained_trips, 1);
}

TEST(CostWork, ChainedTripsCoIssueAndPayTheChainOncePerStep) {
  const TpuHardware& hw = V6e();
  StepWork work;
  work.mxu_cycles = 1000;
  work.valu_ops = 3200;  // 800 cycles on 4 VALU slots
  // Without chained trips MXU and vector work add up.
  EXPECT_DOUBLE_EQ(work.ComputeCycles(hw), 1800);
  // Two chained trips of 500 MXU and 400 vector cycles each: a trip costs
  // 500 + 0.15 x 400 (at least 95), the step 530 cycles of fill and drain.
  work.chained_trips = 2;
  work.chain_mxu_cycles = 1000;
  work.chain_vector_cycles = 800;
  EXPECT_DOUBLE_EQ(hw.chain_exposed_share, 0.15);
  EXPECT_DOUBLE_EQ(work.ComputeCycles(hw), 530 + 2 * (500 + 0.15 * 400));
  // Tiny trips are latency-bound.
  work.mxu_cycles = work.chain_mxu_cycles = 20;
  work.valu_ops = 40;
  work.chain_vector_cycles = 10;
  EXPECT_DOUBLE_EQ(work.ComputeCycles(hw), 530 + 2 * 95);
}

}  // namespace
}  // namespace tessera::pallas
