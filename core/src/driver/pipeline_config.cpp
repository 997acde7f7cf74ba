#include "driver/pipeline_config.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

SourceLoc LocOf(const toml::source_region& region) {
  SourceLoc loc;
  loc.line = region.begin.line;
  loc.col = region.begin.column;
  loc.length = 1;
  if (region.end.line == region.begin.line &&
      region.end.column > region.begin.column) {
    loc.length = region.end.column - region.begin.column;
  }
  return loc;
}

std::string TypeNameOf(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array: {
      const toml::array& array = *node.as_array();
      if (array.empty()) return "empty array";
      std::string element = TypeNameOf(array[0]);
      for (const toml::node& item : array) {
        if (TypeNameOf(item) != element) return "mixed array";
      }
      return "array of " + element;
    }
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// The strings of an array of strings; nullopt for anything else (an empty
// array is an empty list).
std::optional<std::vector<std::string>> StringList(const toml::node& node) {
  const toml::array* array = node.as_array();
  if (array == nullptr) return std::nullopt;
  std::vector<std::string> strings;
  for (const toml::node& item : *array) {
    const auto* string = item.as_string();
    if (string == nullptr) return std::nullopt;
    strings.push_back(string->get());
  }
  return strings;
}

class ConfigParser {
 public:
  ConfigParser(std::string path, DiagnosticEngine& diagnostics)
      : path_(std::move(path)), diagnostics_(diagnostics) {}

  void Parse(const toml::table& root, PipelineConfig& config) {
    static const std::vector<std::string> kSections = {
        "pipeline", "frontend", "passes", "backend", "kernels"};
    for (auto&& [key, node] : root) {
      const std::string name(key.str());
      const toml::table* table = node.as_table();
      if (table == nullptr && std::find(kSections.begin(), kSections.end(),
                                        name) != kSections.end()) {
        Error(key.source(), fmt::format("'{}' must be a table, got {}", name,
                                        TypeNameOf(node)));
        continue;
      }
      if (name == "pipeline") {
        ParsePipeline(*table, config);
      } else if (name == "frontend") {
        ParseSections(*table, "frontend", config.frontend_sections);
      } else if (name == "passes") {
        ParseSections(*table, "pass", config.pass_sections);
      } else if (name == "backend") {
        ParseSections(*table, "backend", config.backend_sections);
      } else if (name == "kernels") {
        ParseKernels(*table, config.kernels);
      } else {
        UnknownKey(key, "", kSections);
      }
    }
  }

 private:
  void Error(const toml::source_region& region, std::string message) {
    diagnostics_.Error(path_, LocOf(region), std::move(message));
  }

  // `table` is where the key was written ("" = top level).
  void UnknownKey(const toml::key& key, std::string_view table,
                  const std::vector<std::string>& known) {
    std::string message =
        table.empty()
            ? fmt::format("unknown top-level key '{}'", key.str())
            : fmt::format("unknown key '{}' in [{}]", key.str(), table);
    const std::string closest = ClosestName(key.str(), known);
    if (!closest.empty()) {
      message += fmt::format("; did you mean '{}'?", closest);
    } else {
      std::string list;
      for (const std::string& name : known) {
        list += (list.empty() ? "" : ", ") + name;
      }
      message += fmt::format(" (expected one of: {})", list);
    }
    Error(key.source(), std::move(message));
  }

  LocatedString Located(const toml::node& node, std::string value) {
    return LocatedString{std::move(value), path_, LocOf(node.source())};
  }

  void ParsePipeline(const toml::table& table, PipelineConfig& config) {
    static const std::vector<std::string> kKeys = {"frontend", "passes",
                                                   "backend", "plugin_paths"};
    for (auto&& [key, node] : table) {
      const std::string name(key.str());
      if (name == "frontend" || name == "backend") {
        const auto* string = node.as_string();
        if (string == nullptr) {
          Error(node.source(),
                fmt::format("[pipeline] {} must be a string, got {}", name,
                            TypeNameOf(node)));
          continue;
        }
        (name == "frontend" ? config.frontend : config.backend) =
            Located(node, string->get());
      } else if (name == "passes" || name == "plugin_paths") {
        const toml::array* array = node.as_array();
        if (array == nullptr || !StringList(node)) {
          Error(node.source(),
                fmt::format("[pipeline] {} must be an array of strings, got {}",
                            name, TypeNameOf(node)));
          continue;
        }
        std::vector<LocatedString> items;
        for (const toml::node& item : *array) {
          items.push_back(Located(item, item.as_string()->get()));
        }
        if (name == "passes") {
          config.passes = std::move(items);
        } else {
          config.plugin_paths = std::move(items);
        }
      } else {
        UnknownKey(key, "pipeline", kKeys);
      }
    }
  }

  void ParseSections(const toml::table& table, std::string_view kind,
                     std::vector<OptionSection>& sections) {
    for (auto&& [key, node] : table) {
      OptionSection section;
      section.name = std::string(key.str());
      section.file = path_;
      section.name_loc = LocOf(key.source());
      const toml::table* options = node.as_table();
      if (options == nullptr) {
        Error(node.source(),
              fmt::format("options of {} '{}' must be a table, got {}", kind,
                          section.name, TypeNameOf(node)));
        continue;
      }
      for (auto&& [option_key, value] : *options) {
        ConfigOption option;
        option.key = std::string(option_key.str());
        option.file = path_;
        option.key_loc = LocOf(option_key.source());
        option.value_loc = LocOf(value.source());
        option.type_name = TypeNameOf(value);
        option.value = ToOptionValue(value);
        section.options.push_back(std::move(option));
      }
      sections.push_back(std::move(section));
    }
  }

  static std::optional<OptionValue> ToOptionValue(const toml::node& node) {
    if (const auto* value = node.as_boolean()) return OptionValue(value->get());
    if (const auto* value = node.as_integer()) {
      return OptionValue(static_cast<int64_t>(value->get()));
    }
    if (const auto* value = node.as_floating_point()) {
      return OptionValue(value->get());
    }
    if (const auto* value = node.as_string()) return OptionValue(value->get());
    if (auto strings = StringList(node)) return OptionValue(*strings);
    return std::nullopt;
  }

  void ParseKernels(const toml::table& table,
                    std::vector<KernelConfig>& kernels) {
    static const std::vector<std::string> kKeys = {"block_sizes", "args"};
    for (auto&& [key, node] : table) {
      KernelConfig kernel;
      kernel.name = std::string(key.str());
      kernel.file = path_;
      kernel.name_loc = LocOf(key.source());
      const toml::table* fields = node.as_table();
      if (fields == nullptr) {
        Error(node.source(),
              fmt::format("[kernels] entry '{}' must be a table, got {}",
                          kernel.name, TypeNameOf(node)));
        continue;
      }
      for (auto&& [field_key, value] : *fields) {
        const std::string field(field_key.str());
        if (field == "block_sizes") {
          ParseBlockSizes(kernel, value);
        } else if (field == "args") {
          ParseArgs(kernel, value);
        } else if (std::optional<OptionValue> key = ToOptionValue(value);
                   key && !value.is_array()) {
          // A backend option the entry is keyed by; checked against the
          // backend's options when the pipeline is resolved.
          ConfigOption option;
          option.key = field;
          option.file = path_;
          option.key_loc = LocOf(field_key.source());
          option.value_loc = LocOf(value.source());
          option.type_name = TypeNameOf(value);
          option.value = std::move(key);
          kernel.backend_keys.push_back(std::move(option));
        } else {
          UnknownKey(field_key, fmt::format("kernels.{}", kernel.name), kKeys);
        }
      }
      kernels.push_back(std::move(kernel));
    }
  }

  void ParseBlockSizes(KernelConfig& kernel, const toml::node& node) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      Error(node.source(),
            fmt::format("block_sizes of kernel '{}' must be an array of "
                        "positive integers, got {}",
                        kernel.name, TypeNameOf(node)));
      return;
    }
    std::vector<int64_t> sizes;
    for (const toml::node& item : *array) {
      const auto* integer = item.as_integer();
      if (integer == nullptr || integer->get() <= 0) {
        Error(item.source(),
              fmt::format("block size must be a positive integer, got {}",
                          integer == nullptr ? TypeNameOf(item)
                                             : std::to_string(integer->get())));
        return;
      }
      sizes.push_back(integer->get());
    }
    kernel.block_sizes = std::move(sizes);
  }

  void ParseArgs(KernelConfig& kernel, const toml::node& node) {
    const toml::table* args = node.as_table();
    if (args == nullptr) {
      Error(node.source(),
            fmt::format("args of kernel '{}' must be a table of type "
                        "strings, got {}",
                        kernel.name, TypeNameOf(node)));
      return;
    }
    for (auto&& [arg_key, value] : *args) {
      const auto* spelling = value.as_string();
      if (spelling == nullptr) {
        Error(value.source(),
              fmt::format("type of argument '{}' must be a string such as "
                          "\"bf16[1024, 512]\", got {}",
                          arg_key.str(), TypeNameOf(value)));
        continue;
      }
      absl::StatusOr<Type> type = ParseType(spelling->get());
      if (!type.ok()) {
        Error(value.source(),
              fmt::format("invalid type \"{}\" for argument '{}': {}",
                          spelling->get(), arg_key.str(),
                          std::string(type.status().message())));
        continue;
      }
      kernel.args_names.push_back(LocatedString{
          std::string(arg_key.str()), path_, LocOf(arg_key.source())});
      kernel.args_types.push_back(Located(value, spelling->get()));
    }
  }

  std::string path_;
  DiagnosticEngine& diagnostics_;
};

}  // namespace

