#include "plan_view.h"

#include <optional>

#include "fmt/format.h"

namespace tessera::pallas {
namespace {

absl::Status Symbolic(std::string_view what) {
  return absl::FailedPreconditionError(fmt::format(
      "{} is not static; the cost model needs static shapes (pass --arg)",
      what));
}

absl::Status Inexpressible(std::string_view what) {
  return absl::FailedPreconditionError(
      fmt::format("{} is not a sum, product or quotient of sizes and "
                  "constants, which the cost model counts in",
                  what));
}

// A size expression of the IR as a Count: constants fold, device symbols
// and scalar parameters become the host's expressions of them.
std::optional<Count> SizeValue(const Expr* expr, const CostPlan& plan) {
  if (expr == nullptr) return std::nullopt;
  switch (expr->op) {
    case OpKind::kConst: {
      const Attr* value = expr->attr("value");
      if (value == nullptr) return std::nullopt;
      if (const int64_t* i = std::get_if<int64_t>(&value->value)) {
        return Count(*i);
      }
      return std::nullopt;
    }
    case OpKind::kVar:
      if (!expr->type.is_scalar() || !IsInteger(expr->type.dtype)) {
        return std::nullopt;
      }
      return plan.DimCount(Dim::Symbol(expr->name));
    case OpKind::kSize: {
      const int64_t* dim = GetAttr<int64_t>(expr->attrs, "dim");
      if (dim == nullptr || expr->operands.empty()) return std::nullopt;
      const Shape& shape = expr->operands[0]->type.shape;
      int64_t d = *dim < 0 ? *dim + static_cast<int64_t>(shape.size()) : *dim;
      if (d < 0 || d >= static_cast<int64_t>(shape.size())) {
        return std::nullopt;
      }
      return plan.DimCount(shape[d]);
    }
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kCdiv:
    case OpKind::kFloorDiv: {
      if (expr->operands.size() != 2) return std::nullopt;
      auto a = SizeValue(expr->operands[0].get(), plan);
      auto b = SizeValue(expr->operands[1].get(), plan);
      if (!a || !b) return std::nullopt;
      if (expr->op == OpKind::kAdd) return *a + *b;
      if (expr->op == OpKind::kSub) return *a - *b;
      if (expr->op == OpKind::kMul) return *a * *b;
      if (!b->is_constant() || b->constant() <= 0) return std::nullopt;
      return expr->op == OpKind::kCdiv ? CeilDiv(*a, b->constant())
                                       : FloorDiv(*a, b->constant());
    }
    default:
      return std::nullopt;
  }
}

// The tile naming each ref dim in an index list ("" for `:` / scalars).
std::vector<std::string> TilesByDim(const IndexList& indices, size_t rank) {
  std::vector<std::string> tiles(rank);
  size_t dim = 0;
  for (const Index& index : indices) {
    if (index.kind == IndexKind::kNewAxis) continue;
    if (dim < rank && index.kind == IndexKind::kTile && index.expr &&
        index.expr->op == OpKind::kVar) {
      tiles[dim] = index.expr->name;
    }
    ++dim;
  }
  return tiles;
}

class Viewer {
 public:
  Viewer(const KernelPlan& plan, bool prefetch, const SymbolicSizes* sizes)
      : plan_(plan), prefetch_(prefetch) {
    view_.sizes = sizes;
  }
  absl::StatusOr<CostPlan> Run();

 private:
  absl::StatusOr<Count> LoopExtent(const TileInfo& tile);
  absl::Status AddOperand(StageView& stage, const RefPlan& ref, bool grid);
  absl::Status Walk(const Block& block, int stage, const Count& multiplier);

