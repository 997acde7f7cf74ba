// libFuzzer target: the plugin loader's reading of plugin metadata. The
// input is a script of plugins: each byte-coded plugin has an info struct
// (ABI version, name, version, callback; any of them missing or odd) and a
// registration callback that adds frontends, passes and backends with
// input-chosen names (empty, duplicate, without a factory), fails or
// throws. Every plugin goes through PluginLoader::Register into one
// registry, as the plugins of one search path do; then the registry must
// answer every lookup consistently. The tail of the input is also read as a
// TESSERA_PLUGIN_PATH value.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "driver/plugin_loader.h"
#include "driver/plugin_registry.h"
#include "fmt/format.h"
#include "fuzz_support.h"
#include "tessera/plugin.h"

namespace {

using namespace tessera;

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return empty() ? 0 : data_[pos_++]; }
  uint32_t Word() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = (value << 8) | Byte();
    return value;
  }
  // A length-prefixed string (may hold any byte, '\0' included).
  std::string String() {
    const size_t length = Byte() % 24;
    std::string result;
    while (result.size() < length && !empty()) {
      result.push_back(static_cast<char>(Byte()));
    }
    return result;
  }
  std::string_view Rest() {
    return {reinterpret_cast<const char*>(data_ + pos_), size_ - pos_};
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The registration script of the plugin being registered: a C callback
// cannot capture, so it reads the current one.
ByteReader* current_script = nullptr;

bool ScriptedRegistration(PluginRegistrar* registrar) {
  ByteReader& script = *current_script;
  const int count = script.Byte() % 6;
  for (int i = 0; i < count; ++i) {
    const uint8_t op = script.Byte();
    const bool with_factory = (op & 0x08) == 0;
    std::string name = script.String();
    switch (op % 8) {
      case 0: {
        FrontendInfo info;
        info.name = std::move(name);
        info.extensions = {script.String()};
        if (with_factory)
          info.create = [] { return std::unique_ptr<Frontend>(); };
        registrar->AddFrontend(std::move(info));
        break;
      }
      case 1:
      case 2: {
        PassInfo info;
        info.name = std::move(name);
        if (with_factory) info.create = [] { return std::unique_ptr<Pass>(); };
        registrar->AddPass(std::move(info));
        break;
      }
      case 3: {
        BackendInfo info;
        info.name = std::move(name);
        if (with_factory)
          info.create = [] { return std::unique_ptr<Backend>(); };
        registrar->AddBackend(std::move(info));
        break;
      }
      case 4:
        registrar->Fail(std::move(name));
        break;
      case 5:
        throw std::runtime_error(name);
      case 6:
        throw 42;  // not a std::exception
      default:
        return false;
    }
  }
  return true;
}

void CheckRegistryAnswers(const PluginRegistry& registry, ByteReader& probe) {
  for (const std::string& name : registry.FrontendNames()) {
    if (registry.FindFrontend(name) == nullptr) {
      fuzz::InternalError(
          fmt::format("frontend '{}' listed but not found", name),
          DiagnosticEngine{});
    }
  }
  for (const std::string& name : registry.PassNames()) {
    if (registry.FindPass(name) == nullptr) {
      fuzz::InternalError(fmt::format("pass '{}' listed but not found", name),
                          DiagnosticEngine{});
    }
  }
  for (const std::string& name : registry.BackendNames()) {
    if (registry.FindBackend(name) == nullptr) {
      fuzz::InternalError(
          fmt::format("backend '{}' listed but not found", name),
          DiagnosticEngine{});
    }
  }
  for (const LoadedPlugin& plugin : registry.plugins()) {
    if (registry.FindPlugin(plugin.name) == nullptr) {
      fuzz::InternalError(
          fmt::format("plugin '{}' listed but not found", plugin.name),
          DiagnosticEngine{});
    }
  }
  const std::string probe_name = probe.String();
  (void)registry.FindFrontendForExtension(probe_name);
  (void)registry.FindPass(probe_name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader input(data, size);
  PluginRegistry registry;
  PluginLoader loader(registry);
  DiagnosticEngine diagnostics;
  // Strings the info structs point to stay alive until the registry is gone.
  std::vector<std::unique_ptr<std::string>> strings;
  auto keep = [&](std::string value) {
    strings.push_back(std::make_unique<std::string>(std::move(value)));
    return strings.back()->c_str();
  };
  const int plugin_count = input.Byte() % 5;
  for (int index = 0; index < plugin_count; ++index) {
    const uint8_t shape = input.Byte();
    TesseraPluginInfo info{};
    info.abi_version =
        (shape & 0x03) == 0 ? input.Word() : TESSERA_PLUGIN_ABI_VERSION;
    info.name = (shape & 0x04) != 0 ? nullptr : keep(input.String());
    info.version = (shape & 0x08) != 0 ? nullptr : keep(input.String());
    info.register_plugin = (shape & 0x10) != 0 ? nullptr : ScriptedRegistration;
    current_script = &input;
    const size_t errors_before = diagnostics.error_count();
    const bool loaded =
        loader.Register((shape & 0x20) != 0 ? nullptr : &info,
                        fmt::format("plugin{}.so", index), diagnostics);
    current_script = nullptr;
    if (loaded == (diagnostics.error_count() != errors_before)) {
      fuzz::InternalError(loaded ? "a loaded plugin reported an error"
                                 : "a rejected plugin gave no reason",
                          diagnostics);
    }
  }
  (void)diagnostics.RenderAll();
  CheckRegistryAnswers(registry, input);

  const std::string environment(input.Rest());
  for (const PluginSearchEntry& entry :
       PluginSearchPath({}, {}, environment.c_str())) {
    if (entry.path.empty()) {
      fuzz::InternalError("an empty plugin search path entry", diagnostics);
    }
  }
  return 0;
}
