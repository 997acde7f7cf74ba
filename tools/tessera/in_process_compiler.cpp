#include "in_process_compiler.h"

#include "compile_steps.h"
#include "driver/pass_manager.h"
#include "driver/pipeline_resolution.h"
#include "fmt/format.h"
#include "module_check.h"
#include "session.h"
#include "tessera/ir/text.h"
#include "tune_search.h"

namespace tessera::cli {
namespace {

CompileResult Finish(CompileResult result, const DiagnosticEngine& diagnostics,
                     const absl::Status& status) {
  result.diagnostics = diagnostics.diagnostics();
  result.rendered_diagnostics = diagnostics.RenderAll();
  if (status.ok() && !diagnostics.has_errors()) return result;
  if (diagnostics.has_errors()) {
    result.outcome = CompileOutcome::kUserError;
  } else {
    result.outcome = CompileOutcome::kInternalError;
    result.message = std::string(status.message());
  }
  result.code.clear();
  return result;
}

}  // namespace

InProcessCompiler::InProcessCompiler(std::vector<std::string> plugin_paths) {
  std::vector<PluginSearchEntry> first;
  for (std::string& path : plugin_paths) {
    first.push_back(PluginSearchEntry{
        std::move(path), PluginPathOrigin::kCommandLine, "", {}});
  }
  DiagnosticEngine diagnostics;
  loaded_ =
      loader_.LoadAll(PluginSearchPath(std::move(first), {},
                                       std::getenv("TESSERA_PLUGIN_PATH")),
                      diagnostics);
  load_errors_ = diagnostics.RenderAll();
}

std::vector<std::string> InProcessCompiler::PluginVersions() const {
  std::vector<std::string> versions;
  for (const LoadedPlugin& plugin : registry_.plugins()) {
    versions.push_back(plugin.name + " " + plugin.version);
  }
  return versions;
}

absl::StatusOr<ResolvedPipeline> InProcessCompiler::Resolve(
    const CompileRequest& request, DiagnosticEngine& diagnostics,
    CompileResult& result) {
  if (!loaded_) {
    return absl::InternalError("plugins failed to load:\n" + load_errors_);
  }
  absl::StatusOr<PipelineConfig> config =
      LoadConfig(request.config_path, diagnostics);
  if (!config.ok()) return config.status();
  diagnostics.AddSource(request.source_path, request.source_text);

  PipelineOverrides overrides;
  for (const auto& [key, value] : request.backend_options) {
    overrides.backend_options.push_back(
        BackendOptionOverride{key, value, fmt::format("{}=", key)});
  }
  ResolveRequest resolve;
  resolve.input_path = request.source_path;
  resolve.need_frontend = true;
  resolve.need_backend = true;
  absl::StatusOr<ResolvedPipeline> pipeline =
      ResolvePipeline(*config, overrides, registry_, resolve, diagnostics);
  if (!pipeline.ok()) return pipeline.status();
  AllowInexactBlockSizes(*pipeline);
  const std::string target = request.kernel.empty() ? "*" : request.kernel;
  KernelSpecialization& spec = pipeline->info.kernels[target];
  for (const auto& [name, spelling] : request.args) spec.args[name] = spelling;
  if (!request.block_sizes.empty()) spec.block_sizes = request.block_sizes;
  if (!request.kernel.empty()) {
    pipeline->info.selected_kernels = {request.kernel};
  }
  result.backend = pipeline->info.backend;
  for (const auto& [key, value] : pipeline->info.backend_options.values()) {
    result.backend_options[key] = OptionValueToString(value);
  }
  return pipeline;
}

BlockChoice InProcessCompiler::ChooseBlocks(const CompileRequest& request,
                                            bool search_launchers,
                                            int64_t max_estimates) {
  BlockChoice choice;
  DiagnosticEngine diagnostics;
  CompileResult unused;
  CompileRequest own = request;
  own.block_sizes.clear();
  absl::StatusOr<ResolvedPipeline> pipeline = Resolve(own, diagnostics, unused);
  if (!pipeline.ok()) {
    choice.why = diagnostics.has_errors()
                     ? diagnostics.RenderAll()
                     : std::string(pipeline.status().message());
    return choice;
  }
  std::vector<std::string> launchers;
  const std::string configured =
      pipeline->info.backend_options.GetString("launcher", "");
  if (!configured.empty()) launchers.push_back(configured);
  if (search_launchers) {
    for (const OptionSpec& spec : pipeline->backend->options) {
      if (spec.name != "launcher") continue;
      for (const std::string& name : spec.choices) {
        if (name != configured) launchers.push_back(name);
      }
    }
  }
  if (launchers.empty()) launchers.push_back("");
  KernelSearch search(request.source_path, request.source_text, *pipeline,
                      request.kernel);
  // What the slots depend on besides sizes: the source, kernel and
  // pipeline, and each fact with its dims dropped (a type's dtype and rank).
  std::string structure = fmt::format("{}\n{}\n{}\n", request.source_text,
                                      request.kernel, request.config_path);
  for (const auto& [key, value] : request.backend_options) {
    structure += fmt::format("{}={}\n", key, value);
  }
  for (const auto& [name, spelling] : request.args) {
    absl::StatusOr<Type> type = ParseType(spelling);
    structure += type.ok() && type->is_tensor()
                     ? fmt::format("{}:{}/{}\n", name, DTypeName(type->dtype),
                                   type->shape.size())
                     : fmt::format("{}={}\n", name, spelling);
  }
  absl::StatusOr<std::vector<BlockSlot>> slots = absl::UnknownError("none");
  if (auto known = slot_structures_.find(structure);
      known != slot_structures_.end()) {
    slots = search.ResizeSlots(known->second);
  }
  if (!slots.ok()) {
    slots = search.DiscoverSlots(/*stop_when_covered=*/true);
    if (slots.ok()) slot_structures_[structure] = *slots;
  }
  if (!slots.ok()) {
    choice.why = std::string(slots.status().message());
    return choice;
  }
  SearchStats stats;
  std::optional<Candidate> best =
      search.Descend(*slots, launchers, max_estimates, stats);
  choice.evaluated = stats.enumerated;
  if (!best) {
    choice.why = stats.first_rejection.empty() ? "the backend has no cost model"
                                               : stats.first_rejection;
    return choice;
  }
  choice.found = true;
  choice.block_sizes = best->block_sizes;
  choice.launcher = best->launcher;
  choice.time_s = best->estimate.time_s;
  choice.own_time_s = stats.start_time_s;
  return choice;
}

CompileResult InProcessCompiler::Compile(const CompileRequest& request) {
  CompileResult result;
  DiagnosticEngine diagnostics;
  absl::StatusOr<ResolvedPipeline> pipeline =
      Resolve(request, diagnostics, result);
  if (!pipeline.ok()) return Finish(result, diagnostics, pipeline.status());

  absl::StatusOr<Module> module =
      ParseInput(request.source_path, *pipeline, request.source_text,
                 /*is_tir=*/false, diagnostics);
  if (!module.ok()) return Finish(result, diagnostics, module.status());
  if (module->functions.empty()) {
    diagnostics.Error(
        request.source_path, {},
        request.kernel.empty()
            ? std::string("no @helion.kernel function to compile")
            : fmt::format("no kernel named '{}' in the file", request.kernel));
    return Finish(result, diagnostics, absl::NotFoundError("no kernel"));
  }
  PassManager pass_manager(PassManagerOptions{});
  for (ResolvedPass& pass : pipeline->passes) pass_manager.AddPass(pass);
  absl::Status status = pass_manager.Run(*module, pipeline->info, diagnostics);
  if (!status.ok()) return Finish(result, diagnostics, status);

  if (request.estimate) {
    DiagnosticEngine quiet;  // a backend without a model still compiles
    absl::StatusOr<std::vector<KernelEstimate>> estimates =
        RunEstimate(*module, *pipeline, quiet);
    if (estimates.ok()) result.estimates = *std::move(estimates);
  }
  if (request.emit_code) {
    absl::StatusOr<std::vector<EmittedFile>> files =
        RunBackend(*module, *pipeline, diagnostics);
    if (!files.ok()) return Finish(result, diagnostics, files.status());
    // As the CLI: a module Python would reject is the compiler's bug.
    if (absl::Status valid =
            CheckEmittedModules(*files, SourceKernelNames(*module));
        !valid.ok()) {
      return Finish(result, diagnostics, valid);
    }
    for (const EmittedFile& file : *files) {
      if (result.code.empty() || file.name == request.kernel + "_pallas.py") {
        result.code = file.contents;
        result.module_name = file.name;
      }
    }
  }
  return Finish(std::move(result), diagnostics, absl::OkStatus());
}

}  // namespace tessera::cli
