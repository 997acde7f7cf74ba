#include "verifier/stmt_summary.h"

#include <string>
#include <string_view>

#include "fmt/format.h"
#include "tessera/ir/ir.h"

namespace tessera::verifier {
namespace {

constexpr size_t kStmtBudget = 72;
constexpr std::string_view kEllipsis = "...";

// Appends to `out` until it is `limit` characters long; everything past the
// limit is dropped and marked with an ellipsis at the end.
class BoundedWriter {
 public:
  explicit BoundedWriter(size_t limit) : limit_(limit) {}

  void Append(std::string_view text) {
    if (truncated_) return;
    if (out_.size() + text.size() > limit_) {
      out_.append(text.substr(0, limit_ - std::min(limit_, out_.size())));
      truncated_ = true;
      return;
    }
    out_.append(text);
  }
  bool full() const { return truncated_; }
  std::string Finish() && {
    if (truncated_) out_.append(kEllipsis);
    return std::move(out_);
  }

 private:
  size_t limit_;
  std::string out_;
  bool truncated_ = false;
};

void WriteExpr(const Expr* expr, BoundedWriter& out);

void WriteConst(const Expr& expr, BoundedWriter& out) {
  const Attr* value = expr.attr("value");
  if (value == nullptr) {
    out.Append("const");
    return;
  }
  if (const bool* b = std::get_if<bool>(&value->value)) {
    out.Append(*b ? "true" : "false");
  } else if (const int64_t* i = std::get_if<int64_t>(&value->value)) {
    out.Append(fmt::format("{}", *i));
  } else if (const double* d = std::get_if<double>(&value->value)) {
    out.Append(fmt::format("{}", *d));
  } else {
    out.Append("const");
  }
}

void WriteIndex(const Index& index, BoundedWriter& out) {
  switch (index.kind) {
    case IndexKind::kTile:
      WriteExpr(index.expr.get(), out);
      return;
    case IndexKind::kSlice:
      out.Append(":");
      return;
    case IndexKind::kNewAxis:
      out.Append("None");
      return;
    case IndexKind::kScalar:
      out.Append("scalar(");
      WriteExpr(index.expr.get(), out);
      out.Append(")");
      return;
    case IndexKind::kGather:
      out.Append("gather(");
      WriteExpr(index.expr.get(), out);
      out.Append(")");
      return;
    case IndexKind::kRange:
      out.Append("range(");
      WriteExpr(index.expr.get(), out);
      out.Append(", ");
      out.Append(DimToString(index.size));
      out.Append(")");
      return;
    case IndexKind::kShiftedTile:
      out.Append("shifted(");
      WriteExpr(index.expr.get(), out);
      out.Append(")");
      return;
  }
}

void WriteIndices(const IndexList& indices, BoundedWriter& out) {
  out.Append("[");
  for (size_t i = 0; i < indices.size() && !out.full(); ++i) {
    if (i != 0) out.Append(", ");
    WriteIndex(indices[i], out);
  }
  out.Append("]");
}

void WriteExpr(const Expr* expr, BoundedWriter& out) {
  if (expr == nullptr) {
    out.Append("<null>");
    return;
  }
  if (expr->op == OpKind::kVar) {
    out.Append(expr->name);
    return;
  }
  if (expr->op == OpKind::kConst) {
    WriteConst(*expr, out);
    return;
  }
  out.Append(expr->op < OpKind::kNumOps ? OpInfoOf(expr->op).name : "<op?>");
  out.Append("(");
  for (size_t i = 0; i < expr->operands.size() && !out.full(); ++i) {
    if (i != 0) out.Append(", ");
    WriteExpr(expr->operands[i].get(), out);
  }
  out.Append(")");
  if (!expr->indices.empty()) WriteIndices(expr->indices, out);
}

void WriteExprList(const ExprList& exprs, BoundedWriter& out) {
  for (size_t i = 0; i < exprs.size() && !out.full(); ++i) {
    if (i != 0) out.Append(", ");
    WriteExpr(exprs[i].get(), out);
  }
}

void WriteNames(const ValueList& values, BoundedWriter& out) {
  for (size_t i = 0; i < values.size() && !out.full(); ++i) {
    if (i != 0) out.Append(", ");
    out.Append(values[i].name);
  }
}

void WriteLoopDims(const std::vector<LoopDim>& dims, BoundedWriter& out) {
  for (size_t i = 0; i < dims.size() && !out.full(); ++i) {
    if (i != 0) out.Append(", ");
    WriteExpr(dims[i].begin.get(), out);
    out.Append(":");
    WriteExpr(dims[i].end.get(), out);
    out.Append(":");
    out.Append(DimToString(dims[i].block));
  }
}

}  // namespace

std::string SummarizeExpr(const Expr& expr, size_t budget) {
  BoundedWriter out(budget);
  WriteExpr(&expr, out);
  return std::move(out).Finish();
}

std::string SummarizeStmt(const Stmt& stmt) {
  BoundedWriter out(kStmtBudget);
  if (stmt.kind != StmtKind::kAssign && !stmt.results.empty()) {
    WriteNames(stmt.results, out);
    out.Append(" = ");
  }
  switch (stmt.kind) {
    case StmtKind::kAssign:
      WriteNames(stmt.results, out);
      out.Append(" = ");
      WriteExpr(stmt.value.get(), out);
      break;
    case StmtKind::kStore:
    case StmtKind::kAtomic:
      if (stmt.kind == StmtKind::kStore) {
        out.Append("store ");
      } else {
        const std::string* op = GetAttr<std::string>(stmt.attrs, "op");
        out.Append(fmt::format("atomic {} ", op ? *op : "?"));
      }
      WriteExpr(stmt.target.get(), out);
      WriteIndices(stmt.indices, out);
      out.Append(" = ");
      WriteExpr(stmt.value.get(), out);
      break;
    case StmtKind::kTileLoop:
      out.Append("for ");
      WriteNames(stmt.vars, out);
      out.Append(" in tile(");
      WriteLoopDims(stmt.dims, out);
      out.Append(")");
      break;
    case StmtKind::kRangeLoop:
      out.Append("for ");
      WriteNames(stmt.vars, out);
      out.Append(" in range(");
      WriteLoopDims(stmt.dims, out);
      out.Append(")");
      break;
    case StmtKind::kIf:
      out.Append("if ");
      WriteExpr(stmt.value.get(), out);
      break;
    case StmtKind::kYield:
      out.Append(stmt.operands.empty() ? "yield" : "yield ");
      WriteExprList(stmt.operands, out);
      break;
    case StmtKind::kReturn:
      out.Append(stmt.operands.empty() ? "return" : "return ");
      WriteExprList(stmt.operands, out);
      break;
    case StmtKind::kLaunch: {
      const std::string* callee = GetAttr<std::string>(stmt.attrs, "callee");
      out.Append(fmt::format("launch @{} grid(", callee ? *callee : "?"));
      WriteLoopDims(stmt.dims, out);
      out.Append(")(");
      WriteExprList(stmt.operands, out);
      out.Append(")");
      break;
    }
  }
  return std::move(out).Finish();
}

std::string SummarizeFunction(const Function& function) {
  return fmt::format("func @{}", function.name);
}

}  // namespace tessera::verifier
