// Pipeline configs: every error class with its line:column, and resolution
// against registered plugins (unknown names, option checks, overrides).
#include <gtest/gtest.h>

#include "driver/pipeline_config.h"
#include "driver/pipeline_resolution.h"
#include "test_util.h"

namespace tessera::testing {
namespace {

class NoOpPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module&, PassContext&) override { return false; }
};

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() {
    PluginContents contents;
    PassInfo broadcast;
    broadcast.name = "pre-broadcast";
    broadcast.options = {
        {"lanes", OptionType::kInt, int64_t{128}, "", {}},
        {"scale", OptionType::kFloat, 1.0, "", {}},
        {"tags", OptionType::kStringList, std::vector<std::string>{}, "", {}},
    };
    broadcast.create = [] { return std::make_unique<NoOpPass>(); };
    PassInfo ssa = broadcast;
    ssa.name = "ssa";
    ssa.options = {};
    contents.passes = {ssa, broadcast};

    BackendInfo backend;
    backend.name = "pallas-tpu";
    backend.options = {
        {"launcher",
         OptionType::kString,
         std::string("unroll"),
         "",
         {"unroll", "emit_pipeline", "fori_loop"}},
        {"tpu",
         OptionType::kString,
         std::string("v6e"),
         "",
         {"v5e", "v6e", "v7x"}},
        {"interpret", OptionType::kBool, false, "", {}},
    };
    backend.create = [] { return std::unique_ptr<Backend>(); };
    contents.backends = {backend};

    FrontendInfo frontend;
    frontend.name = "helion-py";
    frontend.extensions = {".py"};
    frontend.create = [] { return std::unique_ptr<Frontend>(); };
    contents.frontends = {frontend};
    AddInProcessPlugin(registry_, "fake", std::move(contents));
  }

  absl::StatusOr<PipelineConfig> Parse(const std::string& text) {
    diagnostics_.AddSource("p.toml", text);
    return ParsePipelineConfig(text, "p.toml", "", diagnostics_);
  }

  absl::StatusOr<ResolvedPipeline> Resolve(
      const std::string& text, const PipelineOverrides& overrides = {},
      bool need_all = true) {
    absl::StatusOr<PipelineConfig> config = Parse(text);
    EXPECT_TRUE(config.ok()) << AllMessages(diagnostics_);
    if (!config.ok()) return config.status();
    ResolveRequest request;
    request.need_frontend = need_all;
    request.need_backend = need_all;
    return ResolvePipeline(*config, overrides, registry_, request,
                           diagnostics_);
  }

  // The only error; checks there is exactly one.
  Diagnostic OnlyError() {
    std::vector<Diagnostic> errors = Errors(diagnostics_);
    EXPECT_EQ(errors.size(), 1u) << AllMessages(diagnostics_);
    return errors.empty() ? Diagnostic{} : errors[0];
  }

  void ExpectAt(const Diagnostic& error, uint32_t line, uint32_t col) {
    EXPECT_EQ(error.file, "p.toml");
    EXPECT_EQ(error.loc.line, line) << error.message;
    EXPECT_EQ(error.loc.col, col) << error.message;
  }

  PluginRegistry registry_;
  DiagnosticEngine diagnostics_;
};

constexpr char kGoodConfig[] = R"([pipeline]
frontend = "helion-py"
passes = ["ssa", "pre-broadcast"]
backend = "pallas-tpu"
plugin_paths = ["plugins", "/abs/plugins"]

[backend.pallas-tpu]
launcher = "emit_pipeline"

[passes.pre-broadcast]
lanes = 256
scale = 2

[kernels.attention]
block_sizes = [64, 128]

[kernels.attention.args]
q = "bf16[4, 1024, 64]"
)";

