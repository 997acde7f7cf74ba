#include "unit_tiles.h"

#include <string>

namespace tessera::pallas {
namespace {

bool IsTileVar(const Index& index, const std::string& tile) {
  return index.kind == IndexKind::kTile && index.expr &&
         index.expr->op == OpKind::kVar && index.expr->name == tile;
}

bool LeadingUnit(const Type& type) {
  return type.shape.size() >= 2 && type.shape[0].is_static() &&
         type.shape[0].size == 1;
}

// Ops whose dims the rewrite knows: elementwise ones keep their operands'
// dims; the others' axes are renumbered below.
bool KnownOp(const Expr& expr) {
  switch (OpInfoOf(expr.op).category) {
    case OpCategory::kLeaf:
    case OpCategory::kUnary:
    case OpCategory::kBinary:
    case OpCategory::kCompare:
    case OpCategory::kSelect:
    case OpCategory::kReduction:
    case OpCategory::kContraction:
      return true;
    default:
      break;
  }
  switch (expr.op) {
    case OpKind::kLoad:
    case OpKind::kSubscript:
    case OpKind::kFull:
    case OpKind::kCast:
    case OpKind::kTranspose:
    case OpKind::kTileBegin:
    case OpKind::kTileEnd:
    case OpKind::kTileSize:
      return true;
    default:
      return false;
  }
}

class UnitTileCheck {
 public:
  explicit UnitTileCheck(std::string tile) : tile_(std::move(tile)) {}

  bool Block(const Block& block) {
    for (const Stmt& stmt : block.stmts) {
      if (!Statement(stmt)) return false;
    }
    return true;
  }

 private:
  bool Statement(const Stmt& stmt) {
    switch (stmt.kind) {
      case StmtKind::kAssign:
      case StmtKind::kYield:
      case StmtKind::kReturn:
        break;
      case StmtKind::kStore:
        if (stmt.indices.empty() || !IsTileVar(stmt.indices[0], tile_)) {
          return false;
        }
        break;
      case StmtKind::kTileLoop:
      case StmtKind::kRangeLoop:
        for (const Value& carried : stmt.iter_args) {
          if (!Fits(carried.type)) return false;
        }
        break;
      default:  // atomics, ifs: not rewritten
        return false;
    }
    for (const Value& result : stmt.results) {
      if (!Fits(result.type)) return false;
    }
    bool ok = true;
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) { ok = ok && Expression(expr); });
    });
    for (const tessera::Block& region : stmt.regions) {
      ok = ok && Block(region);
    }
    return ok;
  }

  // Tensors of rank 2 or more lead with the unit dim (a rank-1 tensor
  // would become a scalar); scalars, tiles and refs are left as they are.
  static bool Fits(const Type& type) {
    return !type.is_tensor() || LeadingUnit(type);
  }

  bool Expression(const Expr& expr) {
    if (!KnownOp(expr) || !Fits(expr.type)) return false;
    if (expr.op == OpKind::kLoad) {
      return !expr.indices.empty() && IsTileVar(expr.indices[0], tile_);
    }
    if (expr.op == OpKind::kSubscript) {
      return !expr.indices.empty() && expr.indices[0].kind == IndexKind::kSlice;
    }
    if (OpInfoOf(expr.op).category == OpCategory::kReduction) {
      const int64_t* dim = GetAttr<int64_t>(expr.attrs, "dim");
      return dim != nullptr && *dim != 0;  // negative: from the end
    }
    if (expr.op == OpKind::kTranspose) {
      const auto* perm = GetAttr<std::vector<int64_t>>(expr.attrs, "perm");
      return perm != nullptr && !perm->empty() && (*perm)[0] == 0;
    }
    return true;
  }

  std::string tile_;
};

Type Squeezed(const Type& type) {
  if (!type.is_tensor()) return type;
  return Type::Tensor(type.dtype,
                      Shape(type.shape.begin() + 1, type.shape.end()));
}

class UnitTileRewrite {
 public:
  explicit UnitTileRewrite(const Value& tile) : tile_(tile) {}

  void Block(tessera::Block& block) {
    for (Stmt& stmt : block.stmts) Statement(stmt);
  }

 private:
  void Statement(Stmt& stmt) {
    for (Value& result : stmt.results) result.type = Squeezed(result.type);
    for (Value& carried : stmt.iter_args) {
      carried.type = Squeezed(carried.type);
    }
    if (stmt.kind == StmtKind::kStore) ToBegin(stmt.indices[0]);
    ForEachRootExpr(stmt, [&](ExprPtr& root) {
      if (root) WalkExprMutable(*root, [&](Expr& expr) { Expression(expr); });
    });
    for (tessera::Block& region : stmt.regions) Block(region);
  }

  // The tile's index becomes its begin: a scalar index, the dim dropped.
  void ToBegin(Index& index) {
    ExprList operands;
    operands.push_back(MakeVar(tile_.name, tile_.type, index.expr->loc));
    index = Index(IndexKind::kScalar,
                  MakeOp(OpKind::kTileBegin, Type::Scalar(DType::kI64),
                         std::move(operands), {}, index.expr->loc));
  }

  void Expression(Expr& expr) {
    expr.type = Squeezed(expr.type);
    if (expr.op == OpKind::kLoad && !expr.indices.empty() &&
        IsTileVar(expr.indices[0], tile_.name)) {
      ToBegin(expr.indices[0]);
    } else if (expr.op == OpKind::kSubscript) {
      expr.indices.erase(expr.indices.begin());
    } else if (expr.op == OpKind::kFull) {
      if (const Shape* shape = GetAttr<Shape>(expr.attrs, "shape")) {
        SetAttr(expr.attrs, "shape", Shape(shape->begin() + 1, shape->end()));
      }
    } else if (OpInfoOf(expr.op).category == OpCategory::kReduction) {
      const int64_t dim = *GetAttr<int64_t>(expr.attrs, "dim");
      if (dim > 0) SetAttr(expr.attrs, "dim", dim - 1);
    } else if (expr.op == OpKind::kTranspose) {
      std::vector<int64_t> perm;
      for (int64_t axis : *GetAttr<std::vector<int64_t>>(expr.attrs, "perm")) {
        if (axis != 0) perm.push_back(axis - 1);
      }
      SetAttr(expr.attrs, "perm", std::move(perm));
    }
  }

  const Value& tile_;
};

}  // namespace

bool SqueezeUnitBatchTile(Module& module, const Function& host) {
  const std::optional<LaunchedDevice> launched =
      FindLaunchedDevice(module, host);
  if (!launched) return false;
  const Function* device = launched->device;
  for (size_t i = 0; i < launched->grid_rank() && i < device->params.size();
       ++i) {
    const Value& tile = device->params[i];
    if (!tile.type.is_tile() || tile.type.shape.empty() ||
        !tile.type.shape[0].is_static() || tile.type.shape[0].size != 1) {
      continue;
    }
    if (!UnitTileCheck(tile.name).Block(device->body)) continue;
    // `device` points into `module`, which this rewrite may change.
    Function* squeezed = const_cast<Function*>(device);
    const Value tile_param = squeezed->params[i];
    UnitTileRewrite(tile_param).Block(squeezed->body);
    return true;
  }
  return false;
}

}  // namespace tessera::pallas
