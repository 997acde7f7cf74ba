// Indexing: loads and subscripts with tiles, ':', None, integers and
// ranges; stores into refs with the PyTorch setitem casts and broadcasts.
#include "fmt/format.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {

// ---------------------------------------------------------------------------
// Indexing
// ---------------------------------------------------------------------------
bool KernelLowering::BuildIndices(const Type& base, std::vector<Val> items,
                                  std::vector<SourceLoc> item_locs,
                                  bool is_load, SourceLoc loc, IndexList& out) {
  // Tuples of tiles (`x[tile]` with `for tile in hl.tile(x.size())`)
  // spread over several dims.
  std::vector<Val> flat;
  std::vector<SourceLoc> flat_locs;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind == ValKind::kTuple) {
      for (Val& elem : items[i].elems) {
        flat.push_back(std::move(elem));
        flat_locs.push_back(item_locs[i]);
      }
    } else {
      flat.push_back(std::move(items[i]));
      flat_locs.push_back(item_locs[i]);
    }
  }
  size_t rank = base.rank();
  size_t consumed = 0;
  int ellipses = 0;
  for (const Val& item : flat) {
    if (item.kind == ValKind::kPoison) return false;
    if (item.kind == ValKind::kEllipsis)
      ++ellipses;
    else if (item.kind != ValKind::kNone)
      ++consumed;
  }
  if (ellipses > 1) {
    Fail(loc, "an index can have only one '...'");
    return false;
  }
  if (consumed > rank) {
    Diagnostic* d =
        Report(loc, fmt::format("too many indices for {}: {} "
                                "indices for rank {}",
                                TypeToString(base), consumed, rank));
    Note(d,
         "give one index per dim (a tile, ':', an integer) plus None for new "
         "dims");
    return false;
  }
  ResolveWindowIndices(flat);
  // `tile.index` beside a window (`hl.load(a, [base + hl.arange(bm),
  // tile_k.index])`) is the tile itself; elsewhere it stays a gather index
  // (zipped with another one: one element per row).
  auto tile_of_index = [](const Val& item) -> const Expr* {
    if (item.kind != ValKind::kValue || !item.expr) return nullptr;
    const Expr* e = item.expr.get();
    while (e->op == OpKind::kCast && e->operands.size() == 1) {
      e = e->operands[0].get();
    }
    return e->op == OpKind::kTileIndex && e->operands.size() == 1 &&
                   e->operands[0]->op == OpKind::kVar
               ? e->operands[0].get()
               : nullptr;
  };
  const bool any_gather =
      std::any_of(flat.begin(), flat.end(), [&](const Val& item) {
        return item.kind == ValKind::kValue && item.expr &&
               item.type().is_tensor() && IsInteger(item.type().dtype) &&
               tile_of_index(item) == nullptr &&
               item.expr->op != OpKind::kArange && !MatchTileShift(*item.expr);
      });
  const bool any_window =
      std::any_of(flat.begin(), flat.end(), [&](const Val& item) {
        if (item.kind != ValKind::kValue || !item.expr) return false;
        std::optional<TileShift> shift = MatchTileShift(*item.expr);
        return item.expr->op == OpKind::kArange ||
               (shift && shift->tile->op == OpKind::kArange);
      });
  size_t dim = 0;
  auto slice = [] { return Index(IndexKind::kSlice); };
  for (size_t i = 0; i < flat.size(); ++i) {
    Val& item = flat[i];
    SourceLoc item_loc = flat_locs[i];
    switch (item.kind) {
      case ValKind::kEllipsis:
        for (size_t k = 0; k < rank - consumed; ++k, ++dim)
          out.push_back(slice());
        continue;
      case ValKind::kNone:
        out.push_back(Index(IndexKind::kNewAxis));
        continue;
      case ValKind::kTile:
        if (!item.tile.index_origin.empty()) {
          Diagnostic* d = Report(
              item_loc,
              "indexing with a tile of hl.jagged_tile(ends - starts) is not "
              "supported");
          Note(d,
               "its index counts from 0 in each row: index with "
               "starts[:, None] + tile.index[None, :] through a flattened "
               "view, or loop over hl.tile(start, end)");
          return false;
        }
        if (!is_load) {
          Fail(item_loc,
               "a tensor value can be indexed only with ':', None "
               "and integers; index the kernel argument instead");
          return false;
        }
        // A dim of size 1 read with a tile broadcasts, as Helion (and
        // PyTorch's `bias[tile_m, tile_n]` of a [1, n] bias) has it: the
        // value keeps the one row and broadcasts against the tile.
        if (dim < rank && base.shape[dim].is_static() &&
            base.shape[dim].size == 1 && item.tile.block != 1) {
          out.push_back(Index(IndexKind::kRange,
                              MakeIntConst(0, DType::kI64, item_loc),
                              Dim::Static(1)));
          break;
        }
        NoteTileUse(item.tile.ordinal, dim + 2 >= rank, dim + 1 == rank);
        out.push_back(Index(
            IndexKind::kTile,
            MakeVar(item.tile.name, Type::Tile(Dim::Static(item.tile.block)))));
        break;
      case ValKind::kInt: {
        int64_t value = item.i;
        if (value < 0) {
          const Dim& extent = base.shape[dim];
          if (!extent.is_static()) {
            Fail(item_loc, "a negative index needs a static dim");
            return false;
          }
          value += extent.size;
        }
        out.push_back(Index(IndexKind::kScalar,
                            MakeIntConst(value, DType::kI64, item_loc)));
        break;
      }
      case ValKind::kSlice: {
        const Val& lower = item.elems[0];
        const Val& upper = item.elems[1];
        if (lower.kind == ValKind::kNone && upper.kind == ValKind::kNone) {
          out.push_back(slice());
          break;
        }
        if (!is_load) {
          Fail(item_loc,
               "a slice with bounds is supported only on kernel arguments");
          return false;
        }
        Val begin = lower.kind == ValKind::kNone ? Val::Int(0) : lower.Clone();
        Val end = upper.kind == ValKind::kNone ? DimVal(base.shape[dim])
                                               : upper.Clone();
        Val size = Binary(BinaryOp::kSub, end.Clone(), begin.Clone(), item_loc);
        std::optional<Dim> extent;
        if (begin.kind == ValKind::kInt && begin.i == 0) {
          extent = ToDim(end, item_loc);
        } else {
          extent = ToDim(size, item_loc);
        }
        ExprPtr begin_expr = ToIndexExpr(begin, item_loc);
        if (!extent || !begin_expr) return false;
        out.push_back(Index(IndexKind::kRange, std::move(begin_expr), *extent));
        break;
      }
      case ValKind::kValue:
        if (item.IsScalar() && IsInteger(item.type().dtype)) {
          out.push_back(Index(IndexKind::kScalar, std::move(item.expr)));
          break;
        }
        if (const Expr* tile = tile_of_index(item);
            tile && any_window && !any_gather) {
          out.push_back(Index(IndexKind::kTile, CloneExpr(*tile)));
          break;
        }
        if (item.expr->op == OpKind::kArange) {
          // A bare hl.arange(B) is the window of B elements from 0.
          ExprList operands;
          operands.push_back(std::move(item.expr));
          operands.push_back(MakeIntConst(0, DType::kI32, item_loc));
          item.expr =
              MakeTyped(OpKind::kAdd, std::move(operands), {}, item_loc).expr;
          if (!item.expr) return false;
        }
        if (item.type().is_tensor() && item.type().rank() == 1 &&
            MatchTileShift(*item.expr)) {
          if (!is_load) {
            Fail(item_loc,
                 "a tensor value can be indexed only with ':', None "
                 "and integers; index the kernel argument instead");
            return false;
          }
          out.push_back(Index(IndexKind::kShiftedTile, std::move(item.expr)));
          break;
        }
        if (!item.IsRef() && item.type().is_tensor() &&
            IsInteger(item.type().dtype)) {
          if (!GatherIndex(item, item_loc, is_load, out)) return false;
          break;
        }
        {
          Diagnostic* d = Report(
              item_loc, fmt::format("indexing with {} is not supported; use a "
                                    "tile, ':', None or an integer",
                                    Describe(item)));
          if (item.type().is_tensor())
            Note(d,
                 "a tensor index must be integers: a tile's index shifted by "
                 "an integer scalar (tile.index + offset) or a rank-1 index "
                 "tensor (a gather)");
        }
        return false;
      default:
        Fail(item_loc, fmt::format("cannot index with {}", Describe(item)));
        return false;
    }
    ++dim;
  }
  // Trailing dims not indexed are taken whole, spelled out so that every
  // load and subscript names all dims of its operand.
  for (; dim < rank; ++dim) out.push_back(slice());
  return true;
}

