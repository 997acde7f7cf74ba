#include "module_check.h"

#include <algorithm>
#include <array>

#include "fmt/format.h"

namespace tessera::cli {
namespace {

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Keywords that start a compound statement, whose header ends in ':'.
// `match` and `case` are soft keywords (also ordinary names), so a line
// they start is only a header when it ends in ':'.
bool StartsCompoundStatement(std::string_view word, bool soft_too) {
  static constexpr std::array<std::string_view, 12> kKeywords = {
      "if",  "elif",   "else",    "for", "while", "with",
      "try", "except", "finally", "def", "class", "async"};
  if (std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end())
    return true;
  return soft_too && (word == "match" || word == "case");
}

char ClosingOf(char open) {
  return open == '(' ? ')' : open == '[' ? ']' : '}';
}

class StructureScanner {
 public:
  explicit StructureScanner(std::string_view text) : text_(text) {}

  std::optional<PythonStructureProblem> Run() {
    while (!problem_ && pos_ < text_.size()) {
      if (at_line_start_ && brackets_.empty() && !continued_) {
        StartLogicalLine();
        if (problem_) break;
        continue;
      }
      at_line_start_ = false;
      Step();
    }
    if (!problem_) Finish();
    return problem_;
  }

 private:
  struct Open {
    char bracket;
    uint32_t line, column;
  };

  uint32_t Column() const {
    return static_cast<uint32_t>(pos_ - line_start_) + 1;
  }

  void Fail(uint32_t line, uint32_t column, std::string message,
            uint32_t fault_line = 0) {
    if (!problem_) {
      problem_ = PythonStructureProblem{line, column, std::move(message),
                                        fault_line != 0 ? fault_line : line};
    }
  }

  void NewLine() {
    ++line_;
    line_start_ = pos_;
    at_line_start_ = true;
  }

  // Indentation of a physical line that begins a logical line; blank and
  // comment-only lines take part in no block structure.
  void StartLogicalLine() {
    size_t end = pos_;
    bool spaces = false, tabs = false;
    while (end < text_.size() &&
           (text_[end] == ' ' || text_[end] == '\t' || text_[end] == '\f')) {
      spaces |= text_[end] == ' ';
      tabs |= text_[end] == '\t';
      ++end;
    }
    if (end == text_.size() || text_[end] == '\n' || text_[end] == '\r' ||
        text_[end] == '#') {
      pos_ = end;
      at_line_start_ = false;
      return;
    }
    const size_t width = end - pos_;
    pos_ = end;
    at_line_start_ = false;
    if (spaces && tabs) {
      return Fail(line_, 1, "indentation mixes tabs and spaces");
    }
    if (spaces || tabs) {
      const char style = tabs ? '\t' : ' ';
      if (indent_style_ == 0) indent_style_ = style;
      if (indent_style_ != style) {
        return Fail(line_, 1,
                    "indentation uses tabs on some lines and spaces on "
                    "others");
      }
    }
    if (block_expected_) {
      block_expected_ = false;
      if (width <= indents_.back()) {
        return Fail(line_, Column(),
                    fmt::format("expected an indented block after line {}",
                                header_line_),
                    header_line_);
      }
      indents_.push_back(width);
    } else if (width > indents_.back()) {
      return Fail(line_, Column(), "unexpected indent");
    } else {
      while (width < indents_.back()) indents_.pop_back();
      if (width != indents_.back()) {
        return Fail(line_, Column(),
                    "unindent does not match any outer indentation level");
      }
    }
    logical_line_ = line_;
    last_significant_ = 0;
    colon_at_top_ = false;
    size_t word_end = pos_;
    while (word_end < text_.size() && IsIdentifierChar(text_[word_end]))
      ++word_end;
    first_word_ = text_.substr(pos_, word_end - pos_);
  }

  void EndLogicalLine() {
    if (logical_line_ == 0) return;
    const bool header = last_significant_ == ':';
    if (header && !StartsCompoundStatement(first_word_, true)) {
      Fail(logical_line_, 1,
           fmt::format("line ends in ':' but '{}' starts no block",
                       first_word_));
    } else if (!colon_at_top_ && StartsCompoundStatement(first_word_, false)) {
      Fail(logical_line_, 1,
           fmt::format("'{}' statement without ':'", first_word_));
    }
    if (header) {
      block_expected_ = true;
      header_line_ = logical_line_;
    }
    logical_line_ = 0;
  }

  void Step() {
    const char c = text_[pos_];
    if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '\n') {
      continued_ = false;
      if (brackets_.empty()) EndLogicalLine();
      ++pos_;
      NewLine();
    } else if (c == '\\') {
      size_t next = pos_ + 1;
      if (next < text_.size() && text_[next] == '\r') ++next;
      if (next >= text_.size() || text_[next] != '\n') {
        return Fail(line_, Column(), "'\\' outside a string must end its line");
      }
      pos_ = next + 1;
      NewLine();
      continued_ = true;
    } else if (c == '\'' || c == '"') {
      String();
      last_significant_ = c;
    } else if (c == '(' || c == '[' || c == '{') {
      brackets_.push_back(Open{c, line_, Column()});
      last_significant_ = c;
      ++pos_;
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets_.empty()) {
        return Fail(line_, Column(), fmt::format("unmatched '{}'", c));
      }
      const Open open = brackets_.back();
      if (ClosingOf(open.bracket) != c) {
        return Fail(line_, Column(),
                    fmt::format("'{}' does not close '{}' opened at {}:{}", c,
                                open.bracket, open.line, open.column));
      }
      brackets_.pop_back();
      last_significant_ = c;
      ++pos_;
    } else {
      if (c == ':' && brackets_.empty()) colon_at_top_ = true;
      if (c != ' ' && c != '\t' && c != '\r' && c != '\f') {
        last_significant_ = c;
      }
      ++pos_;
    }
  }

