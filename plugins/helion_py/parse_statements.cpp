// Kernel signatures, suites and statements.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <string>

#include "parser_internal.h"

namespace tessera::helion_py {
namespace parser_internal {

bool Parser::ParseKernel(KernelDef& kernel) {
  size_t errors = diagnostics_->error_count();
  // One "too deep" report per kernel: an expression that fails that way
  // returns no node and reports nothing more, so a later kernel must report
  // its own or it would lose the statement without a word.
  depth_error_reported_ = false;
  const Token& def = Next();
  kernel.loc = LocOf(def);
  if (Peek().kind != TokenKind::kName) {
    ErrorAt(Peek(), "expected a function name after 'def'");
    SkipStatement();
    return false;
  }
  kernel.name = std::string(Next().text);
  if (!ExpectOp("(") || !ParseParams(kernel.params)) {
    SkipStatement();
    return false;
  }
  if (AcceptOp("->")) {
    if (!ParseTest()) {
      SkipStatement();
      return false;
    }
  }
  if (!ExpectOp(":")) {
    SkipStatement();
    return false;
  }
  ParseSuite(kernel.body);
  return diagnostics_->error_count() == errors;
}

bool Parser::ParseParams(std::vector<Param>& params) {
  // Python's rules (CPython rejects both at compile time): no name twice,
  // and before a bare '*' no parameter without a default after one with.
  bool keyword_only = false;
  const Token* defaulted = nullptr;
  std::set<std::string, std::less<>> names;
  for (const Param& param : params) names.insert(param.name);
  while (!Peek().IsOp(")")) {
    if (AcceptOp("/") ||
        (Peek().IsOp("*") && (Peek(1).IsOp(",") || Peek(1).IsOp(")")))) {
      if (Peek().IsOp("*")) {
        Next();
        keyword_only = true;
      }
    } else if (Peek().IsOp("*") || Peek().IsOp("**")) {
      ErrorAt(Peek(), "variadic parameters are not supported in a kernel");
      return false;
    } else if (Peek().kind == TokenKind::kName && !IsKeyword(Peek().text)) {
      const Token& name = Peek();
      if (!names.emplace(name.text).second) {
        ErrorAt(name, "duplicate argument '" + std::string(name.text) +
                          "' in function definition");
        return false;
      }
      Param param;
      param.loc = LocOf(Peek());
      param.name = std::string(Next().text);
      if (AcceptOp(":")) {
        param.annotation = ParseTest();
        if (!param.annotation) return false;
      }
      if (AcceptOp("=")) {
        param.default_value = ParseTest();
        if (!param.default_value) return false;
        if (!keyword_only) defaulted = &name;
      } else if (defaulted != nullptr && !keyword_only) {
        ErrorAt(name, "parameter '" + param.name +
                          "' without a default follows parameter '" +
                          std::string(defaulted->text) + "' with a default");
        return false;
      }
      params.push_back(std::move(param));
    } else {
      ErrorAt(Peek(), "expected a parameter name, found " + Describe(Peek()));
      return false;
    }
    if (!AcceptOp(",")) break;
  }
  return ExpectOp(")");
}

void Parser::ParseSuite(std::vector<PyStmt>& body) {
  if (Peek().kind != TokenKind::kNewline) {
    ParseSimpleStatements(body);
    return;
  }
  Next();
  if (Peek().kind != TokenKind::kIndent) {
    ErrorAt(Peek(), "expected an indented block");
    return;
  }
  Next();
  if (++depth_ > kMaxNestingDepth) {
    ErrorAt(*last_, "blocks are nested too deeply (limit " +
                        std::to_string(kMaxNestingDepth) + ")");
    --pos_;
    SkipBlock();
    --depth_;
    return;
  }
  while (!AtEnd() && Peek().kind != TokenKind::kDedent) {
    ParseStatement(body);
  }
  if (Peek().kind == TokenKind::kDedent) Next();
  --depth_;
}

void Parser::RecoverStatement() {
  while (!AtEnd() && Peek().kind != TokenKind::kNewline &&
         Peek().kind != TokenKind::kDedent) {
    if (Peek().kind == TokenKind::kIndent) {
      SkipBlock();
      continue;
    }
    ++pos_;
  }
  if (Peek().kind == TokenKind::kNewline) ++pos_;
  if (Peek().kind == TokenKind::kIndent) SkipBlock();
}

void Parser::ParseStatement(std::vector<PyStmt>& body) {
  const Token& token = Peek();
  if (token.kind == TokenKind::kNewline) {
    Next();
    return;
  }
  if (token.kind == TokenKind::kIndent) {
    ErrorAt(token, "unexpected indent");
    SkipBlock();
    return;
  }
  if (token.IsName("for")) return ParseFor(body);
  if (token.IsName("if")) return ParseIf(body);
  static constexpr std::string_view kCompound[] = {"while", "with",  "try",
                                                   "def",   "class", "async"};
  for (std::string_view keyword : kCompound) {
    if (token.IsName(keyword)) {
      PyStmt stmt;
      stmt.kind = PyStmtKind::kUnsupported;
      stmt.loc = LocOf(token);
      stmt.keyword = std::string(keyword);
      body.push_back(std::move(stmt));
      RecoverStatement();
      while (Peek().IsName("else") || Peek().IsName("elif") ||
             Peek().IsName("except") || Peek().IsName("finally")) {
        RecoverStatement();
      }
      return;
    }
  }
  if (token.IsName("else") || token.IsName("elif")) {
    ErrorAt(token, "'" + std::string(token.text) + "' without a matching 'if'");
    RecoverStatement();
    return;
  }
  ParseSimpleStatements(body);
}

void Parser::ParseSimpleStatements(std::vector<PyStmt>& body) {
  while (true) {
    if (!ParseSimpleStatement(body)) {
      RecoverStatement();
      return;
    }
    if (AcceptOp(";")) {
      if (Peek().kind == TokenKind::kNewline) break;
      continue;
    }
    break;
  }
  if (Peek().kind == TokenKind::kNewline) {
    Next();
    return;
  }
  if (Peek().kind == TokenKind::kEnd || Peek().kind == TokenKind::kDedent)
    return;
  ErrorAt(Peek(), "unexpected " + Describe(Peek()) + " after a statement");
  RecoverStatement();
}

bool Parser::ParseSimpleStatement(std::vector<PyStmt>& body) {
  const Token& start = Peek();
  PyStmt stmt;
  stmt.loc = LocOf(start);
  if (AcceptName("pass")) {
    stmt.kind = PyStmtKind::kPass;
    body.push_back(std::move(stmt));
    return true;
  }
  if (AcceptName("return")) {
    stmt.kind = PyStmtKind::kReturn;
    if (!AtStatementEnd()) {
      stmt.value = ParseTestList();
      if (!stmt.value) return false;
    }
    body.push_back(std::move(stmt));
    return true;
  }
  if (AcceptName("assert")) {
    stmt.kind = PyStmtKind::kAssert;
    stmt.test = ParseTest();
    if (!stmt.test) return false;
    if (AcceptOp(",")) {
      stmt.value = ParseTest();
      if (!stmt.value) return false;
    }
    body.push_back(std::move(stmt));
    return true;
  }
  static constexpr std::string_view kUnsupported[] = {
      "break",  "continue", "del",   "global", "nonlocal", "raise",
      "import", "from",     "yield", "await",  "lambda"};
  for (std::string_view keyword : kUnsupported) {
    if (start.IsName(keyword)) {
      stmt.kind = PyStmtKind::kUnsupported;
      stmt.keyword = std::string(keyword);
      body.push_back(std::move(stmt));
      while (!AtStatementEnd() && !Peek().IsOp(";")) Next();
      return true;
    }
  }
  NodePtr first = ParseTestList();
  if (!first) return false;
  static constexpr std::pair<std::string_view, BinaryOp> kAugOps[] = {
      {"+=", BinaryOp::kAdd},       {"-=", BinaryOp::kSub},
      {"*=", BinaryOp::kMul},       {"/=", BinaryOp::kDiv},
      {"//=", BinaryOp::kFloorDiv}, {"%=", BinaryOp::kMod},
      {"**=", BinaryOp::kPow},      {"@=", BinaryOp::kMatMul},
      {"&=", BinaryOp::kBitAnd},    {"|=", BinaryOp::kBitOr},
      {"^=", BinaryOp::kBitXor},    {"<<=", BinaryOp::kShl},
      {">>=", BinaryOp::kShr}};
  for (const auto& [text, op] : kAugOps) {
    if (AcceptOp(text)) {
      stmt.kind = PyStmtKind::kAugAssign;
      stmt.aug_op = op;
      stmt.target = std::move(first);
      stmt.value = ParseTestList();
      if (!stmt.value) return false;
      body.push_back(std::move(stmt));
      return true;
    }
  }
  if (AcceptOp(":")) {  // annotated assignment: x: int = 3
    if (!ParseTest()) return false;
    if (!AcceptOp("=")) {
      stmt.kind = PyStmtKind::kPass;  // a bare declaration does nothing
      body.push_back(std::move(stmt));
      return true;
    }
    stmt.kind = PyStmtKind::kAssign;
    stmt.targets.push_back(std::move(first));
    stmt.value = ParseTestList();
    if (!stmt.value) return false;
    body.push_back(std::move(stmt));
    return true;
  }
  if (Peek().IsOp("=")) {
    stmt.kind = PyStmtKind::kAssign;
    stmt.targets.push_back(std::move(first));
    while (AcceptOp("=")) {
      NodePtr next = ParseTestList();
      if (!next) return false;
      stmt.targets.push_back(std::move(next));
    }
    stmt.value = std::move(stmt.targets.back());
    stmt.targets.pop_back();
    body.push_back(std::move(stmt));
    return true;
  }
  stmt.kind = PyStmtKind::kExpr;
  stmt.value = std::move(first);
  body.push_back(std::move(stmt));
  return true;
}

bool Parser::AtStatementEnd() const {
  const Token& token = Peek();
  return token.kind == TokenKind::kNewline || token.kind == TokenKind::kEnd ||
         token.kind == TokenKind::kDedent || token.IsOp(";");
}

void Parser::ParseFor(std::vector<PyStmt>& body) {
  PyStmt stmt;
  stmt.kind = PyStmtKind::kFor;
  stmt.loc = LocOf(Next());
  stmt.target = ParseTargetList();
  if (!stmt.target) return RecoverStatement();
  if (!AcceptName("in")) {
    ErrorAt(Peek(), "expected 'in', found " + Describe(Peek()));
    return RecoverStatement();
  }
  stmt.iter = ParseTestList();
  if (!stmt.iter || !ExpectOp(":")) return RecoverStatement();
  ParseSuite(stmt.body);
  if (Peek().IsName("else")) {
    ErrorAt(Peek(), "'for ... else' is not supported in a kernel");
    RecoverStatement();
  }
  body.push_back(std::move(stmt));
}

void Parser::ParseIf(std::vector<PyStmt>& body) {
  PyStmt stmt;
  stmt.kind = PyStmtKind::kIf;
  stmt.loc = LocOf(Next());
  stmt.test = ParseNamedTest();
  if (!stmt.test || !ExpectOp(":")) return RecoverStatement();
  ParseSuite(stmt.body);
  if (Peek().IsName("elif")) {
    // `elif` parses as a nested if, so a chain of them nests like blocks
    // do (parsing, lowering and destroying recurse once per branch).
    if (++elif_depth_ > kMaxNestingDepth) {
      ErrorAt(Peek(), "too many 'elif' branches in one chain (limit " +
                          std::to_string(kMaxNestingDepth) + ")");
      while (Peek().IsName("elif") || Peek().IsName("else")) {
        RecoverStatement();
      }
    } else {
      ParseIf(stmt.orelse);
    }
    --elif_depth_;
  } else if (AcceptName("else")) {
    if (ExpectOp(":"))
      ParseSuite(stmt.orelse);
    else
      RecoverStatement();
  }
  body.push_back(std::move(stmt));
}

}  // namespace parser_internal
}  // namespace tessera::helion_py