// An integer tensor as an index selects positions by data: a gather.
// One rank-1 index vector per access (whole rows or blocks by index,
// `table[idx, :]`); several index tensors or one of higher rank (an element
// gather through a flattened view, `x_flat[flat_indices]`) are not lowered.
bool KernelLowering::GatherIndex(Val& item, SourceLoc item_loc, bool is_load,
                                 IndexList& out) {
  const Type& type = item.type();
  if (!is_load) {
    Fail(item_loc,
         "a tensor value can be indexed only with ':', None and integers; "
         "index the kernel argument instead");
    return false;
  }
  if (type.rank() != 1) {
    Diagnostic* d = Report(
        item_loc,
        fmt::format("indexing with {} (an element gather through a rank-{} "
                    "index tensor) is not supported",
                    Describe(item), type.rank()));
    Note(d,
         "a gather takes one rank-1 index vector that selects whole rows, "
         "e.g. table[idx_tile, :] or hl.load(table, [idx_tile, tile_e])");
    return false;
  }
  // Two index tensors side by side zip, as in PyTorch (`x[rows, lanes]`
  // reads x[rows[i], lanes[i]]): one element per row when `rows` is a
  // tile's index, which the backends lower as a lane select.
  const bool zips = !out.empty() && out.back().kind == IndexKind::kGather &&
                    out.back().expr->type.shape[0] == type.shape[0];
  for (const Index& index : out) {
    if (index.kind == IndexKind::kGather && !(zips && &index == &out.back())) {
      Diagnostic* d = Report(
          item_loc,
          "only one dim of an access can be indexed by a tensor (a gather "
          "along several dims is not supported)");
      Note(d,
           "two index tensors of the same length side by side are zipped "
           "(x[tile.index, idx]: one element per row)");
      return false;
    }
  }
  out.push_back(Index(IndexKind::kGather, std::move(item.expr)));
  return true;
}

