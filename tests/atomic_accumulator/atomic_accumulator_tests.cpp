// The atomic-accumulator pass in-process (verification of its output,
// idempotence, no change without atomics) and the atomic_accumulated
// property verifier, one test per rule.
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "atomic_accumulator.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "outline.h"
#include "ssa.h"
#include "tessera/ir/text.h"
#include "tessera/ir/type_inference.h"
#include "tessera/ir/verifier.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

// The plugin registers its property when it loads; in-process, the test
// does, before any module header names it.
[[maybe_unused]] const Property kAccumulatedRegistered =
    AtomicAccumulatedProperty();

// A bf16 output accumulated over the batch grid dim (0) in an f32 scratch,
// as the pass writes it.
constexpr std::string_view kAccumulated = R"(
module "kernels/test.py" properties [ssa, outlined, atomic_accumulated]

func host @k(x: ref<bf16[4, 64, 256]>) -> (ref<bf16[64, 256]>) @1:1 {
  out: ref<bf16[64, 256]> = alloc_full() {shape = dims[64, 256], dtype = bf16, value = 0.0} @2:3
  launch @k_device grid(0:4:1, 0:64:64, 0:256:128) (x, out) @3:3
  return out @4:3
}

func device @k_device(tb: tile<1>, tm: tile<64>, tn: tile<128>, x: ref<bf16[4, 64, 256]>, out: ref<bf16[64, 256]>) {kernel = "k", arbitrary_grid_dims = [0]} @3:3 {
  out_acc: ref<f32[64, 128]> = scratch() {shape = dims[64, 128], dtype = f32, accumulates = "out"} @6:3
  if eq(program_id() {axis = 0}, 0:i32) @7:3 {
    store out_acc[:, :] = cast(load(out)[tm, tn]) {dtype = f32} @8:5
  } else {
  }
  atomic {op = "add"} out_acc[:, :] = cast(sum(load(x)[tb, tm, tn]) {dim = 0}) {dtype = f32} @11:3
  if eq(program_id() {axis = 0}, sub(num_programs() {axis = 0}, 1:i32)) @12:3 {
    store out[tm, tn] = cast(load(out_acc)[:, :]) {dtype = bf16} @13:5
  } else {
  }
  return @16:3
}
)";

// kAccumulated with `from` replaced by `to` (which must occur once).
std::string Variant(std::string_view from, std::string_view to) {
  std::string text(kAccumulated);
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

VerifyOutcome VerifyAccumulated(std::string_view text) {
  return RunVerifyProperty(ParseTir(text), AtomicAccumulatedProperty());
}

constexpr std::string_view kAtomic =
    R"(atomic {op = "add"} out_acc[:, :] = cast(sum(load(x)[tb, tm, tn]) {dim = 0}) {dtype = f32} @11:3)";
constexpr std::string_view kScratch =
    R"(out_acc: ref<f32[64, 128]> = scratch() {shape = dims[64, 128], dtype = f32, accumulates = "out"} @6:3)";

TEST(AtomicAccumulatedVerifier, AccumulatedIrIsClean) {
  Module module = ParseTir(kAccumulated);
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, AtomicAccumulatedProperty())));
  EXPECT_TRUE(IsClean(RunVerify(module, module.properties)));
}

TEST(AtomicAccumulatedVerifier, AtomicOnTheRefParameterItself) {
  std::string text = Variant(
      kAtomic,
      R"(atomic {op = "add"} out[tm, tn] = cast(sum(load(x)[tb, tm, tn]) {dim = 0}) {dtype = bf16} @11:3)");
  EXPECT_TRUE(HasError(VerifyAccumulated(text), 11, 3,
                       "atomic target 'out' is not an accumulator (a "
                       "`scratch` with an `accumulates` attribute)",
                       "atomic"));
}

TEST(AtomicAccumulatedVerifier, ScratchWithoutAccumulatesAttribute) {
  std::string text = Variant(
      kScratch,
      "out_acc: ref<f32[64, 128]> = scratch() {shape = dims[64, 128], dtype "
      "= f32} @6:3");
  EXPECT_TRUE(HasError(VerifyAccumulated(text), 11, 3,
                       "atomic target 'out_acc' is not an accumulator"));
}

TEST(AtomicAccumulatedVerifier, AccumulatesMustNameARefParameter) {
  std::string text = Variant(R"(accumulates = "out")", R"(accumulates = "tm")");
  EXPECT_TRUE(HasError(VerifyAccumulated(text), 11, 3,
                       "accumulator 'out_acc' accumulates 'tm', which is not "
                       "a ref parameter of @k_device"));
  text = Variant(R"(accumulates = "out")", R"(accumulates = "elsewhere")");
  EXPECT_TRUE(
      HasError(VerifyAccumulated(text), 11, 3,
               "accumulates 'elsewhere', which is not a ref parameter"));
}