  const KernelPlan& plan_;
  bool prefetch_;
  CostPlan view_;
};

absl::StatusOr<Count> Viewer::LoopExtent(const TileInfo& tile) {
  if (!tile.parent.empty()) {
    const TileInfo* parent = plan_.FindTile(tile.parent);
    if (parent != nullptr) return Count(parent->block);
  }
  auto begin = SizeValue(tile.dim->begin.get(), view_);
  auto end = SizeValue(tile.dim->end.get(), view_);
  if (!begin || !end) {
    return Inexpressible(fmt::format("the extent of {}", tile.name));
  }
  return *end - *begin;
}

absl::Status Viewer::AddOperand(StageView& stage, const RefPlan& ref,
                                bool grid) {
  OperandView operand;
  operand.name = ref.name;
  operand.dtype = ref.type.dtype;
  Count original = DTypeBytes(ref.type.dtype), padded = original;
  for (size_t d = 0; d < ref.type.shape.size(); ++d) {
    const Count size = view_.DimCount(ref.type.shape[d]);
    operand.pad_multiples.push_back(ref.dims[d].pad_multiple);
    operand.original_dims.push_back(size);
    operand.array_dims.push_back(RoundUp(size, ref.dims[d].pad_multiple));
    original *= size;
    padded *= operand.array_dims.back();
  }
  operand.read = ref.read || ref.atomic;
  operand.written = ref.written();
  const size_t rank = operand.array_dims.size();
  std::vector<std::string> tiles = TilesByDim(*ref.accesses[0].indices, rank);
  for (size_t d = 0; d < rank; ++d) {
    const SpecDim& spec = ref.dims[d];
    Count block = operand.array_dims[d];
    int axis = -1;
    if (grid && spec.kind == SpecKind::kBlocked) {
      block = spec.block;
      axis = plan_.PallasAxis(spec.grid_tile);
    } else if (!grid && !tiles[d].empty()) {
      const TileInfo* tile = plan_.FindTile(tiles[d]);
      if (tile != nullptr) block = tile->block;
      if (tile != nullptr && tile->loop == stage.loop) axis = 0;
    }
    operand.block_dims.push_back(block);
    operand.axis_of_dim.push_back(axis);
  }
  bool fresh_output = operand.written && !operand.read;
  if (!fresh_output && !(padded == original)) {
    operand.host_pad_bytes = original + padded;
  }
  stage.operands.push_back(std::move(operand));
  return absl::OkStatus();
}

absl::Status Viewer::Walk(const Block& block, int stage,
                          const Count& multiplier) {
  for (const Stmt& stmt : block.stmts) {
    if (stmt.kind == StmtKind::kAssign && stmt.value &&
        stmt.value->op == OpKind::kScratch && !stmt.results.empty()) {
      ScratchView scratch;
      scratch.name = stmt.results[0].name;
      scratch.dtype = stmt.results[0].type.dtype;
      for (const Dim& dim : stmt.results[0].type.shape) {
        scratch.dims.push_back(view_.DimCount(dim));
      }
      view_.scratch.push_back(std::move(scratch));
    }
    if (stmt.kind != StmtKind::kTileLoop) {
      for (const Block& region : stmt.regions) {
        absl::Status status = Walk(region, stage, multiplier);
        if (!status.ok()) return status;
      }
      continue;
    }
    const TileInfo* tile = plan_.FindTile(stmt.vars[0].name);
    if (tile == nullptr) continue;
    auto extent = LoopExtent(*tile);
    if (!extent.ok()) return extent.status();
    AxisView axis{tile->name, *extent, tile->block};
    const Count trips = axis.steps();
    std::vector<const RefPlan*> streamed = plan_.StreamedBy(&stmt);
    if (plan_.launcher == Launcher::kUnroll || streamed.empty()) {
      view_.plain_loop_trips.emplace_back(&stmt, trips);
      absl::Status status = Walk(stmt.regions[0], stage, multiplier * trips);
      if (!status.ok()) return status;
      continue;
    }
    StageView loop_stage;
    loop_stage.name =
        fmt::format("loop {} (line {})", tile->name, stmt.loc.line);
    loop_stage.loop = &stmt;
    loop_stage.axes.push_back(axis);
    loop_stage.body = &stmt.regions[0];
    loop_stage.prefetched =
        plan_.launcher == Launcher::kEmitPipeline || prefetch_;
    loop_stage.runs_per_parent_step = multiplier;
    loop_stage.parent = stage;
    for (const RefPlan* ref : streamed) {
      absl::Status status = AddOperand(loop_stage, *ref, false);
      if (!status.ok()) return status;
    }
    view_.stages.push_back(std::move(loop_stage));
    int index = static_cast<int>(view_.stages.size()) - 1;
    absl::Status status = Walk(stmt.regions[0], index, 1);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<CostPlan> Viewer::Run() {
  view_.kernel = plan_.kernel_name;
  view_.launcher = plan_.launcher;
  StageView grid;
  grid.name = "grid";
  grid.body = &plan_.device->body;
  for (int g : plan_.grid_order) {
    const TileInfo* tile = plan_.FindTile(plan_.grid_tiles[g]);
    const LoopDim& dim = plan_.launch->dims[g];
    std::optional<Count> begin, end;
    const SymbolicSizes* sizes = view_.sizes;
    if (sizes != nullptr && static_cast<size_t>(g) < sizes->grid_end.size()) {
      begin = Count::Python(sizes->grid_begin[g]);
      end = Count::Python(sizes->grid_end[g]);
    } else {
      begin = SizeValue(dim.begin.get(), view_);
      end = SizeValue(dim.end.get(), view_);
    }
    if (!begin || !end) {
      return Inexpressible(
          fmt::format("the extent of grid dim {}", tile->name));
    }
    grid.axes.push_back(AxisView{tile->name, *end - *begin, tile->block});
  }
  for (const RefPlan& ref : plan_.refs) {
    if (ref.accesses.empty() || ref.stream_loop != nullptr) continue;
    absl::Status status = AddOperand(grid, ref, true);
    if (!status.ok()) return status;
  }
  view_.stages.push_back(std::move(grid));
  absl::Status status = Walk(plan_.device->body, 0, 1);
  if (!status.ok()) return status;
  return std::move(view_);
}

}  // namespace

Count StageView::steps() const {
  Count steps = 1;
  for (const AxisView& axis : axes) steps *= axis.steps();
  return steps;
}

Count CostPlan::PlainTrips(const Stmt* loop) const {
  for (const auto& [stmt, trips] : plain_loop_trips) {
    if (stmt == loop) return trips;
  }
  return 1;
}

int CostPlan::StageOf(const Stmt* loop) const {
  for (size_t i = 1; i < stages.size(); ++i) {
    if (stages[i].loop == loop) return static_cast<int>(i);
  }
  return -1;
}

Count CostPlan::DimCount(const Dim& dim) const {
  if (dim.is_static()) return dim.size;
  if (sizes != nullptr) {
    auto it = sizes->device_symbols.find(dim.symbol);
    if (it != sizes->device_symbols.end()) return Count::Python(it->second);
  }
  unnamed_symbols.insert(dim.symbol);
  return Count::Python(dim.symbol);
}

absl::Status CostPlan::CheckStatic() const {
  for (const StageView& stage : stages) {
    for (const AxisView& axis : stage.axes) {
      if (!axis.extent.is_constant()) {
        return Symbolic(fmt::format("the extent of {}", axis.tile));
      }
    }
    if (!stage.runs_per_parent_step.is_constant()) {
      return Symbolic(fmt::format("the trip count around {}", stage.name));
    }
    for (const OperandView& operand : stage.operands) {
      for (const Count& dim : operand.array_dims) {
        if (!dim.is_constant()) {
          return Symbolic(fmt::format("the shape of {}", operand.name));
        }
      }
    }
  }
  for (const ScratchView& scratch : this->scratch) {
    for (const Count& dim : scratch.dims) {
      if (!dim.is_constant()) {
        return Symbolic(fmt::format("the shape of scratch {}", scratch.name));
      }
    }
  }
  for (const auto& [loop, trips] : plain_loop_trips) {
    if (!trips.is_constant()) {
      return Symbolic(
          fmt::format("the trip count of the loop at line {}", loop->loc.line));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CostPlan> ViewKernelPlan(const KernelPlan& plan, bool prefetch,
                                        const SymbolicSizes* sizes) {
  Viewer viewer(plan, prefetch, sizes);
  return viewer.Run();
}

}  // namespace tessera::pallas
