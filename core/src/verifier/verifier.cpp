// Entry points of the IR verifier (tessera/ir/verifier.h) and the verifiers
// of the core's own properties.
#include "tessera/ir/verifier.h"

#include "verifier/core_properties.h"
#include "verifier/function_verifier.h"
#include "verifier/module_index.h"
#include "verifier/outlined_verifier.h"
#include "verifier/reporter.h"

namespace tessera {
namespace verifier {
namespace {

void VerifyFunctions(const Module& module, const ModuleIndex& index, bool ssa,
                     Reporter& reporter) {
  ScopedNames scope(/*keep_out_of_scope=*/ssa);
  for (const Function& function : module.functions) {
    scope.Clear();
    FunctionVerifier(function, ssa, index, reporter, scope).Run();
  }
}

// Dominance and uniqueness are checked by the same walk that checks types,
// so this is the full verifier in SSA mode.
void VerifySsa(const Module& module, Reporter& reporter) {
  ModuleIndex index(module, reporter);
  VerifyFunctions(module, index, /*ssa=*/true, reporter);
}

void VerifyOutlined(const Module& module, Reporter& reporter) {
  ModuleIndex index(module, reporter);
  CheckOutlinedStructure(module, index, reporter, /*check_callees=*/true);
  CheckNoFreeVariables(module, index, reporter);
}

}  // namespace

PropertyInfo SsaPropertyInfo() {
  return PropertyInfo{
      "ssa",
      "every name is defined once and dominates its uses; loops carry state "
      "through iter_args / yield / results, ifs merge through results",
      &VerifySsa};
}

PropertyInfo OutlinedPropertyInfo() {
  return PropertyInfo{
      "outlined",
      "each kernel is a host function launching a device function; no "
      "function uses a value of another",
      &VerifyOutlined};
}

}  // namespace verifier

absl::Status Verify(const Module& module, DiagnosticEngine& diagnostics,
                    PropertySet properties) {
  verifier::Reporter reporter(module, diagnostics);
  verifier::ModuleIndex index(module, reporter);
  // The core's own properties share the base walk: ssa is the walk in SSA
  // mode, and the walk has already reported what outlined's free-variable
  // and callee checks would (undefined uses, launches of non-devices).
  verifier::VerifyFunctions(module, index, properties.Contains(kSsaProperty),
                            reporter);
  if (properties.Contains(kOutlinedProperty)) {
    verifier::CheckOutlinedStructure(module, index, reporter,
                                     /*check_callees=*/false);
  }
  const PropertySet others =
      properties.Minus({kSsaProperty, kOutlinedProperty});
  if (!others.empty()) {
    for (Property property : others.ToVector()) {
      if (PropertyVerifierFn verify = property.info().verifier) {
        verify(module, reporter);
      }
    }
  }
  return reporter.ToStatus();
}

absl::Status VerifyProperty(const Module& module, Property property,
                            DiagnosticEngine& diagnostics) {
  if (!property.valid() || FindProperty(property.name()) != property) {
    return absl::InvalidArgumentError("unregistered property");
  }
  verifier::Reporter reporter(module, diagnostics);
  if (PropertyVerifierFn verify = property.info().verifier) {
    verify(module, reporter);
  }
  return reporter.ToStatus();
}

}  // namespace tessera
