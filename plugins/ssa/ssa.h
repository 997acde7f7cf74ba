// The `ssa` pass: converts structured IR (names assigned several times, as in
// the Python source) to SSA form.
//
//  - Every assignment defines a fresh name. The first definition of a name
//    keeps it; later ones get `name_1`, `name_2`, ... skipping every name
//    that already occurs anywhere in the function, so versions never collide
//    with user names and stay valid Python identifiers.
//  - A loop carries each name it reassigns that is read in a later iteration
//    or after the loop through iter_args (initial value: the definition
//    before the loop), a trailing `yield` and results. A name first defined
//    inside a loop and used after it needs such an initial value; when none
//    exists the user gets an error at the loop (Python would raise if the
//    loop ran zero times).
//  - An `if` merges each name assigned in a branch and used after it through
//    results and a `yield` in both branches.
//  - Symbols inside types, dims-list attributes, index sizes and loop block
//    sizes are renamed together with the value they name.
//  - Stores and atomics mutate refs in place; they define nothing.
//
// Idempotent: on SSA input (every name defined once, each definition
// dominating its uses) nothing is renamed or added, so ssa(ssa(x)) == ssa(x)
// textually. Shape symbols bound by parameter types (TEAM.md) are visible
// from function entry; an explicit `m: i64 = size(x) {dim = 0}` of such a
// symbol is its first definition and keeps the name.
#pragma once

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera {

// Converts every function of `module` to SSA form in place. Returns whether
// the IR changed. Problems in the user's program (a value used before it is
// assigned, a loop-carried value without an initial value, a carried value
// whose type changes) are reported to `diagnostics` with their location and
// yield an InvalidArgument status.
absl::StatusOr<bool> ConvertToSSA(Module& module,
                                  DiagnosticEngine& diagnostics);

}  // namespace tessera
