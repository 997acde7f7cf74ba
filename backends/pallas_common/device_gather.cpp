// Gathers (gather_plan.h): a load whose index list holds an index tensor
// reads its rows one at a time into a VMEM scratch,
//   _gather_rows(lambda row: table[pl.ds(index_at(row), 1), cols], rows)
// where index_at(row) is the index tensor's element `row`, computed as a
// scalar from tile indices, constants and SMEM reads of the index refs.
// A target that loads at a vector of indices (IndirectAccessByLoads:
// Triton's pointer arithmetic) reads them in one load instead,
//   table[jnp.clip(index, 0, table.shape[0] - 1), cols].
#include "device_emitter.h"
#include "fmt/format.h"
#include "gather_plan.h"
#include "py_text.h"

namespace tessera::pallas {
namespace {

// Element `row` of a binary integer op on two vectors (or a vector and a
// scalar: the scalar is its own element).
std::optional<std::string> BinaryRow(OpKind op, const std::string& a,
                                     const std::string& b) {
  switch (op) {
    case OpKind::kAdd:
      return fmt::format("({} + {})", a, b);
    case OpKind::kSub:
      return fmt::format("({} - {})", a, b);
    case OpKind::kMul:
      return fmt::format("({} * {})", a, b);
    case OpKind::kFloorDiv:
      return fmt::format("({} // {})", a, b);
    case OpKind::kMod:
      return fmt::format("({} % {})", a, b);
    case OpKind::kMaximum:
      return fmt::format("jnp.maximum({}, {})", a, b);
    case OpKind::kMinimum:
      return fmt::format("jnp.minimum({}, {})", a, b);
    // Comparisons and their combinations pick rows (moe_matmul_ogs's
    // `where(tile.index < count, tile.index, 0)`).
    case OpKind::kLt:
      return fmt::format("({} < {})", a, b);
    case OpKind::kLe:
      return fmt::format("({} <= {})", a, b);
    case OpKind::kGt:
      return fmt::format("({} > {})", a, b);
    case OpKind::kGe:
      return fmt::format("({} >= {})", a, b);
    case OpKind::kEq:
      return fmt::format("({} == {})", a, b);
    case OpKind::kNe:
      return fmt::format("({} != {})", a, b);
    case OpKind::kAnd:
      return fmt::format("({} & {})", a, b);
    case OpKind::kOr:
      return fmt::format("({} | {})", a, b);
    default:
      return std::nullopt;
  }
}

}  // namespace

IndexList IndicesAtVar(const IndexList& indices, size_t position,
                       const std::string& var, const Type& type, bool one_row,
                       std::optional<size_t> whole) {
  IndexList result;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (i == position) {
      ExprPtr start = std::make_unique<Expr>();
      start->op = OpKind::kVar;
      start->name = var;
      start->type = type;
      result.push_back(
          one_row ? Index(IndexKind::kRange, std::move(start), Dim::Static(1))
                  : Index(IndexKind::kScalar, std::move(start)));
    } else if (whole && i == *whole) {
      result.push_back(Index(IndexKind::kSlice));
    } else {
      result.push_back(CloneIndex(indices[i]));
    }
  }
  return result;
}