  // A string literal from its opening quote; its prefix (r, b, f, ...) was
  // scanned as a name. A backslash escapes the next character in every
  // kind of literal, raw ones included, as far as where it ends goes.
  void String() {
    const char quote = text_[pos_];
    const uint32_t line = line_, column = Column();
    const bool triple = pos_ + 2 < text_.size() && text_[pos_ + 1] == quote &&
                        text_[pos_ + 2] == quote;
    pos_ += triple ? 3 : 1;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size()) {
        if (text_[pos_ + 1] == '\n') {
          pos_ += 2;
          ++line_;
          line_start_ = pos_;
        } else {
          pos_ += 2;
        }
        continue;
      }
      if (c == '\n') {
        if (!triple) break;
        ++pos_;
        ++line_;
        line_start_ = pos_;
        continue;
      }
      if (c == quote) {
        if (!triple) {
          ++pos_;
          return;
        }
        if (pos_ + 2 < text_.size() && text_[pos_ + 1] == quote &&
            text_[pos_ + 2] == quote) {
          pos_ += 3;
          return;
        }
      }
      ++pos_;
    }
    Fail(line, column,
         triple ? "unterminated triple-quoted string"
                : "unterminated string literal");
  }

  void Finish() {
    if (!brackets_.empty()) {
      const Open& open = brackets_.front();
      return Fail(open.line, open.column,
                  fmt::format("'{}' is never closed", open.bracket));
    }
    EndLogicalLine();
    if (!problem_ && block_expected_) {
      // At the last line, not past it when the module ends in a newline.
      Fail(at_line_start_ && line_ > 1 ? line_ - 1 : line_, 1,
           fmt::format("expected an indented block after line {}, got the "
                       "end of the module",
                       header_line_),
           header_line_);
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  uint32_t line_ = 1;
  bool at_line_start_ = true;
  bool continued_ = false;  // the previous physical line ended in '\'
  std::vector<Open> brackets_;
  std::vector<size_t> indents_{0};
  char indent_style_ = 0;
  // The logical line being scanned (0: none) and what it showed so far.
  uint32_t logical_line_ = 0;
  std::string_view first_word_;
  char last_significant_ = 0;
  bool colon_at_top_ = false;
  bool block_expected_ = false;
  uint32_t header_line_ = 0;
  std::optional<PythonStructureProblem> problem_;
};

// The top-level `def` (or `class`) that `line` lies in, or "".
std::string EnclosingDefinition(std::string_view text, uint32_t line) {
  std::string found;
  uint32_t current = 1;
  size_t start = 0;
  while (start <= text.size() && current <= line) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(start, end - start);
    for (std::string_view keyword : {"def ", "async def ", "class "}) {
      if (row.substr(0, keyword.size()) != keyword) continue;
      row.remove_prefix(keyword.size());
      size_t name_end = 0;
      while (name_end < row.size() && IsIdentifierChar(row[name_end]))
        ++name_end;
      found = std::string(row.substr(0, name_end));
      break;
    }
    start = end + 1;
    ++current;
  }
  return found;
}

// The kernels a generated function belongs to: its name with the
// generator's affixes (`_name_kernel`, `name_host`) is a kernel's name; a
// module-level helper belongs to every kernel of the module.
std::vector<std::string> KernelsOf(const std::string& function,
                                   const std::vector<std::string>& kernels) {
  std::vector<std::string> found;
  std::string best;
  for (const std::string& kernel : kernels) {
    if (!function.empty() && function.find(kernel) != std::string::npos &&
        kernel.size() > best.size()) {
      best = kernel;
    }
  }
  if (!best.empty()) return {best};
  return kernels;
}

}  // namespace

std::optional<PythonStructureProblem> CheckPythonStructure(
    std::string_view text) {
  return StructureScanner(text).Run();
}

std::vector<std::string> SourceKernelNames(const Module& module) {
  std::vector<std::string> names;
  for (const Function& function : module.functions) {
    if (function.kind != FunctionKind::kDevice) names.push_back(function.name);
  }
  return names;
}

absl::Status CheckEmittedModules(const std::vector<EmittedFile>& files,
                                 const std::vector<std::string>& kernel_names) {
  for (const EmittedFile& file : files) {
    const std::string_view name = file.name;
    if (name.size() < 3 || name.substr(name.size() - 3) != ".py") continue;
    std::optional<PythonStructureProblem> problem =
        CheckPythonStructure(file.contents);
    if (!problem) continue;
    const std::string function =
        EnclosingDefinition(file.contents, problem->fault_line);
    const std::vector<std::string> kernels = KernelsOf(function, kernel_names);
    std::string quoted;
    for (const std::string& kernel : kernels)
      quoted += fmt::format("{}'{}'", quoted.empty() ? "" : ", ", kernel);
    return absl::InternalError(fmt::format(
        "the generated module of kernel{} {} is not valid Python: {}:{}:{}: "
        "{}{}; nothing was written",
        kernels.size() == 1 ? "" : "s", quoted.empty() ? "?" : quoted,
        file.name, problem->line, problem->column, problem->message,
        function.empty() ? "" : fmt::format(" (in '{}')", function)));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cli
