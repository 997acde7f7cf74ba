// Finds the @helion.kernel functions of a Python file and parses them.
//
// The whole file must first pass what CPython's tokenizer and block
// structure require (lexer.h, python_structure.h): a file Python would not
// import is one located error and no kernels. Then top-level statements are
// walked by indentation structure only: imports are read for aliases,
// decorated `def`s are checked for a Helion kernel decorator, and everything
// else is skipped token-wise without being parsed. Kernels are parsed in
// full; syntax outside the supported subset is reported with a caret and
// parsing resumes at the next statement.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ast.h"
#include "tessera/diagnostics.h"

namespace tessera::helion_py {

// Nesting limit for expressions and blocks inside kernels.
inline constexpr int kMaxNestingDepth = 64;
// Height limit of an expression tree (a chain of 200 operators, calls or
// subscripts): the lowering walks expressions recursively.
inline constexpr uint32_t kMaxExpressionHeight = 200;

ParsedFile ParseFile(std::string_view source, const std::string& path,
                     DiagnosticEngine& diagnostics);

}  // namespace tessera::helion_py