std::optional<std::string> DeviceEmitter::GatherIndexRow(const Expr& index,
                                                         const std::string& row,
                                                         int depth) {
  if (depth > 64) {
    Fail("a gather index nests too deeply");
    return std::nullopt;
  }
  auto unsupported = [&](std::string_view what) -> std::optional<std::string> {
    Fail(
        fmt::format("a gather index is evaluated row by row from tile "
                    "indices, constants, integer arithmetic and loads of "
                    "index tensors; {} is not supported there",
                    what));
    return std::nullopt;
  };
  if (!index.type.is_tensor()) return Emit(index);  // the same for every row
  switch (index.op) {
    case OpKind::kVar: {
      auto def = plan_.tensor_defs.find(index.name);
      if (def == plan_.tensor_defs.end()) {
        return unsupported(
            fmt::format("'{}' (defined outside this kernel "
                        "body or carried by a loop)",
                        index.name));
      }
      return GatherIndexRow(*def->second, row, depth + 1);
    }
    case OpKind::kTileIndex:
      return Paren(AddText(TileBegin(index.operands[0]->name), row));
    case OpKind::kCast:
      if (!IsInteger(index.type.dtype)) return unsupported("a float cast");
      return GatherIndexRow(*index.operands[0], row, depth + 1);
    case OpKind::kLoad: {
      const Expr& ref = *index.operands[0];
      const RefPlan* plan = plan_.FindRef(ref.name);
      std::vector<const Index*> dims;
      for (const Index& i : index.indices) {
        if (i.kind != IndexKind::kNewAxis) dims.push_back(&i);
      }
      if (plan == nullptr || dims.size() != 1 || index.type.rank() != 1) {
        return unsupported("a load of several dims");
      }
      if (!plan->scalar_prefetch) {
        Fail(
            fmt::format("the index tensor '{}' of a gather is also read as "
                        "a block; its rows are read one element at a time "
                        "from SMEM, so every other read of it must be a "
                        "single element too",
                        ref.name));
        return std::nullopt;
      }
      std::optional<std::string> position;
      switch (dims[0]->kind) {
        case IndexKind::kTile:
          position = AddText(TileBegin(dims[0]->expr->name), row);
          break;
        case IndexKind::kGather:
          position = GatherIndexRow(*dims[0]->expr, row, depth + 1);
          break;
        default:
          return unsupported("a load by a range or a whole dim");
      }
      if (!position) return std::nullopt;
      // Rows past a partial last tile read the last element; their results
      // are never stored.
      const std::string name = SanitizeIdentifier(ref.name);
      return fmt::format("{}[jnp.minimum({}, {}.shape[0] - 1)]", name,
                         *position, name);
    }
    default:
      break;
  }
  if (index.op == OpKind::kWhere && index.operands.size() == 3) {
    std::optional<std::string> parts[3];
    for (int i = 0; i < 3; ++i) {
      parts[i] = GatherIndexRow(*index.operands[i], row, depth + 1);
      if (!parts[i]) return std::nullopt;
    }
    return fmt::format("jnp.where({}, {}, {})", *parts[0], *parts[1],
                       *parts[2]);
  }
  if (index.operands.size() == 2) {
    std::optional<std::string> a =
        GatherIndexRow(*index.operands[0], row, depth + 1);
    std::optional<std::string> b =
        a ? GatherIndexRow(*index.operands[1], row, depth + 1) : std::nullopt;
    if (!a || !b) return std::nullopt;
    if (std::optional<std::string> text = BinaryRow(index.op, *a, *b)) {
      return text;
    }
  }
  return unsupported(fmt::format("'{}'", OpInfoOf(index.op).name));
}

std::string DeviceEmitter::IndexedGatherLoad(const Expr& load,
                                             size_t gather_position) {
  const std::string& ref_name = load.operands[0]->name;
  size_t ref_dim = 0;
  for (size_t i = 0; i < gather_position; ++i) {
    if (load.indices[i].kind != IndexKind::kNewAxis) ++ref_dim;
  }
  // The index vector, clamped into the ref: a partial tile's rows past the
  // index tensor read its zero padding or any in-bounds row (their results
  // are never stored), and a pointer never leaves the array.
  const std::string placeholder = Fresh("gathered_rows");
  value_aliases_[placeholder] =
      fmt::format("jnp.clip({}, 0, {}.shape[{}] - 1)",
                  Emit(*load.indices[gather_position].expr),
                  SanitizeIdentifier(ref_name), ref_dim);
  const IndexList indices =
      IndicesAtVar(load.indices, gather_position, placeholder,
                   load.indices[gather_position].expr->type, false);
  const std::string read = RefAccess(ref_name, indices, false);
  value_aliases_.erase(placeholder);
  return read;
}

