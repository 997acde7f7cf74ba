// What every Tessera fuzz target shares: the internal-error convention of
// the driver (a failure without a diagnostic is exit 2, which a fuzzer
// reports as a crash) and an in-process run of the real pallas-tpu
// pipelines, loaded from the build tree's plugins exactly as `tessera
// compile` loads them.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "driver/plugin_registry.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

#ifndef TESSERA_FUZZ_PIPELINE
#define TESSERA_FUZZ_PIPELINE 0
#endif

namespace tessera::fuzz {

// Prints `what` with the diagnostics so far and aborts: the fuzzer saves
// the input as a crash.
[[noreturn]] void InternalError(std::string_view what,
                                const DiagnosticEngine& diagnostics);

// A failed status must come with at least one error diagnostic beyond the
// `errors_before` already reported; an OK status with new errors is also
// inconsistent. Either is an internal error.
void CheckStatusMatchesDiagnostics(const absl::Status& status,
                                   size_t errors_before,
                                   const DiagnosticEngine& diagnostics,
                                   std::string_view what);

// Print -> parse -> print must be a fixed point and parse(print(m)) equal
// to m; anything else is an internal error.
void CheckRoundTrip(const Module& module, std::string_view what);

// The build tree's plugins (or TESSERA_PLUGIN_PATH's), loaded once.
const PluginRegistry& BuildTreePlugins();

// The launcher configs the pipeline runs under (configs/pallas_*.toml).
inline constexpr int kLauncherCount = 3;

// Runs `text` (a .py kernel file or, when `is_tir`, IR text) through
// frontend (or the .tir parser), every pass with verify-each and the
// round-trip check, and the backend of configs/pallas_<launcher>.toml
// (launcher % kLauncherCount). User errors are fine; a crash or a failure
// without a diagnostic is an internal error.
void RunPipeline(std::string_view text, bool is_tir, unsigned launcher);

}  // namespace tessera::fuzz
