// The syntax tree of the Python subset the helion-py frontend parses inside
// kernels. Every node carries the exact line:col and the length of the text
// it covers, so diagnostics can underline a whole sub-expression.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/diagnostics.h"

namespace tessera::helion_py {

enum class NodeKind : uint8_t {
  kName,    // text
  kInt,     // int_value
  kFloat,   // float_value
  kString,  // text (the unquoted value, escapes not processed)
  kBool,    // int_value 0 / 1
  kNone,
  kEllipsis,
  kAttribute,  // children[0].text
  kCall,       // children[0](children[1..]) keywords
  kSubscript,  // children[0][children[1..]]
  kSlice,      // children: lower, upper, step (nullptr when absent)
  kBinary,     // op: BinaryOp; children: lhs, rhs
  kUnary,      // op: UnaryOp; children: operand
  kCompare,    // compare_ops; children: operands (one more than ops)
  kBoolOp,     // op: 0 and, 1 or; children: operands
  kTuple,      // children: elements
  kList,       // children: elements
  kIfExp,      // children: body, test, orelse
  kStarred,    // *children[0] in a display or a call's arguments
  kLambda,     // lambda: params in `lambda`, children[0] the body
};

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kMatMul,
  kBitAnd,
  kBitOr,
  kBitXor,
  kShl,
  kShr,
};
enum class UnaryOp : uint8_t { kNeg, kPos, kNot, kInvert };
enum class CompareOp : uint8_t {
  kLt,
  kLe,
  kGt,
  kGe,
  kEq,
  kNe,
  kIs,
  kIsNot,
  kIn,
  kNotIn
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
struct LambdaParams;

struct Keyword {
  std::string name;
  SourceLoc loc;  // of the name
  NodePtr value;
};

struct Node {
  NodeKind kind = NodeKind::kNone;
  SourceLoc loc;
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
  uint8_t op = 0;
  std::vector<NodePtr> children;
  std::vector<CompareOp> compare_ops;
  std::vector<Keyword> keywords;
  // Levels of the tree from here down, as the parser built it (bounded by
  // kMaxExpressionHeight); nodes made later may leave it at 1.
  uint32_t height = 1;
  // kLambda; shared so the node stays movable with an incomplete type here.
  std::shared_ptr<const LambdaParams> lambda;
};

enum class PyStmtKind : uint8_t {
  kAssign,     // targets = value (a = b = value: several targets)
  kAugAssign,  // target op= value; op: BinaryOp
  kExpr,       // value
  kFor,        // for target in iter: body [else: orelse]
  kIf,         // if test: body else: orelse
  kReturn,     // return [value]
  kPass,
  kAssert,       // assert test[, message]
  kUnsupported,  // keyword names the construct (while, with, ...)
};

struct PyStmt {
  PyStmtKind kind = PyStmtKind::kPass;
  SourceLoc loc;
  std::vector<NodePtr> targets;
  NodePtr target;
  NodePtr value;
  NodePtr test;
  NodePtr iter;
  BinaryOp aug_op = BinaryOp::kAdd;
  std::vector<PyStmt> body;
  std::vector<PyStmt> orelse;
  std::string keyword;  // kUnsupported: what it was
};

struct Param {
  std::string name;
  SourceLoc loc;
  NodePtr annotation;     // may be null
  NodePtr default_value;  // may be null
};

struct LambdaParams {
  std::vector<Param> params;
};

// Launch settings a kernel's decorator fixes for GPU backends
// (`config=helion.Config(num_warps=4, num_stages=2)`; with `configs=[...]`
// the first one that sets them).
struct LaunchHints {
  std::optional<int64_t> num_warps;
  std::optional<int64_t> num_stages;
};

struct KernelDef {
  std::string name;
  SourceLoc loc;  // of the `def` keyword
  // `@helion.kernel(config=helion.Config(block_sizes=[...]))`: the
  // kernel's own block sizes (Helion order), used when the pipeline config
  // gives none for it.
  std::vector<int64_t> config_block_sizes;
  SourceLoc config_loc;  // of `block_sizes`
  LaunchHints launch;
  std::vector<Param> params;
  std::vector<PyStmt> body;
};

// Local name -> canonical dotted path, from the file's top-level imports
// (`import helion.language as hl` maps "hl" -> "helion.language").
using ImportMap = std::map<std::string, std::string>;

struct ParsedFile {
  ImportMap imports;
  // Top-level `NAME = <number | bool | string>` assignments, readable from
  // kernels as compile-time constants (the last assignment wins).
  std::map<std::string, NodePtr> constants;
  std::vector<KernelDef> kernels;
  // Top-level `def`s that are not kernels and parse in the kernel subset
  // (the last definition wins), by name: hl.associative_scan inlines its
  // combine function from here. Their params / body as in a KernelDef.
  std::map<std::string, KernelDef> functions;
};

}  // namespace tessera::helion_py
