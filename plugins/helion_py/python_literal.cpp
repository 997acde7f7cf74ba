#include "python_literal.h"

#include <set>

#include "tessera/python_literal.h"

namespace tessera::helion_py {
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
      return PythonFloatLiteral(node.float_value);
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
        return PythonFloatLiteral(op == UnaryOp::kNeg ? -operand.float_value
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
