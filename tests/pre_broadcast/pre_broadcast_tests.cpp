// The pre-broadcast pass in-process and the pre_broadcast verifier. Inputs
// are the IR-file tests' inputs (SSA, outlined attention kernels).
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "pre_broadcast.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"

namespace tessera {
namespace {

// The plugin registers its property when it loads; in-process, the test
// does, before any module header names it.
[[maybe_unused]] const Property kPreBroadcastRegistered =
    PreBroadcastProperty();

std::string ReadIr(const std::string& name) {
  std::ifstream file(std::string(TESSERA_PRE_BROADCAST_IR_DIR) + "/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Module Parse(const std::string& text) {
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module = ParseModule(text, "test.tir", diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  return module.ok() ? *std::move(module) : Module{};
}

struct PassRun {
  Module module;
  bool changed = false;
  std::string diagnostics;
};

PassRun RunPass(const std::string& text, int64_t lanes = 128,
                bool remarks = false) {
  PassRun run;
  run.module = Parse(text);
  DiagnosticEngine diagnostics;
  PreBroadcastOptions options;
  options.lanes = lanes;
  options.remarks = remarks;
  absl::StatusOr<bool> changed = PreBroadcast(run.module, options, diagnostics);
  EXPECT_TRUE(changed.ok()) << changed.status() << diagnostics.RenderAll();
  run.changed = changed.ok() && *changed;
  run.diagnostics = diagnostics.RenderAll();
  return run;
}

std::string VerifyErrors(const Module& module) {
  DiagnosticEngine diagnostics;
  absl::Status status =
      VerifyProperty(module, PreBroadcastProperty(), diagnostics);
  return status.ok() ? "" : diagnostics.RenderAll();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++count;
  }
  return count;
}

TEST(PreBroadcastPass, CarriesStatisticsAndTilesWideConsumers) {
  PassRun run = RunPass(ReadIr("pre_broadcast_attention_d256.tir"));
  ASSERT_TRUE(run.changed);
  std::string ir = PrintModule(run.module);
  EXPECT_NE(ir.find(R"({pre_broadcast = strs["m_i_1", "l_i_1"], lanes = 128})"),
            std::string::npos)
      << ir;
  EXPECT_EQ(Count(ir, "[:, :, None]"), 0u) << ir;
  // acc * alpha[..., None] in the loop, acc / l_i[..., None] after it.
  EXPECT_EQ(Count(ir, "{reps = 2}"), 2u) << ir;
  EXPECT_EQ(VerifyErrors(run.module), "");
  DiagnosticEngine diagnostics;
  EXPECT_TRUE(Verify(run.module, diagnostics, run.module.properties).ok())
      << diagnostics.RenderAll();
}

TEST(PreBroadcastPass, LeavesNarrowConsumersAloneAndSaysWhy) {
  const std::string input = ReadIr("pre_broadcast_attention_d64.tir");
  PassRun run = RunPass(input, 128, /*remarks=*/true);
  EXPECT_FALSE(run.changed);
  EXPECT_TRUE(StructurallyEqual(run.module, Parse(input)));
  EXPECT_NE(run.diagnostics.find("'m_i_1' is not carried with 128 lanes: it "
                                 "meets an operand of width 64"),
            std::string::npos)
      << run.diagnostics;
  EXPECT_NE(run.diagnostics.find("'l_i_1' is not carried"), std::string::npos)
      << run.diagnostics;
}

TEST(PreBroadcastPass, RemarksOnlyWhenAsked) {
  EXPECT_EQ(RunPass(ReadIr("pre_broadcast_attention_d64.tir")).diagnostics, "");
  PassRun run = RunPass(ReadIr("pre_broadcast_attention_d256.tir"), 128, true);
  EXPECT_NE(run.diagnostics.find("remark: pre-broadcast: carrying 'm_i_1', "
                                 "'l_i_1' with a trailing dim of 128 lanes"),
            std::string::npos)
      << run.diagnostics;
}

TEST(PreBroadcastPass, LanesOption) {
  // With 64 lanes the head_dim 64 consumers fit exactly ...
  PassRun narrow = RunPass(ReadIr("pre_broadcast_attention_d64.tir"), 64);
  ASSERT_TRUE(narrow.changed);
  std::string ir = PrintModule(narrow.module);
  EXPECT_NE(ir.find("m_i_1: f32[1, 128, 64]"), std::string::npos) << ir;
  // qk (128 wide: the key block) still needs two copies of m_ij.
  EXPECT_EQ(Count(ir, "{reps = 2}"), 1u) << ir;
  // ... and head_dim 256 needs four copies.
  PassRun wide = RunPass(ReadIr("pre_broadcast_attention_d256.tir"), 64);
  EXPECT_EQ(Count(PrintModule(wide.module), "{reps = 4}"), 2u);
}

TEST(PreBroadcastPass, SecondRunChangesNothing) {
  PassRun once = RunPass(ReadIr("pre_broadcast_indirect.tir"));
  ASSERT_TRUE(once.changed);
  std::string printed = PrintModule(once.module);
  PassRun twice = RunPass(printed);
  EXPECT_FALSE(twice.changed);
  EXPECT_EQ(PrintModule(twice.module), printed);
}

TEST(PreBroadcastPass, OtherUsesReadTheOriginalValueBack) {
  PassRun run = RunPass(ReadIr("pre_broadcast_indirect.tir"));
  std::string ir = PrintModule(run.module);
  // The log-sum-exp store takes lane 0 of the wide statistics.
  EXPECT_NE(ir.find("store lse[tile_b, tile_m] = subscript(add(m_i_3, "
                    "log2(l_i_3)))[:, :, scalar(0)]"),
            std::string::npos)
      << ir;
}

// --- The pre_broadcast verifier: one test per rule ------------------------

class PreBroadcastVerifier : public ::testing::Test {
 protected:
  void SetUp() override {
    rewritten_ =
        PrintModule(RunPass(ReadIr("pre_broadcast_attention_d256.tir")).module);
  }
  // The rewritten module with `from` replaced by `to` (which must occur).
  std::string Mutated(const std::string& from, const std::string& to) {
    std::string text = rewritten_;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  }
  std::string rewritten_;
};

TEST_F(PreBroadcastVerifier, AcceptsThePassOutput) {
  EXPECT_EQ(VerifyErrors(Parse(rewritten_)), "");
}

TEST_F(PreBroadcastVerifier, UnknownIterArg) {
  std::string errors = VerifyErrors(
      Parse(Mutated(R"(strs["m_i_1", "l_i_1"])", R"(strs["m_i_1", "x_1"])")));
  EXPECT_NE(errors.find("pre_broadcast names 'x_1', which is not an iter_arg"),
            std::string::npos)
      << errors;
}

TEST_F(PreBroadcastVerifier, MissingLanes) {
  std::string errors = VerifyErrors(Parse(Mutated(", lanes = 128}", "}")));
  EXPECT_NE(errors.find("needs both 'pre_broadcast'"), std::string::npos)
      << errors;
}

TEST_F(PreBroadcastVerifier, LastDimIsNotTheLanes) {
  std::string errors =
      VerifyErrors(Parse(Mutated("lanes = 128}", "lanes = 64}")));
  EXPECT_NE(errors.find("its last dim must be the 64 lanes"), std::string::npos)
      << errors;
}

TEST_F(PreBroadcastVerifier, BroadcastStillApplied) {
  // `acc_4 / repeat_lanes(l_i_3)` back to `acc_4 / l_i_3[..., None]` on a
  // 128-wide accumulator would type-check only with head_dim 128, so make
  // the leftover broadcast a separate, unused statement.
  std::string errors = VerifyErrors(Parse(Mutated(
      "  store out",
      "  stale: f32[1, 128, 128, 1] = subscript(l_i_3)[:, :, :, None] @1:1\n"
      "  store out")));
  EXPECT_NE(errors.find("'l_i_3' is carried with 128 lanes (pre_broadcast) "
                        "but is still broadcast with [..., None]"),
            std::string::npos)
      << errors;
}

TEST_F(PreBroadcastVerifier, ResultTypeDiffers) {
  std::string errors = VerifyErrors(
      Parse(Mutated("m_i_3: f32[1, 128, 128]", "m_i_3: f32[1, 128, 256]")));
  EXPECT_NE(errors.find("loop result 'm_i_3' of pre-broadcast iter_arg "
                        "'m_i_1' has type f32[1, 128, 256]"),
            std::string::npos)
      << errors;
}

TEST_F(PreBroadcastVerifier, InitTypeDiffers) {
  std::string errors = VerifyErrors(Parse(
      Mutated("m_i: f32[1, 128, 128] = full() {shape = dims[1, 128, 128]",
              "m_i: f32[1, 128, 256] = full() {shape = dims[1, 128, 256]")));
  EXPECT_NE(errors.find("the initial value of pre-broadcast iter_arg 'm_i_1' "
                        "has type f32[1, 128, 256]"),
            std::string::npos)
      << errors;
}

}  // namespace
}  // namespace tessera
