#include "driver/pipeline_resolution.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "absl/status/status.h"
#include "driver/option_resolution.h"
#include "fmt/format.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  for (const std::string& candidate : names) {
    if (candidate == name) return true;
  }
  return false;
}

class Resolver {
 public:
  Resolver(const PipelineConfig& config, const PipelineOverrides& overrides,
           const PluginRegistry& registry, const ResolveRequest& request,
           DiagnosticEngine& diagnostics)
      : config_(config),
        overrides_(overrides),
        registry_(registry),
        request_(request),
        diagnostics_(diagnostics) {}

  ResolvedPipeline Resolve() {
    ResolvedPipeline pipeline;
    pipeline.info.verbose = overrides_.verbose;
    ResolveFrontend(pipeline);
    ResolvePasses(pipeline);
    ResolveBackend(pipeline);
    ResolveKernels(pipeline);
    return pipeline;
  }

 private:
  // "unknown pass 'x'; did you mean 'y'?" (with the flag when written on
  // the command line).
  void UnknownName(std::string_view kind, const LocatedString& name,
                   const std::vector<std::string>& known,
                   std::string_view flag = "") {
    std::string message = fmt::format("unknown {} '{}'", kind, name.value);
    if (!flag.empty()) message += fmt::format(" (from {})", flag);
    const std::string closest = ClosestName(name.value, known);
    if (!closest.empty()) {
      message += fmt::format("; did you mean '{}'?", closest);
    } else if (known.empty()) {
      message += fmt::format(" (no {} plugin is loaded)", kind);
    }
    diagnostics_.Error(name.file, name.loc, std::move(message));
  }

  // "pass 'x' names unknown property 'y'; did you mean 'z'?" at the place
  // the pass (or backend) is named.
  void ReportUnknownProperties(std::string_view kind, std::string_view name,
                               const std::vector<std::string>& unknown,
                               const std::string& file, SourceLoc loc) {
    const std::vector<std::string> known = RegisteredPropertyNames();
    for (const std::string& property : unknown) {
      std::string message = fmt::format("{} '{}' names unknown property '{}'",
                                        kind, name, property);
      const std::string closest = ClosestName(property, known);
      if (!closest.empty()) {
        message += fmt::format("; did you mean '{}'?", closest);
      } else {
        message += " (no loaded plugin registers it)";
      }
      diagnostics_.Error(file, loc, std::move(message));
    }
  }

  const OptionSection* SectionFor(const std::vector<OptionSection>& sections,
                                  std::string_view name) {
    for (const OptionSection& section : sections) {
      if (section.name == name) return &section;
    }
    return nullptr;
  }

  // Checks the option sections of one kind. Sections of a registered
  // plugin are validated; a section of an unregistered one is an unknown
  // name unless it belongs to `pipeline_name` (reported, or not needed,
  // elsewhere).
  template <typename FindFn>
  void CheckSections(std::string_view kind,
                     const std::vector<OptionSection>& sections,
                     const std::vector<std::string>& known,
                     const std::vector<std::string>& pipeline_names,
                     FindFn find) {
    for (const OptionSection& section : sections) {
      const auto* info = find(section.name);
      if (info == nullptr) {
        if (!Contains(pipeline_names, section.name)) {
          UnknownName(
              kind, LocatedString{section.name, section.file, section.name_loc},
              known);
        }
        continue;
      }
      ResolveOptions(info->options, section.options,
                     fmt::format("{} '{}'", kind, section.name), diagnostics_);
    }
  }

