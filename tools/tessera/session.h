// What every command shares: the diagnostics engine, the chosen pipeline
// config (a file or the built-in default) and the loaded plugins.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "cli_options.h"
#include "driver/pipeline_config.h"
#include "driver/plugin_loader.h"
#include "driver/plugin_registry.h"
#include "tessera/diagnostics.h"

namespace tessera::cli {

// The name diagnostics use for the embedded configs/default.toml.
inline constexpr const char kBuiltinConfigName[] =
    "<built-in configs/default.toml>";

// The text of configs/default.toml, embedded at build time.
extern const char kDefaultPipelineToml[];

struct Session {
  DiagnosticEngine diagnostics;
  PipelineConfig config;
  PluginRegistry registry;
  PluginLoader loader{registry};
};

// The pipeline config at `path`, or the built-in one when `path` is empty;
// its text is registered with the diagnostics.
absl::StatusOr<PipelineConfig> LoadConfig(const std::string& path,
                                          DiagnosticEngine& diagnostics);

// Reads the config (--config or the built-in one) and loads every plugin on
// the search path. A non-OK status means errors were reported.
absl::Status LoadConfigAndPlugins(const CliOptions& options, Session& session);

// LoadConfigAndPlugins, then reads the input file and registers its text
// with the diagnostics (so errors in it show their lines).
absl::StatusOr<std::string> LoadInput(const CliOptions& options,
                                      Session& session);

absl::Status RunCompile(const CliOptions& options, Session& session);
absl::Status RunPlugins(const CliOptions& options, Session& session);
absl::Status RunPipeline(const CliOptions& options, Session& session);
absl::Status RunTune(const CliOptions& options, Session& session);

}  // namespace tessera::cli
