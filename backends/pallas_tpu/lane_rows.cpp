#include "lane_rows.h"

#include "indirect_plan.h"

#include <map>
#include <set>
#include <string>

#include "tessera/ir/types.h"

namespace tessera::pallas {
namespace {

const Stmt* FindLaunch(const Function& host) {
  for (const Stmt& stmt : host.body.stmts) {
    if (stmt.kind == StmtKind::kLaunch) return &stmt;
  }
  return nullptr;
}

const Function* Callee(const Module& module, const Stmt& launch) {
  const std::string* callee = GetAttr<std::string>(launch.attrs, "callee");
  return callee ? module.FindFunction(*callee) : nullptr;
}

Type AsRow(const Type& type) {
  Shape shape;
  shape.push_back(Dim::Static(1));
  shape.push_back(type.shape[0]);
  return Type::Ref(type.dtype, std::move(shape));
}

void PrependRowIndex(IndexList& indices) {
  indices.insert(indices.begin(),
                 Index(IndexKind::kScalar, MakeIntConst(0, DType::kI32)));
}

// Device side: the param types, every reference's type and every access.
void RewriteDevice(Function& device, const std::set<std::string>& rows) {
  for (Value& param : device.params) {
    if (rows.count(param.name)) param.type = AsRow(param.type);
  }
  auto rewrite_expr = [&](Expr& expr) {
    if (expr.op == OpKind::kVar && rows.count(expr.name)) {
      expr.type = AsRow(expr.type);
    }
    if (expr.op == OpKind::kLoad && !expr.operands.empty() &&
        expr.operands[0]->op == OpKind::kVar &&
        rows.count(expr.operands[0]->name)) {
      PrependRowIndex(expr.indices);
    }
  };
  WalkStmts(device.body, [&](Stmt& stmt) {
    ForEachRootExpr(stmt, [&](ExprPtr& root) {
      if (root) WalkExprMutable(*root, rewrite_expr);
    });
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        stmt.target && rows.count(stmt.target->name)) {
      PrependRowIndex(stmt.indices);
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

std::string FreshName(const Function& host, const std::string& base) {
  std::set<std::string> taken;
  for (const Value& param : host.params) taken.insert(param.name);
  WalkStmts(host.body, [&](const Stmt& stmt) {
    for (const Value& result : stmt.results) taken.insert(result.name);
  });
  std::string name = base;
  for (int suffix = 1; taken.count(name); ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  return name;
}

// Host side: `row = reshape(array, [1, n])` before the launch, the launch
// takes `row`, and a written array comes back as `array_1d = reshape(row)`,
// which every later statement reads instead of `array`.
void RewriteHost(Function& host, const Function& device, size_t grid_rank,
                 const std::set<std::string>& rows,
                 const std::set<std::string>& written) {
  std::vector<Stmt>& stmts = host.body.stmts;
  size_t launch_at = 0;
  while (stmts[launch_at].kind != StmtKind::kLaunch) ++launch_at;
  std::vector<Stmt> before, after;
  std::map<std::string, std::string> renamed;  // array -> its 1-D result
  Stmt& launch = stmts[launch_at];
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    if (!rows.count(device.params[i].name)) continue;
    ExprPtr& operand = launch.operands[i - grid_rank];
    if (operand->op != OpKind::kVar) continue;
    const Value array{operand->name, operand->type};
    const Value row{FreshName(host, array.name + "_row"), AsRow(array.type)};
    before.push_back(
        MakeAssign(row, Reshape(array, row.type, launch.loc), launch.loc));
    operand = MakeVar(row.name, row.type, launch.loc);
    if (written.count(device.params[i].name)) {
      const Value flat{FreshName(host, array.name + "_1d"), array.type};
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

}  // namespace

std::optional<Module> CarryRank1RefsAsRows(const Module& module,
                                           const Function& host) {
  const Stmt* launch = FindLaunch(host);
  const Function* device = launch ? Callee(module, *launch) : nullptr;
  if (device == nullptr) return std::nullopt;
  const size_t grid_rank = launch->dims.size();
  std::set<std::string> rows;
  for (size_t i = grid_rank; i < device->params.size(); ++i) {
    const Value& param = device->params[i];
    const Expr& operand = *launch->operands[i - grid_rank];
    if (param.type.is_ref() && param.type.shape.size() == 1 &&
        operand.op == OpKind::kVar && !ReadOnlyAsScalars(*device, param.name)) {
      rows.insert(param.name);
    }
  }
  if (rows.empty()) return std::nullopt;
  std::set<std::string> written;
  WalkStmts(device->body, [&](const Stmt& stmt) {
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        stmt.target && rows.count(stmt.target->name)) {
      written.insert(stmt.target->name);
    }
  });

  Module copy = CloneModule(module);
  Function* copied_host = copy.FindFunction(host.name);
  Function* copied_device = copy.FindFunction(device->name);
  RewriteDevice(*copied_device, rows);
  RewriteHost(*copied_host, *copied_device, grid_rank, rows, written);
  return copy;
}

}  // namespace tessera::pallas
