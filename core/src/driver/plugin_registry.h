// The registry of everything plugins provide: frontends, passes and
// backends by name, and the plugins that brought them (with the properties
// they registered, which live in the process-wide property registry). The
// loader fills it; pipeline resolution and the CLI read it. The core itself
// registers nothing, so it knows no frontend, pass or backend by name.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/backend.h"
#include "tessera/frontend.h"
#include "tessera/pass.h"

namespace tessera {

enum class PluginKind { kFrontend, kPass, kBackend, kProperty };
std::string_view PluginKindName(PluginKind kind);  // "frontend", "pass", ...

// One thing a plugin registered.
struct Registration {
  PluginKind kind;
  std::string name;
  std::string description;
};

struct LoadedPlugin {
  std::string name;
  std::string version;
  std::string path;  // the shared object it came from ("" when in-process)
  std::vector<Registration> registrations;
};

// What one plugin's registration callback produced, before it is accepted.
struct PluginContents {
  std::vector<FrontendInfo> frontends;
  std::vector<PassInfo> passes;
  std::vector<BackendInfo> backends;
  // Registered (process-wide) when the plugin added them; listed here so
  // `tessera plugins` shows who brought them.
  std::vector<Property> properties;
};

class PluginRegistry {
 public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Accepts a plugin and everything it registered, or rejects all of it:
  // an empty or duplicate plugin name, a nameless or factory-less entry, or
  // a name another plugin already registered for the same kind. On
  // rejection returns one line saying why (naming both plugin files for a
  // duplicate) and leaves the registry unchanged.
  std::string Add(LoadedPlugin plugin, PluginContents contents);

  const FrontendInfo* FindFrontend(std::string_view name) const;
  const PassInfo* FindPass(std::string_view name) const;
  const BackendInfo* FindBackend(std::string_view name) const;
  // The first frontend (in load order) that reads files ending in
  // `extension` (".py"); nullptr when none does.
  const FrontendInfo* FindFrontendForExtension(
      std::string_view extension) const;
  const LoadedPlugin* FindPlugin(std::string_view name) const;

  std::vector<std::string> FrontendNames() const;
  std::vector<std::string> PassNames() const;
  std::vector<std::string> BackendNames() const;
  const std::vector<LoadedPlugin>& plugins() const { return plugins_; }

 private:
  template <typename Info>
  struct Entry {
    Info info;
    size_t plugin_index;  // into plugins_
  };

  std::string Check(const LoadedPlugin& plugin,
                    const PluginContents& contents) const;
  std::string Describe(const LoadedPlugin& plugin) const;

  std::vector<LoadedPlugin> plugins_;
  // unique_ptr keeps each Info at a stable address: callers hold pointers.
  std::vector<std::unique_ptr<Entry<FrontendInfo>>> frontends_;
  std::vector<std::unique_ptr<Entry<PassInfo>>> passes_;
  std::vector<std::unique_ptr<Entry<BackendInfo>>> backends_;
};

}  // namespace tessera