std::string DeviceEmitter::GatherLoad(const Expr& load,
                                      size_t gather_position) {
  const std::string& ref_name = load.operands[0]->name;
  const RefPlan* ref = plan_.FindRef(ref_name);
  if (ref == nullptr) {
    Fail(fmt::format("gather from '{}', which is not a kernel ref", ref_name));
    return "None";
  }
  if (plan_.target->IndirectAccessByLoads()) {
    return IndexedGatherLoad(load, gather_position);
  }
  const size_t rank = ref->type.rank();
  size_t ref_dim = 0;
  bool leading = true;  // the gathered dim is the first of the result
  for (size_t i = 0; i < gather_position; ++i) {
    const IndexKind kind = load.indices[i].kind;
    if (kind != IndexKind::kNewAxis) ++ref_dim;
    if (kind != IndexKind::kScalar) leading = false;
  }
  if (ref_dim + 1 >= rank) {
    Fail(fmt::format(
        "an element gather along the last dim of '{}' is not supported: the "
        "TPU gathers lanes only within one vreg (Mosaic's dynamic_gather: "
        "8x128 32-bit values), so elements can be gathered only as whole "
        "rows (index a leading dim: table[idx, :]) or one element per row "
        "of a row block (x[tile.index, lanes], or hl.load(x.view(-1), "
        "[tile.index * x.size(1) + lanes]) with x rank 2)",
        ref_name));
    return "None";
  }
  if (std::optional<std::string> problem =
          plan_.target->GatherRowsProblem(ref->type.dtype)) {
    Fail(*problem);
    return "None";
  }
  const Shape& shape = load.type.shape;
  if (!leading || shape.size() < 2 || !shape[0].is_static()) {
    Fail(
        fmt::format("a gather from '{}' must select the leading dim of a "
                    "value of rank 2 or more with a static number of rows "
                    "(got {})",
                    ref_name, TypeToString(load.type)));
    return "None";
  }
  // A gathered row is read with whole lanes: a row at a dynamic sublane
  // offset with a lane window is "dynamic load with unaligned indices" in
  // Mosaic. A load that takes one lane block of [rows, lanes] gathers whole
  // rows and reads the block from the gathered rows (an aligned lane offset).
  const size_t lane_position = load.indices.size() - 1;
  const bool lane_window =
      load.indices[lane_position].kind != IndexKind::kSlice &&
      !(ref->dims.size() == rank &&
        ref->dims[rank - 1].kind == SpecKind::kBlocked &&
        load.indices[lane_position].kind == IndexKind::kTile);
  if (lane_window && (load.indices.size() != 2 || rank != 2)) {
    Fail(
        fmt::format("a gather from '{}' that reads part of its last dim "
                    "needs a rank-2 table indexed [rows, lanes] (the rows "
                    "are gathered whole, then the lanes read)",
                    ref_name));
    return "None";
  }
  const std::string row = Fresh("row");
  std::optional<std::string> index =
      GatherIndexRow(*load.indices[gather_position].expr, row, 0);
  if (!index) return "None";
  // The gathered dim is read at the clamped row: an index past the table
  // (rows of a partial tile) stays inside VMEM.
  const std::string base = SanitizeIdentifier(ref_name);
  const std::string placeholder = Fresh("gathered_row");
  value_aliases_[placeholder] =
      fmt::format("jnp.clip({}, 0, {}.shape[{}] - 1)", *index, base, ref_dim);
  const IndexList one_row = IndicesAtVar(
      load.indices, gather_position, placeholder, Type::Scalar(DType::kI32),
      true, lane_window ? std::optional<size_t>(lane_position) : std::nullopt);
  const std::string read = RefAccess(ref_name, one_row, false);
  value_aliases_.erase(placeholder);
  Shape rows_shape = shape;
  std::vector<int64_t> sizes;
  for (const Dim& d : shape) sizes.push_back(d.is_static() ? d.size : -1);
  std::string host_shape = HostShape(rows_shape);
  if (lane_window) {
    // The scratch holds whole (padded) rows of the table as the kernel
    // sees it.
    auto array = host_.ref_arrays.find(ref_name);
    host_shape =
        fmt::format("({}, {}.shape[1])", shape[0].size,
                    array != host_.ref_arrays.end() ? array->second : ref_name);
    sizes.back() =
        ref->type.shape[1].is_static() ? ref->type.shape[1].size : -1;
  }
  std::optional<std::string> scratch =
      plan_.target->ScratchShape(host_shape, JnpDType(load.type.dtype));
  if (!scratch) {
    Fail(fmt::format("the {} backend has no scratch buffers for gathers",
                     plan_.target->backend_name()));
    return "None";
  }
  const std::string rows =
      AddScratch(ref_name + "_rows", *scratch,
                 VmemBuffer{fmt::format("gathered rows of {}", ref_name),
                            StaticBytes(sizes, load.type.dtype), 1});
  const std::string gathered = fmt::format(
      "{}(lambda {}: {}, {})", state_.GatherRows(), row, read, rows);
  if (!lane_window) return gathered + "[...]";
  // The lane block, read from the gathered rows as from the table itself.
  IndexList block;
  block.push_back(Index(IndexKind::kSlice));
  block.push_back(CloneIndex(load.indices[lane_position]));
  value_aliases_[ref_name] = gathered;
  const std::string lanes = RefAccess(ref_name, block, false);
  value_aliases_.erase(ref_name);
  return lanes;
}

std::string DeviceEmitter::LaneSelectLoad(const Expr& load) {
  // The plan checked the form (PlanBuilder::RecordLaneSelect).
  std::optional<LaneSelect> select =
      MatchLaneSelect(load, plan_.tensor_defs, nullptr);
  if (!select) {
    Fail("an element gather is supported only as one element per row");
    return "None";
  }
  IndexList block;
  block.push_back(Index(IndexKind::kTile, CloneExpr(*select->tile)));
  block.push_back(Index(IndexKind::kSlice));
  const std::string rows = RefAccess(load.operands[0]->name, block, false);
  return fmt::format("{}({}, {})", state_.SelectLanes(), rows,
                     Emit(*select->lanes));
}

}  // namespace tessera::pallas
