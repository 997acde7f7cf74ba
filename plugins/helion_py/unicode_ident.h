// UTF-8 decoding and Python's identifier character classes, for the
// helion-py lexer: CPython rejects a file that is not UTF-8 and any
// character outside strings and comments that is not part of an identifier
// (a no-break space, a bidi control), and so must we.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::helion_py {

// Decodes the UTF-8 sequence at `source[pos]` strictly (no overlong forms,
// no surrogates, nothing past U+10FFFF). Returns its length in bytes, or 0
// when the bytes there are not valid UTF-8.
size_t DecodeUtf8(std::string_view source, size_t pos, char32_t& code_point);

// Whether a non-ASCII code point may start / continue a Python identifier
// (after NFKC normalization, as CPython checks).
bool IsIdentifierStart(char32_t code_point);
bool IsIdentifierContinue(char32_t code_point);

// CPython's wording for a character that cannot appear outside strings and
// comments: "invalid character '·' (U+00B7)", or "invalid non-printable
// character U+00A0" for spaces, controls and format characters.
std::string InvalidCharacterMessage(char32_t code_point, std::string_view utf8);

}  // namespace tessera::helion_py
