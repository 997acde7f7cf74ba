#include "python_literal.h"

#include <charconv>
#include <cmath>
#include <set>
#include <system_error>

namespace tessera::helion_py {

std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value < 0 ? "float('-inf')" : "float('inf')";
  char buffer[64];
  // Shortest round-trip digits, as d.ddde[+-]XX.
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                    std::chars_format::scientific);
  if (error != std::errc()) return std::to_string(value);
  std::string text(buffer, end);
  std::string sign;
  if (!text.empty() && text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  size_t e_pos = text.find('e');
  std::string mantissa = text.substr(0, e_pos);
  int exponent = std::stoi(text.substr(e_pos + 1));
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  if (exponent >= -4 && exponent < 16) {
    const int point = exponent + 1;  // digits before the decimal point
    const int count = static_cast<int>(digits.size());
    if (point <= 0) {
      return sign + "0." + std::string(-point, '0') + digits;
    }
    if (point >= count) {
      return sign + digits + std::string(point - count, '0') + ".0";
    }
    return sign + digits.substr(0, point) + "." + digits.substr(point);
  }
  std::string result = sign + digits.substr(0, 1);
  if (digits.size() > 1) result += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  result += exponent < 0 ? "e-" : "e+";
  if (magnitude < 10) result += "0";
  result += std::to_string(magnitude);
  return result;
}

namespace {

std::string PythonStringRepr(const std::string& raw) {
  // The lexer keeps the text between the quotes with escapes unprocessed,
  // so it reads the same inside single quotes unless it holds one.
  if (raw.find('\'') == std::string::npos) return "'" + raw + "'";
  return "\"" + raw + "\"";
}

std::optional<std::string> Literal(
    const Node& node, const std::map<std::string, NodePtr>& constants,
    std::set<std::string>& visiting) {
  switch (node.kind) {
    case NodeKind::kInt:
      return std::to_string(node.int_value);
    case NodeKind::kFloat:
      return PythonFloatRepr(node.float_value);
    case NodeKind::kBool:
      return node.int_value ? "True" : "False";
    case NodeKind::kNone:
      return "None";
    case NodeKind::kString:
      if (node.text.find('"') != std::string::npos &&
          node.text.find('\'') != std::string::npos) {
        return std::nullopt;
      }
      return PythonStringRepr(node.text);
    case NodeKind::kUnary: {
      const auto op = static_cast<UnaryOp>(node.op);
      if ((op != UnaryOp::kNeg && op != UnaryOp::kPos) ||
          node.children.empty() || !node.children[0]) {
        return std::nullopt;
      }
      const Node& operand = *node.children[0];
      if (operand.kind == NodeKind::kInt) {
        return std::to_string(op == UnaryOp::kNeg ? -operand.int_value
                                                  : operand.int_value);
      }
      if (operand.kind == NodeKind::kFloat) {
        return PythonFloatRepr(op == UnaryOp::kNeg ? -operand.float_value
                                                   : operand.float_value);
      }
      return std::nullopt;
    }
    case NodeKind::kName: {
      auto constant = constants.find(node.text);
      if (constant == constants.end() || !constant->second ||
          !visiting.insert(node.text).second) {
        return std::nullopt;
      }
      auto literal = Literal(*constant->second, constants, visiting);
      visiting.erase(node.text);
      return literal;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> PythonLiteral(
    const Node& node, const std::map<std::string, NodePtr>& constants) {
  std::set<std::string> visiting;
  return Literal(node, constants, visiting);
}

}  // namespace tessera::helion_py
