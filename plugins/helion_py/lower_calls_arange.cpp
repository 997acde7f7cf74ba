// `hl.arange(end)` / `hl.arange(start, end)`: an iota of a compile-time
// length outside any tile (Helion's persistent kernels build row indices
// `base + hl.arange(BLOCK_M)` from scalars). It lowers to the IR op
// `arange {size}` (plus `start` when it is not 0); a scalar plus an arange
// as an index is a window at a scalar offset (lower_index.cpp), not a
// gather of one element per position.
#include "fmt/format.h"
#include "lower_calls_internal.h"

namespace tessera::helion_py {

std::optional<Val> KernelLowering::CallArange(const CallSite& site,
                                              CallArgs& args) {
  if (site.path != "helion.language.arange") return std::nullopt;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const Val* first = c.Required(0, "start", "arange");
  if (!first) return Val::Poison();
  const Val* second = c.Arg(1, "end");
  if (c.Arg(2, "step") != nullptr) {
    return Fail(c.LocOf(2, "step"), "hl.arange with a step is not supported");
  }
  if (!in_device()) {
    return Fail(loc, "hl.arange must be inside an hl.grid or hl.tile loop");
  }
  // dtype= is accepted when it is an integer type: the iota is i32, which
  // any integer index or compare promotes as needed.
  std::optional<DType> dtype = c.DTypeArg(3, DType::kI32);
  if (!dtype) return Val::Poison();
  if (!IsInteger(*dtype)) {
    return Fail(c.LocOf(3, "dtype"), "hl.arange's dtype must be an integer");
  }
  auto int_of = [&](const Val& v, size_t index, std::string_view name,
                    int64_t& out) {
    if (v.kind == ValKind::kInt) {
      out = v.i;
      return true;
    }
    Fail(c.LocOf(index, name),
         fmt::format("hl.arange needs a compile-time length (an int, a block "
                     "size or an hl.constexpr), got {}: a register value has "
                     "a static shape",
                     Describe(v)));
    return false;
  };
  int64_t start = 0;
  int64_t end = 0;
  if (second && !int_of(*first, 0, "start", start)) return Val::Poison();
  if (!int_of(second ? *second : *first, second ? 1 : 0,
              second ? "end" : "start", end))
    return Val::Poison();
  if (end <= start) {
    return Fail(loc, fmt::format("hl.arange({}, {}) is empty", start, end));
  }
  Val iota = MakeTyped(OpKind::kArange, {}, {Attr{"size", end - start}}, loc);
  if (start == 0) return iota;
  return Binary(BinaryOp::kAdd, std::move(iota), Val::Int(start), loc);
}

}  // namespace tessera::helion_py

namespace tessera::helion_py {

namespace {

// True when `expr` is an arange window (`s + hl.arange(B)`, a bare arange)
// or a tile's index: what an index list with a window may name.
bool IsWindowPart(const Expr& expr) {
  const Expr* e = &expr;
  while (e->op == OpKind::kCast && e->operands.size() == 1) {
    e = e->operands[0].get();
  }
  if (e->op == OpKind::kArange || e->op == OpKind::kTileIndex) return true;
  std::optional<TileShift> shift = MatchTileShift(*e);
  return shift && shift->tile->op == OpKind::kArange;
}

}  // namespace

void KernelLowering::ResolveWindowIndices(std::vector<Val>& items) const {
  // Helion names its row indices (`row_idx = base_row + hl.arange(BLOCK_M)`,
  // `k_idx = k_tile.index`): the index is the definition, when every name
  // it reads still has the value it had there.
  for (Val& item : items) {
    if (item.kind != ValKind::kValue || !item.expr ||
        item.expr->op != OpKind::kVar || !item.type().is_tensor() ||
        item.type().rank() != 1 || !IsInteger(item.type().dtype)) {
      continue;
    }
    const Expr* context = nullptr;
    const Expr& def = ResolveDefinition(*item.expr, &context);
    if (&def == item.expr.get() || !IsWindowPart(def)) continue;
    bool stable = true;
    WalkExpr(def, [&](const Expr& e) {
      if (e.op == OpKind::kVar && !e.type.is_tile() &&
          DefinitionOf(e.name) != DefinitionOf(e.name, context)) {
        stable = false;
      }
    });
    if (stable) item.expr = CloneExpr(def);
  }
}

}  // namespace tessera::helion_py
