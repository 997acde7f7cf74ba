#include "driver/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>

#include "fmt/format.h"
#include "tessera/plugin.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// Collects what a plugin's registration callback adds; the registry accepts
// all of it or none.
class StagingRegistrar : public PluginRegistrar {
 public:
  void AddFrontend(FrontendInfo info) override {
    contents_.frontends.push_back(std::move(info));
  }
  void AddPass(PassInfo info) override {
    contents_.passes.push_back(std::move(info));
  }
  void AddBackend(BackendInfo info) override {
    contents_.backends.push_back(std::move(info));
  }
  Property AddProperty(PropertyInfo info) override {
    const std::string name = info.name;
    absl::StatusOr<Property> property = RegisterProperty(std::move(info));
    if (!property.ok()) {
      Fail(fmt::format("property '{}': {}", name,
                       std::string(property.status().message())));
      return Property();
    }
    contents_.properties.push_back(*property);
    return *property;
  }
  void Fail(std::string message) override {
    failed_ = true;
    if (failure_.empty()) failure_ = std::move(message);
  }

  bool failed() const { return failed_; }
  const std::string& failure() const { return failure_; }
  PluginContents TakeContents() { return std::move(contents_); }

 private:
  PluginContents contents_;
  bool failed_ = false;
  std::string failure_;
};

std::string_view OriginName(PluginPathOrigin origin) {
  switch (origin) {
    case PluginPathOrigin::kCommandLine:
      return "--plugin-path";
    case PluginPathOrigin::kConfig:
      return "the config's plugin_paths";
    case PluginPathOrigin::kEnvironment:
      return "TESSERA_PLUGIN_PATH";
    case PluginPathOrigin::kBuildTree:
      return "the build tree";
    case PluginPathOrigin::kInstallPrefix:
      return "the install prefix";
  }
  return "?";
}

bool IsOptional(PluginPathOrigin origin) {
  return origin == PluginPathOrigin::kBuildTree ||
         origin == PluginPathOrigin::kInstallPrefix;
}

