#include "driver/plugin_loader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tessera/plugin.h"
#include "test_util.h"

// Paths of the test plugins, set by tests/driver/CMakeLists.txt.
#ifndef TESSERA_TEST_PLUGIN
#error "TESSERA_TEST_PLUGIN must be defined"
#endif

namespace tessera::testing {
namespace {

namespace fs = std::filesystem;

class PluginLoaderTest : public ::testing::Test {
 protected:
  // Loads `path` and returns the single error it must produce.
  Diagnostic LoadExpectingOneError(const std::string& path) {
    EXPECT_FALSE(loader_.LoadFile(path, diagnostics_));
    std::vector<Diagnostic> errors = Errors(diagnostics_);
    EXPECT_EQ(errors.size(), 1u) << AllMessages(diagnostics_);
    if (errors.empty()) return Diagnostic{};
    // One line, about the plugin file.
    EXPECT_EQ(errors[0].message.find('\n'), std::string::npos);
    EXPECT_EQ(errors[0].file, path);
    return errors[0];
  }

  PluginRegistry registry_;
  PluginLoader loader_{registry_};
  DiagnosticEngine diagnostics_;
};

TEST_F(PluginLoaderTest, LoadsTheTestPluginAndItsRegistrations) {
  ASSERT_TRUE(loader_.LoadFile(TESSERA_TEST_PLUGIN, diagnostics_))
      << AllMessages(diagnostics_);
  ASSERT_EQ(registry_.plugins().size(), 1u);
  const LoadedPlugin& plugin = registry_.plugins()[0];
  EXPECT_EQ(plugin.name, "test-passes");
  EXPECT_EQ(plugin.version, "1.2.3");
  EXPECT_EQ(plugin.path, TESSERA_TEST_PLUGIN);
  ASSERT_NE(registry_.FindPass("test-tag"), nullptr);
  EXPECT_EQ(ResolveProperties(registry_.FindPass("test-break-ssa")->produced),
            (PropertySet{kSsaProperty}));
  ASSERT_NE(registry_.FindFrontend("test-frontend"), nullptr);
  EXPECT_EQ(registry_.FindFrontendForExtension(".tst"),
            registry_.FindFrontend("test-frontend"));
  EXPECT_EQ(registry_.FindFrontendForExtension(".py"), nullptr);
  ASSERT_NE(registry_.FindBackend("test-backend"), nullptr);
  bool saw_backend = false;
  for (const Registration& registration : plugin.registrations) {
    if (registration.kind == PluginKind::kBackend &&
        registration.name == "test-backend") {
      saw_backend = true;
    }
  }
  EXPECT_TRUE(saw_backend);
}

TEST_F(PluginLoaderTest, FileNotFound) {
  const Diagnostic error = LoadExpectingOneError("/no/such/libplugin.so");
  EXPECT_EQ(error.message, "plugin file not found");
}

TEST_F(PluginLoaderTest, NotASharedObjectReportsDlerror) {
  const Diagnostic error = LoadExpectingOneError(TESSERA_NOT_A_PLUGIN_FILE);
  EXPECT_EQ(error.message.rfind("cannot load plugin: ", 0), 0u)
      << error.message;
  // dlerror() names the file and what is wrong with it.
  EXPECT_NE(error.message.find(TESSERA_NOT_A_PLUGIN_FILE), std::string::npos)
      << error.message;
}

TEST_F(PluginLoaderTest, MissingEntryPoint) {
  const Diagnostic error =
      LoadExpectingOneError(TESSERA_BROKEN_MISSING_ENTRY_POINT);
  EXPECT_EQ(error.message,
            "not a Tessera plugin: missing entry point 'tesseraGetPluginInfo' "
            "(define it with TESSERA_PLUGIN)");
}

TEST_F(PluginLoaderTest, AbiVersionMismatch) {
  const Diagnostic error = LoadExpectingOneError(TESSERA_BROKEN_ABI_MISMATCH);
  EXPECT_EQ(error.message, "plugin ABI version mismatch: got 99, supported " +
                               std::to_string(TESSERA_PLUGIN_ABI_VERSION));
  EXPECT_TRUE(registry_.plugins().empty());
}

TEST_F(PluginLoaderTest, RegistrationFailsWithItsReason) {
  const Diagnostic error =
      LoadExpectingOneError(TESSERA_BROKEN_REGISTRATION_FAILS);
  EXPECT_EQ(error.message,
            "plugin 'registration-fails' registration failed: the "
            "accelerator runtime is not installed");
  EXPECT_TRUE(registry_.plugins().empty());
}

TEST_F(PluginLoaderTest, RegistrationThrows) {
  const Diagnostic error =
      LoadExpectingOneError(TESSERA_BROKEN_REGISTRATION_THROWS);
  EXPECT_EQ(error.message,
            "plugin 'registration-throws' registration threw an exception: "
            "registration exploded");
  EXPECT_TRUE(registry_.plugins().empty());
}

TEST_F(PluginLoaderTest, DuplicatePassNameNamesBothFiles) {
  ASSERT_TRUE(loader_.LoadFile(TESSERA_TEST_PLUGIN, diagnostics_));
  const Diagnostic error = LoadExpectingOneError(TESSERA_BROKEN_DUPLICATE_PASS);
  EXPECT_EQ(error.message,
            std::string("duplicate pass name 'test-tag': registered by plugin "
                        "'test-passes' (") +
                TESSERA_TEST_PLUGIN + ") and by plugin 'duplicate-pass' (" +
                TESSERA_BROKEN_DUPLICATE_PASS + ")");
  // The rejected plugin left nothing behind.
  EXPECT_EQ(registry_.plugins().size(), 1u);
  EXPECT_EQ(registry_.FindPlugin("duplicate-pass"), nullptr);
}

TEST_F(PluginLoaderTest, DuplicatePluginNameNamesBothFiles) {
  ASSERT_TRUE(loader_.LoadFile(TESSERA_TEST_PLUGIN, diagnostics_));
  const Diagnostic error =
      LoadExpectingOneError(TESSERA_BROKEN_DUPLICATE_PLUGIN_NAME);
  EXPECT_EQ(error.message,
            std::string("duplicate plugin name 'test-passes': ") +
                TESSERA_TEST_PLUGIN + " and " +
                TESSERA_BROKEN_DUPLICATE_PLUGIN_NAME);
}

TEST_F(PluginLoaderTest, BrokenPluginsDoNotStopTheOthers) {
  std::vector<PluginSearchEntry> entries = {
      {TESSERA_BROKEN_ABI_MISMATCH, PluginPathOrigin::kCommandLine, "", {}},
      {TESSERA_TEST_PLUGIN, PluginPathOrigin::kCommandLine, "", {}},
  };
  EXPECT_FALSE(loader_.LoadAll(entries, diagnostics_));
  EXPECT_EQ(Errors(diagnostics_).size(), 1u);
  EXPECT_NE(registry_.FindPass("test-tag"), nullptr);
}

TEST_F(PluginLoaderTest, MissingSearchEntriesAreErrorsExceptBuiltInDirs) {
  std::vector<PluginSearchEntry> entries = {
      {"/no/such/dir", PluginPathOrigin::kCommandLine, "", {}},
      {"/no/such/config/dir", PluginPathOrigin::kConfig, "p.toml",
       SourceLoc{2, 17, 8}},
      {"/no/such/env/dir", PluginPathOrigin::kEnvironment, "", {}},
      {"/no/such/build/dir", PluginPathOrigin::kBuildTree, "", {}},
      {"/no/such/install/dir", PluginPathOrigin::kInstallPrefix, "", {}},
  };
  EXPECT_FALSE(loader_.LoadAll(entries, diagnostics_));
  std::vector<Diagnostic> errors = Errors(diagnostics_);
  ASSERT_EQ(errors.size(), 3u) << AllMessages(diagnostics_);
  EXPECT_EQ(errors[0].message,
            "plugin path '/no/such/dir' (from --plugin-path) not found");
  EXPECT_EQ(errors[1].file, "p.toml");
  EXPECT_EQ(errors[1].loc.line, 2u);
  EXPECT_EQ(errors[1].loc.col, 17u);
  EXPECT_EQ(errors[2].message,
            "plugin path '/no/such/env/dir' (from TESSERA_PLUGIN_PATH) not "
            "found");
}

TEST_F(PluginLoaderTest, SameFileNameInALaterDirectoryIsShadowed) {
  // The same plugin in two directories (a build tree and an install
  // prefix, say) loads once, from the first.
  const fs::path root = fs::path(::testing::TempDir()) / "tessera_shadow";
  fs::remove_all(root);
  const fs::path first = root / "first";
  const fs::path second = root / "second";
  fs::create_directories(first);
  fs::create_directories(second);
  const fs::path name = fs::path(TESSERA_TEST_PLUGIN).filename();
  fs::copy_file(TESSERA_TEST_PLUGIN, first / name);
  fs::copy_file(TESSERA_TEST_PLUGIN, second / name);

  std::vector<PluginSearchEntry> entries = {
      {first.string(), PluginPathOrigin::kCommandLine, "", {}},
      {second.string(), PluginPathOrigin::kInstallPrefix, "", {}},
  };
  EXPECT_TRUE(loader_.LoadAll(entries, diagnostics_))
      << AllMessages(diagnostics_);
  ASSERT_EQ(registry_.plugins().size(), 1u);
  EXPECT_EQ(registry_.plugins()[0].path, (first / name).string());
  ASSERT_EQ(loader_.shadowed().size(), 1u);
  EXPECT_NE(loader_.shadowed()[0].find((second / name).string()),
            std::string::npos);
  fs::remove_all(root);
}

TEST_F(PluginLoaderTest, DirectoryEntryLoadsEverySharedObjectInIt) {
  std::vector<PluginSearchEntry> entries = {
      {fs::path(TESSERA_TEST_PLUGIN).parent_path().string(),
       PluginPathOrigin::kCommandLine,
       "",
       {}}};
  EXPECT_TRUE(loader_.LoadAll(entries, diagnostics_))
      << AllMessages(diagnostics_);
  EXPECT_NE(registry_.FindPlugin("test-passes"), nullptr);
}

TEST(PluginSearchPathTest, OrderIsCommandLineConfigEnvironmentBuildInstall) {
  std::vector<PluginSearchEntry> entries = PluginSearchPath(
      {{"cli", PluginPathOrigin::kCommandLine, "", {}}},
      {{"config", PluginPathOrigin::kConfig, "c.toml", {}}}, "env1::env2");
  std::vector<std::string> paths;
  for (const PluginSearchEntry& entry : entries) paths.push_back(entry.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"cli", "config", "env1", "env2",
                                             BuildTreePluginDir(),
                                             InstallPrefixPluginDir()}));
  EXPECT_EQ(entries[2].origin, PluginPathOrigin::kEnvironment);
  EXPECT_EQ(entries[4].origin, PluginPathOrigin::kBuildTree);
  EXPECT_EQ(entries[5].origin, PluginPathOrigin::kInstallPrefix);
}

