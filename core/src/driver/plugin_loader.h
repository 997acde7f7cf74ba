// Loads plugin shared objects into a PluginRegistry.
//
// Search order (first wins): --plugin-path entries, the config's
// plugin_paths, TESSERA_PLUGIN_PATH, the build tree's plugin directory, the
// install prefix's plugin directory (the one beside the loaded core
// library, then the configured one). An entry is a file (loaded as is) or a
// directory (every *.so in it, by name). A file name already loaded from an
// earlier entry is skipped, so a build tree and an install prefix holding the
// same plugins do not clash. Each failure is reported as one error line and
// loading goes on with the next plugin; plugins are never unloaded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "driver/plugin_registry.h"
#include "tessera/diagnostics.h"

struct TesseraPluginInfo;

namespace tessera {

enum class PluginPathOrigin {
  kCommandLine,
  kConfig,
  kEnvironment,
  kBuildTree,
  kInstallPrefix,
};

struct PluginSearchEntry {
  std::string path;
  PluginPathOrigin origin = PluginPathOrigin::kCommandLine;
  // Where a config entry was written, for "not found" diagnostics.
  std::string origin_file;
  SourceLoc origin_loc;
};

// The directories the core was configured with.
std::string BuildTreePluginDir();
std::string InstallPrefixPluginDir();
// lib/tessera/plugins beside the loaded core library ("" when unknown):
// searched after the build tree, so that a relocated install (a wheel)
// finds its own plugins.
std::string CoreRelativePluginDir();

// The full search list: `command_line` and `config` entries in order, then
// the colon-separated `environment` value (TESSERA_PLUGIN_PATH; may be
// null), then the build tree and install prefix directories.
std::vector<PluginSearchEntry> PluginSearchPath(
    std::vector<PluginSearchEntry> command_line,
    std::vector<PluginSearchEntry> config, const char* environment);

class PluginLoader {
 public:
  explicit PluginLoader(PluginRegistry& registry) : registry_(registry) {}

  // Loads every plugin the entries name (see above). Entries from the
  // command line, a config or the environment that do not exist are errors;
  // absent build-tree or install directories are skipped. Returns false
  // when any plugin failed to load.
  bool LoadAll(const std::vector<PluginSearchEntry>& entries,
               DiagnosticEngine& diagnostics);

  // Loads one plugin file, reporting a failure as one error about `path`.
  bool LoadFile(const std::string& path, DiagnosticEngine& diagnostics);

  // Checks a plugin's info struct (ABI version first, then name and
  // callback), runs its registration and adds what it registered to the
  // registry; `path` names the plugin in diagnostics. LoadFile calls it with
  // the struct the entry point returned; the metadata fuzzer calls it with
  // structs built from its input.
  bool Register(const TesseraPluginInfo* info, const std::string& path,
                DiagnosticEngine& diagnostics);

  // Files skipped because an earlier entry had the same file name, as
  // "skipped B (shadowed by A)" lines for --verbose.
  const std::vector<std::string>& shadowed() const { return shadowed_; }

 private:
  bool LoadUnshadowed(const std::string& path, DiagnosticEngine& diagnostics);

  PluginRegistry& registry_;
  // File name -> the path it was first loaded from.
  std::vector<std::pair<std::string, std::string>> loaded_names_;
  std::vector<std::string> shadowed_;
};

}  // namespace tessera
