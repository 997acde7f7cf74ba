// The checks specific to Property::kOutlined (see tessera/ir/verifier.h for
// the host/device convention).
#pragma once

#include "tessera/ir/ir.h"
#include "verifier/module_index.h"
#include "verifier/reporter.h"

namespace tessera::verifier {

// No kernel functions; each host function holds exactly one launch. With
// `check_callees`, also that each launch calls a device function and that
// device functions do not launch (the full verifier checks both as part of
// every launch, so Verify() turns this off to avoid reporting them twice).
void CheckOutlinedStructure(const Module& module, const ModuleIndex& index,
                            Reporter& reporter, bool check_callees);

// Every name a function uses -- value references and symbols inside any
// type, attribute, index or loop dim -- is one of its parameters or defined
// in it. Each free name is reported once per function, naming the function
// it belongs to when there is one.
void CheckNoFreeVariables(const Module& module, const ModuleIndex& index,
                          Reporter& reporter);

}  // namespace tessera::verifier