TEST(PluginRegistryTest, RejectsUnsoundDeclarationsWholesale) {
  PluginRegistry registry;
  PluginContents contents;
  PassInfo good;
  good.name = "good";
  good.create = [] { return std::unique_ptr<Pass>(); };
  PassInfo bad = good;
  bad.name = "bad";
  bad.options = {{"lanes", OptionType::kInt, std::string("128"), "", {}}};
  contents.passes = {good, bad};
  LoadedPlugin plugin{"p", "1", "/x/libp.so", {}};
  EXPECT_EQ(registry.Add(plugin, std::move(contents)),
            "pass 'bad' of plugin 'p' (/x/libp.so) declares option 'lanes' of "
            "type integer with a default of another type");
  EXPECT_EQ(registry.FindPass("good"), nullptr);
  EXPECT_TRUE(registry.plugins().empty());
}

TEST(PluginRegistryTest, RejectsEntriesWithoutFactory) {
  PluginRegistry registry;
  PluginContents contents;
  BackendInfo backend;
  backend.name = "b";
  contents.backends = {backend};
  EXPECT_EQ(registry.Add(LoadedPlugin{"p", "1", "/x/libp.so", {}},
                         std::move(contents)),
            "plugin 'p' (/x/libp.so) registers backend 'b' without a factory");
}

}  // namespace
}  // namespace tessera::testing
