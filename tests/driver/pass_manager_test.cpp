#include "driver/pass_manager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"
#include "test_util.h"

namespace tessera::testing {
namespace {

Property RegisterOrDie(PropertyInfo info) {
  absl::StatusOr<Property> property = RegisterProperty(std::move(info));
  EXPECT_TRUE(property.ok()) << property.status();
  return property.value_or(Property());
}

// Properties a plugin of this test would register.
Property MarkedProperty() {
  static const Property property =
      RegisterOrDie({"test_marked", "marked by a test pass", nullptr});
  return property;
}

void VerifyModuleIsTagged(const Module& module,
                          VerificationReporter& reporter) {
  for (const Function& function : module.functions) {
    if (function.attr("tagged") == nullptr) {
      reporter.FunctionError(function, "function is not tagged");
    }
  }
}
Property TaggedProperty() {
  static const Property property = RegisterOrDie(
      {"test_tagged", "every function is tagged", &VerifyModuleIsTagged});
  return property;
}

Property AnalysisProperty() {
  static const Property property =
      RegisterOrDie({"test_analysis", "computed for the IR as it is", nullptr,
                     /*dropped_by_any_change=*/true});
  return property;
}

// A pass built from a lambda, recording that it ran.
class LambdaPass : public Pass {
 public:
  using Body = std::function<absl::StatusOr<bool>(Module&, PassContext&)>;
  explicit LambdaPass(Body body) : body_(std::move(body)) {}
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    return body_(module, ctx);
  }

 private:
  Body body_;
};

class PassManagerTest : public ::testing::Test {
 protected:
  // Adds a pass that appends its name to `ran_` and then runs `body`.
  PassInfo& Define(const std::string& name, LambdaPass::Body body = nullptr) {
    auto info = std::make_unique<PassInfo>();
    info->name = name;
    info->create = [this, name, body] {
      return std::make_unique<LambdaPass>(
          [this, name, body](Module& module,
                             PassContext& ctx) -> absl::StatusOr<bool> {
            ran_.push_back(name);
            if (body) return body(module, ctx);
            return false;
          });
    };
    infos_.push_back(std::move(info));
    return *infos_.back();
  }

  void Schedule(PassManager& manager, const PassInfo& info) {
    ResolvedPass pass;
    pass.info = &info;
    pass.options = DefaultOptions(info.options);
    pass.file = "pipeline.toml";
    pass.loc = SourceLoc{3, 11, 5};
    manager.AddPass(std::move(pass));
  }

  absl::Status RunAll(PassManager& manager, Module& module) {
    return manager.Run(module, pipeline_, diagnostics_);
  }