  void ResolveFrontend(ResolvedPipeline& pipeline) {
    const std::vector<std::string> known = registry_.FrontendNames();
    const FrontendInfo* configured = nullptr;
    if (config_.frontend) {
      pipeline.info.frontend = config_.frontend->value;
      configured = registry_.FindFrontend(config_.frontend->value);
    }
    const FrontendInfo* chosen = configured;
    if (!request_.input_path.empty()) {
      const std::string extension =
          std::filesystem::path(request_.input_path).extension().string();
      const bool configured_reads_it =
          configured != nullptr && Contains(configured->extensions, extension);
      if (!configured_reads_it) {
        if (const FrontendInfo* by_extension =
                registry_.FindFrontendForExtension(extension)) {
          chosen = by_extension;
        }
      }
    }
    if (chosen == nullptr && request_.need_frontend) {
      if (config_.frontend) {
        UnknownName("frontend", *config_.frontend, known);
      } else {
        diagnostics_.Error(
            config_.path, {},
            request_.input_path.empty()
                ? std::string("the pipeline names no frontend")
                : fmt::format("no frontend reads '{}': no loaded frontend "
                              "handles its extension and the pipeline "
                              "names none",
                              request_.input_path));
      }
    }
    std::vector<std::string> pipeline_names;
    if (config_.frontend) pipeline_names.push_back(config_.frontend->value);
    CheckSections(
        "frontend", config_.frontend_sections, known, pipeline_names,
        [&](std::string_view name) { return registry_.FindFrontend(name); });
    if (chosen != nullptr) {
      pipeline.frontend = chosen;
      pipeline.info.frontend = chosen->name;
      const OptionSection* section =
          SectionFor(config_.frontend_sections, chosen->name);
      // Problems were reported by CheckSections; defaults stand in then.
      DiagnosticEngine ignored;
      pipeline.frontend_options =
          ResolveOptions(
              chosen->options,
              section ? section->options : std::vector<ConfigOption>{}, "",
              ignored)
              .value_or(DefaultOptions(chosen->options));
    }
  }

  void ResolvePasses(ResolvedPipeline& pipeline) {
    std::vector<LocatedString> names;
    std::string flag;
    if (overrides_.passes) {
      flag = "--passes";
      for (const std::string& name : *overrides_.passes) {
        names.push_back(LocatedString{name, "", {}});
      }
    } else if (config_.passes) {
      names = *config_.passes;
    }
    const std::vector<std::string> known = registry_.PassNames();
    std::vector<std::string> pipeline_names;
    for (const LocatedString& name : names) {
      pipeline_names.push_back(name.value);
      const PassInfo* info = registry_.FindPass(name.value);
      if (info == nullptr) {
        UnknownName("pass", name, known, flag);
        continue;
      }
      std::vector<std::string> unknown;
      ResolveContract(*info, &unknown);
      ReportUnknownProperties("pass", name.value, unknown, name.file, name.loc);
      ResolvedPass pass;
      pass.info = info;
      pass.file = name.file;
      pass.loc = name.loc;
      pipeline.passes.push_back(std::move(pass));
      pipeline.info.passes.push_back(name.value);
    }
    CheckSections(
        "pass", config_.pass_sections, known, pipeline_names,
        [&](std::string_view name) { return registry_.FindPass(name); });
    for (ResolvedPass& pass : pipeline.passes) {
      const OptionSection* section =
          SectionFor(config_.pass_sections, pass.info->name);
      DiagnosticEngine ignored;  // reported by CheckSections
      pass.options = ResolveOptions(pass.info->options,
                                    section ? section->options
                                            : std::vector<ConfigOption>{},
                                    "", ignored)
                         .value_or(DefaultOptions(pass.info->options));
    }
  }

