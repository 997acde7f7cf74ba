#include "session.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "fmt/format.h"

namespace tessera::cli {

absl::StatusOr<PipelineConfig> LoadConfig(const std::string& path,
                                          DiagnosticEngine& diagnostics) {
  if (!path.empty()) return LoadPipelineConfigFile(path, diagnostics);
  diagnostics.AddSource(kBuiltinConfigName, kDefaultPipelineToml);
  return ParsePipelineConfig(kDefaultPipelineToml, kBuiltinConfigName, "",
                             diagnostics);
}

absl::Status LoadConfigAndPlugins(const CliOptions& options, Session& session) {
  DiagnosticEngine& diagnostics = session.diagnostics;
  if (options.config && options.config->empty()) {
    diagnostics.Error("", {}, "--config needs a path");
    return absl::InvalidArgumentError("empty --config");
  }
  absl::StatusOr<PipelineConfig> config =
      LoadConfig(options.config.value_or(""), diagnostics);
  if (!config.ok()) return config.status();
  session.config = std::move(*config);

  std::vector<PluginSearchEntry> command_line;
  for (const std::string& path : options.plugin_paths) {
    command_line.push_back(
        PluginSearchEntry{path, PluginPathOrigin::kCommandLine, "", {}});
  }
  std::vector<PluginSearchEntry> from_config;
  for (const LocatedString& path : session.config.plugin_paths) {
    std::filesystem::path resolved(path.value);
    if (resolved.is_relative() && !session.config.directory.empty()) {
      resolved = std::filesystem::path(session.config.directory) / resolved;
    }
    from_config.push_back(PluginSearchEntry{
        resolved.string(), PluginPathOrigin::kConfig, path.file, path.loc});
  }
  const std::vector<PluginSearchEntry> search_path =
      PluginSearchPath(std::move(command_line), std::move(from_config),
                       std::getenv("TESSERA_PLUGIN_PATH"));
  const bool loaded = session.loader.LoadAll(search_path, diagnostics);
  if (options.overrides.verbose) {
    for (const PluginSearchEntry& entry : search_path) {
      std::cerr << "tessera: plugin search path: " << entry.path << "\n";
    }
    for (const std::string& line : session.loader.shadowed()) {
      std::cerr << "tessera: " << line << "\n";
    }
    for (const LoadedPlugin& plugin : session.registry.plugins()) {
      std::cerr << fmt::format("tessera: loaded plugin '{}' {} from {}\n",
                               plugin.name, plugin.version, plugin.path);
    }
  }
  if (!loaded) return absl::InvalidArgumentError("plugin loading failed");
  return absl::OkStatus();
}

absl::StatusOr<std::string> LoadInput(const CliOptions& options,
                                      Session& session) {
  absl::Status status = LoadConfigAndPlugins(options, session);
  if (!status.ok()) return status;
  absl::StatusOr<std::string> text = ReadTextFile(options.input);
  if (!text.ok()) {
    session.diagnostics.Error(
        "", {},
        fmt::format("cannot read input: {}",
                    std::string(text.status().message())));
    return text.status();
  }
  session.diagnostics.AddSource(options.input, *text);
  return text;
}

}  // namespace tessera::cli