// Stores and atomics at positions read from data (scatters) write whole
// rows: one rank-1 index vector on a dim before the last (`out[idx, :] =
// v`, `hl.atomic_add(out, [idx, tile_f], v)`), which a backend lowers as one
// dynamic-slice write per row in row order. A scatter of single elements
// along the last dim, or along several dims at once, is not lowered.
bool KernelLowering::CheckScatter(const IndexList& indices, SourceLoc loc,
                                  std::string_view what) {
  size_t dim = 0;
  size_t rank = 0;
  for (const Index& index : indices) {
    if (index.kind != IndexKind::kNewAxis) ++rank;
  }
  int gathers = 0;
  for (const Index& index : indices) {
    if (index.kind == IndexKind::kNewAxis) continue;
    if (index.kind == IndexKind::kGather) {
      ++gathers;
      if (gathers > 1) {
        Diagnostic* d = Report(
            loc, fmt::format("{} at positions taken from several index "
                             "tensors (a scatter of single elements) is not "
                             "supported",
                             what));
        Note(d,
             "a scatter writes whole rows: one rank-1 index vector on a dim "
             "before the last, e.g. out[idx_tile, :] = v");
        return false;
      }
      if (dim + 1 == rank) {
        Diagnostic* d = Report(
            loc, fmt::format("{} at positions along the last dim taken from "
                             "an index tensor (a lane scatter) is not "
                             "supported",
                             what));
        Note(d,
             "the TPU has no vector scatter across lanes; a scatter writes "
             "whole rows: index a dim before the last, e.g. out[idx_tile, "
             ":] = v");
        return false;
      }
    }
    ++dim;
  }
  return true;
}

