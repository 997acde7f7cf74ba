// Small helpers that build Python expression text with the obvious
// simplifications (literal zeros and ones, integer folding), shared by the
// device emitter's files.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::pallas {

// True for a non-negative decimal literal.
bool IsNumber(const std::string& text);
// "a + b", folding zeros and integer literals.
std::string AddText(const std::string& a, const std::string& b);
// "a * b", folding zeros, ones and integer literals.
std::string MulText(const std::string& a, int64_t b);
// `text` in parentheses unless it is a name, a number or an attribute.
std::string Paren(const std::string& text);

}  // namespace tessera::pallas
