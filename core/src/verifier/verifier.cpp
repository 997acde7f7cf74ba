// Entry points of the IR verifier (tessera/ir/verifier.h).
#include "tessera/ir/verifier.h"

#include "fmt/format.h"
#include "verifier/function_verifier.h"
#include "verifier/module_index.h"
#include "verifier/outlined_verifier.h"
#include "verifier/property_verifiers.h"
#include "verifier/reporter.h"

namespace tessera {
namespace {

void VerifyFunctions(const Module& module, const verifier::ModuleIndex& index,
                     bool ssa, verifier::Reporter& reporter) {
  verifier::ScopedNames scope(/*keep_out_of_scope=*/ssa);
  for (const Function& function : module.functions) {
    scope.Clear();
    verifier::FunctionVerifier(function, ssa, index, reporter, scope).Run();
  }
}

}  // namespace

absl::Status Verify(const Module& module, DiagnosticEngine& diagnostics,
                    PropertySet properties) {
  verifier::Reporter reporter(module, diagnostics);
  verifier::ModuleIndex index(module, reporter);
  VerifyFunctions(module, index, properties.Contains(Property::kSSA), reporter);
  if (properties.Contains(Property::kOutlined)) {
    // Free variables are undefined uses, which VerifyFunctions has already
    // reported; so are launches of non-device functions.
    verifier::CheckOutlinedStructure(module, index, reporter,
                                     /*check_callees=*/false);
  }
  if (properties.Contains(Property::kPreBroadcast)) {
    verifier::CheckPreBroadcast(module, reporter);
  }
  if (properties.Contains(Property::kAtomicAccumulated)) {
    verifier::CheckAtomicAccumulated(module, reporter);
  }
  return reporter.ToStatus();
}

absl::Status VerifyProperty(const Module& module, Property property,
                            DiagnosticEngine& diagnostics) {
  verifier::Reporter reporter(module, diagnostics);
  switch (property) {
    case Property::kSSA: {
      // Dominance and uniqueness are checked by the same walk that checks
      // types, so this is the full verifier in SSA mode.
      verifier::ModuleIndex index(module, reporter);
      VerifyFunctions(module, index, /*ssa=*/true, reporter);
      break;
    }
    case Property::kOutlined: {
      verifier::ModuleIndex index(module, reporter);
      verifier::CheckOutlinedStructure(module, index, reporter,
                                       /*check_callees=*/true);
      verifier::CheckNoFreeVariables(module, index, reporter);
      break;
    }
    case Property::kPreBroadcast:
      verifier::CheckPreBroadcast(module, reporter);
      break;
    case Property::kAtomicAccumulated:
      verifier::CheckAtomicAccumulated(module, reporter);
      break;
    case Property::kNumProperties:
      return absl::InvalidArgumentError(
          fmt::format("unknown property {}", static_cast<int>(property)));
  }
  return reporter.ToStatus();
}

}  // namespace tessera
