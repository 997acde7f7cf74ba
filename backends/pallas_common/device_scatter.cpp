// Scatters: a store or an atomic whose index list holds an index tensor
// (`out[idx, :] = v`, `hl.atomic_add(out, [idx, tile_f], v)`). The mirror of
// a gather (device_gather.cpp): the value goes to a VMEM scratch, then a
// fori_loop writes its rows one at a time,
//   out[pl.ds(index_at(row), 1), cols] = values[pl.ds(row, 1)]
// (`+=`, max or min for atomics), where index_at(row) is the index tensor's
// element `row` computed as a scalar (SMEM reads of the index refs). The
// target keeps its scattered dim whole in VMEM (the plan gives that dim no
// block), resident across the grid dims it does not map, which the plan
// marks "arbitrary" as for any written block that does not map them.
//
// Rows are written one at a time: with repeated indices a store keeps the
// first row's value (rows go last to first; Helion leaves the order of such
// stores undefined, and its examples point padding rows at the first one),
// and atomics add every row (exact, as a read-modify-write per row). Rows
// past the end of a partial last tile are not written.
#include <set>

#include "device_emitter.h"
#include "fmt/format.h"
#include "gather_plan.h"
#include "py_text.h"

namespace tessera::pallas {

// A target that stores at a vector of indices (Triton's pointers): one
// masked store (or atomic) of the whole value at the clamped index vector,
//   pl.store(out, (rows, cols), values, mask=keep)
// where `keep` drops the rows past a partial last tile and, for a store,
// every row whose index an earlier row of the block also holds: the first
// row wins, as on the TPU, instead of whichever write lands last. Atomics
// add every row (the hardware's atomics are exact with repeats).
bool DeviceEmitter::IndexedScatter(const Stmt& stmt, const std::string& atomic,
                                   size_t position, const std::string& value,
                                   const std::string& count,
                                   const std::string& last, PyLines& out) {
  const Index& gather = stmt.indices[position];
  const std::string rows = Fresh("scattered_rows");
  const std::string index_vector = Emit(*gather.expr);
  // The target indexed at `name` (the index vector, or one row's scalar).
  auto access = [&](const std::string& name, const Type& type) {
    const IndexList indices =
        IndicesAtVar(stmt.indices, position, name, type, false);
    value_aliases_[name] = name;
    std::string text = RefAccess(stmt.target->name, indices, true);
    value_aliases_.erase(name);
    return text;
  };
  const std::string target = access(rows, gather.expr->type);
  const std::string row = Fresh("row");
  const std::string one_row = access(row, Type::Scalar(DType::kI32));
  if (!FlushExprErrors(stmt.loc)) return false;
  const size_t bracket = target.find('[');
  if (bracket == std::string::npos || target.back() != ']') {
    return Error(stmt.loc, fmt::format("a scatter into '{}' has no indexed "
                                       "access ({})",
                                       stmt.target->name, target));
  }
  SourceComment(stmt, out);
  out.Line(fmt::format("{} = jnp.clip({}, 0, {})", rows, index_vector, last));
  const std::string values = Fresh("scattered");
  out.Line(fmt::format("{} = {}", values, value));
  if (!atomic.empty()) {
    // One row at a time, as on the TPU: interpret mode runs neither a
    // masked atomic nor, exactly, an atomic at an index vector with
    // repeats (a gather and a scatter of the sums). A row of a register
    // value is a masked sum over the block's rows (exact: one term).
    const std::string body = Fresh("_scatter_row");
    const std::string step = Fresh("step");
    const std::string pick = Fresh("pick");
    const std::string update = Fresh("update");
    std::string axes;
    for (size_t d = 1; d < stmt.value->type.rank(); ++d) axes += ", None";
    out.Line(fmt::format("def {}({}, carry):", body, step));
    out.Indent();
    out.Line(fmt::format(
        "{} = jax.lax.broadcasted_iota(jnp.int32, {}.shape, 0) == {}", pick,
        rows, step));
    out.Line(
        fmt::format("{} = jnp.sum(jnp.where({}, {}, 0))", row, pick, rows));
    out.Line(fmt::format("{} = jnp.sum(jnp.where({}[:{}], {}, 0), axis=0)",
                         update, pick, axes, values));
    out.Line(AtomicAt(atomic, one_row, update));
    out.Line("return carry");
    out.Dedent();
    out.Line(fmt::format("jax.lax.fori_loop(0, {}, {}, 0)", count, body));
    return true;
  }
  const std::string keep = Fresh("keep");
  out.Line(
      fmt::format("{} = jax.lax.broadcasted_iota(jnp.int32, {}.shape, 0) "
                  "< {}",
                  keep, rows, count));
  {
    // keep[i] only where no row j < i holds the same index.
    const std::string square =
        fmt::format("({0}.shape[0], {0}.shape[0])", rows);
    out.Line(fmt::format(
        "{} = {} & (jnp.max(jnp.where(({}[:, None] == {}[None, :]) & "
        "(jax.lax.broadcasted_iota(jnp.int32, {}, 1) < "
        "jax.lax.broadcasted_iota(jnp.int32, {}, 0)), 1, 0), axis=1) == 0)",
        keep, keep, rows, rows, square, square));
  }
  PallasTarget::IndexedScatter scatter;
  scatter.ref = target.substr(0, bracket);
  scatter.index = target.substr(bracket + 1, target.size() - bracket - 2);
  scatter.rows = rows;
  scatter.values = values;
  scatter.keep = keep;
  scatter.rank = stmt.value->type.rank();
  std::optional<std::string> line = plan_.target->ScatterStatement(scatter);
  if (!line) {
    return Error(stmt.loc,
                 fmt::format("the {} backend has no indexed store for "
                             "a scatter into '{}'",
                             plan_.target->backend_name(), stmt.target->name));
  }
  out.Line(*line);
  return true;
}

bool DeviceEmitter::EmitScatter(const Stmt& stmt, const std::string& atomic,
                                PyLines& out) {
  const std::string& ref_name = stmt.target->name;
  const std::string what = atomic.empty() ? "a store" : "an atomic";
  size_t position = 0;
  size_t ref_dim = 0;
  bool leading = true;  // only scalar indices before the scattered dim
  for (size_t i = 0; i < stmt.indices.size(); ++i) {
    const IndexKind kind = stmt.indices[i].kind;
    if (kind == IndexKind::kGather) {
      position = i;
      break;
    }
    if (kind != IndexKind::kNewAxis) ++ref_dim;
    if (kind != IndexKind::kScalar) leading = false;
  }
  const size_t rank = stmt.target->type.rank();
  const Shape& region = stmt.value->type.shape;
  if (!leading || ref_dim + 1 >= rank || region.empty() ||
      !region[0].is_static()) {
    return Error(
        stmt.loc,
        fmt::format("{} into '{}' at rows taken from an index tensor (a "
                    "scatter) must index a dim before the last, after "
                    "integer indices only, with a static number of rows "
                    "(got a region of {})",
                    what, ref_name, TypeToString(stmt.value->type)));
  }
  const bool by_loads = plan_.target->IndirectAccessByLoads();
  if (std::optional<std::string> problem =
          by_loads ? std::nullopt
                   : plan_.target->GatherRowsProblem(stmt.target->type.dtype)) {
    return Error(stmt.loc, fmt::format("a scatter into '{}' writes rows as a "
                                       "gather reads them: {}",
                                       ref_name, *problem));
  }
  // Whole rows at a dynamic sublane offset: a lane window of them would be
  // an unaligned dynamic store in Mosaic. A lane dim blocked by the grid is
  // the whole lane dim of the kernel's block; an inner tile's aligned block
  // of lanes (moe_matmul_ogs's `C[rows, tile_n]`) is written as the whole
  // row, its other lanes kept (a select on a lane iota).
  const RefPlan* plan = plan_.FindRef(ref_name);
  const Index& lanes = stmt.indices.back();
  const bool whole_lanes = lanes.kind == IndexKind::kSlice ||
                           (plan != nullptr && plan->dims.size() == rank &&
                            plan->dims[rank - 1].kind == SpecKind::kBlocked &&
                            lanes.kind == IndexKind::kTile);
  const TileInfo* lane_tile = !whole_lanes && lanes.kind == IndexKind::kTile &&
                                      lanes.expr->op == OpKind::kVar
                                  ? plan_.FindTile(lanes.expr->name)
                                  : nullptr;
  if (!by_loads && !whole_lanes &&
      (lane_tile == nullptr || lane_tile->is_grid || !lane_tile->aligned ||
       plan == nullptr || plan->dims.size() != rank ||
       plan->dims[rank - 1].kind == SpecKind::kBlocked)) {
    return Error(
        stmt.loc,
        fmt::format("{} into '{}' at rows taken from an index tensor (a "
                    "scatter) writes whole rows: index its last dim with ':', "
                    "an outer tile (a grid dim) or an inner tile whose blocks "
                    "start at multiples of its block",
                    what, ref_name));
  }
  const Index& gather = stmt.indices[position];
  // The rows of a partial last tile past its end have no element of the
  // index tensor: when one tile's index drives the gather index, only the
  // rows inside that tile are written.
  std::set<std::string> tiles;
  WalkGatherIndex(*gather.expr, plan_.tensor_defs, [&](const Expr& expr, bool) {
    if (expr.op == OpKind::kTileIndex && expr.operands[0]->op == OpKind::kVar) {
      tiles.insert(expr.operands[0]->name);
    }
    if (expr.op != OpKind::kLoad) return;
    for (const Index& index : expr.indices) {
      if (index.kind == IndexKind::kTile && index.expr->op == OpKind::kVar) {
        tiles.insert(index.expr->name);
      }
    }
  });
  const int64_t rows = region[0].size;
  std::string count = fmt::format("{}", rows);
  if (tiles.size() == 1) {
    const std::string& tile = *tiles.begin();
    count = fmt::format("jnp.clip({} - {}, 0, {})", TileLimit(tile),
                        TileBegin(tile), rows);
  }

  std::string value = Emit(*stmt.value);
  const DType ref_dtype = stmt.target->type.dtype;
  if (stmt.value->type.dtype != ref_dtype) {
    value = fmt::format("{}.astype({})", Paren(value), JnpDType(ref_dtype));
  }
  // The written row, clamped into the target so that a bad index stays
  // inside the target, as a gather's read does.
  // (The extent from the type: an accumulator's Python name is not its IR
  // name.)
  const Dim& extent = stmt.target->type.shape[ref_dim];
  const std::string last =
      extent.is_static() ? fmt::format("{}", extent.size - 1)
                         : fmt::format("{} - 1", DimSymbol(extent.symbol));
  if (by_loads) {
    return IndexedScatter(stmt, atomic, position, value, count, last, out);
  }
  const std::string row = Fresh("row");
  std::optional<std::string> index = GatherIndexRow(*gather.expr, row, 0);
  if (!FlushExprErrors(stmt.loc) || !index) return false;

  std::vector<int64_t> sizes;
  for (const Dim& d : region) sizes.push_back(d.is_static() ? d.size : -1);
  std::optional<std::string> scratch =
      plan_.target->ScratchShape(HostShape(region), JnpDType(ref_dtype));
  if (!scratch) {
    return Error(stmt.loc,
                 fmt::format("the {} backend has no scratch buffers for "
                             "scatters",
                             plan_.target->backend_name()));
  }
  const std::string values =
      AddScratch(ref_name + "_scattered", *scratch,
                 VmemBuffer{fmt::format("rows scattered into {}", ref_name),
                            StaticBytes(sizes, ref_dtype), 1});

  const std::string placeholder = Fresh("scattered_row");
  value_aliases_[placeholder] =
      fmt::format("jnp.clip({}, 0, {})", *index, last);
  const IndexList one_row = IndicesAtVar(
      stmt.indices, position, placeholder, Type::Scalar(DType::kI32), true,
      lane_tile != nullptr ? std::optional<size_t>(stmt.indices.size() - 1)
                           : std::nullopt);
  const std::string target = RefAccess(ref_name, one_row, true);
  value_aliases_.erase(placeholder);
  if (!FlushExprErrors(stmt.loc)) return false;

  SourceComment(stmt, out);
  out.Line(fmt::format("{}[...] = {}", values, value));
  const std::string rows_name = Fresh("scattered_rows");
  out.Line(fmt::format("{} = {}", rows_name, count));
  const std::string body = Fresh("_scatter_row");
  const std::string step = Fresh("step");
  out.Line(fmt::format("def {}({}, carry):", body, step));
  out.Indent();
  // Stores go from the last row to the first, so that with repeated
  // indices the first row of the block wins: rows past a count are
  // commonly pointed at the first one (moe_matmul_ogs), and must not
  // overwrite it. Atomics are order-free.
  if (atomic.empty()) {
    out.Line(fmt::format("{} = {} - 1 - {}", row, rows_name, step));
  } else {
    out.Line(fmt::format("{} = {}", row, step));
  }
  const std::string source = fmt::format("{}[pl.ds({}, 1)]", values, row);
  auto combined = [&](const std::string& old, const std::string& update) {
    if (atomic == "add") return fmt::format("{} + {}", old, update);
    if (atomic == "max") return fmt::format("jnp.maximum({}, {})", old, update);
    if (atomic == "min") return fmt::format("jnp.minimum({}, {})", old, update);
    return update;
  };
  if (lane_tile != nullptr) {
    const std::string old = Fresh("old_row");
    const std::string wide = Fresh("wide_row");
    const std::string lane = Fresh("lane");
    const std::string begin = TileBegin(lane_tile->name);
    out.Line(fmt::format("{} = {}", old, target));
    // Copies side by side at lane-aligned offsets (a concatenation, which
    // Mosaic lays out without a shape cast, unlike jnp.tile).
    out.Line(fmt::format(
        "{} = jnp.concatenate([{}] * ({}.shape[-1] // {}), axis=-1)", wide,
        source, old, lane_tile->block));
    out.Line(fmt::format(
        "{} = jax.lax.broadcasted_iota(jnp.int32, {}.shape, {}.ndim - 1)", lane,
        old, old));
    out.Line(fmt::format("{} = jnp.where(({} >= {}) & ({} < {} + {}), {}, {})",
                         target, lane, begin, lane, begin, lane_tile->block,
                         combined(old, wide), old));
  } else if (atomic.empty()) {
    out.Line(fmt::format("{} = {}", target, source));
  } else {
    out.Line(AtomicAt(atomic, target, source));
  }
  out.Line("return carry");
  out.Dedent();
  out.Line(fmt::format("jax.lax.fori_loop(0, {}, {}, 0)", rows_name, body));
  return true;
}

}  // namespace tessera::pallas