  std::vector<std::unique_ptr<PassInfo>> infos_;
  std::vector<std::string> ran_;
  PipelineInfo pipeline_;
  DiagnosticEngine diagnostics_;
};

TEST_F(PassManagerTest, RunsPassesInOrderAndUpdatesProperties) {
  MarkedProperty();
  PassInfo& first = Define("first");
  first.produced = {kOutlinedProperty};
  PassInfo& second = Define("second");
  second.required = {kOutlinedProperty};
  second.invalidated = {kOutlinedProperty};
  second.produced = {"test_marked"};

  Module module = ParseOrDie(kSmallKernelText);
  PassManagerOptions options;
  options.verify_each = false;  // the kernel is not really outlined
  PassManager manager(options);
  Schedule(manager, first);
  Schedule(manager, second);
  ASSERT_TRUE(RunAll(manager, module).ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(ran_, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(module.properties, (PropertySet{MarkedProperty()}));
}

TEST_F(PassManagerTest, UnknownPropertyInAContractIsReportedAtThePass) {
  PassInfo& odd = Define("odd");
  odd.required = {"test_never_registered"};
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, odd);
  EXPECT_FALSE(RunAll(manager, module).ok());
  EXPECT_TRUE(ran_.empty());
  std::vector<Diagnostic> errors = Errors(diagnostics_);
  ASSERT_EQ(errors.size(), 1u) << AllMessages(diagnostics_);
  EXPECT_EQ(errors[0].message,
            "pass 'odd' names unknown property 'test_never_registered'");
  EXPECT_EQ(errors[0].loc.line, 3u);
}

TEST_F(PassManagerTest, VerifyEachRunsThePluginsRegisteredVerifier) {
  TaggedProperty();
  PassInfo& liar = Define("claims-tagged");
  liar.produced = {"test_tagged"};
  PassInfo& tagger = Define("tags", [](Module& module, PassContext&) {
    for (Function& function : module.functions) {
      function.attrs.push_back(Attr{"tagged", true});
    }
    return true;
  });
  tagger.produced = {TaggedProperty()};

  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, liar);
  EXPECT_FALSE(RunAll(manager, module).ok());
  std::vector<Diagnostic> errors = Errors(diagnostics_);
  ASSERT_GE(errors.size(), 2u) << AllMessages(diagnostics_);
  EXPECT_EQ(errors[0].message,
            "the IR after pass 'claims-tagged' fails verification "
            "(properties checked: test_tagged)");
  EXPECT_NE(errors[1].message.find("function is not tagged"), std::string::npos)
      << errors[1].message;

  Module fresh = ParseOrDie(kSmallKernelText);
  PassManager honest({});
  Schedule(honest, tagger);
  EXPECT_TRUE(RunAll(honest, fresh).ok()) << AllMessages(diagnostics_);
  EXPECT_TRUE(fresh.properties.Contains(TaggedProperty()));
}

TEST_F(PassManagerTest, AnAnalysisPropertyIsDroppedByAPassThatChangesTheIr) {
  PassInfo& analyze = Define("analyze");
  analyze.produced = {AnalysisProperty(), MarkedProperty()};
  PassInfo& look = Define("look");  // changes nothing
  PassInfo& change = Define(
      "change",
      [](Module&, PassContext&) -> absl::StatusOr<bool> { return true; });

  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, analyze);
  Schedule(manager, look);
  ASSERT_TRUE(RunAll(manager, module).ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(module.properties,
            (PropertySet{AnalysisProperty(), MarkedProperty()}));

  PassManager changing({});
  Schedule(changing, change);
  ASSERT_TRUE(RunAll(changing, module).ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(module.properties, (PropertySet{MarkedProperty()}));
}

TEST_F(PassManagerTest, MissingRequiredPropertyIsReportedAndPassDoesNotRun) {
  PassInfo& needs = Define("needs-ssa");
  needs.required = {kSsaProperty};
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, needs);

  absl::Status status = RunAll(manager, module);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(ran_.empty());
  std::vector<Diagnostic> errors = Errors(diagnostics_);
  ASSERT_EQ(errors.size(), 1u) << AllMessages(diagnostics_);
  EXPECT_EQ(errors[0].message,
            "pass 'needs-ssa' requires property 'ssa', which the module does "
            "not have");
  EXPECT_EQ(errors[0].file, "pipeline.toml");
  EXPECT_EQ(errors[0].loc.line, 3u);
  EXPECT_EQ(errors[0].loc.col, 11u);
}

TEST_F(PassManagerTest, PassThatBreaksAClaimedPropertyIsCaught) {
  // Claims SSA on a kernel that reassigns `v`.
  PassInfo& liar = Define("liar");
  liar.produced = {kSsaProperty};
  PassInfo& after = Define("after");
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, liar);
  Schedule(manager, after);

  EXPECT_FALSE(RunAll(manager, module).ok());
  EXPECT_EQ(ran_, (std::vector<std::string>{"liar"}));
  std::vector<Diagnostic> errors = Errors(diagnostics_);
  ASSERT_GE(errors.size(), 2u) << AllMessages(diagnostics_);
  EXPECT_EQ(errors[0].message,
            "the IR after pass 'liar' fails verification (properties "
            "checked: ssa)");
  // The verifier's own finding follows, at the redefinition.
  EXPECT_NE(errors[1].message.find("'v'"), std::string::npos)
      << errors[1].message;
  EXPECT_EQ(errors[1].loc.line, 6u);
}

TEST_F(PassManagerTest, NoVerifyEachLetsABrokenClaimThrough) {
  PassInfo& liar = Define("liar");
  liar.produced = {kSsaProperty};
  Module module = ParseOrDie(kSmallKernelText);
  PassManagerOptions options;
  options.verify_each = false;
  PassManager manager(options);
  Schedule(manager, liar);
  EXPECT_TRUE(RunAll(manager, module).ok());
  EXPECT_TRUE(module.properties.Contains(kSsaProperty));
}

