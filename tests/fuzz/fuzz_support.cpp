#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <vector>

#include "driver/pass_manager.h"
#include "driver/pipeline_config.h"
#include "driver/pipeline_resolution.h"
#include "driver/plugin_loader.h"
#include "driver/plugin_registry.h"
#include "fmt/format.h"
#include "tessera/ir/text.h"

namespace tessera::fuzz {
namespace {

constexpr const char* kLauncherConfigs[kLauncherCount] = {
    "pallas_unroll.toml", "pallas_emit_pipeline.toml", "pallas_fori_loop.toml"};

// Plugins and configs are loaded once per process: they never change, and
// plugins are never unloaded anyway.
struct LoadedPipelines {
  PluginRegistry registry;
  std::vector<PipelineConfig> configs;
};

const LoadedPipelines& Pipelines() {
  static LoadedPipelines* const loaded = [] {
    auto* result = new LoadedPipelines;
    DiagnosticEngine diagnostics;
    PluginLoader loader(result->registry);
    const char* environment = std::getenv("TESSERA_PLUGIN_PATH");
    if (!loader.LoadAll(PluginSearchPath({}, {}, environment), diagnostics)) {
      InternalError("cannot load the build tree's plugins", diagnostics);
    }
    for (const char* name : kLauncherConfigs) {
      absl::StatusOr<PipelineConfig> config = LoadPipelineConfigFile(
          fmt::format("{}/configs/{}", TESSERA_SOURCE_DIR, name), diagnostics);
      if (!config.ok())
        InternalError("cannot read a launcher config", diagnostics);
      result->configs.push_back(*std::move(config));
    }
    return result;
  }();
  return *loaded;
}

absl::StatusOr<Module> ParseInput(std::string_view text, bool is_tir,
                                  const ResolvedPipeline& pipeline,
                                  DiagnosticEngine& diagnostics) {
  const std::string path = is_tir ? "fuzz.tir" : "fuzz.py";
  diagnostics.AddSource(path, std::string(text));
  if (is_tir) return ParseModule(text, path, diagnostics);
  std::unique_ptr<Frontend> frontend = pipeline.frontend->create();
  if (frontend == nullptr)
    InternalError("frontend factory returned null", diagnostics);
  FrontendContext context(diagnostics, pipeline.frontend_options,
                          pipeline.info);
  try {
    return frontend->Parse(path, text, context);
  } catch (const std::exception& exception) {
    InternalError(fmt::format("frontend threw: {}", exception.what()),
                  diagnostics);
  }
}

}  // namespace

const PluginRegistry& BuildTreePlugins() { return Pipelines().registry; }

void InternalError(std::string_view what, const DiagnosticEngine& diagnostics) {
  std::fprintf(stderr, "%s\ntessera fuzz: internal error: %.*s\n",
               diagnostics.RenderAll().c_str(), static_cast<int>(what.size()),
               what.data());
  std::abort();
}

void CheckStatusMatchesDiagnostics(const absl::Status& status,
                                   size_t errors_before,
                                   const DiagnosticEngine& diagnostics,
                                   std::string_view what) {
  const bool reported = diagnostics.error_count() > errors_before;
  if (!status.ok() && !reported) {
    InternalError(fmt::format("{} failed without a diagnostic: {}", what,
                              status.ToString()),
                  diagnostics);
  }
  if (status.ok() && reported) {
    InternalError(fmt::format("{} reported errors but succeeded", what),
                  diagnostics);
  }
}

void CheckRoundTrip(const Module& module, std::string_view what) {
  const std::string printed = PrintModule(module);
  DiagnosticEngine diagnostics;
  diagnostics.AddSource("printed.tir", printed);
  absl::StatusOr<Module> reparsed =
      ParseModule(printed, "printed.tir", diagnostics);
  if (!reparsed.ok()) {
    InternalError(
        fmt::format("{}: printed IR does not parse:\n{}", what, printed),
        diagnostics);
  }
  if (!StructurallyEqual(module, *reparsed)) {
    InternalError(fmt::format("{}: parse(print(m)) != m:\n{}", what, printed),
                  diagnostics);
  }
  if (PrintModule(*reparsed) != printed) {
    InternalError(fmt::format("{}: print/parse/print is no fixed point:\n{}",
                              what, printed),
                  diagnostics);
  }
}

void RunPipeline(std::string_view text, bool is_tir, unsigned launcher) {
  const LoadedPipelines& pipelines = Pipelines();
  DiagnosticEngine diagnostics;
  ResolveRequest request;
  request.input_path = is_tir ? "" : "fuzz.py";
  request.need_frontend = !is_tir;
  request.need_backend = true;
  absl::StatusOr<ResolvedPipeline> pipeline = ResolvePipeline(
      pipelines.configs[launcher % kLauncherCount], PipelineOverrides{},
      pipelines.registry, request, diagnostics);
  if (!pipeline.ok())
    InternalError("cannot resolve a launcher config", diagnostics);

  size_t errors_before = diagnostics.error_count();
  absl::StatusOr<Module> module =
      ParseInput(text, is_tir, *pipeline, diagnostics);
  CheckStatusMatchesDiagnostics(module.status(), errors_before, diagnostics,
                                is_tir ? "the .tir parser" : "the frontend");
  if (!module.ok()) return;
  CheckRoundTrip(*module, "the parsed input");

  PassManagerOptions options;
  options.verify_roundtrip = true;
  PassManager pass_manager(options);
  for (const ResolvedPass& pass : pipeline->passes) pass_manager.AddPass(pass);
  errors_before = diagnostics.error_count();
  const absl::Status passes =
      pass_manager.Run(*module, pipeline->info, diagnostics);
  CheckStatusMatchesDiagnostics(passes, errors_before, diagnostics,
                                "the passes");
  if (!passes.ok()) return;

  const BackendInfo& backend_info = *pipeline->backend;
  if (!pipeline->backend_required.Minus(module->properties).empty()) {
    InternalError("the pipeline lacks the backend's properties", diagnostics);
  }
  std::unique_ptr<Backend> backend = backend_info.create();
  BackendContext context(diagnostics, pipeline->info.backend_options,
                         pipeline->info);
  errors_before = diagnostics.error_count();
  absl::StatusOr<std::vector<EmittedFile>> files =
      absl::UnknownError("not run");
  try {
    files = backend->Emit(*module, context);
  } catch (const std::exception& exception) {
    InternalError(fmt::format("backend threw: {}", exception.what()),
                  diagnostics);
  }
  CheckStatusMatchesDiagnostics(files.status(), errors_before, diagnostics,
                                "the backend");
}

}  // namespace tessera::fuzz
