// `tessera plugins` and `tessera pipeline`: what is loaded, and the
// pipeline a config resolves to.
#include <iostream>
#include <set>

#include "driver/pipeline_resolution.h"
#include "fmt/format.h"
#include "session.h"
#include "toml_text.h"

namespace tessera::cli {

std::string TomlKey(const std::string& name) {
  bool bare = !name.empty();
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '-';
    bare = bare && ok;
  }
  if (bare) return name;
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

void PrintOptions(std::ostream& out, const OptionMap& options) {
  for (const auto& [name, value] : options.values()) {
    out << TomlKey(name) << " = " << OptionValueToString(value) << "\n";
  }
}

std::string Contract(const PassInfo& info) {
  auto list = [](const PropertyRefs& refs) {
    std::string names;
    for (const PropertyRef& ref : refs) {
      names += (names.empty() ? "" : ", ") + ref.name();
    }
    return names.empty() ? std::string("none") : names;
  };
  return fmt::format("requires: {}; produces: {}; invalidates: {}",
                     list(info.required), list(info.produced),
                     list(info.invalidated));
}

}  // namespace

absl::Status RunPlugins(const CliOptions& options, Session& session) {
  absl::Status status = LoadConfigAndPlugins(options, session);
  if (!status.ok()) return status;
  const std::vector<LoadedPlugin>& plugins = session.registry.plugins();
  if (plugins.empty()) {
    std::cout << "no plugins loaded\n";
    return absl::OkStatus();
  }
  for (const LoadedPlugin& plugin : plugins) {
    std::cout << fmt::format("{} {}  {}\n", plugin.name, plugin.version,
                             plugin.path);
    for (const Registration& registration : plugin.registrations) {
      std::cout << fmt::format("  {:<9} {:<22} {}\n",
                               PluginKindName(registration.kind),
                               registration.name, registration.description);
    }
  }
  return absl::OkStatus();
}

absl::Status RunPipeline(const CliOptions& options, Session& session) {
  absl::Status status = LoadConfigAndPlugins(options, session);
  if (!status.ok()) return status;
  ResolveRequest request;
  request.need_frontend = true;
  request.need_backend = true;
  absl::StatusOr<ResolvedPipeline> resolved =
      ResolvePipeline(session.config, options.overrides, session.registry,
                      request, session.diagnostics);
  if (!resolved.ok()) return resolved.status();
  const ResolvedPipeline& pipeline = *resolved;

  std::ostream& out = std::cout;
  out << "# resolved pipeline of " << session.config.path << "\n";
  out << "[pipeline]\n";
  out << "frontend = " << TomlString(pipeline.info.frontend) << "\n";
  out << "passes = " << TomlStrings(pipeline.info.passes) << "\n";
  out << "backend = " << TomlString(pipeline.info.backend) << "\n";

  out << "\n[frontend." << TomlKey(pipeline.frontend->name) << "]\n";
  PrintOptions(out, pipeline.frontend_options);

  std::set<std::string> printed;
  for (const ResolvedPass& pass : pipeline.passes) {
    if (!printed.insert(pass.info->name).second) continue;
    out << "\n# " << Contract(*pass.info) << "\n";
    out << "[passes." << TomlKey(pass.info->name) << "]\n";
    PrintOptions(out, pass.options);
  }

  out << "\n[backend." << TomlKey(pipeline.backend->name) << "]\n";
  PrintOptions(out, pipeline.info.backend_options);

  for (const auto& [name, kernel] : pipeline.info.kernels) {
    if (!kernel.block_sizes.empty()) {
      out << "\n[kernels." << TomlKey(name) << "]\n";
      std::string sizes;
      for (int64_t size : kernel.block_sizes) {
        sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
      }
      out << "block_sizes = [" << sizes << "]\n";
    }
    if (!kernel.args.empty()) {
      out << "\n[kernels." << TomlKey(name) << ".args]\n";
      for (const auto& [arg, type] : kernel.args) {
        out << TomlKey(arg) << " = " << TomlString(type) << "\n";
      }
    }
  }
  out << std::flush;
  return absl::OkStatus();
}

}  // namespace tessera::cli