Val KernelLowering::Subscript(const Node& node) {
  Val base = Eval(*node.children[0]);
  if (base.kind == ValKind::kPoison) return base;
  std::vector<Val> items;
  std::vector<SourceLoc> locs;
  for (size_t i = 1; i < node.children.size(); ++i) {
    const Node& index = *node.children[i];
    locs.push_back(index.loc);
    if (index.kind == NodeKind::kSlice) {
      Val slice;
      slice.kind = ValKind::kSlice;
      for (int k = 0; k < 2; ++k) {
        slice.elems.push_back(index.children[k] ? Eval(*index.children[k])
                                                : Val::None());
        if (slice.elems.back().kind == ValKind::kPoison) return Val::Poison();
      }
      if (index.children[2])
        return Fail(index.loc, "slices with a step are not supported");
      items.push_back(std::move(slice));
    } else {
      items.push_back(Eval(index));
      if (items.back().kind == ValKind::kPoison) return Val::Poison();
    }
  }
  if (base.kind == ValKind::kTuple) {
    if (items.size() != 1) return Fail(node.loc, "a tuple takes one index");
    Val& index = items[0];
    int64_t n = static_cast<int64_t>(base.elems.size());
    auto normalize = [&](const Val& v,
                         int64_t fallback) -> std::optional<int64_t> {
      if (v.kind == ValKind::kNone) return fallback;
      if (!IsIntLike(v)) return std::nullopt;
      int64_t k = IntOf(v);
      if (k < 0) k += n;
      return std::clamp<int64_t>(k, 0, n);
    };
    if (IsIntLike(index)) {
      int64_t k = IntOf(index);
      if (k < 0) k += n;
      if (k < 0 || k >= n)
        return Fail(locs[0],
                    fmt::format("tuple index {} out of range", IntOf(index)));
      return std::move(base.elems[k]);
    }
    if (index.kind == ValKind::kSlice) {
      auto lo = normalize(index.elems[0], 0);
      auto hi = normalize(index.elems[1], n);
      if (!lo || !hi) return Fail(locs[0], "tuple slices need integer bounds");
      std::vector<Val> elems;
      for (int64_t k = *lo; k < *hi; ++k)
        elems.push_back(std::move(base.elems[k]));
      return Val::Tuple(std::move(elems));
    }
    return Fail(locs[0], "a tuple index must be an integer or a slice");
  }
  if (!base.IsValue() || base.type().is_scalar()) {
    return Fail(node.children[0]->loc,
                fmt::format("{} cannot be indexed", Describe(base)));
  }
  bool is_load = base.IsRef();
  if (is_load && !in_device()) {
    return HostSliceView(std::move(base), std::move(items), std::move(locs),
                         node.loc);
  }
  if (is_load) {
    if (std::optional<Val> row = JaggedRowRead(base, items, node.loc)) {
      return std::move(*row);
    }
    if (items.size() == 1) {
      if (std::optional<Val> gathered =
              JaggedRowsGather(base, items[0], node.loc)) {
        return std::move(*gathered);
      }
    }
    base = MaterializeRef(std::move(base), "view");
  }
  IndexList indices;
  if (!BuildIndices(base.type(), std::move(items), std::move(locs), is_load,
                    node.loc, indices)) {
    return Val::Poison();
  }
  ExprList operands;
  operands.push_back(std::move(base.expr));
  return MakeTyped(is_load ? OpKind::kLoad : OpKind::kSubscript,
                   std::move(operands), {}, node.loc, std::move(indices));
}

Val KernelLowering::LoadWhole(const Val& ref, SourceLoc loc) {
  Val named = MaterializeRef(ref.Clone(), "view", loc);
  if (!named.IsValue()) return Val::Poison();
  IndexList indices;
  for (size_t d = 0; d < named.type().rank(); ++d)
    indices.push_back(Index(IndexKind::kSlice));
  return LoadAt(std::move(named.expr), std::move(indices), loc);
}

Val KernelLowering::LoadAt(ExprPtr ref, IndexList indices, SourceLoc loc) {
  ExprList operands;
  operands.push_back(std::move(ref));
  return MakeTyped(OpKind::kLoad, std::move(operands), {}, loc,
                   std::move(indices));
}

