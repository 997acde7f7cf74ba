// Spelling values as Python source literals, for the generated host code
// (parameter defaults such as `eps=1e-05`).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ast.h"

namespace tessera::helion_py {

// The Python literal of a default value written in a kernel signature:
// numbers (optionally negated), True/False, None, strings, and names of
// top-level constants. nullopt for any other expression.
std::optional<std::string> PythonLiteral(
    const Node& node, const std::map<std::string, NodePtr>& constants);

}  // namespace tessera::helion_py
