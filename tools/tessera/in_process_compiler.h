// The compiler as a library, for callers that compile many times in one
// process: the Python runtime (`import tessera`, python/native) compiles one
// kernel for each new call signature. Plugins are loaded once; each compile
// resolves its pipeline (a config file, or the built-in default) and runs
// the same steps as `tessera compile` (compile_steps.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/pipeline_config.h"
#include "driver/pipeline_resolution.h"
#include "driver/plugin_loader.h"
#include "driver/plugin_registry.h"
#include "tessera/cost_estimate.h"
#include "tessera/diagnostics.h"
#include "tune_search.h"

namespace tessera::cli {

// One compile: a kernel of a source file, with what its call fixes.
struct CompileRequest {
  std::string source_path;  // names the file in diagnostics and `# src:`
  std::string source_text;
  std::string config_path;  // a pipeline TOML file; "": the built-in default
  // Backend options set by the caller ("launcher" -> "triton"), over the
  // config's, as the CLI's --launcher / --tpu flags do.
  std::vector<std::pair<std::string, std::string>> backend_options;
  std::string kernel;  // the kernel to compile; "": every kernel
  // Facts of the call, as `--arg` spells them ("x" -> "bf16[8, 128]",
  // "eps" -> "1e-05"), for `kernel` (or every kernel when it is "").
  std::map<std::string, std::string> args;
  std::vector<int64_t> block_sizes;  // empty: config, decorator or default
  bool emit_code = true;             // the generated module
  bool estimate = false;             // the cost model's estimate
};

enum class CompileOutcome {
  kOk,
  kUserError,      // diagnostics say what is wrong with the input
  kInternalError,  // a bug of Tessera or of a plugin
};

struct CompileResult {
  CompileOutcome outcome = CompileOutcome::kOk;
  std::string message;  // the internal error, when there is one
  std::vector<Diagnostic> diagnostics;
  std::string rendered_diagnostics;  // as the CLI prints them
  std::string code;                  // the module of `kernel` (or the first)
  std::string module_name;           // its file name, "matmul_pallas.py"
  std::vector<KernelEstimate> estimates;
  std::string backend;
  std::map<std::string, std::string> backend_options;  // as resolved
};

// What ChooseBlocks found: the fastest blocks and launcher the cost model
// knows of for the call's shapes, within the time it was given.
struct BlockChoice {
  bool found = false;
  std::string why;  // why not, when nothing was found
  std::vector<int64_t> block_sizes;
  std::string launcher;
  double time_s = 0;      // the winner's modeled time
  double own_time_s = 0;  // the kernel's own blocks, same launcher
  int64_t evaluated = 0;  // candidates the model estimated
};

class InProcessCompiler {
 public:
  // Loads the plugins found on `plugin_paths` (searched first), then on the
  // usual path (TESSERA_PLUGIN_PATH, the build tree, the install prefix).
  // Load errors are kept and reported with every compile.
  explicit InProcessCompiler(std::vector<std::string> plugin_paths);
  InProcessCompiler(const InProcessCompiler&) = delete;
  InProcessCompiler& operator=(const InProcessCompiler&) = delete;

  CompileResult Compile(const CompileRequest& request);

  // Blocks (and a launcher, when `search_launchers`) for `request.kernel`
  // at the call's facts, chosen by the backend's cost model with at most
  // `max_estimates` estimates (KernelSearch::Descend); request.block_sizes
  // is ignored.
  BlockChoice ChooseBlocks(const CompileRequest& request, bool search_launchers,
                           int64_t max_estimates);

  // "name version" of every loaded plugin, for cache keys and reports.
  std::vector<std::string> PluginVersions() const;
  const std::string& load_errors() const { return load_errors_; }

 private:
  // The request's pipeline with its options, facts and kernel selection;
  // `result` receives the backend and its resolved options.
  absl::StatusOr<ResolvedPipeline> Resolve(const CompileRequest& request,
                                           DiagnosticEngine& diagnostics,
                                           CompileResult& result);

  // Block slots by kernel structure (source, kernel, pipeline, the call's
  // ranks and dtypes), so that a kernel called at new sizes skips the slot
  // probes (KernelSearch::ResizeSlots).
  std::map<std::string, std::vector<BlockSlot>> slot_structures_;
  PluginRegistry registry_;
  PluginLoader loader_{registry_};
  std::string load_errors_;
  bool loaded_ = false;
};

}  // namespace tessera::cli
