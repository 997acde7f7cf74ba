#include "wide_gathers.h"

#include <map>
#include <set>
#include <string>

#include "tessera/ir/types.h"

namespace tessera::pallas {
namespace {

std::optional<DType> WideDType(DType dtype) {
  switch (dtype) {
    case DType::kBF16:
    case DType::kF16:
    case DType::kF8E4M3:
    case DType::kF8E5M2:
      return DType::kF32;
    case DType::kI8:
    case DType::kI16:
      return DType::kI32;
    default:
      return std::nullopt;
  }
}

// Refs the device function gathers or scatters rows of, refs it stores to,
// and refs it updates atomically (whose rounding a wider type would change).
void ScanAccesses(const Function& device, std::set<std::string>& gathered,
                  std::set<std::string>& written,
                  std::set<std::string>& atomic) {
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.kind == StmtKind::kStore && stmt.target) {
      written.insert(stmt.target->name);
      for (const Index& index : stmt.indices) {
        if (index.kind == IndexKind::kGather) {
          gathered.insert(stmt.target->name);  // a scatter of rows
        }
      }
    }
    if (stmt.kind == StmtKind::kAtomic && stmt.target) {
      atomic.insert(stmt.target->name);
    }
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op != OpKind::kLoad || expr.operands.empty() ||
            expr.operands[0]->op != OpKind::kVar) {
          return;
        }
        for (const Index& index : expr.indices) {
          if (index.kind == IndexKind::kGather) {
            gathered.insert(expr.operands[0]->name);
          }
        }
      });
    });
  });
}

Type WithDType(const Type& type, DType dtype) {
  Type wide = type;
  wide.dtype = dtype;
  return wide;
}

ExprPtr Cast(ExprPtr value, DType dtype) {
  AttrList attrs;
  attrs.push_back(Attr{"dtype", dtype});
  const SourceLoc loc = value->loc;
  Type type = WithDType(value->type, dtype);
  ExprList operands;
  operands.push_back(std::move(value));
  return MakeOp(OpKind::kCast, std::move(type), std::move(operands),
                std::move(attrs), loc);
}

// Device side: the parameter's type, and each read of it cast back.
void RewriteDevice(Function& device, const std::map<std::string, DType>& wide) {
  for (Value& param : device.params) {
    auto it = wide.find(param.name);
    if (it != wide.end()) param.type = WithDType(param.type, it->second);
  }
  auto rewrite = [&](Expr& expr) {
    if (expr.op == OpKind::kVar) {
      auto it = wide.find(expr.name);
      if (it != wide.end()) expr.type = WithDType(expr.type, it->second);
      return;
    }
    if (expr.op != OpKind::kLoad || expr.operands.empty() ||
        expr.operands[0]->op != OpKind::kVar) {
      return;
    }
    auto it = wide.find(expr.operands[0]->name);
    // A load already read wide is the operand of its own cast back.
    if (it == wide.end() || expr.type.dtype == it->second) return;
    const DType own = expr.type.dtype;
    auto load = std::make_unique<Expr>(std::move(expr));
    load->type = WithDType(load->type, it->second);
    expr = std::move(*Cast(std::move(load), own));
  };
  WalkStmts(device.body, [&](Stmt& stmt) {
    ForEachRootExpr(stmt, [&](ExprPtr& root) {
      if (root) WalkExprMutable(*root, rewrite);
    });
    // A value stored to a widened ref is widened (exactly) first.
    if (stmt.kind == StmtKind::kStore && stmt.target && stmt.value) {
      auto it = wide.find(stmt.target->name);
      if (it != wide.end() && stmt.value->type.dtype != it->second) {
        stmt.value = Cast(std::move(stmt.value), it->second);
      }
    }
  });
}

// Every read of `name` by a statement of `stmts` from `first` on reads
// `renamed` instead.
void RenameAfter(std::vector<Stmt>& stmts, size_t first,
                 const std::string& name, const std::string& renamed) {
  for (size_t s = first; s < stmts.size(); ++s) {
    ForEachRootExpr(stmts[s], [&](ExprPtr& root) {
      if (!root) return;
      WalkExprMutable(*root, [&](Expr& expr) {
        if (expr.op == OpKind::kVar && expr.name == name) expr.name = renamed;
      });
    });
  }
}

// Host side: `table_wide = cast(table)` before the launch, which takes it;
// a written table comes back as `table_narrow = cast(table_wide)`, which
// every later statement reads instead of `table`.
void RewriteHost(Function& host, size_t grid_rank, const Function& device,
                 const std::map<std::string, DType>& wide,
                 const std::set<std::string>& written) {
  std::vector<Stmt>& stmts = host.body.stmts;
  const size_t launch_at = FindTopLevelLaunch(host) - stmts.data();
  std::vector<Stmt> before, after;
  std::map<std::string, std::string> renamed;
  Stmt& launch = stmts[launch_at];
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    auto it = wide.find(device.params[i].name);
    if (it == wide.end()) continue;
    ExprPtr& operand = launch.operands[i - grid_rank];
    const Value own{operand->name, operand->type};
    const Value widened{FreshName(host, own.name + "_wide"),
                        WithDType(own.type, it->second)};
    before.push_back(MakeAssign(
        widened, Cast(MakeVar(own.name, own.type, launch.loc), it->second),
        launch.loc));
    operand = MakeVar(widened.name, widened.type, launch.loc);
    if (written.count(device.params[i].name)) {
      const Value narrow{FreshName(host, own.name + "_narrow"), own.type};
      after.push_back(MakeAssign(
          narrow,
          Cast(MakeVar(widened.name, widened.type, launch.loc), own.type.dtype),
          launch.loc));
      renamed[own.name] = narrow.name;
    }
  }
  for (const auto& [name, narrow] : renamed) {
    RenameAfter(stmts, launch_at + 1, name, narrow);
  }
  stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(launch_at + 1),
               std::make_move_iterator(after.begin()),
               std::make_move_iterator(after.end()));
  stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(launch_at),
               std::make_move_iterator(before.begin()),
               std::make_move_iterator(before.end()));
}

}  // namespace

bool WidenPackedGatherTables(Module& module, Function& host,
                             const PallasTarget& target) {
  const std::optional<LaunchedDevice> launched =
      FindLaunchedDevice(module, host);
  if (!launched) return false;
  const Function& device = *launched->device;
  const size_t grid_rank = launched->grid_rank();
  std::set<std::string> gathered, written, atomic;
  ScanAccesses(device, gathered, written, atomic);
  std::map<std::string, DType> wide;
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    const Value& param = device.params[i];
    const Expr& operand = *launched->launch->operands[i - grid_rank];
    if (!param.type.is_ref() || operand.op != OpKind::kVar ||
        !gathered.count(param.name) || atomic.count(param.name) ||
        !target.GatherRowsProblem(param.type.dtype)) {
      continue;
    }
    std::optional<DType> dtype = WideDType(param.type.dtype);
    if (dtype && !target.GatherRowsProblem(*dtype)) wide[param.name] = *dtype;
  }
  if (wide.empty()) return false;
  // `device` points into `module`, which this rewrite may change.
  Function& rewritten = const_cast<Function&>(device);
  RewriteDevice(rewritten, wide);
  RewriteHost(host, grid_rank, rewritten, wide, written);
  return true;
}

}  // namespace tessera::pallas