TEST_F(PassManagerTest, UserFailureStopsThePipeline) {
  PassInfo& failing = Define(
      "failing", [](Module& module, PassContext& ctx) -> absl::StatusOr<bool> {
        ctx.diagnostics().Error(module.source_file, SourceLoc{5, 9, 1},
                                "cannot handle this load");
        return absl::InvalidArgumentError("failed");
      });
  PassInfo& never = Define("never");
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, failing);
  Schedule(manager, never);

  absl::Status status = RunAll(manager, module);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ran_, (std::vector<std::string>{"failing"}));
  ASSERT_EQ(Errors(diagnostics_).size(), 1u);
  EXPECT_EQ(Errors(diagnostics_)[0].message, "cannot handle this load");
}

TEST_F(PassManagerTest, FailureWithoutDiagnosticIsAnInternalError) {
  PassInfo& buggy =
      Define("buggy", [](Module&, PassContext&) -> absl::StatusOr<bool> {
        return absl::InternalError("oops");
      });
  PassInfo& never = Define("never");
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, buggy);
  Schedule(manager, never);

  absl::Status status = RunAll(manager, module);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("pass 'buggy' failed without a diagnostic"),
            absl::string_view::npos)
      << status;
  EXPECT_FALSE(diagnostics_.has_errors());
  EXPECT_EQ(ran_, (std::vector<std::string>{"buggy"}));
}

TEST_F(PassManagerTest, ThrowingPassIsAnInternalErrorNotACrash) {
  PassInfo& throwing =
      Define("throwing", [](Module&, PassContext&) -> absl::StatusOr<bool> {
        throw std::runtime_error("boom");
      });
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, throwing);
  absl::Status status = RunAll(manager, module);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("boom"), absl::string_view::npos);
}

TEST_F(PassManagerTest, PrintsIrAfterNamedPassesOnly) {
  PassInfo& rename = Define(
      "rename", [](Module& module, PassContext&) -> absl::StatusOr<bool> {
        module.functions[0].name = "renamed";
        return true;
      });
  PassInfo& quiet = Define("quiet");
  Module module = ParseOrDie(kSmallKernelText);
  std::ostringstream out;
  PassManagerOptions options;
  options.print_ir_after = {"rename"};
  options.ir_stream = &out;
  PassManager manager(options);
  Schedule(manager, rename);
  Schedule(manager, quiet);
  ASSERT_TRUE(RunAll(manager, module).ok()) << AllMessages(diagnostics_);
  const std::string printed = out.str();
  EXPECT_EQ(printed.rfind("# IR after pass 'rename'\n", 0), 0u) << printed;
  EXPECT_NE(printed.find("@renamed("), std::string::npos) << printed;
  EXPECT_EQ(printed.find("'quiet'"), std::string::npos) << printed;
}

TEST_F(PassManagerTest, PrintsIrAfterAllPasses) {
  PassInfo& a = Define("a");
  PassInfo& b = Define("b");
  Module module = ParseOrDie(kSmallKernelText);
  std::ostringstream out;
  PassManagerOptions options;
  options.print_ir_after_all = true;
  options.ir_stream = &out;
  PassManager manager(options);
  Schedule(manager, a);
  Schedule(manager, b);
  ASSERT_TRUE(RunAll(manager, module).ok());
  const std::string printed = out.str();
  const size_t after_a = printed.find("# IR after pass 'a'\n");
  const size_t after_b = printed.find("# IR after pass 'b'\n");
  ASSERT_NE(after_a, std::string::npos);
  ASSERT_NE(after_b, std::string::npos);
  EXPECT_LT(after_a, after_b);
  EXPECT_EQ(printed.substr(after_b + 20), PrintModule(module));
}

absl::StatusOr<bool> ReportsAChange(Module&, PassContext&) { return true; }