TEST(AtomicAccumulatedVerifier, Bf16TargetNeedsAnF32Accumulator) {
  std::string text(kAccumulated);
  // The whole accumulator in bf16: scratch, copies and atomic value.
  for (std::string_view from :
       {"ref<f32[64, 128]> = scratch() {shape = dims[64, 128], dtype = f32",
        "cast(load(out)[tm, tn]) {dtype = f32}",
        "cast(sum(load(x)[tb, tm, tn]) {dim = 0}) {dtype = f32}",
        "cast(load(out_acc)[:, :]) {dtype = bf16}"}) {
    std::string to(from);
    if (to.starts_with("ref<")) {
      to =
          "ref<bf16[64, 128]> = scratch() {shape = dims[64, 128], dtype = bf16";
    } else if (to.starts_with("cast(load(out_acc)")) {
      to = "load(out_acc)[:, :]";
    } else {
      to = to.substr(5, to.find(") {dtype") - 5);
    }
    text.replace(text.find(from), from.size(), to);
  }
  Module module = ParseTir(text);
  EXPECT_TRUE(IsClean(RunVerify(module, {kSsaProperty, kOutlinedProperty})));
  EXPECT_TRUE(HasError(RunVerifyProperty(module, AtomicAccumulatedProperty()),
                       11, 3,
                       "accumulator 'out_acc' of bf16 ref 'out' must be f32, "
                       "is bf16"));
}

TEST(AtomicAccumulatedVerifier, OtherTargetsKeepTheirDType) {
  // An f32 accumulator for an i32 ref: the rule is the target's own dtype.
  std::string text(kAccumulated);
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{
                              "out: ref<bf16[64, 256]>) {kernel",
                              "out: ref<i32[64, 256]>) {kernel"},
                          {"(x, out) @3:3", "(x, out32) @3:3"},
                          {"-> (ref<bf16[64, 256]>) @1:1 {",
                           "-> (ref<i32[64, 256]>) @1:1 {\n  out32: "
                           "ref<i32[64, 256]> = alloc_full() {shape = "
                           "dims[64, 256], dtype = i32, value = 0}"},
                          {"return out @4:3", "return out32 @4:3"},
                          {"{dtype = bf16} @13:5", "{dtype = i32} @13:5"}}) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  Module module = ParseTir(text);
  EXPECT_TRUE(HasError(RunVerifyProperty(module, AtomicAccumulatedProperty()),
                       11, 3,
                       "accumulator 'out_acc' of i32 ref 'out' must be i32, "
                       "is f32"));
}

TEST(AtomicAccumulatedVerifier, RankMustBeTheTargetsRank) {
  // A flat accumulator of the block's 8192 elements.
  std::string text(kAccumulated);
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{
                              "ref<f32[64, 128]> = scratch() {shape = "
                              "dims[64, 128]",
                              "ref<f32[8192]> = scratch() {shape = dims[8192]"},
                          {"store out_acc[:, :] = cast(load(out)[tm, tn])",
                           "store out_acc[:] = cast(reshape(load(out)[tm, tn]) "
                           "{shape = dims[8192]})"},
                          {"out_acc[:, :] = cast(sum(load(x)[tb, tm, tn]) {dim "
                           "= 0})",
                           "out_acc[:] = cast(reshape(sum(load(x)[tb, tm, tn]) "
                           "{dim = 0}) {shape = dims[8192]})"},
                          {"cast(load(out_acc)[:, :])",
                           "cast(reshape(load(out_acc)[:]) {shape = dims[64, "
                           "128]})"}}) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  EXPECT_TRUE(HasError(VerifyAccumulated(text), 11, 3,
                       "accumulator 'out_acc' has rank 1, ref 'out' has rank "
                       "2"));
}

TEST(AtomicAccumulatedVerifier, EveryViolationIsReported) {
  std::string text = Variant(
      kAtomic, fmt::format("{}\n  atomic {{op = \"max\"}} out[tm, tn] = "
                           "load(out)[tm, tn] @12:7",
                           kAtomic));
  VerifyOutcome outcome = VerifyAccumulated(text);
  EXPECT_TRUE(
      HasError(outcome, 12, 7, "atomic target 'out' is not an accumulator"));
  EXPECT_FALSE(outcome.status.ok());
}

TEST(AtomicAccumulatedVerifier, OnlyDeviceFunctionsAreChecked) {
  // Structured IR (a kernel function) keeps its atomics on the output.
  Module module = ParseTir(R"(
module "kernels/test.py"

func kernel @k(x: ref<f32[4, 64]>) -> (ref<f32[64]>) @1:1 {
  out: ref<f32[64]> = alloc_full() {shape = dims[64], dtype = f32, value = 0.0} @2:3
  for tb: tile<1> in tile(0:4:1) {grid = true} @3:3 {
    atomic {op = "add"} out[:] = sum(load(x)[tb, :]) {dim = 0} @4:5
  }
  return out @6:3
}
)");
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, AtomicAccumulatedProperty())));
}

TEST(AtomicAccumulatedTypes, AccumulatesMustBeAString) {
  AttrList attrs = {Attr{"shape", Shape{Dim::Static(8)}},
                    Attr{"dtype", DType::kF32},
                    Attr{"accumulates", int64_t{3}}};
  absl::StatusOr<Type> type = InferType(OpKind::kScratch, {}, {}, attrs);
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.status().message().find(
                "'scratch' attribute 'accumulates' must be a string"),
            std::string_view::npos)
      << type.status();
  attrs.back().value = std::string("out");
  type = InferType(OpKind::kScratch, {}, {}, attrs);
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(*type, Type::Ref(DType::kF32, {Dim::Static(8)}));
}

