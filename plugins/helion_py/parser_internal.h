// The parser of the helion-py frontend, shared by its translation units:
// parser.cpp (file level: imports, constants, skipping non-kernel code),
// parse_statements.cpp (kernel signatures and statements) and
// parse_expressions.cpp (expressions). See parser.h for the contract.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ast.h"
#include "lexer.h"
#include "parser.h"
#include "tessera/diagnostics.h"

namespace tessera::helion_py::parser_internal {

// Whether `word` is a Python keyword (and so not a name).
bool IsKeyword(std::string_view word);

class Parser {
 public:
  Parser(std::string_view source, const std::string& path,
         DiagnosticEngine& diagnostics)
      : source_(source),
        path_(path),
        diagnostics_(&diagnostics),
        tokens_(Tokenize(source, &source_error_)),
        line_starts_(LineStarts(source)) {}

  ParsedFile Run();
  // A module-level `def` that is not a kernel: kept when it parses (an
  // hl.associative_scan combine function is inlined from it), silently
  // skipped when it does not.
  void ParseFunction(ParsedFile& file);

 private:
  // ---- token access -------------------------------------------------------
  bool AtEnd() const { return tokens_[pos_].kind == TokenKind::kEnd; }
  const Token& Peek(size_t k = 0) const {
    return tokens_[std::min(pos_ + k, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& token = tokens_[pos_];
    if (token.kind != TokenKind::kEnd) ++pos_;
    last_ = &token;
    return token;
  }
  bool AcceptOp(std::string_view op) {
    if (!Peek().IsOp(op)) return false;
    Next();
    return true;
  }
  bool AcceptName(std::string_view name) {
    if (!Peek().IsName(name)) return false;
    Next();
    return true;
  }

  SourceLoc LocOf(const Token& token) const {
    return SourceLoc{token.line, token.col,
                     std::max<uint32_t>(1, LineLength(token))};
  }
  // Length of `token` clipped to its first line.
  uint32_t LineLength(const Token& token) const {
    uint32_t line_end = LineEnd(token.line);
    return std::min(token.length, line_end - std::min(line_end, token.offset));
  }
  uint32_t LineEnd(uint32_t line) const {
    if (line < line_starts_.size()) return line_starts_[line] - 1;
    return static_cast<uint32_t>(source_.size());
  }
  // A location from `start` to the end of the last consumed token.
  SourceLoc Span(const Token& start) const {
    SourceLoc loc{start.line, start.col, 1};
    if (last_ == nullptr) return loc;
    uint32_t end = last_->offset + last_->length;
    uint32_t line_end = LineEnd(start.line);
    end = std::min(end, line_end);
    if (end > start.offset) loc.length = end - start.offset;
    return loc;
  }

  void Error(SourceLoc loc, std::string message) {
    diagnostics_->Error(path_, loc, std::move(message));
  }
  void ErrorAt(const Token& token, std::string message) {
    Error(LocOf(token), std::move(message));
  }
  std::string Describe(const Token& token) const {
    switch (token.kind) {
      case TokenKind::kNewline:
        return "end of line";
      case TokenKind::kIndent:
        return "indent";
      case TokenKind::kDedent:
        return "dedent";
      case TokenKind::kEnd:
        return "end of file";
      default:
        return "'" + std::string(token.text.substr(0, 40)) + "'";
    }
  }
  bool ExpectOp(std::string_view op) {
    if (AcceptOp(op)) return true;
    ErrorAt(Peek(),
            "expected '" + std::string(op) + "', found " + Describe(Peek()));
    return false;
  }

  // ---- top-level skipping -------------------------------------------------
  // Skips one logical line and, if an indented block follows, the block.
  void SkipStatement();
  // At an INDENT: skips to just after the matching DEDENT.
  void SkipBlock();

  // `@helion.kernel`, `@helion.kernel(...)`, `@kernel` (from helion import
  // kernel), through any alias the imports made.
  bool IsKernelDecorator(const ImportMap& imports) const;
  // num_warps / num_stages set in the kernel decorator at pos_.
  LaunchHints ReadLaunchHints() const;

  std::string ReadDotted(size_t& p) const;

  // What the kernel decorator at the current '@' fixes: the literal
  // `block_sizes=[ints]` of a `config=helion.Config(...)` argument (none if
  // the config is a variable or the list is not all integers) and the
  // launch hints.
  void ReadDecoratorConfig(const ImportMap& imports, KernelDef& kernel) const;

  void ReadImport(ImportMap& imports) const;

  // `NAME = literal` on one line; anything else is left alone.
  void ReadConstant(std::map<std::string, NodePtr>& constants);

  NodePtr ParseNumberQuiet(const Token& token);

  // ---- kernels ------------------------------------------------------------
  bool ParseKernel(KernelDef& kernel);

  bool ParseParams(std::vector<Param>& params);

  // After a ':' of a compound statement: an indented block or simple
  // statements on the same line.
  void ParseSuite(std::vector<PyStmt>& body);

  void RecoverStatement();

  void ParseStatement(std::vector<PyStmt>& body);

  void ParseSimpleStatements(std::vector<PyStmt>& body);

  bool ParseSimpleStatement(std::vector<PyStmt>& body);

  bool AtStatementEnd() const;

  void ParseFor(std::vector<PyStmt>& body);

  void ParseIf(std::vector<PyStmt>& body);

  // ---- expressions --------------------------------------------------------
  struct DepthGuard {
    explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    int& depth_;
  };
  bool CheckDepth();
  // Sets `node`'s height from its children's; null (reported) when the
  // expression is taller than kMaxExpressionHeight. Every composite node
  // the parser builds passes through here: chains (`a + a + ...`,
  // `x[0][0]...`) are built by loops, not recursion, so only the height
  // bounds the recursion of the walks that lower them.
  NodePtr Finish(NodePtr node);

  NodePtr MakeNode(NodeKind kind, const Token& start);

  // Target of a `for`: names and tuples of names (no full expressions, so
  // the `in` keyword is not swallowed).
  NodePtr ParseTargetList();

  // test (',' test)* [','] -> a tuple when there is a comma.
  NodePtr ParseTestList();

  NodePtr ParseNamedTest();
  NodePtr ParseStarred();
  NodePtr ParseLambda();

  NodePtr ParseTest();

  NodePtr ParseBoolOp(bool is_or);
  NodePtr ParseOr() { return ParseBoolOp(true); }

  NodePtr ParseNot();

  bool AcceptCompareOp(CompareOp& op);

  NodePtr ParseComparison();

  // Binary operator levels, loosest first: | ^ & (<< >>) (+ -) (* / // % @).
  NodePtr ParseBinary(int min_level);

  NodePtr ParseUnary();

  NodePtr ParsePower();

  NodePtr ParsePrimary();

  bool ParseArguments(Node& call);

  bool ParseSubscripts(Node& subscript);

  NodePtr ParseNumber(const Token& token);

  static std::string StringValue(std::string_view text);

  NodePtr ParseAtom();

  std::string_view source_;
  const std::string& path_;
  // A pointer: module-level functions are parsed against a scratch engine
  // (ParseFunction), so that code outside kernels reports nothing.
  DiagnosticEngine* diagnostics_;
  // What CPython's tokenizer rejects in the file; set while tokens_ is.
  std::optional<SourceError> source_error_;
  std::vector<Token> tokens_;
  std::vector<uint32_t> line_starts_;
  size_t pos_ = 0;
  const Token* last_ = nullptr;
  int depth_ = 0;
  int elif_depth_ = 0;
  bool depth_error_reported_ = false;
};

}  // namespace tessera::helion_py::parser_internal
