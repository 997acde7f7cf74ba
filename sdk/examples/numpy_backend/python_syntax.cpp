#include "python_syntax.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

namespace numpy_reference {

using tessera::Dim;
using tessera::Expr;
using tessera::OpKind;
using tessera::Stmt;
using tessera::StmtKind;

namespace {

// Python keywords and the globals generated code relies on; an IR value with
// one of these names gets a trailing underscore.
const std::set<std::string_view>& ReservedNames() {
  static const std::set<std::string_view> names = {
      "False",  "None",      "True",  "and",    "as",       "assert",
      "async",  "await",     "break", "class",  "continue", "def",
      "del",    "elif",      "else",  "except", "finally",  "for",
      "from",   "global",    "if",    "import", "in",       "is",
      "lambda", "nonlocal",  "not",   "or",     "pass",     "raise",
      "return", "try",       "while", "with",   "yield",    "np",
      "math",   "int",       "len",   "min",    "max",      "range",
      "slice",  "enumerate", "float", "bool",   "abs",      "sum",
      "print"};
  return names;
}

}  // namespace

std::string PyName(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  for (char c : name) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  }
  // Leading underscores are the runtime's namespace (_tiles, _pid, ...).
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) ||
      out[0] == '_') {
    out = "v" + out;
  }
  if (ReservedNames().count(out) != 0) out += '_';
  return out;
}

std::string IntLiteral(int64_t value) { return std::to_string(value); }

std::string FloatLiteral(double value) {
  if (std::isnan(value)) return "math.nan";
  if (std::isinf(value)) return value > 0 ? "math.inf" : "-math.inf";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, error == std::errc() ? end : buffer);
  // Keep it a Python float ("1" would be an int).
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += sep;
    out += items[i];
  }
  return out;
}

// A Python tuple display: "()", "(a,)", "(a, b)".
std::string Tuple(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + Join(items, ", ") + ")";
}

std::string DimValue(const Dim& dim) {
  return dim.is_static() ? IntLiteral(dim.size) : PyName(dim.symbol);
}

std::string_view UnaryFunction(OpKind op) {
  switch (op) {
    case OpKind::kNeg:
      return "np.negative";
    case OpKind::kExp:
      return "np.exp";
    case OpKind::kExp2:
      return "np.exp2";
    case OpKind::kLog:
      return "np.log";
    case OpKind::kLog2:
      return "np.log2";
    case OpKind::kSqrt:
      return "np.sqrt";
    case OpKind::kRsqrt:
      return "_rsqrt";
    case OpKind::kTanh:
      return "np.tanh";
    case OpKind::kSigmoid:
      return "_sigmoid";
    case OpKind::kErf:
      return "_erf";
    case OpKind::kAbs:
      return "np.abs";
    case OpKind::kRelu:
      return "_relu";
    case OpKind::kSilu:
      return "_silu";
    case OpKind::kNot:
      return "np.logical_not";
    default:
      return "";
  }
}

std::string_view BinaryFunction(OpKind op) {
  switch (op) {
    case OpKind::kAdd:
      return "np.add";
    case OpKind::kSub:
      return "np.subtract";
    case OpKind::kMul:
      return "np.multiply";
    case OpKind::kDiv:
      return "np.true_divide";
    case OpKind::kFloorDiv:
      return "np.floor_divide";
    case OpKind::kMod:
      return "np.mod";
    case OpKind::kPow:
      return "np.power";
    case OpKind::kMaximum:
      return "np.maximum";
    case OpKind::kMinimum:
      return "np.minimum";
    case OpKind::kAnd:
      return "np.logical_and";
    case OpKind::kOr:
      return "np.logical_or";
    case OpKind::kXor:
      return "np.bitwise_xor";
    case OpKind::kShl:
      return "np.left_shift";
    case OpKind::kShr:
      return "np.right_shift";
    case OpKind::kCdiv:
      return "_cdiv";
    case OpKind::kEq:
      return "np.equal";
    case OpKind::kNe:
      return "np.not_equal";
    case OpKind::kLt:
      return "np.less";
    case OpKind::kLe:
      return "np.less_equal";
    case OpKind::kGt:
      return "np.greater";
    case OpKind::kGe:
      return "np.greater_equal";
    default:
      return "";
  }
}

// Host-side integer arithmetic reads better as plain Python.
std::string_view PythonIntOperator(OpKind op) {
  switch (op) {
    case OpKind::kAdd:
      return " + ";
    case OpKind::kSub:
      return " - ";
    case OpKind::kMul:
      return " * ";
    case OpKind::kFloorDiv:
      return " // ";
    case OpKind::kMod:
      return " % ";
    default:
      return "";
  }
}

std::string_view ReductionFunction(OpKind op) {
  switch (op) {
    case OpKind::kSum:
      return "np.sum";
    case OpKind::kAmax:
      return "np.max";
    case OpKind::kAmin:
      return "np.min";
    case OpKind::kMean:
      return "np.mean";
    default:
      return "";
  }
}

std::string_view StmtKindName(StmtKind kind) {
  switch (kind) {
    case StmtKind::kAssign:
      return "assignment";
    case StmtKind::kStore:
      return "store";
    case StmtKind::kAtomic:
      return "atomic";
    case StmtKind::kTileLoop:
      return "tile loop";
    case StmtKind::kRangeLoop:
      return "range loop";
    case StmtKind::kIf:
      return "if";
    case StmtKind::kYield:
      return "yield";
    case StmtKind::kReturn:
      return "return";
    case StmtKind::kLaunch:
      return "launch";
  }
  return "statement";
}

bool UsesOp(const tessera::Block& block, OpKind op) {
  bool uses = false;
  tessera::WalkStmts(block, [&](const Stmt& stmt) {
    tessera::ForEachRootExpr(stmt, [&](const Expr& root) {
      tessera::WalkExpr(
          root, [&](const Expr& expr) { uses = uses || expr.op == op; });
    });
  });
  return uses;
}

}  // namespace numpy_reference
