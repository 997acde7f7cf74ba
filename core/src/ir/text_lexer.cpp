#include "ir/text_lexer.h"

#include <array>

namespace tessera::text {
namespace {

// Character classes, one table lookup per character.
enum : uint8_t {
  kIdentStart = 1,  // [A-Za-z_]
  kDigit = 2,       // [0-9]
  kSpace = 4,       // ' ', '\t', '\r' (newlines are handled apart)
  kPunct = 8,       // one-character punctuation
};

constexpr std::array<uint8_t, 256> MakeClasses() {
  std::array<uint8_t, 256> classes{};
  for (int c = 'a'; c <= 'z'; ++c) classes[c] = kIdentStart;
  for (int c = 'A'; c <= 'Z'; ++c) classes[c] = kIdentStart;
  classes['_'] = kIdentStart;
  for (int c = '0'; c <= '9'; ++c) classes[c] = kDigit;
  classes[' '] = classes['\t'] = classes['\r'] = kSpace;
  for (char c :
       {'(', ')', '[', ']', '{', '}', '<', '>', ',', ':', '=', '@', '?'}) {
    classes[static_cast<unsigned char>(c)] = kPunct;
  }
  return classes;
}
constexpr std::array<uint8_t, 256> kClasses = MakeClasses();

inline uint8_t ClassOf(char c) {
  return kClasses[static_cast<unsigned char>(c)];
}
inline bool IsIdentStart(char c) { return ClassOf(c) & kIdentStart; }
inline bool IsIdentChar(char c) { return ClassOf(c) & (kIdentStart | kDigit); }
inline bool IsDigit(char c) { return ClassOf(c) & kDigit; }

// The end of `@digits:digits` starting at `at`, or 0 when the text there is
// anything else (then '@' is punctuation and the parser says what is wrong).
size_t LocationEnd(std::string_view source, size_t at) {
  size_t pos = at + 1;
  const size_t line_begin = pos;
  while (pos < source.size() && IsDigit(source[pos])) ++pos;
  if (pos == line_begin || pos >= source.size() || source[pos] != ':') return 0;
  const size_t col_begin = ++pos;
  while (pos < source.size() && IsDigit(source[pos])) ++pos;
  if (pos == col_begin) return 0;
  if (pos < source.size() && IsIdentChar(source[pos])) return 0;
  return pos;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void Lexer::LexInto(Token& token) {
  const std::string_view source = source_;
  const size_t size = source.size();
  size_t pos = pos_;
  while (pos < size) {
    const char c = source[pos];
    const uint8_t cls = ClassOf(c);
    if (cls & kSpace) {
      do ++pos;
      while (pos < size && (ClassOf(source[pos]) & kSpace));
      continue;
    }
    if (cls & kIdentStart) {
      const size_t start = pos++;
      while (pos < size && IsIdentChar(source[pos])) ++pos;
      return Make(token, TokenKind::kIdent, start, pos);
    }
    if ((cls & kPunct) && c != '@') {
      return Make(token, TokenKind::kPunct, pos, pos + 1);
    }
    if (c == '\n') {
      ++pos;
      ++line_;
      line_start_ = pos;
      line_has_token_ = false;
      continue;
    }
    if (c == '#') {
      while (pos < size && source[pos] != '\n') ++pos;
      continue;
    }
    // Out of line, so that the loop above (most tokens) stays small.
    return LexRest(token, pos);
  }
  pos_ = pos;
  token.kind = TokenKind::kEnd;
  token.text = source.substr(size);
  token.line = line_;
  token.col = static_cast<uint32_t>(size - line_start_ + 1);
  token.first_on_line = !line_has_token_;
  token.error = nullptr;
}

void Lexer::LexRest(Token& token, size_t start) {
  const std::string_view source = source_;
  const size_t size = source.size();
  const char c = source[start];
  size_t pos = start;
  if (c == '@') {
    if (size_t end = LocationEnd(source, pos)) {
      return Make(token, TokenKind::kLoc, start, end);
    }
    return Make(token, TokenKind::kPunct, start, pos + 1);
  }
  if (c == '"') {
    ++pos;
    bool closed = false;
    while (pos < size && source[pos] != '\n') {
      if (source[pos] == '\\' && pos + 1 < size) {
        pos += 2;
        continue;
      }
      if (source[pos] == '"') {
        ++pos;
        closed = true;
        break;
      }
      ++pos;
    }
    if (closed) return Make(token, TokenKind::kString, start, pos);
    return Make(token, TokenKind::kError, start, pos, "unterminated string");
  }
  if (c == '-' && pos + 1 < size && source[pos + 1] == '>') {
    return Make(token, TokenKind::kPunct, start, pos + 2);
  }
  if (c == '-' && source.substr(pos, 4) == "-inf" &&
      (pos + 4 >= size || !IsIdentChar(source[pos + 4]))) {
    return Make(token, TokenKind::kFloat, start, pos + 4);
  }
  if (IsDigit(c) || (c == '-' && pos + 1 < size && IsDigit(source[pos + 1]))) {
    ++pos;
    while (pos < size && IsDigit(source[pos])) ++pos;
    bool is_float = false;
    if (pos < size && source[pos] == '.') {
      is_float = true;
      ++pos;
      while (pos < size && IsDigit(source[pos])) ++pos;
    }
    if (pos < size && (source[pos] == 'e' || source[pos] == 'E')) {
      size_t exponent = pos + 1;
      if (exponent < size &&
          (source[exponent] == '+' || source[exponent] == '-')) {
        ++exponent;
      }
      if (exponent < size && IsDigit(source[exponent])) {
        is_float = true;
        pos = exponent;
        while (pos < size && IsDigit(source[pos])) ++pos;
      }
    }
    if (pos < size && IsIdentStart(source[pos])) {
      while (pos < size && IsIdentChar(source[pos])) ++pos;
      return Make(token, TokenKind::kError, start, pos, "malformed number");
    }
    return Make(token, is_float ? TokenKind::kFloat : TokenKind::kInt, start,
                pos);
  }
  // Skip a whole UTF-8 sequence so the error points at one character.
  ++pos;
  while (pos < size &&
         (static_cast<unsigned char>(source[pos]) & 0xC0) == 0x80) {
    ++pos;
  }
  Make(token, TokenKind::kError, start, pos, "unexpected character");
}

std::vector<Token> Tokenize(std::string_view source) {
  Lexer lexer(source);
  std::vector<Token> tokens;
  while (true) {
    tokens.push_back(lexer.Lex());
    if (tokens.back().kind == TokenKind::kEnd) return tokens;
  }
}

bool DecodeString(std::string_view quoted, std::string& out,
                  const char** error) {
  out.clear();
  std::string_view body = quoted.substr(1, quoted.size() - 2);
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 >= body.size()) {
      *error = "bad escape in string";
      return false;
    }
    char next = body[++i];
    switch (next) {
      case '"':
      case '\\':
        out += next;
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'x': {
        int high = i + 1 < body.size() ? HexValue(body[i + 1]) : -1;
        int low = i + 2 < body.size() ? HexValue(body[i + 2]) : -1;
        if (high < 0 || low < 0) {
          *error = "bad \\x escape in string";
          return false;
        }
        out += static_cast<char>(high * 16 + low);
        i += 2;
        break;
      }
      default:
        *error = "bad escape in string";
        return false;
    }
  }
  return true;
}

}  // namespace tessera::text
