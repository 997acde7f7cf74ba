// Small helpers that build Python text: expressions with the obvious
// simplifications (literal zeros and ones, integer folding), shared by the
// device emitter's files, and a generated module's imports.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::pallas {

// True for a non-negative decimal literal.
bool IsNumber(const std::string& text);
// "a + b", folding zeros and integer literals.
std::string AddText(const std::string& a, const std::string& b);
// "a * b", folding zeros, ones and integer literals.
std::string MulText(const std::string& a, int64_t b);
// `text` in parentheses unless it is a name, a number, an attribute or a
// subscript with a plain index (`x.shape[2]`).
std::string Paren(const std::string& text);
// The import lines a generated module's `code` needs: contextlib, functools,
// math, jax, jnp and pl, then each (alias, import line) of `extra` whose
// alias the code uses (`alias.` not preceded by a name or a dot).
std::string ModuleImports(
    const std::string& code,
    const std::vector<std::pair<std::string, std::string>>& extra);

}  // namespace tessera::pallas