TEST_F(ConfigTest, ParsesAndResolvesAFullConfig) {
  absl::StatusOr<ResolvedPipeline> pipeline = Resolve(kGoodConfig);
  ASSERT_TRUE(pipeline.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(pipeline->info.frontend, "helion-py");
  EXPECT_EQ(pipeline->info.passes,
            (std::vector<std::string>{"ssa", "pre-broadcast"}));
  EXPECT_EQ(pipeline->info.backend, "pallas-tpu");
  EXPECT_EQ(pipeline->info.backend_options.GetString("launcher"),
            "emit_pipeline");
  EXPECT_EQ(pipeline->info.backend_options.GetString("tpu"), "v6e");
  EXPECT_FALSE(pipeline->info.backend_options.GetBool("interpret", true));
  ASSERT_EQ(pipeline->passes.size(), 2u);
  EXPECT_EQ(pipeline->passes[1].options.GetInt("lanes"), 256);
  EXPECT_EQ(pipeline->passes[1].options.GetFloat("scale"), 2.0);
  EXPECT_EQ(pipeline->passes[1].loc.line, 3u);
  EXPECT_EQ(pipeline->passes[1].loc.col, 18u);
  const KernelSpecialization& attention =
      pipeline->info.kernels.at("attention");
  EXPECT_EQ(attention.block_sizes, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(attention.args.at("q"), "bf16[4, 1024, 64]");
}

TEST_F(ConfigTest, KeepsPluginPathsWithLocations) {
  absl::StatusOr<PipelineConfig> config = Parse(kGoodConfig);
  ASSERT_TRUE(config.ok()) << AllMessages(diagnostics_);
  ASSERT_EQ(config->plugin_paths.size(), 2u);
  EXPECT_EQ(config->plugin_paths[0].value, "plugins");
  EXPECT_EQ(config->plugin_paths[0].loc.line, 5u);
  EXPECT_EQ(config->plugin_paths[0].loc.col, 17u);
}

TEST_F(ConfigTest, TomlSyntaxError) {
  EXPECT_FALSE(
      Parse("[pipeline]\nfrontend = \"x\"\npasses = [\"ssa\" \"b\"]\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message.rfind("invalid TOML: ", 0), 0u) << error.message;
  ExpectAt(error, 3, 17);
}

TEST_F(ConfigTest, TomlSyntaxErrorColumn) {
  EXPECT_FALSE(Parse("[pipeline]\nbackend = pallas\n").ok());
  ExpectAt(OnlyError(), 2, 11);
}

TEST_F(ConfigTest, UnknownTopLevelKeyWithSuggestion) {
  EXPECT_FALSE(Parse("[pipline]\nbackend = \"x\"\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown top-level key 'pipline'; did you mean 'pipeline'?");
  ExpectAt(error, 1, 2);
}

TEST_F(ConfigTest, UnknownPipelineKeyWithSuggestion) {
  EXPECT_FALSE(
      Parse("[pipeline]\nfrontend = \"helion-py\"\npases = []\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown key 'pases' in [pipeline]; did you mean 'passes'?");
  ExpectAt(error, 3, 1);
}

TEST_F(ConfigTest, UnknownKernelKey) {
  EXPECT_FALSE(Parse("[kernels.mm]\nblock_size = [64]\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown key 'block_size' in [kernels.mm]; did you mean "
            "'block_sizes'?");
  ExpectAt(error, 2, 1);
}

TEST_F(ConfigTest, WrongTypeOfPipelineValue) {
  EXPECT_FALSE(Parse("[pipeline]\npasses = \"ssa\"\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "[pipeline] passes must be an array of strings, got string");
  ExpectAt(error, 2, 10);
}

TEST_F(ConfigTest, WrongTypeInsideArray) {
  EXPECT_FALSE(Parse("[pipeline]\nfrontend = 3\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message, "[pipeline] frontend must be a string, got integer");
  ExpectAt(error, 2, 12);
}

TEST_F(ConfigTest, SectionThatIsNotATable) {
  EXPECT_FALSE(Parse("pipeline = 1\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message, "'pipeline' must be a table, got integer");
  ExpectAt(error, 1, 1);
}

constexpr char kTunedConfig[] = R"([pipeline]
frontend = "helion-py"
passes = ["ssa"]
backend = "pallas-tpu"

[backend.pallas-tpu]
launcher = "emit_pipeline"

[kernels.mm]
tpu = "v6e"
launcher = "emit_pipeline"
block_sizes = [512, 256]

[kernels.mm.args]
x = "bf16[1024, 1024]"
)";

// An entry with backend options as keys (what `tessera tune` writes)
// applies only when the pipeline and the --arg types match it.
TEST_F(ConfigTest, KeyedKernelEntryAppliesOnlyWhenItMatches) {
  absl::StatusOr<ResolvedPipeline> matched = Resolve(kTunedConfig);
  ASSERT_TRUE(matched.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(matched->info.kernels.at("mm").block_sizes,
            (std::vector<int64_t>{512, 256}));
  EXPECT_EQ(matched->info.kernels.at("mm").args.at("x"), "bf16[1024, 1024]");

  PipelineOverrides same_shape;  // spelt differently, the same type
  same_shape.args = {{"x", "bf16[1024,1024]"}};
  absl::StatusOr<ResolvedPipeline> spelt = Resolve(kTunedConfig, same_shape);
  ASSERT_TRUE(spelt.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(spelt->info.kernels.count("mm"), 1u);

  PipelineOverrides other_tpu;
  other_tpu.backend_options = {{"tpu", "v5e", "--tpu"}};
  other_tpu.verbose = true;
  absl::StatusOr<ResolvedPipeline> v5e = Resolve(kTunedConfig, other_tpu);
  ASSERT_TRUE(v5e.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(v5e->info.kernels.count("mm"), 0u);
  EXPECT_NE(AllMessages(diagnostics_)
                .find("[kernels.mm] does not apply (it is keyed by tpu \"v6e\" "
                      "(the pipeline has \"v5e\"))"),
            std::string::npos)
      << AllMessages(diagnostics_);

  PipelineOverrides other_shape;
  other_shape.args = {{"x", "bf16[512, 1024]"}};
  absl::StatusOr<ResolvedPipeline> smaller = Resolve(kTunedConfig, other_shape);
  ASSERT_TRUE(smaller.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(smaller->info.kernels.count("mm"), 0u);
}

TEST_F(ConfigTest, KeyOfAKernelEntryMustBeABackendOption) {
  std::string text = kTunedConfig;
  text.replace(text.find("tpu = \"v6e\"\nlauncher"), 3, "tpuu");
  EXPECT_FALSE(Resolve(text).ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown key 'tpuu' in [kernels.mm]: an entry holds block_sizes, "
            "args and options of backend 'pallas-tpu'; did you mean 'tpu'?");
  ExpectAt(error, 10, 1);
}

TEST_F(ConfigTest, BadBlockSize) {
  EXPECT_FALSE(Parse("[kernels.mm]\nblock_sizes = [64, -8]\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message, "block size must be a positive integer, got -8");
  ExpectAt(error, 2, 20);
}

TEST_F(ConfigTest, BadArgumentType) {
  EXPECT_FALSE(Parse("[kernels.mm.args]\nx = \"bf17[4]\"\n").ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message.rfind("invalid type \"bf17[4]\" for argument 'x'", 0),
            0u)
      << error.message;
  ExpectAt(error, 2, 5);
}

TEST_F(ConfigTest, UnknownPassWithSuggestion) {
  EXPECT_FALSE(
      Resolve("[pipeline]\nfrontend = \"helion-py\"\nbackend = \"pallas-tpu\"\n"
              "passes = [\"ssa\", \"pre-broadcst\"]\n")
          .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown pass 'pre-broadcst'; did you mean 'pre-broadcast'?");
  ExpectAt(error, 4, 18);
}

TEST_F(ConfigTest, UnknownBackendWithSuggestion) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"helion-py\"\n"
                       "backend = \"pallas_tpu\"\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown backend 'pallas_tpu'; did you mean 'pallas-tpu'?");
  ExpectAt(error, 3, 11);
}

TEST_F(ConfigTest, UnknownFrontendWithoutCloseName) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"fortran\"\n"
                       "backend = \"pallas-tpu\"\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message, "unknown frontend 'fortran'");
  ExpectAt(error, 2, 12);
}

TEST_F(ConfigTest, UnneededUnknownBackendIsNotAnError) {
  // A .tir file through passes only: the backend is never used.
  absl::StatusOr<ResolvedPipeline> pipeline = Resolve(
      "[pipeline]\nbackend = \"not-built\"\n\n[backend.not-built]\n"
      "launcher = \"x\"\n",
      {}, /*need_all=*/false);
  ASSERT_TRUE(pipeline.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(pipeline->backend, nullptr);
  EXPECT_EQ(pipeline->info.backend_options.GetString("launcher"), "x");
}

TEST_F(ConfigTest, OptionsSectionOfAnUnknownPass) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"helion-py\"\n"
                       "backend = \"pallas-tpu\"\n\n[passes.ssaa]\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message, "unknown pass 'ssaa'; did you mean 'ssa'?");
  ExpectAt(error, 5, 9);
}

TEST_F(ConfigTest, UnknownOptionWithSuggestion) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"helion-py\"\n"
                       "backend = \"pallas-tpu\"\n\n[passes.pre-broadcast]\n"
                       "lane = 128\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "unknown option 'lane' for pass 'pre-broadcast'; did you mean "
            "'lanes'?");
  ExpectAt(error, 6, 1);
}

TEST_F(ConfigTest, OptionOfWrongType) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"helion-py\"\n"
                       "backend = \"pallas-tpu\"\n\n[backend.pallas-tpu]\n"
                       "interpret = \"yes\"\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "option 'interpret' of backend 'pallas-tpu' must be a boolean, "
            "got string");
  ExpectAt(error, 6, 13);
}

TEST_F(ConfigTest, StringListOptionOfWrongElementType) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"helion-py\"\n"
                       "backend = \"pallas-tpu\"\n\n[passes.pre-broadcast]\n"
                       "tags = [1, 2]\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "option 'tags' of pass 'pre-broadcast' must be an array of "
            "strings, got array of integer");
  ExpectAt(error, 6, 8);
}

TEST_F(ConfigTest, OptionValueNotAmongChoices) {
  EXPECT_FALSE(Resolve("[pipeline]\nfrontend = \"helion-py\"\n"
                       "backend = \"pallas-tpu\"\n\n[backend.pallas-tpu]\n"
                       "launcher = \"fori-loop\"\n")
                   .ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "invalid value 'fori-loop' for option 'launcher' of backend "
            "'pallas-tpu' (expected one of: unroll, emit_pipeline, "
            "fori_loop); did you mean 'fori_loop'?");
  ExpectAt(error, 6, 12);
}

TEST_F(ConfigTest, CommandLineOverridesConfig) {
  PipelineOverrides overrides;
  overrides.passes = std::vector<std::string>{"ssa"};
  overrides.backend_options.push_back({"launcher", "fori_loop", "--launcher"});
  overrides.args = {{"q", "f32[8, 128]"}};
  absl::StatusOr<ResolvedPipeline> pipeline = Resolve(kGoodConfig, overrides);
  ASSERT_TRUE(pipeline.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(pipeline->info.passes, (std::vector<std::string>{"ssa"}));
  EXPECT_EQ(pipeline->info.backend_options.GetString("launcher"), "fori_loop");
  EXPECT_EQ(pipeline->info.kernels.at("*").args.at("q"), "f32[8, 128]");
  EXPECT_TRUE(pipeline->passes[0].file.empty());
}

TEST_F(ConfigTest, EmptyPassesOverrideRunsNoPasses) {
  PipelineOverrides overrides;
  overrides.passes = std::vector<std::string>{};
  absl::StatusOr<ResolvedPipeline> pipeline = Resolve(kGoodConfig, overrides);
  ASSERT_TRUE(pipeline.ok()) << AllMessages(diagnostics_);
  EXPECT_TRUE(pipeline->passes.empty());
}

TEST_F(ConfigTest, BadLauncherOverrideNamesTheFlag) {
  PipelineOverrides overrides;
  overrides.backend_options.push_back(
      {"launcher", "emit-pipeline", "--launcher"});
  EXPECT_FALSE(Resolve(kGoodConfig, overrides).ok());
  const Diagnostic error = OnlyError();
  EXPECT_EQ(error.message,
            "invalid value 'emit-pipeline' for option 'launcher' of backend "
            "'pallas-tpu' (from --launcher) (expected one of: unroll, "
            "emit_pipeline, fori_loop); did you mean 'emit_pipeline'?");
  EXPECT_TRUE(error.file.empty());
}

TEST_F(ConfigTest, TpuOverrideSetsTheBackendOptionAndNamesTheFlag) {
  PipelineOverrides overrides;
  overrides.backend_options.push_back({"tpu", "v5e", "--tpu"});
  absl::StatusOr<ResolvedPipeline> pipeline = Resolve(kGoodConfig, overrides);
  ASSERT_TRUE(pipeline.ok()) << AllMessages(diagnostics_);
  EXPECT_EQ(pipeline->info.backend_options.GetString("tpu"), "v5e");

  PipelineOverrides bad;
  bad.backend_options.push_back({"tpu", "v6", "--tpu"});
  EXPECT_FALSE(Resolve(kGoodConfig, bad).ok());
  EXPECT_EQ(OnlyError().message,
            "invalid value 'v6' for option 'tpu' of backend 'pallas-tpu' "
            "(from --tpu) (expected one of: v5e, v6e, v7x); did you mean "
            "'v6e'?");
}

TEST_F(ConfigTest, UnknownPassOnCommandLine) {
  PipelineOverrides overrides;
  overrides.passes = std::vector<std::string>{"sa"};
  EXPECT_FALSE(Resolve(kGoodConfig, overrides).ok());
  EXPECT_EQ(OnlyError().message,
            "unknown pass 'sa' (from --passes); did you mean 'ssa'?");
}

TEST_F(ConfigTest, BadArgOverride) {
  PipelineOverrides overrides;
  overrides.args = {{"x", "f32[4"}};
  EXPECT_FALSE(Resolve(kGoodConfig, overrides).ok());
  EXPECT_EQ(OnlyError().message.rfind("invalid type 'f32[4' for --arg x: ", 0),
            0u);
}

TEST_F(ConfigTest, FrontendChosenByExtension) {
  absl::StatusOr<PipelineConfig> config = Parse("[pipeline]\npasses = []\n");
  ASSERT_TRUE(config.ok());
  ResolveRequest request;
  request.input_path = "kernels/add.py";
  request.need_frontend = true;
  absl::StatusOr<ResolvedPipeline> pipeline =
      ResolvePipeline(*config, {}, registry_, request, diagnostics_);
  ASSERT_TRUE(pipeline.ok()) << AllMessages(diagnostics_);
  ASSERT_NE(pipeline->frontend, nullptr);
  EXPECT_EQ(pipeline->frontend->name, "helion-py");
}

TEST_F(ConfigTest, NoFrontendForAnUnknownExtension) {
  absl::StatusOr<PipelineConfig> config = Parse("[pipeline]\npasses = []\n");
  ASSERT_TRUE(config.ok());
  ResolveRequest request;
  request.input_path = "kernel.cu";
  request.need_frontend = true;
  EXPECT_FALSE(
      ResolvePipeline(*config, {}, registry_, request, diagnostics_).ok());
  EXPECT_EQ(OnlyError().message,
            "no frontend reads 'kernel.cu': no loaded frontend handles its "
            "extension and the pipeline names none");
}

TEST_F(ConfigTest, SeveralErrorsInOneRun) {
  EXPECT_FALSE(
      Parse("[pipeline]\nfrontend = 1\nbackend = 2\nextra = 3\n").ok());
  EXPECT_EQ(Errors(diagnostics_).size(), 3u) << AllMessages(diagnostics_);
}

}  // namespace
}  // namespace tessera::testing
