// Every place where the IR refers to a value by name, in one visitor, so that
// the `ssa` and `outline` passes rename and collect names exactly the same
// way. A value is referred to either by a kVar expression or by a symbolic
// Dim (inside a type, an attribute holding a dims list, an index range size
// or a loop block size); both must follow a renaming.
#pragma once

#include <functional>
#include <string>

#include "tessera/ir/ir.h"

namespace tessera::passes {

struct NameVisitor {
  // A kVar expression (its own type is left to this callback: a variable's
  // type is its definition's type, not a use of the symbols in it).
  std::function<void(Expr& var)> var;
  // A symbolic dim naming a value.
  std::function<void(std::string& symbol)> symbol;
};

struct ConstNameVisitor {
  std::function<void(const Expr& var)> var;
  std::function<void(const std::string& symbol)> symbol;
};

void VisitTypeNames(Type& type, const NameVisitor& visitor);
void VisitAttrNames(AttrList& attrs, const NameVisitor& visitor);
// Operands and index expressions first (evaluation order), then the node's
// own result type and attributes.
void VisitExprNames(Expr& expr, const NameVisitor& visitor);
void VisitLoopDimNames(LoopDim& dim, const NameVisitor& visitor);

// The names a statement itself uses, not descending into its regions:
// target and indices, loop / launch dims, inits, value, operands, attributes,
// then the symbols in the types of the values it defines (results, loop
// variables, iter_args), which are resolved in the scope before the
// statement. The names it defines are not visited.
void VisitStmtUses(Stmt& stmt, const NameVisitor& visitor);
void VisitStmtUses(const Stmt& stmt, const ConstNameVisitor& visitor);

// Symbols in a type, read-only.
void ForEachTypeSymbol(const Type& type,
                       const std::function<void(const std::string&)>& fn);

}  // namespace tessera::passes
