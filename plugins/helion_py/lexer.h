// A Python tokenizer for the helion-py frontend.
//
// It tokenizes any file without failing: indentation becomes INDENT /
// DEDENT tokens, newlines inside brackets and after a backslash are joined,
// comments are dropped, strings (all prefixes, f-strings, triple quotes) are
// single tokens. Characters that cannot start a Python token become kError
// tokens, which the parser reports only when they appear inside a kernel, so
// the rest of the file never produces a diagnostic.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera::helion_py {

enum class TokenKind : uint8_t {
  kName,
  kNumber,
  kString,
  kOp,  // operators and delimiters, including "->", "**=", "..."
  kNewline,
  kIndent,
  kDedent,
  kError,
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  uint32_t offset = 0;  // byte offset of the first character
  uint32_t line = 1;    // 1-based
  uint32_t col = 1;     // 1-based, in bytes
  uint32_t length = 0;  // bytes (may span lines for triple-quoted strings)
  std::string_view text;

  // Compares the first character before the whole text: parsing asks
  // "is this token X" for many X, and most answers are no.
  bool Is(TokenKind k, std::string_view t) const {
    return kind == k && text.size() == t.size() && !t.empty() &&
           text[0] == t[0] && text == t;
  }
  bool IsOp(std::string_view t) const { return Is(TokenKind::kOp, t); }
  bool IsName(std::string_view t) const { return Is(TokenKind::kName, t); }
};

// Tokenizes `source` (which must outlive the tokens). The result always
// ends with NEWLINE?, DEDENT*, END.
std::vector<Token> Tokenize(std::string_view source);

// Line start offsets of `source`, for computing underline lengths.
std::vector<uint32_t> LineStarts(std::string_view source);

}  // namespace tessera::helion_py
