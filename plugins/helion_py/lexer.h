// A Python tokenizer for the helion-py frontend.
//
// Indentation becomes INDENT / DEDENT tokens, newlines inside brackets and
// after a backslash are joined, comments are dropped, strings (all
// prefixes, f-strings, triple quotes) are single tokens. It always returns
// a token stream, and it also finds what CPython's tokenizer rejects in the
// whole file (encoding, NUL, characters outside identifiers, brackets,
// indentation, tabs, unterminated strings, malformed numbers): a kernel file
// Python refuses to import must not compile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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

// Why Python would refuse the source, and where (the first such place).
struct SourceError {
  uint32_t offset = 0;  // orders errors found by different checks
  uint32_t line = 1;
  uint32_t col = 1;
  uint32_t length = 1;
  std::string message;
};

// Keeps the earlier of `*first` and `error` in `*first`.
void KeepFirst(std::optional<SourceError>& first, SourceError error);

// Tokenizes `source` (which must outlive the tokens). The result always
// ends with NEWLINE?, DEDENT*, END. When `error` is given it receives the
// first place CPython's tokenizer would reject, if any.
std::vector<Token> Tokenize(std::string_view source,
                            std::optional<SourceError>* error = nullptr);

// Line start offsets of `source`, for computing underline lengths.
std::vector<uint32_t> LineStarts(std::string_view source);

}  // namespace tessera::helion_py