  void ResolveBackend(ResolvedPipeline& pipeline) {
    const std::vector<std::string> known = registry_.BackendNames();
    std::vector<std::string> pipeline_names;
    const BackendInfo* backend = nullptr;
    if (config_.backend) {
      pipeline.info.backend = config_.backend->value;
      pipeline_names.push_back(config_.backend->value);
      backend = registry_.FindBackend(config_.backend->value);
      if (backend == nullptr && request_.need_backend) {
        UnknownName("backend", *config_.backend, known);
      }
    } else if (request_.need_backend) {
      diagnostics_.Error(config_.path, {},
                         "the pipeline names no backend (set [pipeline] "
                         "backend)");
    }
    // Sections other than the chosen backend's; the chosen one is resolved
    // below together with the command-line overrides.
    std::vector<OptionSection> others;
    for (const OptionSection& section : config_.backend_sections) {
      if (!config_.backend || section.name != config_.backend->value) {
        others.push_back(section);
      }
    }
    CheckSections(
        "backend", others, known, pipeline_names,
        [&](std::string_view name) { return registry_.FindBackend(name); });

    std::vector<ConfigOption> given;
    if (config_.backend) {
      if (const OptionSection* section =
              SectionFor(config_.backend_sections, config_.backend->value)) {
        given = section->options;
      }
    }
    for (const BackendOptionOverride& flag : overrides_.backend_options) {
      ConfigOption option;
      option.key = flag.key;
      option.value = OptionValue(flag.value);
      option.type_name = "string";
      option.flag = flag.flag;
      given.push_back(std::move(option));
    }
    if (backend != nullptr) {
      pipeline.backend = backend;
      std::vector<std::string> unknown;
      pipeline.backend_required =
          ResolveProperties(backend->required, &unknown);
      ReportUnknownProperties("backend", backend->name, unknown,
                              config_.backend->file, config_.backend->loc);
      std::optional<OptionMap> options = ResolveOptions(
          backend->options, given, fmt::format("backend '{}'", backend->name),
          diagnostics_);
      if (options) pipeline.info.backend_options = std::move(*options);
      if (request_.need_backend) AddLoweringPasses(*backend, pipeline);
    } else {
      // Not loaded (and not needed): pass the values on unchecked.
      pipeline.info.backend_options = UncheckedOptions(given);
    }
  }

  // The backend's lowering passes run after the config's, with their
  // default options (a backend chooses them, not the user); errors point
  // at the config's backend line.
  void AddLoweringPasses(const BackendInfo& backend,
                         ResolvedPipeline& pipeline) {
    for (const std::string& name : backend.lowering_passes) {
      const PassInfo* info = registry_.FindPass(name);
      if (info == nullptr) {
        diagnostics_.Error(
            config_.backend->file, config_.backend->loc,
            fmt::format("backend '{}' lowers through pass '{}', which no "
                        "loaded plugin registers",
                        backend.name, name));
        continue;
      }
      std::vector<std::string> unknown;
      ResolveContract(*info, &unknown);
      ReportUnknownProperties("pass", name, unknown, config_.backend->file,
                              config_.backend->loc);
      ResolvedPass pass;
      pass.info = info;
      pass.options = DefaultOptions(info->options);
      pass.file = config_.backend->file;
      pass.loc = config_.backend->loc;
      pipeline.passes.push_back(std::move(pass));
      pipeline.info.lowering_passes.push_back(name);
    }
  }

