// The IR verifier: structure, types and shapes (via InferType), every use
// dominated by a definition, and each requested property (see
// properties.h). Problems are reported to `diagnostics` naming the
// offending statement and its location; the status is non-OK when any was
// found.
//
// What is checked (every problem is reported, not just the first; each as
// `file:line:col: error: <what> in '<statement summary>'`, located at the
// statement, or at the function for signature problems):
//
//  * Structure: each statement kind has the fields it needs (an assignment
//    one target and a value; store / atomic a ref target, indices and a
//    value, atomic an `op` of add / max / min; loops one var per dim and one
//    body, range loops exactly one var; tile-loop vars are tile<block> with
//    the block of their LoopDim; if a condition and two regions; iter_args
//    parallel to inits and to results; yields last in a loop body (matching
//    the iter_args) or if branch (matching the if results); return matching
//    Function::result_types, and a function with results ends with one).
//  * Types and shapes: each op's stored type equals InferType(expr); a value
//    reference has the type of the definition it resolves to; load /
//    subscript / store indices: the count of non-None indices equals the
//    rank; a stored value broadcasts to the indexed region; loop bounds and
//    scalar indices are integer scalars.
//  * Names: each use -- value references and symbols inside types, loop
//    blocks, range-index sizes and dim-list attributes -- resolves to a
//    definition that dominates it: a parameter, an earlier statement of an
//    enclosing block, or a loop var / iter_arg inside its loop. Symbols must
//    name integer scalars. Symbols in parameter and result types are the
//    argument shapes, bound on entry: they must name a parameter or a value
//    defined at the top level of the body (typically
//    `m: i64 = size(x) {dim = 0}`) but need not dominate their uses; a
//    frontend must therefore define every symbol it puts in a signature.
//    Without ssa (structured IR, Python scoping): names may be reassigned;
//    what a loop body or if branch assigns stays visible after the loop /
//    if (the ssa pass promotes it), but not loop vars / iter_args, and an
//    else branch does not see its then branch's names.
//
// Properties (`properties` of Verify, or VerifyProperty): each property
// the set names is checked by the verifier registered with it
// (tessera/properties.h); the core's own two are
//  * ssa: as above, plus every name (params, assignment targets, loop vars,
//    iter_args, loop / if / launch results) is defined exactly once per
//    function, and nothing defined inside a loop body or if branch is
//    visible outside it: values leave regions only through yield/results.
//  * outlined: no kernel functions; each host function contains exactly
//    one launch, whose callee is a device function of the module; no
//    function uses a name it neither takes as a parameter nor defines
//    (including symbols inside types), so no function refers to a value of
//    another.
// A plugin's property verifier (a PropertyVerifierFn) reports through a
// VerificationReporter, so its problems read like the core's.
//
// Launch convention (checked for every launch, in any mode):
//
//   host:    r... = launch @dev grid(b0:e0:B0, ..., bk:ek:Bk)(a1, ..., an)
//   device:  func device @dev(t0: tile<B0'>, ..., tk: tile<Bk'>,
//                             p1: T1, ..., pn: Tn) -> (R...)
//
// A device function's parameters are the grid tiles first -- one
// tile<block> per launch grid dim, in grid order -- then the live-in values.
// Launch operands correspond 1:1 to the parameters after the tiles, and the
// launch results to the device function's result types. Types are compared
// with the device's parameter symbols replaced by what the launch binds
// them to (a host value's name or an integer constant); a symbol the device
// function defines in its body matches any dim. Only host functions launch.
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/properties.h"

namespace tessera {

// Collects verification problems as diagnostics of the form
//   file:line:col: error: <what> in '<statement summary>'
// and turns their count into a status at the end.
class VerificationReporter {
 public:
  VerificationReporter(const Module& module, DiagnosticEngine& diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  // A problem with a statement (or an expression inside it); located at the
  // statement.
  void StmtError(const Stmt& stmt, std::string_view what);
  // A problem with a function's signature or its body as a whole; located
  // at the function.
  void FunctionError(const Function& function, std::string_view what);

  size_t error_count() const { return error_count_; }
  absl::Status ToStatus() const;

 private:
  const Module& module_;
  DiagnosticEngine& diagnostics_;
  size_t error_count_ = 0;
};

// The base rules plus `properties`. Pass module.properties to check what a
// module claims about itself.
absl::Status Verify(const Module& module, DiagnosticEngine& diagnostics,
                    PropertySet properties = {});
// One property on its own, with its registered verifier. ssa runs the full
// verifier in SSA mode (the dominance walk is the type walk); outlined
// checks only the outlined rules (no kernels, one launch per host, no free
// variables); a property registered without a verifier always holds.
absl::Status VerifyProperty(const Module& module, Property property,
                            DiagnosticEngine& diagnostics);

}  // namespace tessera
