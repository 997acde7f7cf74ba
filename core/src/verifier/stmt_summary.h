// Short one-line descriptions of statements for verifier messages
// ("s = add(load(x)[tile_m, tile_n], ...)"). They are only built when a
// problem is reported, so they may be as slow as they like.
#pragma once

#include <string>

#include "tessera/ir/ir.h"

namespace tessera::verifier {

// A compact rendering of `stmt` without its nested regions, cut to about
// 72 characters.
std::string SummarizeStmt(const Stmt& stmt);
// "func @name".
std::string SummarizeFunction(const Function& function);
// A compact rendering of an expression tree, cut to about `budget`
// characters.
std::string SummarizeExpr(const Expr& expr, size_t budget = 48);

}  // namespace tessera::verifier
