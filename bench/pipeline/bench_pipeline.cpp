// Whole-compile time per example kernel and pallas-tpu launcher, in-process
// (issue 5): frontend parse + lower, the configured passes (ssa, outline)
// with verify-each on as the CLI does by default, and the backend's Emit.
//
// The plugins are loaded once, from the build tree's plugin directory. The
// pipeline is configs/default.toml with the launcher overridden, as
// `tessera compile --launcher L examples/K.py` would run it. No --arg is
// given: the kernels are compiled with symbolic shapes.
//
// Benchmarks: BM_Compile/<kernel>/<launcher>, one per examples/<kernel>.py
// (references.py excluded) and launcher. With static shapes (the cost
// model needs them, so every generated pallas_call gets its
// pl.CostEstimate): BM_CompileShaped/attention/<launcher> emits code and
// BM_Report/attention/<launcher> runs `--emit=report` (the backend's
// Estimate) instead. The pallas-gpu backend (configs/pallas_gpu_triton.toml
// with its launcher overridden): BM_CompileGpu/<kernel>/<launcher> for
// triton and mosaic, each kernel the launcher compiles (Mosaic GPU rejects
// many with a located error; those are not registered). Scaling
// (scaling_sources.h): BM_Scale/kernels|params|statements/<n> compile a
// synthetic file of n kernels, n parameters or n statements with the
// default pipeline; scaling_ratios.py prints t(2n) / t(n).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "driver/pass_manager.h"
#include "driver/pipeline_config.h"
#include "driver/pipeline_resolution.h"
#include "driver/plugin_loader.h"
#include "driver/plugin_registry.h"
#include "fmt/format.h"
#include "scaling_sources.h"
#include "tessera/backend.h"
#include "tessera/diagnostics.h"
#include "tessera/frontend.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLaunchers[] = {"unroll", "emit_pipeline", "fori_loop"};
constexpr const char* kGpuLaunchers[] = {"triton", "mosaic"};

// What every benchmark shares: the loaded plugins and the default config.
struct Toolchain {
  DiagnosticEngine diagnostics;
  PluginRegistry registry;
  PluginLoader loader{registry};
  PipelineConfig config;      // configs/default.toml (pallas-tpu)
  PipelineConfig gpu_config;  // configs/pallas_gpu_triton.toml
};

// One kernel file and the pipeline resolved for one launcher.
struct CompileJob {
  std::string path;  // examples/<kernel>.py, as diagnostics show it
  std::string text;
  ResolvedPipeline pipeline;
  bool estimate = false;  // Backend::Estimate instead of Emit
};

// Static shapes for the shaped benchmarks (attention's q, k, v).
const std::vector<std::pair<std::string, std::string>> kAttentionArgs = {
    {"q_in", "bf16[4,8,1024,128]"},
    {"k_in", "bf16[4,8,1024,128]"},
    {"v_in", "bf16[4,8,1024,128]"}};

absl::Status LoadToolchain(Toolchain& toolchain) {
  const std::vector<PluginSearchEntry> search_path = {PluginSearchEntry{
      BuildTreePluginDir(), PluginPathOrigin::kCommandLine, "", {}}};
  if (!toolchain.loader.LoadAll(search_path, toolchain.diagnostics)) {
    return absl::InvalidArgumentError("plugin loading failed");
  }
  for (auto [name, config] :
       {std::pair{"default", &toolchain.config},
        std::pair{"pallas_gpu_triton", &toolchain.gpu_config}}) {
    absl::StatusOr<PipelineConfig> loaded = LoadPipelineConfigFile(
        fmt::format("{}/configs/{}.toml", TESSERA_SOURCE_DIR, name),
        toolchain.diagnostics);
    if (!loaded.ok()) return loaded.status();
    *config = std::move(*loaded);
  }
  return absl::OkStatus();
}

// The example kernels: every examples/*.py but the references, sorted.
std::vector<std::string> ExampleKernels() {
  std::vector<std::string> kernels;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path(TESSERA_SOURCE_DIR) / "examples")) {
    const fs::path& path = entry.path();
    if (path.extension() != ".py" || path.stem() == "references") continue;
    kernels.push_back(path.stem().string());
  }
  std::sort(kernels.begin(), kernels.end());
  return kernels;
}

