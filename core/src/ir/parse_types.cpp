// The parser's leaves: names, numbers, dims, types and attribute lists.
#include <charconv>
#include <cmath>

#include "ir/parser_internal.h"
#include "ir/text_common.h"

namespace tessera::text {

bool Parser::ParseName(std::string& name, std::string_view what) {
  const Token& token = Peek();
  if (token.kind == TokenKind::kIdent) {
    name.assign(token.text);
    Skip();
    return true;
  }
  if (token.kind == TokenKind::kString) {
    const char* error = nullptr;
    if (!DecodeString(token.text, name, &error)) {
      return ErrorAt(token, error);
    }
    Skip();
    return true;
  }
  return ErrorAt(token,
                 fmt::format("expected {}, found {}", what, Describe(token)));
}

bool Parser::ParseInt(int64_t& value) {
  const Token& token = Peek();
  if (token.kind != TokenKind::kInt) {
    return ErrorAt(
        token, fmt::format("expected an integer, found {}", Describe(token)));
  }
  // Up to 18 digits cannot overflow: the common case (locations, dims,
  // attribute values) skips from_chars' overflow checks.
  const std::string_view digits =
      token.text[0] == '-' ? token.text.substr(1) : token.text;
  if (digits.size() <= 18) {
    int64_t magnitude = 0;
    for (char c : digits) magnitude = magnitude * 10 + (c - '0');
    value = token.text[0] == '-' ? -magnitude : magnitude;
    Skip();
    return true;
  }
  auto [end, ec] = std::from_chars(
      token.text.data(), token.text.data() + token.text.size(), value);
  if (ec != std::errc() || end != token.text.data() + token.text.size()) {
    return ErrorAt(token, "integer literal out of range");
  }
  Skip();
  return true;
}

bool Parser::ParseFloat(double& value) {
  const Token& token = Peek();
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

bool Parser::ParseDim(Dim& dim) {
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
    dim.size = Dim::kSymbolic;
    return ParseName(dim.symbol, "a dim");
  }
  return ErrorAt(token, fmt::format("expected a dim (integer or name), "
                                    "found {}",
                                    Describe(token)));
}

bool Parser::ParseShape(Shape& shape) {
  if (!Expect("[", "to start a shape")) return false;
  if (Accept("]")) return true;
  // Dims are collected on the stack first so the shape is allocated once at
  // its exact size (most ranks are 1 or 2).
  constexpr size_t kInline = 4;
  std::array<Dim, kInline> inline_dims;
  size_t count = 0;
  while (true) {
    Dim dim;
    if (!ParseDim(dim)) return false;
    if (count < kInline) {
      inline_dims[count] = std::move(dim);
    } else {
      if (count == kInline) {
        shape.reserve(2 * kInline);
        for (Dim& d : inline_dims) shape.push_back(std::move(d));
      }
      shape.push_back(std::move(dim));
    }
    ++count;
    if (Accept("]")) break;
    if (!Expect(",", "or ']' in a shape")) return false;
  }
  if (count <= kInline) {
    shape.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      shape.push_back(std::move(inline_dims[i]));
    }
  }
  return true;
}

bool Parser::AtTypeStart(size_t ahead) {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kIdent && IsTypeStart(token.text);
}

bool Parser::ParseDTypeToken(DType& dtype) {
  const Token& token = Peek();
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

bool Parser::ParseType(Type& type) {
  const Token& token = Peek();
  std::optional<DType> parsed;
  if (token.kind == TokenKind::kIdent) parsed = ParseDType(token.text);
  if (parsed) {
    Skip();
    type.dtype = *parsed;
    type.shape.clear();
    if (Peek().Is("[")) {
      type.kind = TypeKind::kTensor;
      return ParseShape(type.shape);
    }
    type.kind = TypeKind::kScalar;
    return true;
  }
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
    Shape shape;
    if (!Expect("<", "after 'ref'") || !ParseDTypeToken(dtype) ||
        !ParseShape(shape) || !Expect(">", "to close 'ref<'")) {
      return false;
    }
    type = Type::Ref(dtype, std::move(shape));
    return true;
  }
  return ErrorAt(Peek(),
                 fmt::format("expected a type, found {}", Describe(Peek())));
}

bool Parser::ParseAttrValue(AttrValue& value) {
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
    Shape dims;
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

bool Parser::ParseAttrs(AttrList& attrs) {
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

}  // namespace tessera::text