TEST_F(PassManagerTest, TimingRecordsEachPassAndItsVerification) {
  PassInfo& a = Define("a", ReportsAChange);
  PassInfo& b = Define("b", ReportsAChange);
  Module module = ParseOrDie(kSmallKernelText);
  PassManagerOptions options;
  options.timing = true;
  PassManager manager(options);
  Schedule(manager, a);
  Schedule(manager, b);
  ASSERT_TRUE(RunAll(manager, module).ok());
  std::vector<std::string> names;
  for (const TimingEntry& entry : manager.timings()) {
    names.push_back(entry.name);
    EXPECT_GE(entry.elapsed.count(), 0.0);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"a", "a (verify)", "b", "b (verify)"}));
  const std::string report = FormatTimingReport(manager.timings());
  EXPECT_NE(report.find("b (verify)"), std::string::npos);
  EXPECT_NE(report.find("total"), std::string::npos);
}

TEST_F(PassManagerTest, AnUnchangedModuleThatClaimsNothingNewIsNotReverified) {
  PassInfo& unchanged = Define("unchanged");
  PassInfo& claims_ssa = Define("claims-ssa");
  claims_ssa.produced = {kSsaProperty};
  PassInfo& changed = Define("changed", ReportsAChange);
  Module module = ParseOrDie(kSmallKernelText);
  PassManagerOptions options;
  options.timing = true;
  PassManager manager(options);
  Schedule(manager, unchanged);
  Schedule(manager, claims_ssa);
  Schedule(manager, changed);
  // The small kernel reassigns `v`: claiming SSA without changing the IR
  // must still be verified, and fails.
  EXPECT_FALSE(RunAll(manager, module).ok());
  std::vector<std::string> names;
  for (const TimingEntry& entry : manager.timings())
    names.push_back(entry.name);
  EXPECT_EQ(names, (std::vector<std::string>{"unchanged", "claims-ssa",
                                             "claims-ssa (verify)"}));
}

TEST_F(PassManagerTest, NoTimingEntriesWhenTimingIsOff) {
  PassInfo& a = Define("a");
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, a);
  ASSERT_TRUE(RunAll(manager, module).ok());
  EXPECT_TRUE(manager.timings().empty());
}

TEST_F(PassManagerTest, RoundTripModeAcceptsWellFormedIr) {
  PassInfo& tag =
      Define("tag", [](Module& module, PassContext&) -> absl::StatusOr<bool> {
        SetAttr(module.functions[0].attrs, "seen", int64_t{3});
        return true;
      });
  Module module = ParseOrDie(kSmallKernelText);
  PassManagerOptions options;
  options.verify_roundtrip = true;
  PassManager manager(options);
  Schedule(manager, tag);
  EXPECT_TRUE(RunAll(manager, module).ok()) << AllMessages(diagnostics_);
}

TEST_F(PassManagerTest, RoundTripModeFailsLoudlyOnIrThatDoesNotReadBack) {
  // A `return` has no results in the text format, so results attached to
  // one are lost in print -> parse: parse(print(ir)) != ir.
  PassInfo& mangle = Define(
      "mangle", [](Module& module, PassContext&) -> absl::StatusOr<bool> {
        module.functions[0].body.stmts.back().results.push_back(
            Value{"ghost", Type::Scalar(DType::kI64)});
        return true;
      });
  Module module = ParseOrDie(kSmallKernelText);
  PassManagerOptions options;
  options.verify_each = false;
  options.verify_roundtrip = true;
  PassManager manager(options);
  Schedule(manager, mangle);
  absl::Status status = RunAll(manager, module);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("round-trip after pass 'mangle'"),
            absl::string_view::npos)
      << status;
}

TEST_F(PassManagerTest, PassesReceiveTheirOptionsAndThePipeline) {
  std::string seen_launcher;
  int64_t seen_lanes = 0;
  PassInfo& reader =
      Define("reader", [&](Module&, PassContext& ctx) -> absl::StatusOr<bool> {
        seen_lanes = ctx.options().GetInt("lanes");
        seen_launcher = ctx.pipeline().backend_options.GetString("launcher");
        return false;
      });
  reader.options = {{"lanes", OptionType::kInt, int64_t{128}, "", {}}};
  pipeline_.backend_options.Set("launcher", std::string("fori_loop"));
  Module module = ParseOrDie(kSmallKernelText);
  PassManager manager({});
  Schedule(manager, reader);
  ASSERT_TRUE(RunAll(manager, module).ok());
  EXPECT_EQ(seen_lanes, 128);
  EXPECT_EQ(seen_launcher, "fori_loop");
}

}  // namespace
}  // namespace tessera::testing
