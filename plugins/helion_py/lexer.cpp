#include "lexer.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <iterator>

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
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",  "!"};

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
    tokens_.reserve(src_.size() / 4 + 16);
    bool at_line_start = true;
    while (pos_ < src_.size()) {
      if (at_line_start && depth_ == 0) {
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
      } else if (c == '\n' || c == '\r') {
        if (depth_ == 0) {
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
    size_t width = 0;
    size_t p = pos_;
    while (p < src_.size() &&
           (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\f')) {
      width = src_[p] == '\t' ? (width / 8 + 1) * 8 : width + 1;
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
    if (width > indents_.back()) {
      indents_.push_back(width);
      Emit(TokenKind::kIndent, pos_, 0);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        Emit(TokenKind::kDedent, pos_, 0);
      }
      // An inconsistent dedent lands between two levels; treat it as the
      // enclosing level so that skipping by indentation stays balanced.
      if (width > indents_.back()) {
        indents_.push_back(width);
        Emit(TokenKind::kIndent, pos_, 0);
      }
    }
    return true;
  }

  static bool IsStringPrefix(std::string_view word) {
    if (word.size() > 2) return false;
    for (char ch : word) {
      char l = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (l != 'r' && l != 'b' && l != 'u' && l != 'f') return false;
    }
    return true;
  }

  // Skips a string body starting at the opening quote at pos_.
  void SkipString(bool is_fstring, int nesting = 0) {
    char quote = src_[pos_];
    bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == quote &&
                  src_[pos_ + 2] == quote;
    Advance(triple ? 3 : 1);
    int braces = 0;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == '\\') {
        Advance(2);
        continue;
      }
      if (!triple && (c == '\n' || c == '\r')) return;  // unterminated
      if (is_fstring && c == '{') {
        if (braces == 0 && pos_ + 1 < src_.size() && src_[pos_ + 1] == '{') {
          Advance(2);
          continue;
        }
        ++braces;
      } else if (is_fstring && c == '}' && braces > 0) {
        --braces;
      } else if (braces > 0 && (c == '"' || c == '\'') && nesting < 8) {
        // A string nested inside a replacement field (Python 3.12 allows
        // the same quote there).
        SkipString(false, nesting + 1);
        continue;
      } else if (c == quote) {
        if (!triple) {
          Advance(1);
          return;
        }
        if (pos_ + 2 < src_.size() && src_[pos_ + 1] == quote &&
            src_[pos_ + 2] == quote) {
          Advance(3);
          return;
        }
      }
      Advance(1);
    }
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
        SkipString(is_f);
        Emit(TokenKind::kString, start, pos_ - start);
        return;
      }
      pos_ = end;
      Emit(TokenKind::kName, start, end - start);
      return;
    }
    if (c == '"' || c == '\'') {
      SkipString(false);
      Emit(TokenKind::kString, start, pos_ - start);
      return;
    }
    if (std::isdigit(c) ||
        (c == '.' && pos_ + 1 < src_.size() &&
         std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
      size_t end = pos_;
      while (end < src_.size()) {
        unsigned char d = static_cast<unsigned char>(src_[end]);
        if (std::isalnum(d) || d == '_' || d == '.') {
          ++end;
        } else if ((d == '+' || d == '-') && end > pos_ &&
                   (src_[end - 1] == 'e' || src_[end - 1] == 'E') &&
                   !(src_[pos_] == '0' && end > pos_ + 1 &&
                     (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X'))) {
          ++end;
        } else {
          break;
        }
      }
      pos_ = end;
      Emit(TokenKind::kNumber, start, end - start);
      return;
    }
    if (std::strchr("*/><.-:+=!%&|^@~()[]{},;", c) == nullptr || c == 0) {
      pos_ += 1;
      Emit(TokenKind::kError, start, 1);
      return;
    }
    for (uint8_t index : kOperatorsByFirstChar.candidates[c]) {
      if (index == OperatorTable::kNone) break;
      std::string_view op = kOperators[index];
      if (src_.substr(pos_, op.size()) != op) continue;
      if (op.size() == 1) {
        if (c == '(' || c == '[' || c == '{') ++depth_;
        if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
      }
      pos_ += op.size();
      Emit(TokenKind::kOp, start, op.size());
      return;
    }
    // Anything else ('$', '?', '`', a stray backslash, NUL, ...).
    pos_ += 1;
    Emit(TokenKind::kError, start, 1);
  }

  std::string_view src_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t line_start_ = 0;
  size_t start_line_ = 1;
  size_t start_line_start_ = 0;
  int depth_ = 0;
  std::vector<size_t> indents_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view source) {
  return Lexer(source).Run();
}

std::vector<uint32_t> LineStarts(std::string_view source) {
  std::vector<uint32_t> starts = {0};
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\n') starts.push_back(static_cast<uint32_t>(i + 1));
  }
  return starts;
}

}  // namespace tessera::helion_py
