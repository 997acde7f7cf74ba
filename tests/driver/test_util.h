// Helpers shared by the driver's unit tests.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/plugin_registry.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::testing {

// A small non-SSA kernel (one reassigned name) in the text format.
extern const char kSmallKernelText[];

// Parses `text`, failing the current test on error.
Module ParseOrDie(const std::string& text);

// Every message reported so far, rendered, for failure output.
std::string AllMessages(const DiagnosticEngine& diagnostics);

// The diagnostics of `diagnostics` with severity error.
std::vector<Diagnostic> Errors(const DiagnosticEngine& diagnostics);

// Registers `contents` as an in-process plugin named `name`.
void AddInProcessPlugin(PluginRegistry& registry, const std::string& name,
                        PluginContents contents);

}  // namespace tessera::testing
