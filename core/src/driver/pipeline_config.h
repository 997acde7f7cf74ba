// Pipeline configs: the TOML files in configs/ (and the built-in default),
// parsed into plain data that remembers where every name and value was
// written, so that later checks against registered plugins can still point
// at file:line:col.
//
//   [pipeline]            frontend, passes, backend, plugin_paths
//   [frontend.NAME]       options of a frontend
//   [passes.NAME]         options of a pass
//   [backend.NAME]        options of a backend (whatever it declares)
//   [kernels.NAME]        block_sizes = [..]   (NAME "*" = every kernel)
//                         any option of the backend (e.g. a generation):
//                         a key; the entry applies only when it matches
//   [kernels.NAME.args]   x = "bf16[1024, 512]"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/options.h"

namespace tessera {

// A string written somewhere: in a config (file set) or on the command line
// (file empty).
struct LocatedString {
  std::string value;
  std::string file;
  SourceLoc loc;
};

// One `key = value` of an options section, before it is checked against the
// plugin's OptionSpecs. `value` is empty when the TOML value has no option
// counterpart (a table, a date, a mixed array); `type_name` always names
// what was written ("string", "integer", "array of integer", ...).
struct ConfigOption {
  std::string key;
  std::string file;
  SourceLoc key_loc;
  SourceLoc value_loc;
  std::optional<OptionValue> value;
  std::string type_name;
  // The command-line flag that set it ("" when it comes from a config).
  std::string flag;
};

// [passes.NAME], [backend.NAME] or [frontend.NAME].
struct OptionSection {
  std::string name;
  std::string file;
  SourceLoc name_loc;
  std::vector<ConfigOption> options;
};

struct KernelConfig {
  std::string name;  // "*" for every kernel
  std::string file;
  SourceLoc name_loc;
  std::vector<LocatedString> args_names;  // parallel to args_types
  std::vector<LocatedString> args_types;
  std::optional<std::vector<int64_t>> block_sizes;
  // Other keys: backend options the entry is keyed by (`tessera tune`
  // writes the options it tuned for). An entry with keys
  // applies only when the pipeline's backend options have these values and
  // the command line's --arg types (if any) equal its args; otherwise the
  // kernel keeps its own block sizes.
  std::vector<ConfigOption> backend_keys;
};

struct PipelineConfig {
  std::string path;       // as shown in diagnostics
  std::string directory;  // plugin_paths are relative to it ("" = cwd)
  std::optional<LocatedString> frontend;
  std::optional<std::vector<LocatedString>> passes;
  std::optional<LocatedString> backend;
  // As written; resolve relative entries against `directory`.
  std::vector<LocatedString> plugin_paths;
  std::vector<OptionSection> frontend_sections;
  std::vector<OptionSection> pass_sections;
  std::vector<OptionSection> backend_sections;
  std::vector<KernelConfig> kernels;
};

// Parses config text. `path` names the file in diagnostics (the text must
// already be registered with `diagnostics` to be quoted). Every problem is
// reported as file:line:col; the status is non-OK when there was any.
absl::StatusOr<PipelineConfig> ParsePipelineConfig(
    std::string_view text, std::string path, std::string directory,
    DiagnosticEngine& diagnostics);

// Reads and parses a config file; plugin paths are relative to its folder.
absl::StatusOr<PipelineConfig> LoadPipelineConfigFile(
    const std::string& path, DiagnosticEngine& diagnostics);

// Reads a whole file; an error status says why it could not be read.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace tessera