// The *.so files directly inside `dir`, sorted by name.
std::vector<std::string> SharedObjectsIn(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  fs::directory_iterator it(dir, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    if (path.extension() != ".so") continue;
    std::error_code status_error;
    if (!it->is_regular_file(status_error)) continue;
    files.push_back(path.string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Whether two paths name the same file (comparing canonical forms; falls
// back to the spelling when a path cannot be resolved).
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code error_a;
  std::error_code error_b;
  const fs::path canonical_a = fs::weakly_canonical(a, error_a);
  const fs::path canonical_b = fs::weakly_canonical(b, error_b);
  if (error_a || error_b) return a == b;
  return canonical_a == canonical_b;
}

}  // namespace

std::string BuildTreePluginDir() { return TESSERA_BUILD_PLUGIN_DIR; }
std::string InstallPrefixPluginDir() { return TESSERA_INSTALL_PLUGIN_DIR; }

std::string CoreRelativePluginDir() {
  // Where the loaded core library lies: an installed tree moved elsewhere
  // (a Python wheel's tessera/lib) keeps its plugins beside it, in
  // lib/tessera/plugins, whatever prefix it was built for.
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&CoreRelativePluginDir), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  return (fs::path(info.dli_fname).parent_path() / "tessera" / "plugins")
      .string();
}

std::vector<PluginSearchEntry> PluginSearchPath(
    std::vector<PluginSearchEntry> command_line,
    std::vector<PluginSearchEntry> config, const char* environment) {
  std::vector<PluginSearchEntry> entries = std::move(command_line);
  for (PluginSearchEntry& entry : config) entries.push_back(std::move(entry));
  if (environment != nullptr) {
    std::string_view rest = environment;
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      std::string_view piece = rest.substr(0, colon);
      if (!piece.empty()) {
        entries.push_back(PluginSearchEntry{
            std::string(piece), PluginPathOrigin::kEnvironment, "", {}});
      }
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  entries.push_back(PluginSearchEntry{
      BuildTreePluginDir(), PluginPathOrigin::kBuildTree, "", {}});
  if (std::string beside_core = CoreRelativePluginDir();
      !beside_core.empty() && beside_core != BuildTreePluginDir() &&
      beside_core != InstallPrefixPluginDir()) {
    entries.push_back(PluginSearchEntry{
        std::move(beside_core), PluginPathOrigin::kInstallPrefix, "", {}});
  }
  entries.push_back(PluginSearchEntry{
      InstallPrefixPluginDir(), PluginPathOrigin::kInstallPrefix, "", {}});
  return entries;
}

bool PluginLoader::LoadAll(const std::vector<PluginSearchEntry>& entries,
                           DiagnosticEngine& diagnostics) {
  bool ok = true;
  for (const PluginSearchEntry& entry : entries) {
    std::error_code error;
    const fs::file_status status = fs::status(entry.path, error);
    if (error || !fs::exists(status)) {
      if (IsOptional(entry.origin)) continue;
      diagnostics.Error(entry.origin_file, entry.origin_loc,
                        fmt::format("plugin path '{}' (from {}) not found",
                                    entry.path, OriginName(entry.origin)));
      ok = false;
      continue;
    }
    if (fs::is_directory(status)) {
      for (const std::string& file : SharedObjectsIn(entry.path)) {
        ok = LoadUnshadowed(file, diagnostics) && ok;
      }
    } else {
      ok = LoadUnshadowed(entry.path, diagnostics) && ok;
    }
  }
  return ok;
}

bool PluginLoader::LoadUnshadowed(const std::string& path,
                                  DiagnosticEngine& diagnostics) {
  const std::string file_name = fs::path(path).filename().string();
  for (const auto& [name, first_path] : loaded_names_) {
    if (name == file_name) {
      if (!SameFile(first_path, path)) {
        shadowed_.push_back(
            fmt::format("skipped {} (shadowed by {})", path, first_path));
      }
      return true;
    }
  }
  loaded_names_.emplace_back(file_name, path);
  return LoadFile(path, diagnostics);
}

bool PluginLoader::LoadFile(const std::string& path,
                            DiagnosticEngine& diagnostics) {
  auto fail = [&](std::string message) {
    diagnostics.Error(path, {}, std::move(message));
    return false;
  };
  std::error_code error;
  if (!fs::exists(path, error)) return fail("plugin file not found");

  // RTLD_LOCAL keeps one plugin's symbols from resolving another's; the
  // handle is deliberately never closed (factories live in the object).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fail(fmt::format("cannot load plugin: {}",
                            why != nullptr ? why : "unknown dlopen error"));
  }
  dlerror();  // clear any stale error before dlsym
  void* symbol = dlsym(handle, TESSERA_PLUGIN_ENTRY_POINT);
  if (symbol == nullptr) {
    return fail(fmt::format(
        "not a Tessera plugin: missing entry point '{}' (define it with "
        "TESSERA_PLUGIN)",
        TESSERA_PLUGIN_ENTRY_POINT));
  }
  auto get_info = reinterpret_cast<TesseraGetPluginInfoFn>(symbol);
  return Register(get_info(), path, diagnostics);
}

bool PluginLoader::Register(const TesseraPluginInfo* info,
                            const std::string& path,
                            DiagnosticEngine& diagnostics) {
  auto fail = [&](std::string message) {
    diagnostics.Error(path, {}, std::move(message));
    return false;
  };
  if (info == nullptr) {
    return fail(fmt::format("plugin entry point '{}' returned null",
                            TESSERA_PLUGIN_ENTRY_POINT));
  }
  // Nothing but abi_version may be read before it is checked: the layout
  // of the rest can differ between versions.
  if (info->abi_version != TESSERA_PLUGIN_ABI_VERSION) {
    return fail(fmt::format("plugin ABI version mismatch: got {}, supported {}",
                            info->abi_version, TESSERA_PLUGIN_ABI_VERSION));
  }
  if (info->name == nullptr || info->name[0] == '\0') {
    return fail("plugin has no name");
  }
  if (info->register_plugin == nullptr) {
    return fail(
        fmt::format("plugin '{}' has no registration callback", info->name));
  }

  StagingRegistrar registrar;
  bool registered = false;
  try {
    registered = info->register_plugin(&registrar);
  } catch (const std::exception& exception) {
    return fail(fmt::format("plugin '{}' registration threw an exception: {}",
                            info->name, exception.what()));
  } catch (...) {
    return fail(fmt::format(
        "plugin '{}' registration threw a non-standard exception", info->name));
  }
  if (registrar.failed() || !registered) {
    const std::string why = registrar.failure().empty()
                                ? std::string("no reason given")
                                : registrar.failure();
    return fail(
        fmt::format("plugin '{}' registration failed: {}", info->name, why));
  }

  LoadedPlugin plugin;
  plugin.name = info->name;
  plugin.version = info->version != nullptr ? info->version : "";
  plugin.path = path;
  std::string problem =
      registry_.Add(std::move(plugin), registrar.TakeContents());
  if (!problem.empty()) return fail(std::move(problem));
  return true;
}

}  // namespace tessera
