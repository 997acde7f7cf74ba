#include "ir/text_lexer.h"

namespace tessera::text {
namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Token Lexer::Make(TokenKind kind, size_t start, size_t end, const char* error) {
  Token token;
  token.kind = kind;
  token.text = source_.substr(start, end - start);
  token.line = line_;
  token.col = static_cast<uint32_t>(start - line_start_ + 1);
  token.first_on_line = !line_has_token_;
  token.error = error;
  line_has_token_ = true;
  return token;
}

Token Lexer::Lex() {
  std::string_view source = source_;
  size_t& pos = pos_;
  while (pos < source.size()) {
    char c = source[pos];
    if (c == '\n') {
      ++pos;
      ++line_;
      line_start_ = pos;
      line_has_token_ = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos;
      continue;
    }
    if (c == '#') {
      while (pos < source.size() && source[pos] != '\n') ++pos;
      continue;
    }
    size_t start = pos;
    if (IsIdentStart(c)) {
      while (pos < source.size() &&
             (IsIdentStart(source[pos]) || IsDigit(source[pos]))) {
        ++pos;
      }
      return Make(TokenKind::kIdent, start, pos);
    }
    if (c == '"') {
      ++pos;
      bool closed = false;
      while (pos < source.size() && source[pos] != '\n') {
        if (source[pos] == '\\' && pos + 1 < source.size()) {
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
      if (closed) return Make(TokenKind::kString, start, pos);
      return Make(TokenKind::kError, start, pos, "unterminated string");
    }
    if (c == '-' && pos + 1 < source.size() && source[pos + 1] == '>') {
      pos += 2;
      return Make(TokenKind::kPunct, start, pos);
    }
    if (c == '-' && source.substr(pos, 4) == "-inf" &&
        (pos + 4 >= source.size() ||
         !(IsIdentStart(source[pos + 4]) || IsDigit(source[pos + 4])))) {
      pos += 4;
      return Make(TokenKind::kFloat, start, pos);
    }
    if (IsDigit(c) ||
        (c == '-' && pos + 1 < source.size() && IsDigit(source[pos + 1]))) {
      ++pos;
      while (pos < source.size() && IsDigit(source[pos])) ++pos;
      bool is_float = false;
      if (pos < source.size() && source[pos] == '.') {
        is_float = true;
        ++pos;
        while (pos < source.size() && IsDigit(source[pos])) ++pos;
      }
      if (pos < source.size() && (source[pos] == 'e' || source[pos] == 'E')) {
        size_t exponent = pos + 1;
        if (exponent < source.size() &&
            (source[exponent] == '+' || source[exponent] == '-')) {
          ++exponent;
        }
        if (exponent < source.size() && IsDigit(source[exponent])) {
          is_float = true;
          pos = exponent;
          while (pos < source.size() && IsDigit(source[pos])) ++pos;
        }
      }
      if (pos < source.size() && IsIdentStart(source[pos])) {
        while (pos < source.size() &&
               (IsIdentStart(source[pos]) || IsDigit(source[pos]))) {
          ++pos;
        }
        return Make(TokenKind::kError, start, pos, "malformed number");
      }
      return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, start, pos);
    }
    switch (c) {
      case '(':
      case ')':
      case '[':
      case ']':
      case '{':
      case '}':
      case '<':
      case '>':
      case ',':
      case ':':
      case '=':
      case '@':
      case '?':
        ++pos;
        return Make(TokenKind::kPunct, start, pos);
      default:
        break;
    }
    // Skip a whole UTF-8 sequence so the error points at one character.
    ++pos;
    while (pos < source.size() &&
           (static_cast<unsigned char>(source[pos]) & 0xC0) == 0x80) {
      ++pos;
    }
    return Make(TokenKind::kError, start, pos, "unexpected character");
  }
  Token end;
  end.kind = TokenKind::kEnd;
  end.text = source.substr(source.size());
  end.line = line_;
  end.col = static_cast<uint32_t>(source.size() - line_start_ + 1);
  end.first_on_line = !line_has_token_;
  return end;
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