absl::StatusOr<CompileJob> MakeSourceJob(
    Toolchain& toolchain, std::string path, std::string text,
    const std::string& launcher,
    const std::vector<std::pair<std::string, std::string>>& args = {},
    bool gpu = false) {
  CompileJob job;
  job.path = std::move(path);
  job.text = std::move(text);
  PipelineOverrides overrides;
  overrides.backend_options.push_back({"launcher", launcher, "--launcher"});
  overrides.args = args;
  ResolveRequest request;
  request.input_path = job.path;
  request.need_frontend = true;
  request.need_backend = true;
  absl::StatusOr<ResolvedPipeline> pipeline =
      ResolvePipeline(gpu ? toolchain.gpu_config : toolchain.config, overrides,
                      toolchain.registry, request, toolchain.diagnostics);
  if (!pipeline.ok()) return pipeline.status();
  job.pipeline = std::move(*pipeline);
  return job;
}

absl::StatusOr<CompileJob> MakeJob(
    Toolchain& toolchain, const std::string& kernel,
    const std::string& launcher,
    const std::vector<std::pair<std::string, std::string>>& args = {},
    bool gpu = false) {
  std::string path = fmt::format("examples/{}.py", kernel);
  absl::StatusOr<std::string> text =
      ReadTextFile(std::string(TESSERA_SOURCE_DIR) + "/" + path);
  if (!text.ok()) return text.status();
  return MakeSourceJob(toolchain, std::move(path), *std::move(text), launcher,
                       args, gpu);
}

// One compile, as `tessera compile` runs it minus writing the output.
// Returns the number of bytes emitted, or a status on failure (with the
// diagnostics in `diagnostics`).
absl::StatusOr<size_t> CompileOnce(const CompileJob& job,
                                   DiagnosticEngine& diagnostics) {
  const ResolvedPipeline& pipeline = job.pipeline;
  diagnostics.AddSource(job.path, job.text);

  std::unique_ptr<Frontend> frontend = pipeline.frontend->create();
  FrontendContext frontend_context(diagnostics, pipeline.frontend_options,
                                   pipeline.info);
  absl::StatusOr<Module> module =
      frontend->Parse(job.path, job.text, frontend_context);
  if (!module.ok()) return module.status();
  if (diagnostics.has_errors()) {
    return absl::InvalidArgumentError("frontend errors");
  }

  PassManagerOptions pass_options;
  pass_options.verify_each = true;  // the CLI's default
  PassManager pass_manager(pass_options);
  for (const ResolvedPass& pass : pipeline.passes) pass_manager.AddPass(pass);
  absl::Status status = pass_manager.Run(*module, pipeline.info, diagnostics);
  if (!status.ok()) return status;

  std::unique_ptr<Backend> backend = pipeline.backend->create();
  BackendContext backend_context(diagnostics, pipeline.info.backend_options,
                                 pipeline.info);
  if (job.estimate) {
    absl::StatusOr<std::vector<KernelEstimate>> estimates =
        backend->Estimate(*module, backend_context);
    if (!estimates.ok()) return estimates.status();
    return estimates->size();
  }
  absl::StatusOr<std::vector<EmittedFile>> files =
      backend->Emit(*module, backend_context);
  if (!files.ok()) return files.status();
  if (diagnostics.has_errors()) {
    return absl::InvalidArgumentError("backend errors");
  }
  size_t bytes = 0;
  for (const EmittedFile& file : *files) bytes += file.contents.size();
  return bytes;
}