absl::StatusOr<PipelineConfig> ParsePipelineConfig(
    std::string_view text, std::string path, std::string directory,
    DiagnosticEngine& diagnostics) {
  PipelineConfig config;
  config.path = path;
  config.directory = std::move(directory);

  toml::table root;
  // toml++ reports syntax errors by exception; they stop here and become
  // diagnostics, as nothing may throw out of the core.
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    diagnostics.Error(path, LocOf(error.source()),
                      fmt::format("invalid TOML: {}", error.description()));
    return absl::InvalidArgumentError("invalid pipeline config");
  }

  const size_t errors_before = diagnostics.error_count();
  ConfigParser(path, diagnostics).Parse(root, config);
  if (diagnostics.error_count() != errors_before) {
    return absl::InvalidArgumentError("invalid pipeline config");
  }
  return config;
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(fmt::format("'{}' is a directory", path));
  }
  errno = 0;
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    // The stream keeps no reason; errno holds open's.
    const int error = errno;
    return absl::NotFoundError(
        fmt::format("cannot read '{}': {}", path,
                    error != 0 ? std::strerror(error) : "open failed"));
  }
  std::ostringstream contents;
  contents << stream.rdbuf();
  if (stream.bad()) {
    const int error = errno;
    return absl::DataLossError(
        fmt::format("cannot read '{}': {}", path,
                    error != 0 ? std::strerror(error) : "read failed"));
  }
  return contents.str();
}

absl::StatusOr<PipelineConfig> LoadPipelineConfigFile(
    const std::string& path, DiagnosticEngine& diagnostics) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) {
    diagnostics.Error(
        "", {},
        fmt::format("config: {}", std::string(text.status().message())));
    return text.status();
  }
  diagnostics.AddSource(path, *text);
  std::string directory = std::filesystem::path(path).parent_path().string();
  return ParsePipelineConfig(*text, path, std::move(directory), diagnostics);
}

}  // namespace tessera
