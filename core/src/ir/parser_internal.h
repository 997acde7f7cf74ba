// The IR parser (docs/ir.md), shared by its three source files:
// parser.cpp (statements, functions, the module), parse_expr.cpp
// (expressions, indices, loop dims) and parse_types.cpp (names, numbers,
// dims, types, attributes).
//
// A recursive-descent parser over tokens lexed on demand. It never throws
// and never crashes: every parse function returns false / nullptr after
// reporting, and the block parser recovers at the next statement line, so
// one run reports several errors. Nesting is bounded.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ir/name_hash.h"
#include "ir/text_lexer.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

#pragma GCC visibility push(hidden)

namespace tessera::text {

inline constexpr int kMaxDepth = 200;
inline constexpr size_t kMaxErrors = 20;

struct DepthGuard {
  explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  int& depth_;
};

class Parser {
 public:
  Parser(std::string_view source, std::string_view filename,
         DiagnosticEngine& diagnostics)
      : lexer_(source), filename_(filename), diagnostics_(diagnostics) {}

  bool ParseModule(Module& module);
  bool ParseTypeOnly(Type& type);
  size_t errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }

 private:
  // --- Token access (inline: the parser's innermost loop) -------------------
  // Tokens are lexed on demand into a small ring buffer; a reference from
  // Peek is valid until the next Next()/Skip(), so callers copy tokens they
  // keep.
  const Token& Peek(size_t ahead = 0) {
    // The fast path stays small enough to inline; lexing is out of line.
    if (ahead < buffered_) return lookahead_[(head_ + ahead) % kLookahead];
    return Fill(ahead);
  }
  // Lexes into every free slot at once, so the call is paid once per few
  // tokens. (Lexing is context-free: lexing ahead changes nothing.)
  [[gnu::noinline]] const Token& Fill(size_t ahead) {
    while (buffered_ < kLookahead) {
      lexer_.LexInto(lookahead_[(head_ + buffered_) % kLookahead]);
      ++buffered_;
    }
    return lookahead_[(head_ + ahead) % kLookahead];
  }
  Token Next() {
    Token token = Peek();
    Skip();
    return token;
  }
  // Next() without copying the token out.
  void Skip() {
    if (Peek().kind != TokenKind::kEnd) {
      head_ = (head_ + 1) % kLookahead;
      --buffered_;
      ++consumed_;
    }
  }
  bool AtEnd() { return Peek().kind == TokenKind::kEnd; }
  bool Accept(std::string_view punct) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kPunct && token.TextIs(punct)) {
      Skip();
      return true;
    }
    return false;
  }
  bool AcceptWord(std::string_view word) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kIdent && token.TextIs(word)) {
      Skip();
      return true;
    }
    return false;
  }

  SourceLoc LocOf(const Token& token) const {
    return SourceLoc{
        token.line, token.col,
        static_cast<uint32_t>(std::max<size_t>(1, token.text.size()))};
  }

  // --- Errors (parser.cpp) ---------------------------------------------------
  bool ErrorAt(const Token& token, std::string message);
  std::string Describe(const Token& token) const;
  bool Expect(std::string_view punct, std::string_view context) {
    if (Accept(punct)) return true;
    return ExpectFailed(punct, context);
  }
  bool ExpectWord(std::string_view word, std::string_view context) {
    if (AcceptWord(word)) return true;
    return ExpectFailed(word, context);
  }
  bool ExpectFailed(std::string_view expected, std::string_view context);
  // Once the nesting limit is hit the whole parse stops: the input is
  // pathological and recovery inside it would only repeat the error.
  bool TooDeep() {
    if (too_deep_) return true;
    if (depth_ <= kMaxDepth) return false;
    return ReportTooDeep();
  }
  bool ReportTooDeep();
  void Recover(size_t statement_start);
  bool GaveUp() const { return errors_ > kMaxErrors || too_deep_; }

  // --- Names, numbers, types (parse_types.cpp) -------------------------------
  bool ParseName(std::string& name, std::string_view what);
  bool ParseInt(int64_t& value);
  bool ParseFloat(double& value);
  bool ParseDim(Dim& dim);
  bool ParseShape(Shape& shape);
  bool AtTypeStart(size_t ahead = 0);
  bool ParseDTypeToken(DType& dtype);
  bool ParseType(Type& type);

  // --- Attributes (parse_types.cpp) ------------------------------------------
  // `{` starts an attribute list (rather than a block) when `name =` follows.
  bool AtAttrs() {
    return Peek().Is("{") &&
           (Peek(1).kind == TokenKind::kIdent ||
            Peek(1).kind == TokenKind::kString) &&
           Peek(2).Is("=");
  }
  bool ParseAttrValue(AttrValue& value);
  bool ParseAttrs(AttrList& attrs);
  bool ParseOptionalAttrs(AttrList& attrs) {
    return !AtAttrs() || ParseAttrs(attrs);
  }

  // --- Symbols ---------------------------------------------------------------
  // The table points at the defining Value inside the IR being built instead
  // of holding copies of names and types (a copy of a tensor type is an
  // allocation). The Values stay put: they sit in vectors that are complete
  // before their names are defined, and moving a Stmt or Function moves
  // those vectors' buffers, not their elements. Statements that fail to
  // parse are parked in failed_stmts_ until the function ends, so no entry
  // ever dangles.
  void Define(const Value& value) {
    symbols_.insert_or_assign(std::string_view(value.name), &value.type);
  }
  void ResetSymbols() {
    // absl's clear() frees large tables; erasing keeps the capacity, so the
    // table is not regrown (rehashed) once per function.
    symbols_.erase(symbols_.begin(), symbols_.end());
    failed_stmts_.clear();
  }
  bool ParseValueDef(Value& value) {
    return ParseName(value.name, "a value name") &&
           Expect(":", "after the value name") && ParseType(value.type);
  }

  // --- Expressions (parse_expr.cpp) ------------------------------------------
  ExprPtr ParseExpr();
  ExprPtr ParseLiteral();
  ExprPtr ParseOpCall();
  ExprPtr ParseVarRef();
  bool ParseIndices(IndexList& indices);
  bool ParseIndex(Index& index);
  bool ParseExprList(ExprList& exprs, std::string_view close);
  bool ParseLoopDims(std::vector<LoopDim>& dims);
  bool ParseOptionalLoc(SourceLoc& loc);

  // --- Statements (parser.cpp) -----------------------------------------------
  bool ParseBlock(Block& block);
  bool ParseStmt(Stmt& stmt);
  bool ParseLoop(Stmt& stmt);
  bool ParseIf(Stmt& stmt);
  bool ParseLaunch(Stmt& stmt);
  bool ParseFunction(Function& function);
  bool ParseModuleHeader(Module& module);

  static constexpr size_t kLookahead = 4;
  Lexer lexer_;
  std::array<Token, kLookahead> lookahead_{};
  size_t head_ = 0;
  size_t buffered_ = 0;
  // Tokens consumed so far (a position for recovery).
  size_t consumed_ = 0;
  std::string_view filename_;
  DiagnosticEngine& diagnostics_;
  size_t errors_ = 0;
  std::string first_error_;
  int depth_ = 0;
  bool too_deep_ = false;
  // Statements without `@line:col` get their .tir position when the file has
  // no module header (hand-written IR), else no location.
  bool locate_in_tir_ = false;
  absl::flat_hash_map<std::string_view, const Type*, NameHash> symbols_;
  std::vector<Stmt> failed_stmts_;
};

}  // namespace tessera::text

#pragma GCC visibility pop
