// Expressions, by precedence level, down to atoms.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#include "parser_internal.h"

namespace tessera::helion_py {
namespace parser_internal {

bool Parser::CheckDepth() {
  if (depth_ <= kMaxNestingDepth) return true;
  if (!depth_error_reported_) {
    ErrorAt(Peek(), "expression is nested too deeply (limit " +
                        std::to_string(kMaxNestingDepth) + ")");
  }
  depth_error_reported_ = true;
  return false;
}

NodePtr Parser::Finish(NodePtr node) {
  uint32_t below = 0;
  for (const NodePtr& child : node->children) {
    if (child) below = std::max(below, child->height);
  }
  for (const Keyword& keyword : node->keywords) {
    if (keyword.value) below = std::max(below, keyword.value->height);
  }
  if (node->lambda) {
    for (const Param& param : node->lambda->params) {
      if (param.default_value) {
        below = std::max(below, param.default_value->height);
      }
    }
  }
  node->height = below + 1;
  if (node->height <= kMaxExpressionHeight) return node;
  if (!depth_error_reported_) {
    Error(node->loc,
          "expression is too deep: more than " +
              std::to_string(kMaxExpressionHeight) +
              " nested operations, calls or subscripts; split it into "
              "several statements");
  }
  depth_error_reported_ = true;
  return nullptr;
}

NodePtr Parser::MakeNode(NodeKind kind, const Token& start) {
  auto node = std::make_unique<Node>();
  node->kind = kind;
  node->loc = Span(start);
  return node;
}

NodePtr Parser::ParseTargetList() {
  const Token& start = Peek();
  std::vector<NodePtr> elements;
  bool trailing_comma = false;
  do {
    if (Peek().IsName("in")) break;
    NodePtr element = ParseBinary(0);  // not a comparison: `in` follows
    if (!element) return nullptr;
    elements.push_back(std::move(element));
    trailing_comma = Peek().IsOp(",");
  } while (AcceptOp(","));
  if (elements.size() == 1 && !trailing_comma) return std::move(elements[0]);
  NodePtr tuple = MakeNode(NodeKind::kTuple, start);
  tuple->children = std::move(elements);
  return Finish(std::move(tuple));
}

NodePtr Parser::ParseTestList() {
  const Token& start = Peek();
  NodePtr first = ParseNamedTest();
  if (!first) return nullptr;
  if (!Peek().IsOp(",")) return first;
  NodePtr tuple = std::make_unique<Node>();
  tuple->kind = NodeKind::kTuple;
  tuple->children.push_back(std::move(first));
  while (AcceptOp(",")) {
    if (AtStatementEnd() || Peek().IsOp("=") || Peek().IsOp(")") ||
        Peek().IsOp(":") || Peek().IsName("in"))
      break;
    NodePtr element = ParseNamedTest();
    if (!element) return nullptr;
    tuple->children.push_back(std::move(element));
  }
  tuple->loc = Span(start);
  return Finish(std::move(tuple));
}

NodePtr Parser::ParseNamedTest() {
  NodePtr test = ParseTest();
  if (test && Peek().IsOp(":=")) {
    ErrorAt(Peek(),
            "assignment expressions (':=') are not supported in a kernel");
    return nullptr;
  }
  return test;
}

NodePtr Parser::ParseTest() {
  DepthGuard guard(depth_);
  if (!CheckDepth()) return nullptr;
  const Token& start = Peek();
  if (start.IsName("lambda")) return ParseLambda();
  NodePtr body = ParseOr();
  if (!body) return nullptr;
  if (!Peek().IsName("if")) return body;
  Next();
  NodePtr test = ParseOr();
  if (!test) return nullptr;
  if (!AcceptName("else")) {
    ErrorAt(Peek(), "expected 'else' in a conditional expression");
    return nullptr;
  }
  NodePtr orelse = ParseTest();
  if (!orelse) return nullptr;
  NodePtr node = MakeNode(NodeKind::kIfExp, start);
  node->children.push_back(std::move(body));
  node->children.push_back(std::move(test));
  node->children.push_back(std::move(orelse));
  return Finish(std::move(node));
}

// `*expr` inside a list / tuple display or a call's arguments.
NodePtr Parser::ParseStarred() {
  const Token& star = Next();
  NodePtr operand = ParseBinary(0);
  if (!operand) return nullptr;
  NodePtr node = MakeNode(NodeKind::kStarred, star);
  node->children.push_back(std::move(operand));
  node->loc = Span(star);
  return Finish(std::move(node));
}

// lambda a, b=1: body. Parameters are plain names with optional defaults
// (no *args, **kwargs or annotations, which lambdas cannot have anyway).
NodePtr Parser::ParseLambda() {
  const Token& start = Next();  // 'lambda'
  NodePtr node = MakeNode(NodeKind::kLambda, start);
  auto params = std::make_unique<LambdaParams>();
  while (!Peek().IsOp(":")) {
    if (Peek().kind != TokenKind::kName || IsKeyword(Peek().text)) {
      ErrorAt(Peek(), "expected a parameter name in a lambda");
      return nullptr;
    }
    for (const Param& other : params->params) {
      if (other.name == Peek().text) {
        ErrorAt(Peek(), "duplicate argument '" + other.name +
                            "' in function definition");
        return nullptr;
      }
    }
    Param param;
    param.loc = LocOf(Peek());
    param.name = std::string(Next().text);
    if (AcceptOp("=")) {
      param.default_value = ParseTest();
      if (!param.default_value) return nullptr;
    } else if (!params->params.empty() && params->params.back().default_value) {
      Error(param.loc, "parameter '" + param.name +
                           "' without a default follows parameter '" +
                           params->params.back().name + "' with a default");
      return nullptr;
    }
    params->params.push_back(std::move(param));
    if (!AcceptOp(",")) break;
  }
  if (!ExpectOp(":")) return nullptr;
  NodePtr body = ParseTest();
  if (!body) return nullptr;
  node->children.push_back(std::move(body));
  node->lambda = std::move(params);
  node->loc = Span(start);
  return Finish(std::move(node));
}

NodePtr Parser::ParseBoolOp(bool is_or) {
  const Token& start = Peek();
  NodePtr first = is_or ? ParseBoolOp(false) : ParseNot();
  if (!first) return nullptr;
  std::string_view keyword = is_or ? "or" : "and";
  if (!Peek().IsName(keyword)) return first;
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::kBoolOp;
  node->op = is_or ? 1 : 0;
  node->children.push_back(std::move(first));
  while (AcceptName(keyword)) {
    NodePtr next = is_or ? ParseBoolOp(false) : ParseNot();
    if (!next) return nullptr;
    node->children.push_back(std::move(next));
  }
  node->loc = Span(start);
  return Finish(std::move(node));
}

NodePtr Parser::ParseNot() {
  const Token& start = Peek();
  if (AcceptName("not")) {
    DepthGuard guard(depth_);
    if (!CheckDepth()) return nullptr;
    NodePtr operand = ParseNot();
    if (!operand) return nullptr;
    NodePtr node = MakeNode(NodeKind::kUnary, start);
    node->op = static_cast<uint8_t>(UnaryOp::kNot);
    node->children.push_back(std::move(operand));
    return Finish(std::move(node));
  }
  return ParseComparison();
}

bool Parser::AcceptCompareOp(CompareOp& op) {
  const Token& token = Peek();
  static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
      {"<", CompareOp::kLt},  {"<=", CompareOp::kLe}, {">", CompareOp::kGt},
      {">=", CompareOp::kGe}, {"==", CompareOp::kEq}, {"!=", CompareOp::kNe}};
  for (const auto& [text, value] : kOps) {
    if (token.IsOp(text)) {
      Next();
      op = value;
      return true;
    }
  }
  if (token.IsName("in")) {
    Next();
    op = CompareOp::kIn;
    return true;
  }
  if (token.IsName("not") && Peek(1).IsName("in")) {
    pos_ += 2;
    op = CompareOp::kNotIn;
    return true;
  }
  if (token.IsName("is")) {
    Next();
    op = AcceptName("not") ? CompareOp::kIsNot : CompareOp::kIs;
    return true;
  }
  return false;
}

NodePtr Parser::ParseComparison() {
  const Token& start = Peek();
  NodePtr first = ParseBinary(0);
  if (!first) return nullptr;
  CompareOp op;
  if (!AcceptCompareOp(op)) return first;
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::kCompare;
  node->children.push_back(std::move(first));
  do {
    node->compare_ops.push_back(op);
    NodePtr next = ParseBinary(0);
    if (!next) return nullptr;
    node->children.push_back(std::move(next));
  } while (AcceptCompareOp(op));
  node->loc = Span(start);
  return Finish(std::move(node));
}

namespace {

struct BinaryOperator {
  int level;  // 0 binds loosest: | ^ & shifts + * (all left-associative)
  BinaryOp op;
};

std::optional<BinaryOperator> BinaryOperatorOf(const Token& token) {
  if (token.kind != TokenKind::kOp || token.text.empty()) return std::nullopt;
  const std::string_view text = token.text;
  if (text.size() == 2) {
    if (text == "<<") return BinaryOperator{3, BinaryOp::kShl};
    if (text == ">>") return BinaryOperator{3, BinaryOp::kShr};
    if (text == "//") return BinaryOperator{5, BinaryOp::kFloorDiv};
    return std::nullopt;
  }
  if (text.size() != 1) return std::nullopt;
  switch (text[0]) {
    case '|':
      return BinaryOperator{0, BinaryOp::kBitOr};
    case '^':
      return BinaryOperator{1, BinaryOp::kBitXor};
    case '&':
      return BinaryOperator{2, BinaryOp::kBitAnd};
    case '+':
      return BinaryOperator{4, BinaryOp::kAdd};
    case '-':
      return BinaryOperator{4, BinaryOp::kSub};
    case '*':
      return BinaryOperator{5, BinaryOp::kMul};
    case '/':
      return BinaryOperator{5, BinaryOp::kDiv};
    case '%':
      return BinaryOperator{5, BinaryOp::kMod};
    case '@':
      return BinaryOperator{5, BinaryOp::kMatMul};
    default:
      return std::nullopt;
  }
}

}  // namespace

// Precedence climbing: one call per operand rather than one per
// precedence level and operand.
NodePtr Parser::ParseBinary(int min_level) {
  const Token& start = Peek();
  NodePtr lhs = ParseUnary();
  if (!lhs) return nullptr;
  while (true) {
    std::optional<BinaryOperator> matched = BinaryOperatorOf(Peek());
    if (!matched || matched->level < min_level) return lhs;
    Next();
    NodePtr rhs = ParseBinary(matched->level + 1);
    if (!rhs) return nullptr;
    NodePtr node = MakeNode(NodeKind::kBinary, start);
    node->op = static_cast<uint8_t>(matched->op);
    node->children.push_back(std::move(lhs));
    node->children.push_back(std::move(rhs));
    lhs = Finish(std::move(node));
    if (!lhs) return nullptr;
  }
}

NodePtr Parser::ParseUnary() {
  const Token& start = Peek();
  UnaryOp op;
  if (start.IsOp("-"))
    op = UnaryOp::kNeg;
  else if (start.IsOp("+"))
    op = UnaryOp::kPos;
  else if (start.IsOp("~"))
    op = UnaryOp::kInvert;
  else
    return ParsePower();
  DepthGuard guard(depth_);
  if (!CheckDepth()) return nullptr;
  Next();
  NodePtr operand = ParseUnary();
  if (!operand) return nullptr;
  NodePtr node = MakeNode(NodeKind::kUnary, start);
  node->op = static_cast<uint8_t>(op);
  node->children.push_back(std::move(operand));
  return Finish(std::move(node));
}

NodePtr Parser::ParsePower() {
  const Token& start = Peek();
  if (start.IsName("await")) {
    ErrorAt(start, "'await' is not supported in a kernel");
    return nullptr;
  }
  NodePtr base = ParsePrimary();
  if (!base) return nullptr;
  if (!AcceptOp("**")) return base;
  DepthGuard guard(depth_);
  if (!CheckDepth()) return nullptr;
  NodePtr exponent = ParseUnary();
  if (!exponent) return nullptr;
  NodePtr node = MakeNode(NodeKind::kBinary, start);
  node->op = static_cast<uint8_t>(BinaryOp::kPow);
  node->children.push_back(std::move(base));
  node->children.push_back(std::move(exponent));
  return Finish(std::move(node));
}

NodePtr Parser::ParsePrimary() {
  const Token& start = Peek();
  NodePtr node = ParseAtom();
  if (!node) return nullptr;
  while (true) {
    if (AcceptOp(".")) {
      if (Peek().kind != TokenKind::kName) {
        ErrorAt(Peek(), "expected an attribute name after '.'");
        return nullptr;
      }
      Next();
      NodePtr attribute = MakeNode(NodeKind::kAttribute, start);
      attribute->text = std::string(last_->text);
      attribute->children.push_back(std::move(node));
      node = Finish(std::move(attribute));
    } else if (AcceptOp("(")) {
      NodePtr call = std::make_unique<Node>();
      call->kind = NodeKind::kCall;
      call->children.push_back(std::move(node));
      if (!ParseArguments(*call)) return nullptr;
      call->loc = Span(start);
      node = Finish(std::move(call));
    } else if (AcceptOp("[")) {
      NodePtr subscript = std::make_unique<Node>();
      subscript->kind = NodeKind::kSubscript;
      subscript->children.push_back(std::move(node));
      if (!ParseSubscripts(*subscript)) return nullptr;
      subscript->loc = Span(start);
      node = Finish(std::move(subscript));
    } else {
      return node;
    }
    if (!node) return nullptr;
  }
}

bool Parser::ParseArguments(Node& call) {
  while (!Peek().IsOp(")")) {
    if (Peek().IsOp("**")) {
      ErrorAt(Peek(),
              "keyword argument unpacking is not supported in a kernel");
      return false;
    }
    if (Peek().IsOp("*")) {
      if (!call.keywords.empty()) {
        ErrorAt(Peek(), "iterable argument unpacking follows keyword argument");
        return false;
      }
      NodePtr starred = ParseStarred();
      if (!starred) return false;
      call.children.push_back(std::move(starred));
      if (!AcceptOp(",")) break;
      continue;
    }
    if (Peek().kind == TokenKind::kName && Peek(1).IsOp("=")) {
      Keyword keyword;
      keyword.loc = LocOf(Peek());
      keyword.name = std::string(Next().text);
      Next();  // '='
      keyword.value = ParseTest();
      if (!keyword.value) return false;
      call.keywords.push_back(std::move(keyword));
    } else {
      if (!call.keywords.empty()) {
        ErrorAt(Peek(), "positional argument follows keyword argument");
        return false;
      }
      NodePtr argument = ParseNamedTest();
      if (!argument) return false;
      if (Peek().IsName("for")) {
        ErrorAt(Peek(), "generator expressions are not supported in a kernel");
        return false;
      }
      call.children.push_back(std::move(argument));
    }
    if (!AcceptOp(",")) break;
  }
  return ExpectOp(")");
}

bool Parser::ParseSubscripts(Node& subscript) {
  while (!Peek().IsOp("]")) {
    const Token& start = Peek();
    NodePtr index;
    if (!Peek().IsOp(":")) {
      index = ParseTest();
      if (!index) return false;
    }
    if (Peek().IsOp(":")) {
      NodePtr slice = std::make_unique<Node>();
      slice->kind = NodeKind::kSlice;
      slice->children.resize(3);
      slice->children[0] = std::move(index);
      Next();
      if (!Peek().IsOp(":") && !Peek().IsOp(",") && !Peek().IsOp("]")) {
        slice->children[1] = ParseTest();
        if (!slice->children[1]) return false;
      }
      if (AcceptOp(":") && !Peek().IsOp(",") && !Peek().IsOp("]")) {
        slice->children[2] = ParseTest();
        if (!slice->children[2]) return false;
      }
      slice->loc = Span(start);
      index = Finish(std::move(slice));
      if (!index) return false;
    }
    subscript.children.push_back(std::move(index));
    if (!AcceptOp(",")) break;
  }
  if (subscript.children.size() == 1) {
    ErrorAt(Peek(), "expected an index");
    return false;
  }
  return ExpectOp("]");
}

NodePtr Parser::ParseNumber(const Token& token) {
  std::string text;
  for (char c : token.text) {
    if (c != '_') text += c;
  }
  NodePtr node = MakeNode(NodeKind::kInt, token);
  bool hex =
      text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!text.empty() && (text.back() == 'j' || text.back() == 'J')) {
    ErrorAt(token, "complex numbers are not supported in a kernel");
    return nullptr;
  }
  bool is_float = !hex && text.find_first_of(".eE") != std::string::npos;
  errno = 0;
  char* end = nullptr;
  if (is_float) {
    node->kind = NodeKind::kFloat;
    node->float_value = std::strtod(text.c_str(), &end);
  } else {
    int base = 10;
    const char* begin = text.c_str();
    if (text.size() > 1 && text[0] == '0' &&
        std::isalpha(static_cast<unsigned char>(text[1]))) {
      char b =
          static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])));
      base = b == 'x' ? 16 : b == 'o' ? 8 : b == 'b' ? 2 : 0;
      begin += 2;
    }
    if (base == 0) {
      ErrorAt(token, "invalid number '" + std::string(token.text) + "'");
      return nullptr;
    }
    node->int_value = std::strtoll(begin, &end, base);
  }
  if (end == nullptr || *end != '\0' || text.empty()) {
    ErrorAt(token, "invalid number '" + std::string(token.text) + "'");
    return nullptr;
  }
  if (errno == ERANGE && !is_float) {
    ErrorAt(token, "integer literal '" + std::string(token.text) +
                       "' does not fit in 64 bits");
    return nullptr;
  }
  return node;
}

