#include "driver/plugin_registry.h"

#include <set>

#include "fmt/format.h"

namespace tessera {
namespace {

// The OptionValue alternative that holds values of `type`.
size_t ValueIndexOf(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return 0;
    case OptionType::kInt:
      return 1;
    case OptionType::kFloat:
      return 2;
    case OptionType::kString:
      return 3;
    case OptionType::kStringList:
      return 4;
  }
  return 3;
}

// Problems in a plugin's own option declarations; "" when they are sound.
std::string CheckOptionSpecs(std::string_view what,
                             const std::vector<OptionSpec>& specs) {
  std::set<std::string> seen;
  for (const OptionSpec& spec : specs) {
    if (spec.name.empty()) {
      return fmt::format("{} declares an option with no name", what);
    }
    if (!seen.insert(spec.name).second) {
      return fmt::format("{} declares option '{}' twice", what, spec.name);
    }
    if (spec.default_value.index() != ValueIndexOf(spec.type)) {
      return fmt::format(
          "{} declares option '{}' of type {} with a default of another type",
          what, spec.name, OptionTypeName(spec.type));
    }
    if (!spec.choices.empty()) {
      const auto* value = std::get_if<std::string>(&spec.default_value);
      bool listed = false;
      for (const std::string& choice : spec.choices) {
        if (value != nullptr && *value == choice) listed = true;
      }
      if (!listed) {
        return fmt::format(
            "{} declares option '{}' whose default is not one of its choices",
            what, spec.name);
      }
    }
  }
  return "";
}

template <typename Entries>
std::vector<std::string> NamesOf(const Entries& entries) {
  std::vector<std::string> names;
  for (const auto& entry : entries) names.push_back(entry->info.name);
  return names;
}

template <typename Entries>
auto* FindIn(const Entries& entries, std::string_view name) {
  for (const auto& entry : entries) {
    if (entry->info.name == name) return &entry->info;
  }
  return static_cast<decltype(&entries.front()->info)>(nullptr);
}

}  // namespace

std::string_view PluginKindName(PluginKind kind) {
  switch (kind) {
    case PluginKind::kFrontend:
      return "frontend";
    case PluginKind::kPass:
      return "pass";
    case PluginKind::kBackend:
      return "backend";
    case PluginKind::kProperty:
      return "property";
  }
  return "?";
}

std::string PluginRegistry::Describe(const LoadedPlugin& plugin) const {
  if (plugin.path.empty()) return fmt::format("plugin '{}'", plugin.name);
  return fmt::format("plugin '{}' ({})", plugin.name, plugin.path);
}

std::string PluginRegistry::Check(const LoadedPlugin& plugin,
                                  const PluginContents& contents) const {
  if (plugin.name.empty()) {
    return fmt::format("plugin {} has an empty name", plugin.path);
  }
  if (const LoadedPlugin* other = FindPlugin(plugin.name)) {
    return fmt::format("duplicate plugin name '{}': {} and {}", plugin.name,
                       other->path.empty() ? "(in-process)" : other->path,
                       plugin.path.empty() ? "(in-process)" : plugin.path);
  }
  const std::string self = Describe(plugin);

  // Checks one kind: names present and unique, factories present, options
  // sound. `find` looks a name up among already accepted entries.
  auto check_kind = [&](PluginKind kind, const auto& infos,
                        const auto& existing) -> std::string {
    std::set<std::string> own;
    for (const auto& info : infos) {
      const std::string_view kind_name = PluginKindName(kind);
      if (info.name.empty()) {
        return fmt::format("{} registers a {} with no name", self, kind_name);
      }
      if (!info.create) {
        return fmt::format("{} registers {} '{}' without a factory", self,
                           kind_name, info.name);
      }
      if (!own.insert(info.name).second) {
        return fmt::format("{} registers {} '{}' twice", self, kind_name,
                           info.name);
      }
      for (const auto& entry : existing) {
        if (entry->info.name == info.name) {
          return fmt::format(
              "duplicate {} name '{}': registered by {} and by {}", kind_name,
              info.name, Describe(plugins_[entry->plugin_index]), self);
        }
      }
      std::string options_problem = CheckOptionSpecs(
          fmt::format("{} '{}' of {}", kind_name, info.name, self),
          info.options);
      if (!options_problem.empty()) return options_problem;
    }
    return "";
  };

  std::string problem =
      check_kind(PluginKind::kFrontend, contents.frontends, frontends_);
  if (problem.empty()) {
    problem = check_kind(PluginKind::kPass, contents.passes, passes_);
  }
  if (problem.empty()) {
    problem = check_kind(PluginKind::kBackend, contents.backends, backends_);
  }
  return problem;
}

std::string PluginRegistry::Add(LoadedPlugin plugin, PluginContents contents) {
  std::string problem = Check(plugin, contents);
  if (!problem.empty()) return problem;

  const size_t index = plugins_.size();
  plugin.registrations.clear();
  for (FrontendInfo& info : contents.frontends) {
    plugin.registrations.push_back(
        {PluginKind::kFrontend, info.name, info.description});
    frontends_.push_back(std::make_unique<Entry<FrontendInfo>>(
        Entry<FrontendInfo>{std::move(info), index}));
  }
  for (PassInfo& info : contents.passes) {
    plugin.registrations.push_back(
        {PluginKind::kPass, info.name, info.description});
    passes_.push_back(std::make_unique<Entry<PassInfo>>(
        Entry<PassInfo>{std::move(info), index}));
  }
  for (BackendInfo& info : contents.backends) {
    plugin.registrations.push_back(
        {PluginKind::kBackend, info.name, info.description});
    backends_.push_back(std::make_unique<Entry<BackendInfo>>(
        Entry<BackendInfo>{std::move(info), index}));
  }
  for (Property property : contents.properties) {
    plugin.registrations.push_back({PluginKind::kProperty,
                                    std::string(property.name()),
                                    property.info().description});
  }
  plugins_.push_back(std::move(plugin));
  return "";
}

const FrontendInfo* PluginRegistry::FindFrontend(std::string_view name) const {
  return FindIn(frontends_, name);
}
const PassInfo* PluginRegistry::FindPass(std::string_view name) const {
  return FindIn(passes_, name);
}
const BackendInfo* PluginRegistry::FindBackend(std::string_view name) const {
  return FindIn(backends_, name);
}

const FrontendInfo* PluginRegistry::FindFrontendForExtension(
    std::string_view extension) const {
  for (const auto& entry : frontends_) {
    for (const std::string& candidate : entry->info.extensions) {
      if (candidate == extension) return &entry->info;
    }
  }
  return nullptr;
}

const LoadedPlugin* PluginRegistry::FindPlugin(std::string_view name) const {
  for (const LoadedPlugin& plugin : plugins_) {
    if (plugin.name == name) return &plugin;
  }
  return nullptr;
}

std::vector<std::string> PluginRegistry::FrontendNames() const {
  return NamesOf(frontends_);
}
std::vector<std::string> PluginRegistry::PassNames() const {
  return NamesOf(passes_);
}
std::vector<std::string> PluginRegistry::BackendNames() const {
  return NamesOf(backends_);
}

}  // namespace tessera
