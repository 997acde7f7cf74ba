// Turns a parsed config plus command-line overrides into a runnable
// pipeline: every named frontend, pass and backend looked up in the plugin
// registry ("unknown pass 'x'; did you mean 'y'?" at its location) and every
// option checked against its plugin's declarations.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/pipeline_config.h"
#include "driver/plugin_registry.h"
#include "tessera/diagnostics.h"
#include "tessera/pipeline_info.h"

namespace tessera {

// A backend option set on the command line (--launcher, --tpu, ...): it
// overrides the config's value and its errors name the flag.
struct BackendOptionOverride {
  std::string key;    // "launcher"
  std::string value;  // "fori_loop"
  std::string flag;   // "--launcher"
};

// Command-line flags that override the config.
struct PipelineOverrides {
  std::optional<std::vector<std::string>> passes;         // --passes
  std::vector<BackendOptionOverride> backend_options;     // --launcher, ...
  std::vector<std::pair<std::string, std::string>> args;  // --arg name=TYPE
  bool verbose = false;                                   // --verbose
};

// What the command at hand needs; names it does not need are still checked
// when their plugin is loaded, but an unloaded one is not an error (so a
// .tir file can run through test passes without the default frontend and
// backend being built).
struct ResolveRequest {
  std::string input_path;  // picks a frontend by extension when set
  bool need_frontend = false;
  bool need_backend = false;
};

struct ResolvedPass {
  const PassInfo* info = nullptr;
  OptionMap options;
  // Where the pass was named (config file and position, or "" for
  // --passes), so pipeline errors can point there.
  std::string file;
  SourceLoc loc;
};

struct ResolvedPipeline {
  PipelineInfo info;
  const FrontendInfo* frontend = nullptr;  // null when not needed/loaded
  OptionMap frontend_options;
  std::vector<ResolvedPass> passes;
  const BackendInfo* backend = nullptr;  // null when not needed/loaded
};

absl::StatusOr<ResolvedPipeline> ResolvePipeline(
    const PipelineConfig& config, const PipelineOverrides& overrides,
    const PluginRegistry& registry, const ResolveRequest& request,
    DiagnosticEngine& diagnostics);

}  // namespace tessera
