// The plugin ABI. A plugin is a shared object that exports exactly one
// extern "C" entry point,
//
//   extern "C" const TesseraPluginInfo* tesseraGetPluginInfo(void);
//
// returning a pointer to a static, versioned info struct (as LLVM's
// llvmGetPassPluginInfo does). The loader checks abi_version against
// TESSERA_PLUGIN_ABI_VERSION, then calls register_plugin once with a
// registrar through which the plugin adds frontends, passes, backends and
// properties by name.
//
// Rules for plugin authors:
//  - Use TESSERA_PLUGIN(...) below rather than writing the entry by hand.
//  - register_plugin returns true on success; on failure it calls
//    registrar->Fail("why") and returns false. It must not throw (the loader
//    catches and reports exceptions anyway, but the plugin is then rejected).
//  - Names must be unique across all loaded plugins; a duplicate rejects the
//    plugin that brought it.
//  - Plugins are never unloaded: factories and the info struct must stay
//    valid for the life of the process.
//  - Only standard-library types and Tessera's own types cross the boundary;
//    no abseil containers, no exceptions. Everything is called from one
//    thread.
//  - Any change to a struct or virtual interface in these headers that
//    breaks binary compatibility bumps TESSERA_PLUGIN_ABI_VERSION.
//  - absl::Status / absl::StatusOr are part of the interface, so a plugin is
//    built against the same abseil as the core (the installed CMake package
//    finds it with find_dependency(absl); pkg-config lists absl_status).
//
// What a plugin implements: one or more of Frontend (frontend.h), Pass
// (pass.h) and Backend (backend.h), each with an *Info struct naming it and
// giving a `create` factory; and the properties its passes produce
// (properties.h), each with a description and a verifier that verify-each
// runs whenever a module claims the property. Build it out of tree with the
// installed package: find_package(Tessera) + tessera_add_plugin(...) (see
// sdk/README.md and the examples in sdk/examples).
#pragma once

#include <cstdint>
#include <string>

#include "tessera/backend.h"
#include "tessera/frontend.h"
#include "tessera/pass.h"

#define TESSERA_PLUGIN_ABI_VERSION 5
#define TESSERA_PLUGIN_ENTRY_POINT "tesseraGetPluginInfo"

namespace tessera {

class PluginRegistrar {
 public:
  virtual ~PluginRegistrar() = default;
  virtual void AddFrontend(FrontendInfo info) = 0;
  virtual void AddPass(PassInfo info) = 0;
  virtual void AddBackend(BackendInfo info) = 0;
  // Registers a property right away (the handle goes into this plugin's
  // contracts) and returns its handle; on a conflict with an already
  // registered property it records why (as Fail does) and returns an
  // invalid handle, and the registration callback should return false.
  // Registering the same name and description again returns the same
  // handle.
  virtual Property AddProperty(PropertyInfo info) = 0;
  // Records why registration failed; the loader reports it.
  virtual void Fail(std::string message) = 0;
};

}  // namespace tessera

extern "C" {

struct TesseraPluginInfo {
  uint32_t abi_version;
  const char* name;
  const char* version;
  bool (*register_plugin)(tessera::PluginRegistrar* registrar);
};

typedef const TesseraPluginInfo* (*TesseraGetPluginInfoFn)(void);
}

// Defines the entry point of a plugin:
//
//   static bool Register(tessera::PluginRegistrar* r) { ...; return true; }
//   TESSERA_PLUGIN("my-plugin", "0.1.0", Register)
#define TESSERA_PLUGIN(NAME, VERSION, REGISTER_FN)                           \
  extern "C" __attribute__((visibility("default"))) const TesseraPluginInfo* \
  tesseraGetPluginInfo(void) {                                               \
    static const TesseraPluginInfo info = {TESSERA_PLUGIN_ABI_VERSION, NAME, \
                                           VERSION, REGISTER_FN};            \
    return &info;                                                            \
  }
