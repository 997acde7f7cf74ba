#include "lane_rows.h"

#include <map>
#include <set>
#include <string>

#include "indirect_plan.h"
#include "tessera/ir/types.h"

namespace tessera::pallas {
namespace {

// Ref name -> the position of the unit sublane dim it gains.
using RowRefs = std::map<std::string, size_t>;

Type AsRows(const Type& type, size_t unit_dim) {
  Shape shape = type.shape;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(unit_dim),
               Dim::Static(1));
  return Type::Ref(type.dtype, std::move(shape));
}

// Index 0 on the new unit dim: the position-th index that is not a new
// axis (accesses of these refs name every dim, see UnitSublaneDim).
void InsertRowIndex(IndexList& indices, size_t unit_dim) {
  size_t dim = 0;
  auto at = indices.begin();
  for (; at != indices.end() && dim < unit_dim; ++at) {
    if (at->kind != IndexKind::kNewAxis) ++dim;
  }
  indices.insert(at, Index(IndexKind::kScalar, MakeIntConst(0, DType::kI32)));
}

// Device side: the param types, every reference's type and every access.
void RewriteDevice(Function& device, const RowRefs& rows) {
  for (Value& param : device.params) {
    auto row = rows.find(param.name);
    if (row != rows.end()) param.type = AsRows(param.type, row->second);
  }
  auto rewrite_expr = [&](Expr& expr) {
    auto row = rows.find(expr.name);
    if (expr.op == OpKind::kVar && row != rows.end()) {
      expr.type = AsRows(expr.type, row->second);
    }
    if (expr.op == OpKind::kLoad && !expr.operands.empty() &&
        expr.operands[0]->op == OpKind::kVar) {
      auto loaded = rows.find(expr.operands[0]->name);
      if (loaded != rows.end()) InsertRowIndex(expr.indices, loaded->second);
    }
  };
  WalkStmts(device.body, [&](Stmt& stmt) {
    ForEachRootExpr(stmt, [&](ExprPtr& root) {
      if (root) WalkExprMutable(*root, rewrite_expr);
    });
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        stmt.target) {
      auto row = rows.find(stmt.target->name);
      if (row != rows.end()) InsertRowIndex(stmt.indices, row->second);
    }
  });
}

ExprPtr Reshape(const Value& source, const Type& type, SourceLoc loc) {
  ExprList operands;
  operands.push_back(MakeVar(source.name, source.type, loc));
  AttrList attrs;
  attrs.push_back(Attr{"shape", type.shape});
  return MakeOp(OpKind::kReshape, type, std::move(operands), std::move(attrs),
                loc);
}

// Whether a statement after `launch_at` reads `name`.
bool ReadAfter(std::vector<Stmt>& stmts, size_t launch_at,
               const std::string& name) {
  bool read = false;
  for (size_t s = launch_at + 1; s < stmts.size() && !read; ++s) {
    ForEachRootExpr(stmts[s], [&](ExprPtr& root) {
      if (!root) return;
      WalkExprMutable(*root, [&](Expr& expr) {
        read = read || (expr.op == OpKind::kVar && expr.name == name);
      });
    });
  }
  return read;
}

// Host side: `row = reshape(array, [1, n])` before the launch, the launch
// takes `row`, and a written array comes back as `array_1d = reshape(row)`,
// which every later statement reads instead of `array`.
void RewriteHost(Function& host, const Function& device, size_t grid_rank,
                 const RowRefs& rows, const std::set<std::string>& written) {
  std::vector<Stmt>& stmts = host.body.stmts;
  const size_t launch_at = FindTopLevelLaunch(host) - stmts.data();
  std::vector<Stmt> before, after;
  std::map<std::string, std::string> renamed;  // array -> its 1-D result
  Stmt& launch = stmts[launch_at];
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    if (!rows.count(device.params[i].name)) continue;
    ExprPtr& operand = launch.operands[i - grid_rank];
    if (operand->op != OpKind::kVar) continue;
    const Value array{operand->name, operand->type};
    const size_t unit_dim = rows.at(device.params[i].name);
    const Value row{FreshName(host, array.name + "_row"),
                    AsRows(array.type, unit_dim)};
    before.push_back(
        MakeAssign(row, Reshape(array, row.type, launch.loc), launch.loc));
    operand = MakeVar(row.name, row.type, launch.loc);
    if (written.count(device.params[i].name) &&
        ReadAfter(stmts, launch_at, array.name)) {
      const Value flat{
          FreshName(host, array.name + (unit_dim == 0 ? "_1d" : "_nd")),
          array.type};
      after.push_back(
          MakeAssign(flat, Reshape(row, flat.type, launch.loc), launch.loc));
      renamed[array.name] = flat.name;
    }
  }
  for (size_t s = launch_at + 1; s < stmts.size(); ++s) {
    ForEachRootExpr(stmts[s], [&](ExprPtr& root) {
      if (!root) return;
      WalkExprMutable(*root, [&](Expr& expr) {
        auto it = renamed.find(expr.name);
        if (expr.op == OpKind::kVar && it != renamed.end()) {
          expr.name = it->second;
        }
      });
    });
  }
  std::vector<Stmt> result;
  result.reserve(stmts.size() + before.size() + after.size());
  for (size_t s = 0; s < stmts.size(); ++s) {
    if (s == launch_at) {
      for (Stmt& stmt : before) result.push_back(std::move(stmt));
    }
    result.push_back(std::move(stmts[s]));
    if (s == launch_at) {
      for (Stmt& stmt : after) result.push_back(std::move(stmt));
    }
  }
  stmts = std::move(result);
}

