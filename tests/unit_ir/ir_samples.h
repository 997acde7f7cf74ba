// Shared IR builders for the unit_ir tests: a function whose parameters
// cover every type kind, and sample expressions for every op kind.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/ir.h"
#include "tessera/ir/text.h"

namespace tessera::testing {

Type F32(Shape shape);
Type Bool(Shape shape);
Dim S(int64_t n);
Dim Sym(std::string name);

// The parameters every sample expression may refer to (see ir_samples.cpp).
ValueList SampleParams();
// A reference to a sample parameter, typed as declared.
ExprPtr P(const std::string& name);

// Well-typed sample expressions (type from InferType) for `op`; every op
// kind except kVar has at least one.
ExprList SampleExprs(OpKind op);

// An op expression with its type inferred (asserting it infers).
ExprPtr Op(OpKind op, ExprList operands, AttrList attrs = {});
template <typename... E>
ExprList Exprs(E&&... exprs) {
  ExprList list;
  (list.push_back(std::forward<E>(exprs)), ...);
  return list;
}
ExprPtr Load(ExprPtr ref, IndexList indices);

// A module with one kernel function holding `stmts` after the params.
Module ModuleWith(std::vector<Stmt> stmts);

// Print -> parse -> print; records gtest failures for any mismatch.
void ExpectRoundTrip(const Module& module);

}  // namespace tessera::testing
