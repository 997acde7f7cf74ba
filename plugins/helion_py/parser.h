// Finds the @helion.kernel functions of a Python file and parses them.
//
// Top-level statements are walked by indentation structure only: imports
// are read for aliases, decorated `def`s are checked for a Helion kernel
// decorator, and everything else is skipped token-wise without being parsed,
// so no Python outside a kernel can produce a diagnostic. Kernels are parsed
// in full; syntax outside the supported subset is reported with a caret and
// parsing resumes at the next statement.
#pragma once

#include <string>
#include <string_view>

#include "ast.h"
#include "tessera/diagnostics.h"

namespace tessera::helion_py {

// Nesting limit for expressions and blocks inside kernels.
inline constexpr int kMaxNestingDepth = 64;

ParsedFile ParseFile(std::string_view source, const std::string& path,
                     DiagnosticEngine& diagnostics);

}  // namespace tessera::helion_py