void BM_Compile(benchmark::State& state, const CompileJob* job) {
  size_t emitted_bytes = 0;
  for (auto _ : state) {
    DiagnosticEngine diagnostics;
    absl::StatusOr<size_t> bytes = CompileOnce(*job, diagnostics);
    if (!bytes.ok()) {
      const std::string message =
          fmt::format("{}: {}\n{}", job->path, bytes.status().ToString(),
                      diagnostics.RenderAll());
      state.SkipWithError(message.c_str());
      return;
    }
    emitted_bytes = *bytes;
    benchmark::DoNotOptimize(emitted_bytes);
  }
  state.counters["emitted_bytes"] =
      benchmark::Counter(static_cast<double>(emitted_bytes));
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("allocator", TESSERA_ALLOCATOR_NAME);

  // Both live until exit: the plugins' code must stay loaded while the jobs
  // point into the registry.
  static tessera::Toolchain toolchain;
  static std::vector<std::unique_ptr<tessera::CompileJob>> jobs;
  absl::Status status = tessera::LoadToolchain(toolchain);
  if (!status.ok()) {
    std::fprintf(stderr, "bench_pipeline: %s\n%s", status.ToString().c_str(),
                 toolchain.diagnostics.RenderAll().c_str());
    return 1;
  }
  for (const std::string& kernel : tessera::ExampleKernels()) {
    for (const char* launcher : tessera::kLaunchers) {
      absl::StatusOr<tessera::CompileJob> job =
          tessera::MakeJob(toolchain, kernel, launcher);
      if (!job.ok()) {
        std::fprintf(stderr, "bench_pipeline: %s/%s: %s\n%s", kernel.c_str(),
                     launcher, job.status().ToString().c_str(),
                     toolchain.diagnostics.RenderAll().c_str());
        return 1;
      }
      jobs.push_back(std::make_unique<tessera::CompileJob>(std::move(*job)));
      benchmark::RegisterBenchmark(
          fmt::format("BM_Compile/{}/{}", kernel, launcher).c_str(),
          tessera::BM_Compile, jobs.back().get())
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const char* launcher : tessera::kLaunchers) {
    for (bool estimate : {false, true}) {
      absl::StatusOr<tessera::CompileJob> job = tessera::MakeJob(
          toolchain, "attention", launcher, tessera::kAttentionArgs);
      if (!job.ok()) {
        std::fprintf(stderr, "bench_pipeline: attention/%s: %s\n%s", launcher,
                     job.status().ToString().c_str(),
                     toolchain.diagnostics.RenderAll().c_str());
        return 1;
      }
      job->estimate = estimate;
      jobs.push_back(std::make_unique<tessera::CompileJob>(std::move(*job)));
      benchmark::RegisterBenchmark(
          fmt::format("{}/attention/{}",
                      estimate ? "BM_Report" : "BM_CompileShaped", launcher)
              .c_str(),
          tessera::BM_Compile, jobs.back().get())
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const std::string& kernel : tessera::ExampleKernels()) {
    for (const char* launcher : tessera::kGpuLaunchers) {
      absl::StatusOr<tessera::CompileJob> job =
          tessera::MakeJob(toolchain, kernel, launcher, {}, /*gpu=*/true);
      tessera::DiagnosticEngine trial;
      if (!job.ok() || !tessera::CompileOnce(*job, trial).ok()) continue;
      jobs.push_back(std::make_unique<tessera::CompileJob>(std::move(*job)));
      benchmark::RegisterBenchmark(
          fmt::format("BM_CompileGpu/{}/{}", kernel, launcher).c_str(),
          tessera::BM_Compile, jobs.back().get())
          ->Unit(benchmark::kMicrosecond);
    }
  }
  struct ScaleAxis {
    const char* name;
    std::string (*source)(int);
    int first;
  };
  for (const ScaleAxis& axis :
       {ScaleAxis{"kernels", tessera::bench::KernelsSource, 200},
        ScaleAxis{"params", tessera::bench::ParametersSource, 500},
        ScaleAxis{"statements", tessera::bench::StatementsSource, 250}}) {
    for (int n = axis.first; n <= axis.first * 8; n *= 2) {
      absl::StatusOr<tessera::CompileJob> job = tessera::MakeSourceJob(
          toolchain, fmt::format("scale_{}_{}.py", axis.name, n),
          axis.source(n), "emit_pipeline");
      if (!job.ok()) {
        std::fprintf(stderr, "bench_pipeline: scale %s/%d: %s\n%s", axis.name,
                     n, job.status().ToString().c_str(),
                     toolchain.diagnostics.RenderAll().c_str());
        return 1;
      }
      jobs.push_back(std::make_unique<tessera::CompileJob>(std::move(*job)));
      benchmark::RegisterBenchmark(
          fmt::format("BM_Scale/{}/{}", axis.name, n).c_str(),
          tessera::BM_Compile, jobs.back().get())
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
