// Host allocations that a flat index reads or writes as rows
// (plugins/helion_py/lower_jagged_rows.cpp, RowsOf): a 2-D allocation that
// is flattened in the same expression gets a name of its own, and a 1-D
// allocation of `n * m` elements becomes a 2-D one of [n, m] with the 1-D
// name its flat view.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "lower_internal.h"

namespace tessera::helion_py {

// `torch.empty((l, k)).view(-1)`: the allocation gets a name of its own
// (a host statement before the view's), so that a kernel can index its
// rows.
void KernelLowering::NameAllocation(const Expr& view) {
  std::vector<Stmt>& host = blocks_.front()->stmts;
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i].kind != StmtKind::kAssign || host[i].value.get() != &view) {
      continue;
    }
    ExprPtr& allocation = host[i].value->operands[0];
    const std::string name = Fresh(host[i].results[0].name + "_2d");
    taken_.insert(name);
    const Type type = allocation->type;
    const SourceLoc loc = host[i].loc;
    Stmt assign = MakeAssign(Value{name, type}, std::move(allocation), loc);
    allocation = MakeVar(name, type, loc);
    host.insert(host.begin() + static_cast<std::ptrdiff_t>(i),
                std::move(assign));
    return;
  }
}

// `out = torch.zeros(n * m)` indexed as rows of length m (Helion's
// jagged_softmax.py, which returns `out.reshape(n, m)`): the allocation
// becomes `out_2d = torch.zeros([n, m])` and `out` its flat view, so that
// the flat index reads and writes rows of out_2d. The size must be the
// product of a row count and the row length, each a constant or a name the
// host knows; nullptr otherwise.
ExprPtr KernelLowering::SplitFlatAllocation(const Expr& allocation,
                                            const Expr& row_length) {
  const Dim& flat = allocation.type.shape[0];
  if (flat.is_static()) return nullptr;
  const Expr* product = DefinitionOf(flat.symbol);
  if (product == nullptr || product->op != OpKind::kMul ||
      product->operands.size() != 2) {
    return nullptr;
  }
  const auto dim_of = [](const Expr& e) -> std::optional<Dim> {
    if (e.op == OpKind::kVar && e.type.is_scalar()) return Dim::Symbol(e.name);
    if (e.op != OpKind::kConst) return std::nullopt;
    const Attr* attr = e.attr("value");
    const int64_t* i = attr ? std::get_if<int64_t>(&attr->value) : nullptr;
    if (i == nullptr || *i < 0) return std::nullopt;
    return Dim::Static(*i);
  };
  std::optional<Dim> length = dim_of(row_length);
  if (!length) length = dim_of(ResolveDefinition(row_length));
  std::optional<Dim> rows;
  for (int k = 1; k >= 0 && length && !rows; --k) {
    const Expr& factor = *product->operands[static_cast<size_t>(k)];
    std::optional<Dim> dim = dim_of(factor);
    if (!dim) dim = dim_of(ResolveDefinition(factor));
    if (dim && *dim == *length) rows = dim_of(*product->operands[1 - k]);
  }
  if (!rows) return nullptr;
  std::vector<Stmt>& host = blocks_.front()->stmts;
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i].kind != StmtKind::kAssign ||
        host[i].value.get() != &allocation) {
      continue;
    }
    const Shape shape{*rows, *length};
    const std::string name = Fresh(host[i].results[0].name + "_2d");
    taken_.insert(name);
    const Type type = Type::Ref(allocation.type.dtype, shape);
    const SourceLoc loc = host[i].loc;
    ExprPtr split = CloneExpr(allocation);
    split->type = type;
    for (Attr& attr : split->attrs) {
      if (attr.name == "shape") attr.value = shape;
    }
    ExprList operands;
    operands.push_back(MakeVar(name, type, loc));
    host[i].value =
        MakeOp(OpKind::kReshape, allocation.type, std::move(operands),
               {Attr{"shape", allocation.type.shape}}, loc);
    host.insert(host.begin() + static_cast<std::ptrdiff_t>(i),
                MakeAssign(Value{name, type}, std::move(split), loc));
    return MakeVar(name, type);
  }
  return nullptr;
}

}  // namespace tessera::helion_py