// --- The pass in-process ---------------------------------------------------

Module ParseFile(const std::string& name) {
  std::string path = std::string(TESSERA_PASSES_IR_DIR) + "/" + name;
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  std::stringstream text;
  text << file.rdbuf();
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module = ParseModule(text.str(), name, diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  return module.ok() ? *std::move(module) : Module{};
}

// ssa + outline + atomic-accumulator; returns whether the last one changed
// the module.
bool RunPipeline(Module& module) {
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> ssa = ConvertToSSA(module, diagnostics);
  EXPECT_TRUE(ssa.ok()) << diagnostics.RenderAll();
  module.properties.Insert(kSsaProperty);
  absl::StatusOr<bool> outlined = OutlineKernels(module, diagnostics);
  EXPECT_TRUE(outlined.ok()) << diagnostics.RenderAll();
  module.properties.Insert(kOutlinedProperty);
  absl::StatusOr<bool> accumulated = AccumulateAtomics(module, diagnostics);
  EXPECT_TRUE(accumulated.ok()) << diagnostics.RenderAll();
  module.properties.Insert(AtomicAccumulatedProperty());
  return accumulated.ok() && *accumulated;
}

class AtomicAccumulatorPass : public ::testing::TestWithParam<std::string> {};

TEST_P(AtomicAccumulatorPass, OutputVerifiesAndASecondRunChangesNothing) {
  Module module = ParseFile(GetParam());
  ASSERT_FALSE(module.functions.empty());
  EXPECT_TRUE(RunPipeline(module));
  EXPECT_TRUE(IsClean(RunVerify(module, {kSsaProperty, kOutlinedProperty})))
      << PrintModule(module);
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, AtomicAccumulatedProperty())))
      << PrintModule(module);
  Module again = CloneModule(module);
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> changed = AccumulateAtomics(again, diagnostics);
  ASSERT_TRUE(changed.ok()) << diagnostics.RenderAll();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(FirstDifference(module, again), "");
  EXPECT_EQ(PrintModule(module), PrintModule(again));
}

INSTANTIATE_TEST_SUITE_P(IrFiles, AtomicAccumulatorPass,
                         ::testing::Values("atomic_accumulator_split_k.tir",
                                           "atomic_accumulator_bf16.tir",
                                           "atomic_accumulator_max.tir",
                                           "atomic_accumulator_min.tir",
                                           "atomic_accumulator_two_targets.tir",
                                           "atomic_accumulator_extent_one.tir",
                                           "atomic_accumulator_inner_tile.tir",
                                           "outline_atomic_split_k.tir"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name =
                               info.param.substr(0, info.param.find('.'));
                           return name;
                         });

TEST(AtomicAccumulatorPassNoAtomics, LeavesTheModuleAlone) {
  Module module = ParseFile("outline_attention.tir");
  ASSERT_FALSE(module.functions.empty());
  EXPECT_FALSE(RunPipeline(module));
  for (const Function& function : module.functions) {
    EXPECT_EQ(function.attr("arbitrary_grid_dims"), nullptr) << function.name;
  }
}

TEST(AtomicAccumulatorPassRemarks, SayWhereEachTargetAccumulates) {
  Module module = ParseFile("atomic_accumulator_bf16.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(ConvertToSSA(module, diagnostics).ok());
  ASSERT_TRUE(OutlineKernels(module, diagnostics).ok());
  ASSERT_TRUE(AccumulateAtomics(module, diagnostics, /*remarks=*/true).ok());
  ASSERT_EQ(diagnostics.diagnostics().size(), 1u) << diagnostics.RenderAll();
  const Diagnostic& remark = diagnostics.diagnostics()[0];
  EXPECT_EQ(remark.severity, Severity::kRemark);
  EXPECT_EQ(remark.loc.line, 14u);
  EXPECT_EQ(remark.message,
            "atomic-accumulator: 1 atomic(s) on 'out' accumulate in 'out_acc' "
            "(ref<f32[64, 128]>); carried across the grid dim(s) outer_k "
            "(arbitrary)");
}

TEST(AtomicAccumulatorPassErrors, EveryProblemIsReportedAtItsStatement) {
  Module module = ParseFile("atomic_accumulator_err_grid_index.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(ConvertToSSA(module, diagnostics).ok());
  ASSERT_TRUE(OutlineKernels(module, diagnostics).ok());
  absl::StatusOr<bool> result = AccumulateAtomics(module, diagnostics);
  EXPECT_FALSE(result.ok());
  ASSERT_EQ(diagnostics.diagnostics().size(), 2u) << diagnostics.RenderAll();
  EXPECT_EQ(diagnostics.diagnostics()[0].loc.line, 9u);
  EXPECT_EQ(diagnostics.diagnostics()[1].loc.line, 10u);
}

}  // namespace
}  // namespace tessera::testing
