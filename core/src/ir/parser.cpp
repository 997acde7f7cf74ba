// The IR parser (docs/ir.md): a recursive-descent parser over the token
// vector. It never throws and never crashes: every parse function returns
// false / nullptr after reporting, and the block parser recovers at the next
// statement line, so one run reports several errors. Nesting is bounded.
#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "ir/text_common.h"
#include "ir/text_lexer.h"
#include "tessera/ir/text.h"
#include "tessera/ir/type_inference.h"

namespace tessera {
namespace {

using text::Token;
using text::TokenKind;

constexpr int kMaxDepth = 200;
constexpr size_t kMaxErrors = 20;

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
  // --- Token access --------------------------------------------------------
  // Tokens are lexed on demand into a small ring buffer; a reference from
  // Peek is valid until the next Next()/Skip(), so callers copy tokens they
  // keep.
  const Token& Peek(size_t ahead = 0) {
    // The fast path stays small enough to inline; lexing is out of line.
    if (ahead < buffered_) return lookahead_[(head_ + ahead) % kLookahead];
    return Fill(ahead);
  }
  [[gnu::noinline]] const Token& Fill(size_t ahead) {
    while (buffered_ <= ahead) {
      lookahead_[(head_ + buffered_) % kLookahead] = lexer_.Lex();
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

  // --- Errors --------------------------------------------------------------
  bool ErrorAt(const Token& token, std::string message) {
    if (token.kind == TokenKind::kError && token.error != nullptr) {
      message = token.error;
    }
    if (errors_ < kMaxErrors) {
      if (first_error_.empty()) {
        first_error_ = fmt::format("{}:{}:{}: {}", filename_, token.line,
                                   token.col, message);
      }
      diagnostics_.Error(std::string(filename_), LocOf(token),
                         std::move(message));
    } else if (errors_ == kMaxErrors) {
      diagnostics_.Error(std::string(filename_), LocOf(token),
                         "too many errors; giving up");
    }
    ++errors_;
    return false;
  }
  std::string Describe(const Token& token) const {
    switch (token.kind) {
      case TokenKind::kEnd:
        return "end of input";
      case TokenKind::kString:
        return fmt::format("string {}", token.text);
      default:
        return fmt::format("'{}'", token.text);
    }
  }
  bool Expect(std::string_view punct, std::string_view context) {
    if (Accept(punct)) return true;
    return ErrorAt(Peek(), fmt::format("expected '{}' {}, found {}", punct,
                                       context, Describe(Peek())));
  }
  bool ExpectWord(std::string_view word, std::string_view context) {
    if (AcceptWord(word)) return true;
    return ErrorAt(Peek(), fmt::format("expected '{}' {}, found {}", word,
                                       context, Describe(Peek())));
  }
  // Once the nesting limit is hit the whole parse stops: the input is
  // pathological and recovery inside it would only repeat the error.
  bool TooDeep() {
    if (too_deep_) return true;
    if (depth_ <= kMaxDepth) return false;
    too_deep_ = true;
    ErrorAt(Peek(), fmt::format("nesting deeper than {} levels", kMaxDepth));
    return true;
  }
  // Skips the rest of a failed statement: to the next token that starts a
  // line outside any brace the statement opened, or to the '}' that closes
  // the enclosing block.
  void Recover(size_t statement_start) {
    int braces = 0;
    while (!AtEnd()) {
      const Token token = Peek();
      if (consumed_ > statement_start && token.first_on_line && braces <= 0)
        return;
      if (token.Is("{")) ++braces;
      if (token.Is("}")) {
        if (braces == 0) return;
        --braces;
      }
      Skip();
    }
  }
  bool GaveUp() const { return errors_ > kMaxErrors || too_deep_; }

  // --- Names, numbers, types -------------------------------------------------
  bool ParseName(std::string& name, std::string_view what) {
    const Token token = Peek();
    if (token.kind == TokenKind::kIdent) {
      name.assign(token.text);
      Skip();
      return true;
    }
    if (token.kind == TokenKind::kString) {
      const char* error = nullptr;
      if (!text::DecodeString(token.text, name, &error)) {
        return ErrorAt(token, error);
      }
      Skip();
      return true;
    }
    return ErrorAt(token,
                   fmt::format("expected {}, found {}", what, Describe(token)));
  }
  bool ParseInt(int64_t& value) {
    const Token token = Peek();
    if (token.kind != TokenKind::kInt) {
      return ErrorAt(
          token, fmt::format("expected an integer, found {}", Describe(token)));
    }
    auto [end, ec] = std::from_chars(
        token.text.data(), token.text.data() + token.text.size(), value);
    if (ec != std::errc() || end != token.text.data() + token.text.size()) {
      return ErrorAt(token, "integer literal out of range");
    }
    Skip();
    return true;
  }
  bool ParseFloat(double& value) {
    const Token token = Peek();
    if (token.Is("inf") || token.text == "-inf") {
      value = token.text[0] == '-' ? -INFINITY : INFINITY;
      Skip();
      return true;
    }
    if (token.Is("nan")) {
      value = NAN;
      Skip();
      return true;
    }
    auto [end, ec] = std::from_chars(
        token.text.data(), token.text.data() + token.text.size(), value);
    if (ec != std::errc() || end != token.text.data() + token.text.size()) {
      return ErrorAt(token, "float literal out of range");
    }
    Skip();
    return true;
  }
  bool ParseDim(Dim& dim) {
    const Token token = Peek();
    if (Accept("?")) {
      dim = Dim{};
      return true;
    }
    if (token.kind == TokenKind::kInt) {
      int64_t size = 0;
      if (!ParseInt(size)) return false;
      if (size < 0) return ErrorAt(token, "a dim must not be negative");
      dim = Dim::Static(size);
      return true;
    }
    if (token.kind == TokenKind::kIdent || token.kind == TokenKind::kString) {
      std::string symbol;
      if (!ParseName(symbol, "a dim")) return false;
      dim = Dim::Symbol(std::move(symbol));
      return true;
    }
    return ErrorAt(token, fmt::format("expected a dim (integer or name), "
                                      "found {}",
                                      Describe(token)));
  }
  bool ParseShape(std::vector<Dim>& shape) {
    if (!Expect("[", "to start a shape")) return false;
    if (Accept("]")) return true;
    shape.reserve(4);  // one allocation for the usual ranks
    while (true) {
      Dim dim;
      if (!ParseDim(dim)) return false;
      shape.push_back(std::move(dim));
      if (Accept("]")) return true;
      if (!Expect(",", "or ']' in a shape")) return false;
    }
  }
  bool AtTypeStart(size_t ahead = 0) {
    const Token token = Peek(ahead);
    return token.kind == TokenKind::kIdent && text::IsTypeStart(token.text);
  }
  bool ParseDTypeToken(DType& dtype) {
    const Token token = Peek();
    std::optional<DType> parsed;
    if (token.kind == TokenKind::kIdent) parsed = ParseDType(token.text);
    if (!parsed) {
      return ErrorAt(token, fmt::format("expected a dtype (bool, i8, i16, i32, "
                                        "i64, f16, bf16, f32), found {}",
                                        Describe(token)));
    }
    dtype = *parsed;
    Skip();
    return true;
  }
  bool ParseType(Type& type) {
    const Token token = Peek();
    if (AcceptWord("none")) {
      type = Type::None();
      return true;
    }
    if (AcceptWord("tile")) {
      Dim block;
      if (!Expect("<", "after 'tile'") || !ParseDim(block) ||
          !Expect(">", "to close 'tile<'")) {
        return false;
      }
      type = Type::Tile(std::move(block));
      return true;
    }
    if (AcceptWord("ref")) {
      DType dtype;
      std::vector<Dim> shape;
      if (!Expect("<", "after 'ref'") || !ParseDTypeToken(dtype) ||
          !ParseShape(shape) || !Expect(">", "to close 'ref<'")) {
        return false;
      }
      type = Type::Ref(dtype, std::move(shape));
      return true;
    }
    std::optional<DType> parsed;
    if (token.kind == TokenKind::kIdent) parsed = ParseDType(token.text);
    if (!parsed) {
      return ErrorAt(token,
                     fmt::format("expected a type, found {}", Describe(token)));
    }
    const DType dtype = *parsed;
    Skip();
    if (Peek().Is("[")) {
      std::vector<Dim> shape;
      if (!ParseShape(shape)) return false;
      type = Type::Tensor(dtype, std::move(shape));
    } else {
      type = Type::Scalar(dtype);
    }
    return true;
  }

  // --- Attributes ------------------------------------------------------------
  // `{` starts an attribute list (rather than a block) when `name =` follows.
  bool AtAttrs() {
    return Peek().Is("{") &&
           (Peek(1).kind == TokenKind::kIdent ||
            Peek(1).kind == TokenKind::kString) &&
           Peek(2).Is("=");
  }
  bool ParseAttrValue(AttrValue& value) {
    const Token token = Peek();
    switch (token.kind) {
      case TokenKind::kInt: {
        int64_t v = 0;
        if (!ParseInt(v)) return false;
        value = v;
        return true;
      }
      case TokenKind::kFloat: {
        double v = 0;
        if (!ParseFloat(v)) return false;
        value = v;
        return true;
      }
      case TokenKind::kString: {
        std::string v;
        if (!ParseName(v, "a string")) return false;
        value = std::move(v);
        return true;
      }
      default:
        break;
    }
    if (token.Is("true") || token.Is("false")) {
      value = token.text == "true";
      Skip();
      return true;
    }
    if (token.Is("inf") || token.Is("nan")) {
      double v = 0;
      if (!ParseFloat(v)) return false;
      value = v;
      return true;
    }
    if (token.kind == TokenKind::kIdent) {
      if (auto dtype = ParseDType(token.text)) {
        Skip();
        value = *dtype;
        return true;
      }
    }
    if (Accept("[")) {
      std::vector<int64_t> list;
      if (!Accept("]")) {
        while (true) {
          int64_t v = 0;
          if (!ParseInt(v)) return false;
          list.push_back(v);
          if (Accept("]")) break;
          if (!Expect(",", "or ']' in an integer list")) return false;
        }
      }
      value = std::move(list);
      return true;
    }
    if (AcceptWord("dims")) {
      std::vector<Dim> dims;
      if (!ParseShape(dims)) return false;
      value = std::move(dims);
      return true;
    }
    if (AcceptWord("strs")) {
      std::vector<std::string> list;
      if (!Expect("[", "after 'strs'")) return false;
      if (!Accept("]")) {
        while (true) {
          if (Peek().kind != TokenKind::kString) {
            return ErrorAt(Peek(), fmt::format("expected a string, found {}",
                                               Describe(Peek())));
          }
          std::string v;
          if (!ParseName(v, "a string")) return false;
          list.push_back(std::move(v));
          if (Accept("]")) break;
          if (!Expect(",", "or ']' in a string list")) return false;
        }
      }
      value = std::move(list);
      return true;
    }
    return ErrorAt(token, fmt::format("expected an attribute value, found {}",
                                      Describe(token)));
  }
  bool ParseAttrs(std::vector<Attr>& attrs) {
    if (!Expect("{", "to start attributes")) return false;
    if (Accept("}")) return true;
    while (true) {
      const Token name_token = Peek();
      Attr attr;
      if (!ParseName(attr.name, "an attribute name") ||
          !Expect("=", "after the attribute name") ||
          !ParseAttrValue(attr.value)) {
        return false;
      }
      if (FindAttr(attrs, attr.name) != nullptr) {
        return ErrorAt(name_token,
                       fmt::format("duplicate attribute '{}'", attr.name));
      }
      attrs.push_back(std::move(attr));
      if (Accept("}")) return true;
      if (!Expect(",", "or '}' in attributes")) return false;
    }
  }
  bool ParseOptionalAttrs(std::vector<Attr>& attrs) {
    return !AtAttrs() || ParseAttrs(attrs);
  }

  // --- Symbols ---------------------------------------------------------------
  void Define(const Value& value) {
    symbols_.insert_or_assign(value.name, value.type);
  }
  bool ParseValueDef(Value& value) {
    return ParseName(value.name, "a value name") &&
           Expect(":", "after the value name") && ParseType(value.type);
  }

  // --- Expressions -----------------------------------------------------------
  ExprPtr ParseExpr();
  ExprPtr ParseLiteral();
  ExprPtr ParseOpCall();
  ExprPtr ParseVarRef();
  bool ParseIndices(std::vector<Index>& indices);
  bool ParseIndex(Index& index);
  bool ParseExprList(std::vector<ExprPtr>& exprs, std::string_view close);
  bool ParseLoopDims(std::vector<LoopDim>& dims);
  bool ParseOptionalLoc(SourceLoc& loc);

  // --- Statements ------------------------------------------------------------
  bool ParseBlock(Block& block);
  bool ParseStmt(Stmt& stmt);
  bool ParseLoop(Stmt& stmt);
  bool ParseIf(Stmt& stmt);
  bool ParseLaunch(Stmt& stmt);
  bool ParseFunction(Function& function);
  bool ParseModuleHeader(Module& module);

  static constexpr size_t kLookahead = 4;
  text::Lexer lexer_;
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
  absl::flat_hash_map<std::string, Type> symbols_;
};

struct DepthGuard {
  explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  int& depth_;
};

ExprPtr Parser::ParseExpr() {
  DepthGuard guard(depth_);
  if (TooDeep()) return nullptr;
  const Token token = Peek();
  if (token.kind == TokenKind::kInt || token.kind == TokenKind::kFloat ||
      token.Is("true") || token.Is("false") || token.Is("inf") ||
      token.Is("nan")) {
    return ParseLiteral();
  }
  if (token.kind == TokenKind::kIdent && Peek(1).Is("(")) return ParseOpCall();
  if (token.kind == TokenKind::kIdent || token.kind == TokenKind::kString) {
    return ParseVarRef();
  }
  ErrorAt(token,
          fmt::format("expected an expression, found {}", Describe(token)));
  return nullptr;
}

ExprPtr Parser::ParseLiteral() {
  const Token token = Peek();
  SourceLoc loc = LocOf(token);
  AttrValue value;
  DType dtype = DType::kF32;
  if (token.kind == TokenKind::kInt) {
    int64_t v = 0;
    if (!ParseInt(v)) return nullptr;
    value = v;
    dtype = DType::kI64;
  } else if (token.Is("true") || token.Is("false")) {
    value = token.text == "true";
    dtype = DType::kBool;
    Skip();
  } else {
    double v = 0;
    if (!ParseFloat(v)) return nullptr;
    value = v;
  }
  if (Peek().Is(":") && Peek(1).kind == TokenKind::kIdent &&
      ParseDType(Peek(1).text)) {
    Skip();
    if (!ParseDTypeToken(dtype)) return nullptr;
  }
  auto expr = std::make_unique<Expr>();
  expr->op = OpKind::kConst;
  expr->type = Type::Scalar(dtype);
  expr->loc = loc;
  expr->attrs.push_back(Attr{"value", std::move(value)});
  return expr;
}

ExprPtr Parser::ParseVarRef() {
  const Token token = Peek();
  auto expr = std::make_unique<Expr>();
  expr->op = OpKind::kVar;
  expr->loc = LocOf(token);
  if (!ParseName(expr->name, "a value name")) return nullptr;
  if (Peek().Is(":") && AtTypeStart(1)) {
    Skip();
    if (!ParseType(expr->type)) return nullptr;
    return expr;
  }
  auto it = symbols_.find(expr->name);
  if (it == symbols_.end()) {
    ErrorAt(token, fmt::format("'{}' is not defined here; write '{}: TYPE' to "
                               "refer to it",
                               expr->name, expr->name));
    return nullptr;
  }
  expr->type = it->second;
  return expr;
}

ExprPtr Parser::ParseOpCall() {
  const Token name_token = Next();
  std::optional<OpKind> op = OpKindByName(name_token.text);
  if (!op || *op == OpKind::kVar) {
    std::vector<std::string> names;
    for (int i = 1; i < static_cast<int>(OpKind::kNumOps); ++i) {
      names.emplace_back(OpInfoOf(static_cast<OpKind>(i)).name);
    }
    std::string closest = ClosestName(name_token.text, names);
    ErrorAt(name_token, closest.empty()
                            ? fmt::format("unknown op '{}'", name_token.text)
                            : fmt::format("unknown op '{}'; did you mean '{}'?",
                                          name_token.text, closest));
    return nullptr;
  }
  const OpInfo& info = OpInfoOf(*op);
  auto expr = std::make_unique<Expr>();
  expr->op = *op;
  expr->loc = LocOf(name_token);
  Skip();  // '('
  if (!ParseExprList(expr->operands, ")")) return nullptr;
  if (info.has_indices && Peek().Is("[")) {
    if (!ParseIndices(expr->indices)) return nullptr;
  }
  if (!ParseOptionalAttrs(expr->attrs)) return nullptr;
  if (Peek().Is(":") && AtTypeStart(1)) {
    Skip();
    if (!ParseType(expr->type)) return nullptr;
    return expr;
  }
  auto inferred = InferType(*expr);
  if (!inferred.ok()) {
    ErrorAt(name_token, std::string(inferred.status().message()));
    return nullptr;
  }
  expr->type = *std::move(inferred);
  return expr;
}

bool Parser::ParseExprList(std::vector<ExprPtr>& exprs,
                           std::string_view close) {
  if (Accept(close)) return true;
  exprs.reserve(3);  // one allocation for the usual operand counts
  while (true) {
    ExprPtr expr = ParseExpr();
    if (!expr) return false;
    exprs.push_back(std::move(expr));
    if (Accept(close)) return true;
    if (!Accept(",")) {
      return ErrorAt(Peek(), fmt::format("expected ',' or '{}' in a list, "
                                         "found {}",
                                         close, Describe(Peek())));
    }
  }
}

bool Parser::ParseIndices(std::vector<Index>& indices) {
  if (!Expect("[", "to start indices")) return false;
  if (Accept("]")) return true;
  indices.reserve(4);  // one allocation for the usual ranks
  while (true) {
    Index index;
    if (!ParseIndex(index)) return false;
    indices.push_back(std::move(index));
    if (Accept("]")) return true;
    if (!Expect(",", "or ']' in indices")) return false;
  }
}

bool Parser::ParseIndex(Index& index) {
  if (Accept(":")) {
    index = Index(IndexKind::kSlice);
    return true;
  }
  if (AcceptWord("None")) {
    index = Index(IndexKind::kNewAxis);
    return true;
  }
  const Token token = Peek();
  bool call = token.kind == TokenKind::kIdent && Peek(1).Is("(");
  if (call && (token.text == "scalar" || token.text == "tile")) {
    IndexKind kind =
        token.text == "scalar" ? IndexKind::kScalar : IndexKind::kTile;
    Skip();
    Skip();
    ExprPtr expr = ParseExpr();
    if (!expr || !Expect(")", "to close the index")) return false;
    index = Index(kind, std::move(expr));
    return true;
  }
  if (call && token.text == "range") {
    Skip();
    Skip();
    ExprPtr expr = ParseExpr();
    Dim size;
    if (!expr || !Expect(",", "after the range begin") || !ParseDim(size) ||
        !Expect(")", "to close 'range('")) {
      return false;
    }
    index = Index(IndexKind::kRange, std::move(expr), std::move(size));
    return true;
  }
  if (token.kind == TokenKind::kIdent || token.kind == TokenKind::kString) {
    ExprPtr expr = ParseVarRef();
    if (!expr) return false;
    index = Index(IndexKind::kTile, std::move(expr));
    return true;
  }
  return ErrorAt(token, fmt::format("expected an index (a tile name, ':', "
                                    "None, scalar(...) or range(...)), "
                                    "found {}",
                                    Describe(token)));
}

bool Parser::ParseLoopDims(std::vector<LoopDim>& dims) {
  if (!Expect("(", "to start the loop dims")) return false;
  if (Accept(")")) return true;
  while (true) {
    LoopDim dim;
    if (!Accept("?")) {
      dim.begin = ParseExpr();
      if (!dim.begin) return false;
    }
    if (!Expect(":", "between begin and end")) return false;
    if (!Accept("?")) {
      dim.end = ParseExpr();
      if (!dim.end) return false;
    }
    if (!Expect(":", "between end and block size") || !ParseDim(dim.block)) {
      return false;
    }
    dims.push_back(std::move(dim));
    if (Accept(")")) return true;
    if (!Expect(",", "or ')' in loop dims")) return false;
  }
}

bool Parser::ParseOptionalLoc(SourceLoc& loc) {
  if (!Peek().Is("@")) return true;
  Skip();
  int64_t line = 0;
  int64_t col = 0;
  const Token line_token = Peek();
  if (!ParseInt(line) || !Expect(":", "in a location") || !ParseInt(col)) {
    return false;
  }
  if (line < 0 || col < 0 || line > UINT32_MAX || col > UINT32_MAX) {
    return ErrorAt(line_token, "location out of range");
  }
  loc = SourceLoc{static_cast<uint32_t>(line), static_cast<uint32_t>(col), 0};
  return true;
}

bool Parser::ParseBlock(Block& block) {
  DepthGuard guard(depth_);
  if (TooDeep()) return false;
  if (!Expect("{", "to start a block")) return false;
  bool ok = true;
  while (!Accept("}")) {
    if (AtEnd()) {
      return ErrorAt(Peek(),
                     "expected '}' to close the block, found end of "
                     "input");
    }
    if (GaveUp()) return false;
    size_t start = consumed_;
    Stmt stmt;
    if (ParseStmt(stmt)) {
      block.stmts.push_back(std::move(stmt));
    } else {
      ok = false;
      if (too_deep_) return false;
      Recover(start);
    }
  }
  return ok;
}

bool Parser::ParseStmt(Stmt& stmt) {
  const Token first = Peek();
  if (locate_in_tir_) stmt.loc = LocOf(first);
  bool keyword = first.kind == TokenKind::kIdent && !Peek(1).Is(":");
  if (keyword && (first.text == "store" || first.text == "atomic")) {
    stmt.kind = first.text == "store" ? StmtKind::kStore : StmtKind::kAtomic;
    Skip();
    if (!ParseOptionalAttrs(stmt.attrs)) return false;
    stmt.target = ParseExpr();
    if (!stmt.target || !ParseIndices(stmt.indices) ||
        !Expect("=", "before the stored value")) {
      return false;
    }
    stmt.value = ParseExpr();
    return stmt.value && ParseOptionalLoc(stmt.loc);
  }
  if (keyword && (first.text == "yield" || first.text == "return")) {
    stmt.kind = first.text == "yield" ? StmtKind::kYield : StmtKind::kReturn;
    Skip();
    if (!ParseOptionalAttrs(stmt.attrs)) return false;
    // The operand list ends with the line.
    while (!Peek().first_on_line && !Peek().Is("@") && !Peek().Is("}") &&
           !AtEnd()) {
      ExprPtr expr = ParseExpr();
      if (!expr) return false;
      stmt.operands.push_back(std::move(expr));
      if (!Accept(",")) break;
    }
    return ParseOptionalLoc(stmt.loc);
  }
  if (keyword && first.text == "for") return ParseLoop(stmt);
  if (keyword && first.text == "if") return ParseIf(stmt);
  if (keyword && first.text == "launch") return ParseLaunch(stmt);
  if (first.kind != TokenKind::kIdent && first.kind != TokenKind::kString) {
    return ErrorAt(
        first, fmt::format("expected a statement, found {}", Describe(first)));
  }
  // Results, then an assignment or a statement that produces them.
  while (true) {
    Value value;
    if (!ParseValueDef(value)) return false;
    stmt.results.push_back(std::move(value));
    if (!Accept(",")) break;
  }
  if (!ParseOptionalAttrs(stmt.attrs)) return false;
  if (!Expect("=", "after the defined values")) return false;
  const Token head = Peek();
  bool defines_results =
      head.kind == TokenKind::kIdent &&
      (head.text == "for" || head.text == "if" || head.text == "launch");
  if (defines_results) {
    if (!stmt.attrs.empty()) {
      return ErrorAt(head, fmt::format("attributes of a '{}' go after the "
                                       "keyword",
                                       head.text));
    }
    if (head.text == "for") return ParseLoop(stmt);
    if (head.text == "if") return ParseIf(stmt);
    return ParseLaunch(stmt);
  }
  stmt.kind = StmtKind::kAssign;
  if (stmt.results.size() != 1) {
    return ErrorAt(first, "an assignment defines exactly one value");
  }
  stmt.value = ParseExpr();
  if (!stmt.value || !ParseOptionalLoc(stmt.loc)) return false;
  Define(stmt.results[0]);
  return true;
}

bool Parser::ParseLoop(Stmt& stmt) {
  Skip();  // 'for'
  if (!ParseOptionalAttrs(stmt.attrs)) return false;
  while (true) {
    Value var;
    if (!ParseValueDef(var)) return false;
    stmt.vars.push_back(std::move(var));
    if (!Accept(",")) break;
  }
  if (!ExpectWord("in", "after the loop variables")) return false;
  const Token kind = Peek();
  if (AcceptWord("tile")) {
    stmt.kind = StmtKind::kTileLoop;
  } else if (AcceptWord("range")) {
    stmt.kind = StmtKind::kRangeLoop;
  } else {
    return ErrorAt(kind, fmt::format("expected 'tile' or 'range', found {}",
                                     Describe(kind)));
  }
  if (!ParseLoopDims(stmt.dims)) return false;
  if (AcceptWord("iter")) {
    if (!Expect("(", "after 'iter'")) return false;
    while (true) {
      Value arg;
      if (!ParseValueDef(arg) || !Expect("=", "before the initial value")) {
        return false;
      }
      ExprPtr init = ParseExpr();
      if (!init) return false;
      stmt.iter_args.push_back(std::move(arg));
      stmt.inits.push_back(std::move(init));
      if (Accept(")")) break;
      if (!Expect(",", "or ')' in iter")) return false;
    }
  }
  if (AtAttrs()) {
    if (!stmt.attrs.empty()) {
      return ErrorAt(Peek(), "loop attributes are given twice");
    }
    if (!ParseAttrs(stmt.attrs)) return false;
  }
  if (!ParseOptionalLoc(stmt.loc)) return false;
  for (const Value& var : stmt.vars) Define(var);
  for (const Value& arg : stmt.iter_args) Define(arg);
  stmt.regions.emplace_back();
  bool ok = ParseBlock(stmt.regions[0]);
  for (const Value& result : stmt.results) Define(result);
  return ok;
}

bool Parser::ParseIf(Stmt& stmt) {
  stmt.kind = StmtKind::kIf;
  Skip();  // 'if'
  if (!ParseOptionalAttrs(stmt.attrs)) return false;
  stmt.value = ParseExpr();
  if (!stmt.value || !ParseOptionalLoc(stmt.loc)) return false;
  stmt.regions.emplace_back();
  bool ok = ParseBlock(stmt.regions.back());
  // The else block is parsed even when the then block had errors, so its
  // own errors are reported too.
  if (!too_deep_ && AcceptWord("else")) {
    stmt.regions.emplace_back();
    ok = ParseBlock(stmt.regions.back()) && ok;
  }
  for (const Value& result : stmt.results) Define(result);
  return ok;
}

bool Parser::ParseLaunch(Stmt& stmt) {
  stmt.kind = StmtKind::kLaunch;
  Skip();  // 'launch'
  std::vector<Attr> leading;
  if (!ParseOptionalAttrs(leading)) return false;
  if (Accept("@")) {
    std::string callee;
    if (!ParseName(callee, "the launched function's name")) return false;
    stmt.attrs.push_back(Attr{"callee", std::move(callee)});
  }
  for (Attr& attr : leading) stmt.attrs.push_back(std::move(attr));
  if (!ExpectWord("grid", "in a launch") || !ParseLoopDims(stmt.dims) ||
      !Expect("(", "to start the launch arguments") ||
      !ParseExprList(stmt.operands, ")")) {
    return false;
  }
  if (AtAttrs()) {
    std::vector<Attr> trailing;
    if (!ParseAttrs(trailing)) return false;
    for (Attr& attr : trailing) {
      if (FindAttr(stmt.attrs, attr.name) != nullptr) {
        return ErrorAt(Peek(),
                       fmt::format("duplicate attribute '{}'", attr.name));
      }
      stmt.attrs.push_back(std::move(attr));
    }
  }
  if (!ParseOptionalLoc(stmt.loc)) return false;
  for (const Value& result : stmt.results) Define(result);
  return true;
}

bool Parser::ParseFunction(Function& function) {
  // absl's clear() frees large tables; erasing keeps the capacity, so the
  // table is not regrown (rehashed) once per function.
  symbols_.erase(symbols_.begin(), symbols_.end());
  const Token func = Peek();
  if (locate_in_tir_) function.loc = LocOf(func);
  if (!ExpectWord("func", "to start a function")) return false;
  const Token kind = Peek();
  if (AcceptWord("kernel")) {
    function.kind = FunctionKind::kKernel;
  } else if (AcceptWord("host")) {
    function.kind = FunctionKind::kHost;
  } else if (AcceptWord("device")) {
    function.kind = FunctionKind::kDevice;
  } else {
    return ErrorAt(kind, fmt::format("expected 'kernel', 'host' or 'device', "
                                     "found {}",
                                     Describe(kind)));
  }
  if (!Expect("@", "before the function name") ||
      !ParseName(function.name, "a function name") ||
      !Expect("(", "to start the parameters")) {
    return false;
  }
  if (!Accept(")")) {
    while (true) {
      Value param;
      if (!ParseValueDef(param)) return false;
      Define(param);
      function.params.push_back(std::move(param));
      if (Accept(")")) break;
      if (!Expect(",", "or ')' in the parameters")) return false;
    }
  }
  if (Accept("->")) {
    if (!Expect("(", "to start the result types")) return false;
    if (!Accept(")")) {
      while (true) {
        Type type;
        if (!ParseType(type)) return false;
        function.result_types.push_back(std::move(type));
        if (Accept(")")) break;
        if (!Expect(",", "or ')' in the result types")) return false;
      }
    }
  }
  if (!ParseOptionalAttrs(function.attrs) || !ParseOptionalLoc(function.loc)) {
    return false;
  }
  return ParseBlock(function.body);
}

bool Parser::ParseModuleHeader(Module& module) {
  Skip();  // 'module'
  const Token file = Peek();
  if (file.kind != TokenKind::kString) {
    return ErrorAt(file, fmt::format("expected the source file as a string, "
                                     "found {}",
                                     Describe(file)));
  }
  if (!ParseName(module.source_file, "a string")) return false;
  if (AcceptWord("properties")) {
    if (!Expect("[", "after 'properties'")) return false;
    if (!Accept("]")) {
      while (true) {
        const Token name = Peek();
        std::string property_name;
        if (!ParseName(property_name, "a property name")) return false;
        std::optional<Property> property = PropertyByName(property_name);
        if (!property) {
          std::vector<std::string> names;
          for (int i = 0; i < static_cast<int>(Property::kNumProperties); ++i) {
            names.emplace_back(PropertyName(static_cast<Property>(i)));
          }
          std::string closest = ClosestName(property_name, names);
          return ErrorAt(
              name, closest.empty()
                        ? fmt::format("unknown property '{}'", property_name)
                        : fmt::format("unknown property '{}'; did you mean "
                                      "'{}'?",
                                      property_name, closest));
        }
        module.properties.Insert(*property);
        if (Accept("]")) break;
        if (!Expect(",", "or ']' in properties")) return false;
      }
    }
  }
  return ParseOptionalAttrs(module.attrs);
}

bool Parser::ParseModule(Module& module) {
  if (Peek().Is("module")) {
    size_t start = consumed_;
    if (!ParseModuleHeader(module)) Recover(start);
  } else {
    module.source_file = std::string(filename_);
    locate_in_tir_ = true;
  }
  while (!AtEnd() && !GaveUp()) {
    size_t start = consumed_;
    Function function;
    if (ParseFunction(function)) {
      module.functions.push_back(std::move(function));
      continue;
    }
    if (too_deep_) break;
    // Resume at the next function.
    if (consumed_ == start) Next();
    while (!AtEnd() && !(Peek().first_on_line && Peek().Is("func"))) Next();
  }
  return errors_ == 0;
}

bool Parser::ParseTypeOnly(Type& type) {
  if (!ParseType(type)) return false;
  if (!AtEnd()) {
    return ErrorAt(
        Peek(), fmt::format("unexpected {} after the type", Describe(Peek())));
  }
  return true;
}

}  // namespace

absl::StatusOr<Module> ParseModule(std::string_view text,
                                   std::string_view filename,
                                   DiagnosticEngine& diagnostics) {
  diagnostics.AddSource(std::string(filename), std::string(text));
  Parser parser(text, filename, diagnostics);
  Module module;
  if (!parser.ParseModule(module)) {
    return absl::InvalidArgumentError(
        parser.errors() == 1
            ? parser.first_error()
            : fmt::format("{} (and {} more errors)", parser.first_error(),
                          parser.errors() - 1));
  }
  return module;
}

absl::StatusOr<Type> ParseType(std::string_view text) {
  DiagnosticEngine diagnostics;
  Parser parser(text, "<type>", diagnostics);
  Type type;
  if (!parser.ParseTypeOnly(type)) {
    const Diagnostic& first = diagnostics.diagnostics().front();
    return absl::InvalidArgumentError(
        fmt::format("invalid type '{}': {} (at column {})", text, first.message,
                    first.loc.col));
  }
  return type;
}

}  // namespace tessera