bool IsUnitTile(const Index& index) {
  return index.kind == IndexKind::kTile && index.expr &&
         index.expr->op == OpKind::kVar && index.expr->type.is_tile() &&
         !index.expr->type.shape.empty() &&
         index.expr->type.shape[0].is_static() &&
         index.expr->type.shape[0].size == 1;
}

// Where `ref` gains its unit sublane dim: 0 for a rank-1 ref; for a higher
// rank, before its last dim when every access indexes the second-minor dim
// with a block-1 tile (a (1, n) block there is neither the full dim nor a
// multiple of 8 sublanes, while [.., 1, 1, n] blocks a leading dim).
std::optional<size_t> UnitSublaneDim(const Function& device, const Value& ref) {
  const size_t rank = ref.type.shape.size();
  if (rank == 1) return 0;
  if (rank < 2) return std::nullopt;
  const Dim& sublanes = ref.type.shape[rank - 2];
  if (sublanes.is_static() && sublanes.size == 1) return std::nullopt;
  int accesses = 0;
  bool all_unit = true;
  auto check = [&](const IndexList& indices) {
    ++accesses;
    std::vector<const Index*> dims;
    for (const Index& index : indices) {
      if (index.kind != IndexKind::kNewAxis) dims.push_back(&index);
    }
    all_unit = all_unit && dims.size() == rank && IsUnitTile(*dims[rank - 2]);
  };
  WalkStmts(device.body, [&](const Stmt& stmt) {
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op == OpKind::kLoad && !expr.operands.empty() &&
            expr.operands[0]->op == OpKind::kVar &&
            expr.operands[0]->name == ref.name) {
          check(expr.indices);
        }
      });
    });
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        stmt.target && stmt.target->name == ref.name) {
      check(stmt.indices);
    }
  });
  if (accesses == 0 || !all_unit) return std::nullopt;
  return rank - 1;
}

}  // namespace

bool CarryRank1RefsAsRows(Module& module, Function& host) {
  const std::optional<LaunchedDevice> launched =
      FindLaunchedDevice(module, host);
  if (!launched) return false;
  const Stmt* launch = launched->launch;
  const Function* device = launched->device;
  const size_t grid_rank = launched->grid_rank();
  RowRefs rows;
  const std::set<std::string> scalar_refs = RefsReadOnlyAsScalars(*device);
  for (size_t i = grid_rank; i < device->params.size(); ++i) {
    const Value& param = device->params[i];
    const Expr& operand = *launch->operands[i - grid_rank];
    if (!param.type.is_ref() || operand.op != OpKind::kVar) continue;
    // Refs read one element at a time stay as they are (scalar prefetch).
    if (scalar_refs.count(param.name)) continue;
    if (std::optional<size_t> unit_dim = UnitSublaneDim(*device, param)) {
      rows[param.name] = *unit_dim;
    }
  }
  if (rows.empty()) return false;
  std::set<std::string> written;
  WalkStmts(device->body, [&](const Stmt& stmt) {
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        stmt.target && rows.count(stmt.target->name)) {
      written.insert(stmt.target->name);
    }
  });

  // `device` points into `module`, which this rewrite may change.
  Function& rewritten = const_cast<Function&>(*device);
  RewriteDevice(rewritten, rows);
  RewriteHost(host, rewritten, grid_rank, rows, written);
  return true;
}

}  // namespace tessera::pallas
