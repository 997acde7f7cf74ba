#include "lexer.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "unicode_ident.h"

namespace tessera::helion_py {
namespace {

// Character classes by table: the lexer asks for every character of every
// name, and <cctype> goes through the locale each time.
struct CharClasses {
  bool ident_start[256] = {};
  bool ident_char[256] = {};
  constexpr CharClasses() {
    for (int c = 0; c < 256; ++c) {
      const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      ident_start[c] = alpha || c == '_' || c >= 0x80;
      ident_char[c] = ident_start[c] || (c >= '0' && c <= '9');
    }
  }
};
constexpr CharClasses kCharClasses;

bool IsIdentStart(unsigned char c) { return kCharClasses.ident_start[c]; }
bool IsIdentChar(unsigned char c) { return kCharClasses.ident_char[c]; }

// Longest operators first so that "**=" wins over "**" and "*".
constexpr std::string_view kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=",
    ">=",  "==",  "!=",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "="};

// kOperators' indices by first character, longest first as there: an
// operator token tries the few that can match instead of all of them.
struct OperatorTable {
  static constexpr uint8_t kNone = 0xff;
  uint8_t candidates[256][8] = {};
  constexpr OperatorTable() {
    for (auto& row : candidates) {
      for (uint8_t& index : row) index = kNone;
    }
    for (size_t i = 0; i < std::size(kOperators); ++i) {
      uint8_t* row = candidates[static_cast<unsigned char>(kOperators[i][0])];
      size_t slot = 0;
      while (row[slot] != kNone) ++slot;
      row[slot] = static_cast<uint8_t>(i);
    }
  }
};
constexpr OperatorTable kOperatorsByFirstChar;

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}

  std::vector<Token> Run() {
    indents_.push_back(0);
    alt_indents_.push_back(0);
    tokens_.reserve(src_.size() / 4 + 16);
    if (src_.starts_with("\xEF\xBB\xBF")) {  // a UTF-8 BOM, as CPython skips
      pos_ = line_start_ = start_line_start_ = 3;
    }
    CheckEncoding();
    bool at_line_start = true;
    while (pos_ < src_.size()) {
      if (at_line_start && brackets_.empty()) {
        if (!HandleIndentation()) continue;  // blank or comment-only line
        at_line_start = false;
      }
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        Advance(1);
      } else if (c == '#') {
        // A comment never spans a line, so no line bookkeeping is needed.
        size_t end = src_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? src_.size() : end;
      } else if (c == '\\' && pos_ + 1 < src_.size() &&
                 (src_[pos_ + 1] == '\n' || src_[pos_ + 1] == '\r')) {
        Advance(1);
        SkipNewline();
        if (pos_ >= src_.size()) {
          FailAt(pos_, 1, "unexpected end of file after a line continuation");
        }
      } else if (c == '\n' || c == '\r') {
        if (brackets_.empty()) {
          MarkStart();
          Emit(TokenKind::kNewline, pos_, 1);
          at_line_start = true;
        }
        SkipNewline();
      } else {
        LexToken();
      }
    }
    MarkStart();
    if (!brackets_.empty()) {
      const Bracket& open = brackets_.back();
      Fail(open.offset, open.line, open.col,
           "'" + std::string(1, open.ch) + "' was never closed");
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
        tokens_.back().kind != TokenKind::kDedent) {
      Emit(TokenKind::kNewline, pos_, 0);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      Emit(TokenKind::kDedent, pos_, 0);
    }
    Emit(TokenKind::kEnd, pos_, 0);
    return std::move(tokens_);
  }

  std::optional<SourceError> TakeError() { return std::move(error_); }

 private:
  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < src_.size(); ++i) {
      if (src_[pos_] == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
      }
      ++pos_;
    }
  }
  void SkipNewline() {
    if (src_[pos_] == '\r' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n')
      ++pos_;
    if (src_[pos_] == '\r') {  // a lone CR ends a line too
      ++pos_;
      ++line_;
      line_start_ = pos_;
      return;
    }
    Advance(1);
  }

  void Emit(TokenKind kind, size_t start, size_t length) {
    Token token;
    token.kind = kind;
    token.offset = static_cast<uint32_t>(start);
    token.length = static_cast<uint32_t>(length);
    token.text = src_.substr(std::min(start, src_.size()), length);
    token.line = static_cast<uint32_t>(start_line_);
    token.col = static_cast<uint32_t>(start - start_line_start_ + 1);
    tokens_.push_back(token);
  }
  void MarkStart() {
    start_line_ = line_;
    start_line_start_ = line_start_;
  }

  // Measures the indentation of a new logical line and emits INDENT /
  // DEDENT. Returns false (having consumed the line) for blank lines.
  bool HandleIndentation() {
    // CPython measures indentation twice, with tabs to multiples of 8 and
    // as one column each; the two must order every line the same way, or
    // the meaning would depend on the tab size (TabError).
    size_t width = 0;
    size_t alt_width = 0;
    size_t p = pos_;
    while (p < src_.size() &&
           (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\f')) {
      if (src_[p] == '\f') {
        width = alt_width = 0;
      } else {
        width = src_[p] == '\t' ? (width / 8 + 1) * 8 : width + 1;
        ++alt_width;
      }
      ++p;
    }
    if (p >= src_.size()) {
      pos_ = p;
      return false;
    }
    char c = src_[p];
    if (c == '#' || c == '\n' || c == '\r') {
      Advance(p - pos_);
      while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r')
        Advance(1);
      if (pos_ < src_.size()) SkipNewline();
      return false;
    }
    if (c == '\\' && p + 1 < src_.size() &&
        (src_[p + 1] == '\n' || src_[p + 1] == '\r')) {
      return true;  // a continuation right away: indentation is unchanged
    }
    Advance(p - pos_);
    MarkStart();
    constexpr char kTabError[] =
        "inconsistent use of tabs and spaces in indentation";
    if (width == indents_.back()) {
      if (alt_width != alt_indents_.back()) FailAt(pos_, 1, kTabError);
    } else if (width > indents_.back()) {
      if (alt_width <= alt_indents_.back()) FailAt(pos_, 1, kTabError);
      if (indents_.size() >= kMaxIndentLevels) {
        FailAt(pos_, 1,
               "too many levels of indentation (limit " +
                   std::to_string(kMaxIndentLevels) + ")");
      }
      indents_.push_back(width);
      alt_indents_.push_back(alt_width);
      Emit(TokenKind::kIndent, pos_, 0);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        alt_indents_.pop_back();
        Emit(TokenKind::kDedent, pos_, 0);
      }
      if (width != indents_.back()) {
        FailAt(pos_, 1, "unindent does not match any outer indentation level");
        // Treat it as a level of its own so that skipping by indentation
        // stays balanced for the rest of the file.
        indents_.push_back(width);
        alt_indents_.push_back(alt_width);
        Emit(TokenKind::kIndent, pos_, 0);
      } else if (alt_width != alt_indents_.back()) {
        FailAt(pos_, 1, kTabError);
      }
    }
    return true;
  }

  // Python 3's prefixes: r, u, b, f and the pairs of r with b or f.
  static bool IsStringPrefix(std::string_view word) {
    if (word.empty() || word.size() > 2) return false;
    std::string lower;
    for (char ch : word) {
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    if (lower.size() == 1) return lower.find_first_of("rubf") == 0;
    return lower == "rb" || lower == "br" || lower == "rf" || lower == "fr";
  }

  // Skips a string body starting at the opening quote at pos_.
  bool SkipString(bool is_fstring, int nesting = 0) {
    char quote = src_[pos_];
    bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == quote &&
                  src_[pos_ + 2] == quote;
    Advance(triple ? 3 : 1);
    // Replacement fields of an f-string, innermost last: their expressions
    // are code (a no-break space there is an error, as outside strings),
    // their format specs after ':' are text again.
    struct Field {
      bool spec = false;
      int brackets = 0;
    };
    std::vector<Field> fields;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      const bool in_code = !fields.empty() && !fields.back().spec;
      if (c == '\\') {
        const bool crlf = src_.substr(pos_ + 1, 2) == "\r\n";
        Advance(crlf ? 3 : 2);
        continue;
      }
      if (!triple && (c == '\n' || c == '\r')) return false;
      if (is_fstring && c == '{' && !in_code) {
        if (fields.empty() && pos_ + 1 < src_.size() && src_[pos_ + 1] == '{') {
          Advance(2);
          continue;
        }
        fields.push_back(Field{});
      } else if (in_code && (c == '(' || c == '[' || c == '{')) {
        ++fields.back().brackets;
      } else if (in_code && (c == ')' || c == ']') &&
                 fields.back().brackets > 0) {
        --fields.back().brackets;
      } else if (is_fstring && c == '}' && !fields.empty()) {
        if (in_code && fields.back().brackets > 0) {
          --fields.back().brackets;
        } else {
          fields.pop_back();
        }
      } else if (in_code && c == ':' && fields.back().brackets == 0) {
        fields.back().spec = true;
      } else if (in_code && (c == '"' || c == '\'') && nesting < 8) {
        // A string nested inside a replacement field (Python 3.12 allows
        // the same quote there).
        if (!SkipString(false, nesting + 1)) return false;
        continue;
      } else if (in_code && static_cast<unsigned char>(c) >= 0x80) {
        char32_t code_point = 0;
        const size_t length = DecodeUtf8(src_, pos_, code_point);
        if (length > 0 && !IsIdentifierContinue(code_point)) {
          FailAt(
              pos_, length,
              InvalidCharacterMessage(code_point, src_.substr(pos_, length)));
        }
        Advance(std::max<size_t>(1, length));
        continue;
      } else if (c == quote) {
        if (!triple) {
          Advance(1);
          return true;
        }
        if (pos_ + 2 < src_.size() && src_[pos_ + 1] == quote &&
            src_[pos_ + 2] == quote) {
          Advance(3);
          return true;
        }
      }
      Advance(1);
    }
    return false;
  }

  // Lexes a string whose prefix (possibly empty) starts at `start` and
  // whose opening quote is at pos_.
  void LexString(size_t start, bool is_fstring) {
    const bool triple =
        src_.substr(pos_, 3) == "\"\"\"" || src_.substr(pos_, 3) == "'''";
    if (!SkipString(is_fstring)) {
      const std::string kind = triple
                                   ? "unterminated triple-quoted string literal"
                                   : "unterminated string literal";
      Fail(start, start_line_, start - start_line_start_ + 1,
           kind + " (detected at line " + std::to_string(line_) + ")");
    }
    Emit(TokenKind::kString, start, pos_ - start);
  }

  void LexToken() {
    MarkStart();
    size_t start = pos_;
    unsigned char c = static_cast<unsigned char>(src_[pos_]);
    if (IsIdentStart(c)) {
      size_t end = pos_;
      while (end < src_.size() &&
             IsIdentChar(static_cast<unsigned char>(src_[end])))
        ++end;
      std::string_view word = src_.substr(pos_, end - pos_);
      if (end < src_.size() && (src_[end] == '"' || src_[end] == '\'') &&
          IsStringPrefix(word)) {
        bool is_f = word.find_first_of("fF") != std::string_view::npos;
        pos_ = end;
        LexString(start, is_f);
        return;
      }
      CheckIdentifier(start, word);
      pos_ = end;
      Emit(TokenKind::kName, start, end - start);
      return;
    }
    if (c == '"' || c == '\'') {
      LexString(start, false);
      return;
    }
    if (std::isdigit(c) ||
        (c == '.' && pos_ + 1 < src_.size() &&
         std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
      pos_ = ScanNumber(start);
      Emit(TokenKind::kNumber, start, pos_ - start);
      return;
    }
    for (uint8_t index : kOperatorsByFirstChar.candidates[c]) {
      if (index == OperatorTable::kNone) break;
      std::string_view op = kOperators[index];
      if (src_.substr(pos_, op.size()) != op) continue;
      if (op.size() == 1) TrackBracket(c);
      pos_ += op.size();
      Emit(TokenKind::kOp, start, op.size());
      return;
    }
    // Anything else ('$', '?', '`', '!', a stray backslash, a control).
    std::string message;
    if (c == '\\') {
      message = "unexpected character after line continuation character";
    } else if (c == 0) {
      message = "source code cannot contain null bytes";
    } else if (c < 0x20 || c == 0x7f) {
      message = InvalidCharacterMessage(c, src_.substr(pos_, 1));
    } else {
      message =
          "invalid character '" + std::string(1, static_cast<char>(c)) + "'";
    }
    FailAt(pos_, 1, message);
    pos_ += 1;
    Emit(TokenKind::kError, start, 1);
  }

  // Brackets join lines and must pair up, as CPython's tokenizer checks.
  void TrackBracket(unsigned char c) {
    if (c == '(' || c == '[' || c == '{') {
      if (brackets_.size() >= kMaxBrackets) {
        FailAt(pos_, 1, "too many nested parentheses");
      }
      brackets_.push_back(
          Bracket{static_cast<char>(c), pos_, line_, pos_ - line_start_ + 1});
      return;
    }
    if (c != ')' && c != ']' && c != '}') return;
    const std::string close(1, static_cast<char>(c));
    if (brackets_.empty()) {
      FailAt(pos_, 1, "unmatched '" + close + "'");
      return;
    }
    const Bracket open = brackets_.back();
    brackets_.pop_back();
    const char expected = open.ch == '(' ? ')' : open.ch == '[' ? ']' : '}';
    if (static_cast<char>(c) != expected) {
      std::string message = "closing parenthesis '" + close +
                            "' does not match opening parenthesis '" +
                            std::string(1, open.ch) + "'";
      if (open.line != line_) {
        message += " on line " + std::to_string(open.line);
      }
      FailAt(pos_, 1, message);
    }
  }

  // A non-ASCII name must be a Python identifier: a no-break space or a
  // bidi control reads as part of a name here but is an error to CPython.
  void CheckIdentifier(size_t start, std::string_view word) {
    for (size_t i = 0; i < word.size();) {
      if (static_cast<unsigned char>(word[i]) < 0x80) {
        ++i;
        continue;
      }
      char32_t code_point = 0;
      const size_t length = DecodeUtf8(src_, start + i, code_point);
      if (length == 0) return;  // CheckEncoding reported it
      const bool ok = i == 0 ? IsIdentifierStart(code_point)
                             : IsIdentifierContinue(code_point);
      if (!ok) {
        FailAt(start + i, length,
               InvalidCharacterMessage(code_point, word.substr(i, length)));
        return;
      }
      i += length;
    }
  }

  // Scans a number literal by Python's grammar and returns its end.
  size_t ScanNumber(size_t start) {
    const auto digit_of = [](int base) {
      return [base](char ch) {
        const unsigned char u = static_cast<unsigned char>(ch);
        if (base == 16) return std::isxdigit(u) != 0;
        return ch >= '0' && ch < static_cast<char>('0' + base);
      };
    };
    size_t p = start;
    std::string kind = "decimal";
    // Digits with single underscores between them; false when an
    // underscore is not followed by a digit.
    const auto digits = [&](auto is_digit) {
      while (p < src_.size()) {
        if (is_digit(src_[p])) {
          ++p;
        } else if (src_[p] == '_' && p + 1 < src_.size() &&
                   is_digit(src_[p + 1])) {
          p += 2;
        } else {
          break;
        }
      }
      return !(p < src_.size() && src_[p] == '_');
    };
    bool ok = true;
    const char second = p + 1 < src_.size() ? src_[p + 1] : '\0';
    if (src_[p] == '0' && std::strchr("xXoObB", second) != nullptr &&
        second != '\0') {
      const char base_char =
          static_cast<char>(std::tolower(static_cast<unsigned char>(second)));
      const int base = base_char == 'x' ? 16 : base_char == 'o' ? 8 : 2;
      kind = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
      p += 2;
      if (p < src_.size() && src_[p] == '_') ++p;
      const size_t first_digit = p;
      ok = digits(digit_of(base)) && p > first_digit;
    } else {
      const auto decimal = digit_of(10);
      const size_t int_start = p;
      ok = digits(decimal);
      const std::string_view int_part = src_.substr(int_start, p - int_start);
      bool is_float = false;
      if (ok && p < src_.size() && src_[p] == '.') {
        is_float = true;
        ++p;
        if (p < src_.size() && decimal(src_[p])) ok = digits(decimal);
      }
      if (ok && p < src_.size() && (src_[p] == 'e' || src_[p] == 'E')) {
        const size_t e = p;
        ++p;
        if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
        if (p < src_.size() && decimal(src_[p])) {
          is_float = true;
          ok = digits(decimal);
        } else {
          p = e;  // `1else`: the keyword follows the number
        }
      }
      const bool imaginary =
          ok && p < src_.size() && (src_[p] == 'j' || src_[p] == 'J');
      if (imaginary) ++p;
      if (ok && !is_float && !imaginary && int_part.size() > 1 &&
          int_part[0] == '0' &&
          int_part.find_first_not_of("0_") != std::string_view::npos) {
        FailAt(start, p - start,
               "leading zeros in decimal integer literals are not permitted; "
               "use an 0o prefix for octal integers");
      }
    }
    // CPython lets a keyword follow a number directly (`1if x else 2`).
    if (ok && p < src_.size() &&
        IsIdentChar(static_cast<unsigned char>(src_[p]))) {
      static constexpr std::string_view kKeywords[] = {
          "and", "else", "for", "if", "in", "is", "not", "or"};
      ok = std::any_of(
          std::begin(kKeywords), std::end(kKeywords),
          [&](std::string_view k) { return src_.substr(p, k.size()) == k; });
    }
    if (!ok) {
      size_t end = p;
      while (end < src_.size() &&
             (IsIdentChar(static_cast<unsigned char>(src_[end])) ||
              src_[end] == '.')) {
        ++end;
      }
      FailAt(start, std::max<size_t>(1, end - start),
             "invalid " + kind + " literal");
      return end;
    }
    return p;
  }

  // The source must be UTF-8 (PEP 3120) or declare an encoding that its
  // bytes, all ASCII, also satisfy; and it must not contain NUL.
  void CheckEncoding() {
    const std::string cookie = CodingCookie();
    const bool utf8 = cookie.empty() || cookie == "utf-8" ||
                      cookie.starts_with("utf-8-") || cookie == "utf8";
    size_t line = 1;
    size_t line_start = 0;
    for (size_t p = pos_; p < src_.size();) {
      const unsigned char c = static_cast<unsigned char>(src_[p]);
      if (c == '\n') {
        ++line;
        line_start = p + 1;
      }
      if (c == 0) {
        Fail(p, line, p - line_start + 1,
             "source code cannot contain null bytes");
        return;
      }
      if (c < 0x80) {
        ++p;
        continue;
      }
      char32_t code_point = 0;
      const size_t length = DecodeUtf8(src_, p, code_point);
      if (!utf8) {
        Fail(p, line, p - line_start + 1,
             "the file declares encoding '" + cookie +
                 "'; Tessera reads non-ASCII source only as UTF-8");
        return;
      }
      if (length == 0) {
        char byte[8];
        std::snprintf(byte, sizeof(byte), "0x%02x", c);
        Fail(p, line, p - line_start + 1,
             std::string("invalid UTF-8: 'utf-8' codec can't decode byte ") +
                 byte + "; Python source must be UTF-8");
        return;
      }
      p += length;
    }
  }

  // The encoding a `# -*- coding: NAME -*-` comment on line 1 or 2 names
  // (lowercase, '_' as '-'), or "" without one.
  std::string CodingCookie() const {
    size_t p = pos_;
    for (int line = 0; line < 2 && p < src_.size(); ++line) {
      size_t end = src_.find('\n', p);
      if (end == std::string_view::npos) end = src_.size();
      std::string_view text = src_.substr(p, end - p);
      const size_t first = text.find_first_not_of(" \t\f");
      if (first == std::string_view::npos || text[first] != '#') {
        if (first != std::string_view::npos) return "";  // code: no cookie
        p = end + 1;
        continue;
      }
      const size_t coding = text.find("coding");
      if (coding != std::string_view::npos && coding + 6 < text.size() &&
          (text[coding + 6] == ':' || text[coding + 6] == '=')) {
        size_t q = coding + 7;
        while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
        std::string name;
        while (q < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[q])) ||
                text[q] == '-' || text[q] == '_' || text[q] == '.')) {
          name += text[q] == '_' ? '-'
                                 : static_cast<char>(std::tolower(
                                       static_cast<unsigned char>(text[q])));
          ++q;
        }
        if (!name.empty()) return name;
      }
      p = end + 1;
    }
    return "";
  }

  // Records an error at byte `offset` of the current line.
  void FailAt(size_t offset, size_t length, std::string message) {
    Fail(offset, line_, offset - std::min(offset, line_start_) + 1,
         std::move(message), length);
  }
  void Fail(size_t offset, size_t line, size_t col, std::string message,
            size_t length = 1) {
    SourceError error;
    error.offset = static_cast<uint32_t>(offset);
    error.line = static_cast<uint32_t>(line);
    error.col = static_cast<uint32_t>(col);
    error.length = static_cast<uint32_t>(std::max<size_t>(1, length));
    error.message = std::move(message);
    KeepFirst(error_, std::move(error));
  }

  struct Bracket {
    char ch;
    size_t offset;
    size_t line;
    size_t col;
  };
  // CPython's limits (MAXINDENT, MAXLEVEL).
  static constexpr size_t kMaxIndentLevels = 100;
  static constexpr size_t kMaxBrackets = 200;

  std::string_view src_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t line_start_ = 0;
  size_t start_line_ = 1;
  size_t start_line_start_ = 0;
  std::vector<Bracket> brackets_;
  std::vector<size_t> indents_;
  std::vector<size_t> alt_indents_;
  std::optional<SourceError> error_;
  std::vector<Token> tokens_;
};

}  // namespace

void KeepFirst(std::optional<SourceError>& first, SourceError error) {
  if (!first || error.offset < first->offset) first = std::move(error);
}

std::vector<Token> Tokenize(std::string_view source,
                            std::optional<SourceError>* error) {
  Lexer lexer(source);
  std::vector<Token> tokens = lexer.Run();
  if (error != nullptr) *error = lexer.TakeError();
  return tokens;
}

std::vector<uint32_t> LineStarts(std::string_view source) {
  std::vector<uint32_t> starts = {0};
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\n') starts.push_back(static_cast<uint32_t>(i + 1));
  }
  return starts;
}

}  // namespace tessera::helion_py
