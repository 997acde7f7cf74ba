// The parser's expressions: literals, value references, op calls, index
// lists, loop dims and `@line:col` locations.
#include <cstdint>

#include "ir/parser_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::text {

namespace {
// Decimal digits (as the lexer checked) that fit in 32 bits.
bool ParseUint32(std::string_view digits, uint32_t& value) {
  if (digits.empty() || digits.size() > 10) return false;
  uint64_t result = 0;
  for (char c : digits) result = result * 10 + static_cast<uint64_t>(c - '0');
  if (result > UINT32_MAX) return false;
  value = static_cast<uint32_t>(result);
  return true;
}
}  // namespace

ExprPtr Parser::ParseExpr() {
  DepthGuard guard(depth_);
  if (TooDeep()) return nullptr;
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return ParseLiteral();
    case TokenKind::kString:
      return ParseVarRef();
    case TokenKind::kIdent:
      if (token.Is("true") || token.Is("false") || token.Is("inf") ||
          token.Is("nan")) {
        return ParseLiteral();
      }
      if (Peek(1).Is("(")) return ParseOpCall();
      return ParseVarRef();
    default:
      break;
  }
  ErrorAt(Peek(),
          fmt::format("expected an expression, found {}", Describe(Peek())));
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
  return MakeConst(std::move(value), dtype, loc);
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
  auto it = symbols_.find(std::string_view(expr->name));
  if (it == symbols_.end()) {
    ErrorAt(token, fmt::format("'{}' is not defined here; write '{}: TYPE' to "
                               "refer to it",
                               expr->name, expr->name));
    return nullptr;
  }
  expr->type = *it->second;
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

bool Parser::ParseExprList(ExprList& exprs, std::string_view close) {
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

bool Parser::ParseIndices(IndexList& indices) {
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
  if (call && (token.text == "scalar" || token.text == "tile" ||
               token.text == "gather" || token.text == "shifted")) {
    IndexKind kind = token.text == "scalar"   ? IndexKind::kScalar
                     : token.text == "tile"   ? IndexKind::kTile
                     : token.text == "gather" ? IndexKind::kGather
                                              : IndexKind::kShiftedTile;
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
  return ErrorAt(token,
                 fmt::format("expected an index (a tile name, ':', "
                             "None, scalar(...), range(...), gather(...) or "
                             "shifted(...)), "
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
  if (Peek().kind == TokenKind::kLoc) {
    const Token& token = Peek();
    const size_t colon = token.text.find(':');
    uint32_t line = 0;
    uint32_t col = 0;
    // An error points at the number that does not fit.
    auto out_of_range = [&](size_t offset) {
      Token number = token;
      number.col += static_cast<uint32_t>(offset);
      return ErrorAt(number, "location out of range");
    };
    if (!ParseUint32(token.text.substr(1, colon - 1), line)) {
      return out_of_range(1);
    }
    if (!ParseUint32(token.text.substr(colon + 1), col)) {
      return out_of_range(colon + 1);
    }
    loc = SourceLoc{line, col, 0};
    Skip();
    return true;
  }
  // A malformed location ('@' then something other than `INT:INT`) is
  // parsed piece by piece, so the error names the piece.
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

}  // namespace tessera::text
