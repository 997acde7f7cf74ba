// Tokens of the .tir text format. The lexer runs once over the whole input
// (linear time); tokens point into the source text, nothing is copied.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// Internal to the core library: hidden, so calls from the parser are direct
// rather than through the PLT.
#pragma GCC visibility push(hidden)

namespace tessera::text {

enum class TokenKind : uint8_t {
  kEnd,
  kIdent,   // [A-Za-z_][A-Za-z0-9_]*
  kString,  // "..." with \" \\ \n \t \xHH escapes
  kInt,     // -?[0-9]+
  kFloat,   // -?digits.digits[e±digits], digits e±digits, -inf
  kPunct,   // one of ( ) [ ] { } < > , : = @ ? and the arrow ->
  kLoc,     // @digits:digits, a whole source location (statements carry
            // one each, so it is lexed as one token instead of four)
  kError,   // a character or literal the format does not have
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  // The token's text in the source (for kString: with the quotes).
  std::string_view text;
  uint32_t line = 0;
  uint32_t col = 0;
  // First token on its line: statements end at line ends where the grammar
  // needs it (yield / return operand lists, error recovery).
  bool first_on_line = false;
  // kError: what is wrong.
  const char* error = nullptr;

  bool Is(std::string_view punct_or_word) const {
    return (kind == TokenKind::kPunct || kind == TokenKind::kIdent) &&
           TextIs(punct_or_word);
  }
  // text == expected, compared inline: the expected strings are short
  // literals, for which a memcmp call costs more than the comparison.
  bool TextIs(std::string_view expected) const {
    if (text.size() != expected.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (text[i] != expected[i]) return false;
    }
    return true;
  }
};

// Produces tokens one at a time (the parser keeps only a few of lookahead,
// so memory stays proportional to the nesting, not the file size).
class Lexer {
 public:
  explicit Lexer(std::string_view source) : source_(source) {}
  // The next token; kEnd (repeatedly) at the end of the input.
  Token Lex() {
    Token token;
    LexInto(token);
    return token;
  }
  // Lex() writing into `token` in place (the parser's lookahead slot), which
  // saves copying every token once.
  void LexInto(Token& token);

 private:
  // Everything but identifiers, punctuation, blanks and comments: strings,
  // numbers, locations, `->`, `-inf` and errors, starting at `start`.
  [[gnu::noinline]] void LexRest(Token& token, size_t start);
  void Make(Token& token, TokenKind kind, size_t start, size_t end,
            const char* error = nullptr) {
    token.kind = kind;
    token.text = std::string_view(source_.data() + start, end - start);
    token.line = line_;
    token.col = static_cast<uint32_t>(start - line_start_ + 1);
    token.first_on_line = !line_has_token_;
    token.error = error;
    line_has_token_ = true;
    pos_ = end;
  }

  std::string_view source_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  bool line_has_token_ = false;
};

// Splits `source` into tokens; the last one is kEnd.
std::vector<Token> Tokenize(std::string_view source);

// The value of a kString token; false (with `error` set) on a bad escape.
bool DecodeString(std::string_view quoted, std::string& out,
                  const char** error);

}  // namespace tessera::text

#pragma GCC visibility pop