ExprPtr KernelLowering::CoerceForStore(Val value, const Type& region,
                                       SourceLoc loc) {
  if (value.kind == ValKind::kPoison) return nullptr;
  AttrList shape_attr = {Attr{"shape", region.shape}};
  if (value.IsNumber()) {
    AttrValue constant;
    if (IsFloat(region.dtype))
      constant = value.AsDouble();
    else if (region.dtype == DType::kBool)
      constant = value.AsDouble() != 0;
    else
      constant = static_cast<int64_t>(value.AsDouble());
    Val full = MakeTyped(OpKind::kFull, {},
                         {Attr{"shape", region.shape},
                          Attr{"dtype", region.dtype}, Attr{"value", constant}},
                         loc);
    return full.kind == ValKind::kPoison ? nullptr : std::move(full.expr);
  }
  if (!value.IsValue() || value.IsRef()) {
    Fail(loc, fmt::format("cannot store {} into a tensor", Describe(value)));
    return nullptr;
  }
  ExprPtr expr = std::move(value.expr);
  if (expr->type.dtype != region.dtype) {
    ExprList operands;
    operands.push_back(std::move(expr));
    Val cast = MakeTyped(OpKind::kCast, std::move(operands),
                         {Attr{"dtype", region.dtype}}, loc);
    if (cast.kind == ValKind::kPoison) return nullptr;
    expr = std::move(cast.expr);
  }
  if (!expr->type.is_tensor() || expr->type.shape != region.shape) {
    std::span<const Dim> shape = expr->type.is_tensor()
                                     ? std::span<const Dim>(expr->type.shape)
                                     : std::span<const Dim>();
    auto broadcast = BroadcastShapes(shape, region.shape);
    if (!broadcast.ok() || *broadcast != region.shape) {
      UnifyOperandShapes(OpKind::kAdd, {expr->type, region}, loc, "store");
      Fail(loc, fmt::format("cannot store a value of type {} into a region of "
                            "type {}",
                            TypeToString(expr->type), TypeToString(region)));
      return nullptr;
    }
    ExprList operands;
    operands.push_back(std::move(expr));
    Val broadcasted = MakeTyped(OpKind::kBroadcastTo, std::move(operands),
                                std::move(shape_attr), loc);
    if (broadcasted.kind == ValKind::kPoison) return nullptr;
    expr = std::move(broadcasted.expr);
  }
  return expr;
}

void KernelLowering::Store(const Node& target, Val value, SourceLoc loc) {
  if (value.kind == ValKind::kPoison) return;
  Val base = Eval(*target.children[0]);
  if (base.kind == ValKind::kPoison) return;
  if (!base.IsRef()) {
    Diagnostic* d =
        Report(target.children[0]->loc,
               fmt::format("cannot assign into {}", Describe(base)));
    Note(d, "stores go to tensor arguments and tensors allocated on the host");
    return;
  }
  base = MaterializeRef(std::move(base), "view");
  std::vector<Val> items;
  std::vector<SourceLoc> locs;
  for (size_t i = 1; i < target.children.size(); ++i) {
    const Node& index = *target.children[i];
    locs.push_back(index.loc);
    if (index.kind == NodeKind::kSlice) {
      Val slice;
      slice.kind = ValKind::kSlice;
      for (int k = 0; k < 2; ++k) {
        slice.elems.push_back(index.children[k] ? Eval(*index.children[k])
                                                : Val::None());
      }
      items.push_back(std::move(slice));
    } else {
      items.push_back(Eval(index));
    }
  }
  if (!in_device()) {
    HostStore(std::move(base), std::move(items), std::move(locs),
              std::move(value), target.loc, loc);
    return;
  }
  IndexList indices;
  if (!BuildIndices(base.type(), std::move(items), std::move(locs), true,
                    target.loc, indices) ||
      !CheckScatter(indices, target.loc, "a store")) {
    return;
  }
  std::vector<Type> types = {base.type()};
  absl::StatusOr<Type> region = InferType(OpKind::kLoad, types, indices, {});
  if (!region.ok()) {
    Fail(target.loc, std::string(region.status().message()));
    return;
  }
  ExprPtr stored = CoerceForStore(std::move(value), *region, loc);
  if (!stored) return;
  Emit(MakeStore(std::move(base.expr), std::move(indices), std::move(stored),
                 loc));
}

}  // namespace tessera::helion_py