std::string Parser::StringValue(std::string_view text) {
  size_t quote = text.find_first_of("\"'");
  if (quote == std::string_view::npos) return {};
  std::string_view body = text.substr(quote);
  size_t width =
      body.size() >= 6 && body[1] == body[0] && body[2] == body[0] ? 3 : 1;
  if (body.size() < 2 * width) return {};
  return std::string(body.substr(width, body.size() - 2 * width));
}

NodePtr Parser::ParseAtom() {
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kName: {
      if (token.IsName("True") || token.IsName("False")) {
        Next();
        NodePtr node = MakeNode(NodeKind::kBool, token);
        node->int_value = token.IsName("True") ? 1 : 0;
        return node;
      }
      if (token.IsName("None")) {
        Next();
        return MakeNode(NodeKind::kNone, token);
      }
      if (IsKeyword(token.text)) {
        ErrorAt(token, "unexpected keyword '" + std::string(token.text) + "'");
        return nullptr;
      }
      Next();
      NodePtr node = MakeNode(NodeKind::kName, token);
      node->text = std::string(token.text);
      return node;
    }
    case TokenKind::kNumber:
      Next();
      return ParseNumber(token);
    case TokenKind::kString: {
      Next();
      NodePtr node = MakeNode(NodeKind::kString, token);
      node->text = StringValue(token.text);
      while (Peek().kind == TokenKind::kString) {
        node->text += StringValue(Next().text);
      }
      node->loc = Span(token);
      return node;
    }
    case TokenKind::kOp:
      break;
    default:
      ErrorAt(token, token.kind == TokenKind::kError
                         ? "invalid character " + Describe(token)
                         : "expected an expression, found " + Describe(token));
      return nullptr;
  }
  if (token.IsOp("...")) {
    Next();
    return MakeNode(NodeKind::kEllipsis, token);
  }
  if (token.IsOp("(") || token.IsOp("[")) {
    bool is_list = token.IsOp("[");
    std::string_view close = is_list ? "]" : ")";
    Next();
    std::vector<NodePtr> elements;
    bool comma = false;
    while (!Peek().IsOp(close)) {
      NodePtr element = Peek().IsOp("*") ? ParseStarred() : ParseNamedTest();
      if (!element) return nullptr;
      if (Peek().IsName("for") || Peek().IsName("async")) {
        ErrorAt(Peek(), "comprehensions are not supported in a kernel");
        return nullptr;
      }
      elements.push_back(std::move(element));
      comma = Peek().IsOp(",");
      if (!AcceptOp(",")) break;
    }
    if (!ExpectOp(close)) return nullptr;
    if (!is_list && elements.size() == 1 && !comma) {
      NodePtr inner = std::move(elements[0]);
      inner->loc = Span(token);  // include the parentheses
      return inner;
    }
    NodePtr node =
        MakeNode(is_list ? NodeKind::kList : NodeKind::kTuple, token);
    node->children = std::move(elements);
    return Finish(std::move(node));
  }
  if (token.IsOp("{")) {
    ErrorAt(token, "dict and set displays are not supported in a kernel");
    return nullptr;
  }
  ErrorAt(token, "expected an expression, found " + Describe(token));
  return nullptr;
}

}  // namespace parser_internal
}  // namespace tessera::helion_py
