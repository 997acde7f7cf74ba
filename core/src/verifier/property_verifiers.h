// Verifiers of the properties produced by the pre-broadcast and
// atomic-accumulator passes. Each checks the invariant its property names in
// tessera/properties.h and reports every violation through the reporter.
#pragma once

#include "tessera/ir/ir.h"
#include "verifier/reporter.h"

namespace tessera::verifier {

// kPreBroadcast (pre_broadcast_verifier.cpp).
void CheckPreBroadcast(const Module& module, Reporter& reporter);

// kAtomicAccumulated (atomic_accumulator_verifier.cpp).
void CheckAtomicAccumulated(const Module& module, Reporter& reporter);

}  // namespace tessera::verifier
