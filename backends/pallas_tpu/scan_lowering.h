// Scans of a block on the TPU (IR `scan`): Mosaic lowers neither
// lax.associative_scan nor jnp.cumsum, so a scan is log2(n) Hillis-Steele
// steps of a rotation (pltpu.roll) and a select, in a module-level helper.
#pragma once

#include <string>

#include "device_emitter.h"
#include "python_writer.h"
#include "target.h"

namespace tessera::pallas {

// The expression of `call`'s result; sets `error` for what the TPU cannot
// scan (a block of rank > 2 along a leading dim).
std::string TpuScanExpr(ModuleState& state, const PallasTarget::ScanCall& call,
                        std::string& error);

// The helper, when the module uses it.
void AppendScanHelper(const ModuleState& state, PyLines& helpers);

}  // namespace tessera::pallas