  // A compile-time argument's value (`--arg log_target=True`), which the
  // frontend binds: True/False/None, a number or a quoted string.
  // A value an argument is compiled for: a Python constant, a sequence of
  // them ("(1024,)", "[4, 64]"), or a callable's source ("lambda v: v * 2").
  static bool IsPythonConstant(const std::string& text) {
    if (text == "True" || text == "False" || text == "None") return true;
    if (text.starts_with("lambda ") || text.starts_with("lambda:")) return true;
    if (text.size() >= 2 && ((text.front() == '(' && text.back() == ')') ||
                             (text.front() == '[' && text.back() == ']'))) {
      return true;
    }
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
        text.back() == text.front()) {
      return true;
    }
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return !text.empty() && end != nullptr && *end == '\0';
  }

  // A type spelling in canonical form ("bf16[1024, 512]"), or as written
  // when it does not parse.
  static std::string CanonicalType(const std::string& spelling) {
    absl::StatusOr<Type> type = ParseType(spelling);
    return type.ok() ? TypeToString(*type) : spelling;
  }

  // Whether a keyed entry (one with backend options as keys, e.g. what
  // `tessera tune` writes) applies: each key has the pipeline's value, and
  // the command line's --arg types equal the entry's args where it gives
  // them. Keys that are not options of the backend are errors.
  bool KeyedEntryApplies(const KernelConfig& kernel,
                         const ResolvedPipeline& pipeline) {
    std::vector<std::string> mismatches;
    for (const ConfigOption& key : kernel.backend_keys) {
      if (pipeline.backend != nullptr) {
        std::vector<std::string> declared;
        for (const OptionSpec& spec : pipeline.backend->options) {
          declared.push_back(spec.name);
        }
        if (std::find(declared.begin(), declared.end(), key.key) ==
            declared.end()) {
          std::string message = fmt::format(
              "unknown key '{}' in [kernels.{}]: an entry holds block_sizes, "
              "args and options of backend '{}'",
              key.key, kernel.name, pipeline.backend->name);
          const std::string closest = ClosestName(key.key, declared);
          if (!closest.empty()) {
            message += fmt::format("; did you mean '{}'?", closest);
          }
          diagnostics_.Error(key.file, key.key_loc, std::move(message));
          return false;
        }
      }
      const OptionValue* value = pipeline.info.backend_options.Find(key.key);
      if (value == nullptr || !key.value || !(*value == *key.value)) {
        mismatches.push_back(
            fmt::format("{} {} (the pipeline has {})", key.key,
                        key.value ? OptionValueToString(*key.value) : "?",
                        value ? OptionValueToString(*value) : "none"));
      }
    }
    for (size_t i = 0; i < kernel.args_names.size(); ++i) {
      for (const auto& [name, spelling] : overrides_.args) {
        if (name != kernel.args_names[i].value) continue;
        if (CanonicalType(spelling) !=
            CanonicalType(kernel.args_types[i].value)) {
          mismatches.push_back(fmt::format("{} = {} (--arg gives {})", name,
                                           kernel.args_types[i].value,
                                           spelling));
        }
      }
    }
    if (mismatches.empty()) return true;
    if (overrides_.verbose) {
      diagnostics_.Remark(
          kernel.file, kernel.name_loc,
          fmt::format("[kernels.{}] does not apply (it is keyed by {}); the "
                      "kernel keeps its own block sizes",
                      kernel.name, fmt::join(mismatches, ", ")));
    }
    return false;
  }

  void ResolveKernels(ResolvedPipeline& pipeline) {
    for (const KernelConfig& kernel : config_.kernels) {
      if (!kernel.backend_keys.empty() &&
          !KeyedEntryApplies(kernel, pipeline)) {
        continue;
      }
      KernelSpecialization& specialization = pipeline.info.kernels[kernel.name];
      for (size_t i = 0; i < kernel.args_names.size(); ++i) {
        specialization.args[kernel.args_names[i].value] =
            kernel.args_types[i].value;
      }
      if (kernel.block_sizes) specialization.block_sizes = *kernel.block_sizes;
    }
    for (const auto& [name, spelling] : overrides_.args) {
      absl::StatusOr<Type> type = ParseType(spelling);
      if (!type.ok() && !IsPythonConstant(spelling)) {
        diagnostics_.Error(
            "", {},
            fmt::format("invalid type '{}' for --arg {}: {}", spelling, name,
                        std::string(type.status().message())));
        continue;
      }
      pipeline.info.kernels["*"].args[name] = spelling;
    }
  }

  const PipelineConfig& config_;
  const PipelineOverrides& overrides_;
  const PluginRegistry& registry_;
  const ResolveRequest& request_;
  DiagnosticEngine& diagnostics_;
};

}  // namespace

PropertyContract ResolveContract(const PassInfo& info,
                                 std::vector<std::string>* unknown) {
  PropertyContract contract;
  contract.required = ResolveProperties(info.required, unknown);
  contract.produced = ResolveProperties(info.produced, unknown);
  // A property no loaded plugin registers cannot be claimed: invalidating
  // it is a no-op, not an error (a backend's lowering pass names the
  // properties of passes that may not be in this build).
  contract.invalidated = ResolveProperties(info.invalidated, nullptr);
  return contract;
}

absl::StatusOr<ResolvedPipeline> ResolvePipeline(
    const PipelineConfig& config, const PipelineOverrides& overrides,
    const PluginRegistry& registry, const ResolveRequest& request,
    DiagnosticEngine& diagnostics) {
  const size_t errors_before = diagnostics.error_count();
  ResolvedPipeline pipeline =
      Resolver(config, overrides, registry, request, diagnostics).Resolve();
  if (diagnostics.error_count() != errors_before) {
    return absl::InvalidArgumentError("invalid pipeline");
  }
  return pipeline;
}

}  // namespace tessera
