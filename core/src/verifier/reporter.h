// The verifier's problems are reported through the public
// VerificationReporter (tessera/ir/verifier.h), which property verifiers of
// plugins use too; the core's checks know it by this short name.
#pragma once

#include "tessera/ir/verifier.h"

namespace tessera::verifier {

using Reporter = VerificationReporter;

}  // namespace tessera::verifier
