#include "python_structure.h"

#include <string>
#include <string_view>

namespace tessera::helion_py {
namespace {

// What the last statement of a block lets the next one be: the clause
// keywords check it.
enum class Prev {
  kSimple,
  kIf,       // if, elif
  kLoop,     // for, while (their `else` is allowed)
  kTry,      // try: needs except / finally
  kExcept,   // except: else / finally / except may follow
  kTryElse,  // else of a try: finally may follow
  kDecorator,
};

SourceError ErrorAt(const Token& token, std::string message) {
  SourceError error;
  error.offset = token.offset;
  error.line = token.line;
  error.col = token.col;
  error.length = std::max<uint32_t>(1, token.length);
  error.message = std::move(message);
  return error;
}

// A block's statements: what the last one lets the next one be, and where
// `return` / `yield` and `break` / `continue` may appear (CPython's compiler
// rejects them elsewhere, so importing the file fails).
struct Level {
  Prev prev = Prev::kSimple;
  bool in_function = false;
  bool in_loop = false;
};

bool IsCompoundKeyword(std::string_view keyword) {
  static constexpr std::string_view kCompound[] = {
      "if",     "elif",    "else", "for", "while", "try",
      "except", "finally", "with", "def", "class"};
  for (std::string_view compound : kCompound) {
    if (keyword == compound) return true;
  }
  return false;
}

// The block a header with `keyword` opens, inside `parent`.
Level ChildLevel(std::string_view keyword, const Level& parent) {
  Level child;
  child.in_function =
      keyword == "def" || (keyword != "class" && parent.in_function);
  child.in_loop = keyword == "for" || keyword == "while" ||
                  (keyword != "def" && keyword != "class" && parent.in_loop);
  return child;
}

// A simple statement starting at `token` where `level` says what is allowed.
std::optional<SourceError> CheckSimpleStatement(const Token& token,
                                                const Level& level) {
  if (token.kind != TokenKind::kName) return std::nullopt;
  if ((token.text == "return" || token.text == "yield") && !level.in_function) {
    return ErrorAt(token, "'" + std::string(token.text) + "' outside function");
  }
  if (token.text == "break" && !level.in_loop) {
    return ErrorAt(token, "'break' outside loop");
  }
  if (token.text == "continue" && !level.in_loop) {
    return ErrorAt(token, "'continue' not properly in loop");
  }
  return std::nullopt;
}

// CPython's name for the statement a header opens, in "expected an indented
// block after ...".
std::string HeaderName(std::string_view keyword) {
  if (keyword == "def") return "function definition";
  if (keyword == "class") return "class definition";
  return "'" + std::string(keyword) + "' statement";
}

}  // namespace

std::optional<SourceError> CheckBlockStructure(
    const std::vector<Token>& tokens) {
  std::vector<Level> levels = {Level{}};
  Level child;  // what the pending header's block allows
  // The header whose block must come next, if any: its keyword and line.
  bool header = false;
  std::string_view header_keyword;
  uint32_t header_line = 0;
  const auto expected_block = [&](const Token& token) {
    return ErrorAt(token, "expected an indented block after " +
                              HeaderName(header_keyword) + " on line " +
                              std::to_string(header_line));
  };
  size_t i = 0;
  while (i < tokens.size()) {
    // Start of a logical line: indentation first.
    while (i < tokens.size() && (tokens[i].kind == TokenKind::kIndent ||
                                 tokens[i].kind == TokenKind::kDedent)) {
      const Token& token = tokens[i];
      if (token.kind == TokenKind::kIndent) {
        if (!header) return ErrorAt(token, "unexpected indent");
        header = false;
        levels.push_back(child);
      } else {
        if (header) {
          return expected_block(token);
        }
        if (levels.back().prev == Prev::kTry) {
          return ErrorAt(token, "expected 'except' or 'finally' block");
        }
        if (levels.back().prev == Prev::kDecorator) {
          return ErrorAt(token,
                         "a decorator must be followed by a 'def' or "
                         "'class' statement");
        }
        if (levels.size() > 1) levels.pop_back();
      }
      ++i;
    }
    if (i >= tokens.size()) break;
    const Token& first = tokens[i];
    if (first.kind == TokenKind::kNewline) {  // an empty statement line
      ++i;
      continue;
    }
    if (header) {
      return expected_block(first);
    }
    Level& level = levels.back();
    Prev& prev = level.prev;
    if (first.kind == TokenKind::kEnd) {
      if (prev == Prev::kTry) {
        return ErrorAt(first, "expected 'except' or 'finally' block");
      }
      if (prev == Prev::kDecorator) {
        return ErrorAt(first,
                       "a decorator must be followed by a 'def' or "
                       "'class' statement");
      }
      break;
    }
    std::string_view keyword =
        first.kind == TokenKind::kName ? first.text : std::string_view();
    if (keyword == "async" && i + 1 < tokens.size() &&
        tokens[i + 1].kind == TokenKind::kName) {
      keyword = tokens[i + 1].text;
    }
    const auto misplaced = [&](std::string_view what) {
      return ErrorAt(first,
                     "'" + std::string(keyword) + "' " + std::string(what));
    };
    Prev next = Prev::kSimple;
    if (prev == Prev::kTry && keyword != "except" && keyword != "finally") {
      return ErrorAt(first, "expected 'except' or 'finally' block");
    }
    if (prev == Prev::kDecorator && keyword != "def" && keyword != "class" &&
        !first.IsOp("@")) {
      return ErrorAt(first,
                     "a decorator must be followed by a 'def' or "
                     "'class' statement");
    }
    if (keyword == "elif") {
      if (prev != Prev::kIf) {
        return misplaced("does not continue an 'if' at this indentation");
      }
      next = Prev::kIf;
    } else if (keyword == "else") {
      if (prev != Prev::kIf && prev != Prev::kLoop && prev != Prev::kExcept) {
        return misplaced(
            "does not continue an 'if', 'for', 'while' or 'try' at this "
            "indentation");
      }
      next = prev == Prev::kExcept ? Prev::kTryElse : Prev::kSimple;
    } else if (keyword == "except") {
      if (prev != Prev::kTry && prev != Prev::kExcept) {
        return misplaced("does not continue a 'try' at this indentation");
      }
      next = Prev::kExcept;
    } else if (keyword == "finally") {
      if (prev != Prev::kTry && prev != Prev::kExcept &&
          prev != Prev::kTryElse) {
        return misplaced("does not continue a 'try' at this indentation");
      }
    } else if (keyword == "if") {
      next = Prev::kIf;
    } else if (keyword == "for" || keyword == "while") {
      next = Prev::kLoop;
    } else if (keyword == "try") {
      next = Prev::kTry;
    } else if (first.IsOp("@")) {
      next = Prev::kDecorator;
    }
    // The rest of the logical line; a ':' last opens a block. Simple
    // statements start the line, follow a ';', or follow the ':' of a
    // compound statement written on one line (`if x: return`).
    const bool compound = IsCompoundKeyword(keyword);
    child = compound ? ChildLevel(keyword, level)
                     : Level{Prev::kSimple, level.in_function, level.in_loop};
    const Level* statement_level = &level;
    bool statement_start = !compound;
    bool after_colon = false;
    int depth = 0;
    const Token* last = &first;
    while (i < tokens.size() && tokens[i].kind != TokenKind::kNewline &&
           tokens[i].kind != TokenKind::kEnd) {
      const Token& token = tokens[i];
      if (statement_start) {
        if (auto error = CheckSimpleStatement(token, *statement_level)) {
          return error;
        }
        statement_start = false;
      }
      if (token.IsOp("(") || token.IsOp("[") || token.IsOp("{")) ++depth;
      if (token.IsOp(")") || token.IsOp("]") || token.IsOp("}")) --depth;
      if (depth == 0 && token.IsOp(";")) statement_start = true;
      if (depth == 0 && compound && !after_colon && token.IsOp(":")) {
        after_colon = true;
        statement_start = true;
        statement_level = &child;
      }
      last = &token;
      ++i;
    }
    if (i < tokens.size() && tokens[i].kind == TokenKind::kNewline) ++i;
    if (last->IsOp(":")) {
      header = true;
      header_keyword = keyword.empty() ? first.text : keyword;
      header_line = first.line;
    }
    prev = next;
  }
  return std::nullopt;
}

}  // namespace tessera::helion_py
