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

std::optional<int64_t> StaticValue(const Expr* expr) {
  if (expr == nullptr) return std::nullopt;
  switch (expr->op) {
    case OpKind::kConst: {
      const Attr* value = expr->attr("value");
      if (value == nullptr) return std::nullopt;
      if (const int64_t* i = std::get_if<int64_t>(&value->value)) return *i;
      return std::nullopt;
    }
    case OpKind::kSize: {
      const int64_t* dim = GetAttr<int64_t>(expr->attrs, "dim");
      if (dim == nullptr || expr->operands.empty()) return std::nullopt;
      const Shape& shape = expr->operands[0]->type.shape;
      int64_t d = *dim < 0 ? *dim + static_cast<int64_t>(shape.size()) : *dim;
      if (d < 0 || d >= static_cast<int64_t>(shape.size()) ||
          !shape[d].is_static()) {
        return std::nullopt;
      }
      return shape[d].size;
    }
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kCdiv:
    case OpKind::kFloorDiv: {
      if (expr->operands.size() != 2) return std::nullopt;
      auto a = StaticValue(expr->operands[0].get());
      auto b = StaticValue(expr->operands[1].get());
      if (!a || !b) return std::nullopt;
      if (expr->op == OpKind::kAdd) return *a + *b;
      if (expr->op == OpKind::kSub) return *a - *b;
      if (expr->op == OpKind::kMul) return *a * *b;
      if (*b <= 0) return std::nullopt;
      return expr->op == OpKind::kCdiv ? (*a + *b - 1) / *b : *a / *b;
    }
    default:
      return std::nullopt;
  }
}

int64_t RoundUp(int64_t size, int64_t multiple) {
  return multiple <= 1 ? size : (size + multiple - 1) / multiple * multiple;
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
  Viewer(const KernelPlan& plan, bool prefetch)
      : plan_(plan), prefetch_(prefetch) {}
  absl::StatusOr<CostPlan> Run();

 private:
  absl::StatusOr<std::vector<int64_t>> ArrayDims(const RefPlan& ref);
  absl::StatusOr<int64_t> LoopExtent(const TileInfo& tile);
  absl::Status AddOperand(StageView& stage, const RefPlan& ref, bool grid);
  absl::Status Walk(const Block& block, int stage, int64_t multiplier);

  const KernelPlan& plan_;
  bool prefetch_;
  CostPlan view_;
};

absl::StatusOr<std::vector<int64_t>> Viewer::ArrayDims(const RefPlan& ref) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < ref.type.shape.size(); ++d) {
    const Dim& dim = ref.type.shape[d];
    if (!dim.is_static())
      return Symbolic(fmt::format("the shape of {}", ref.name));
    dims.push_back(RoundUp(dim.size, ref.dims[d].pad_multiple));
  }
  return dims;
}

absl::StatusOr<int64_t> Viewer::LoopExtent(const TileInfo& tile) {
  if (!tile.parent.empty()) {
    const TileInfo* parent = plan_.FindTile(tile.parent);
    if (parent != nullptr) return parent->block;
  }
  auto begin = StaticValue(tile.dim->begin.get());
  auto end = StaticValue(tile.dim->end.get());
  if (!begin || !end)
    return Symbolic(fmt::format("the extent of {}", tile.name));
  return *end - *begin;
}

absl::Status Viewer::AddOperand(StageView& stage, const RefPlan& ref,
                                bool grid) {
  auto array = ArrayDims(ref);
  if (!array.ok()) return array.status();
  OperandView operand;
  operand.name = ref.name;
  operand.dtype = ref.type.dtype;
  operand.array_dims = *array;
  operand.read = ref.read || ref.atomic;
  operand.written = ref.written();
  std::vector<std::string> tiles =
      TilesByDim(*ref.accesses[0].indices, array->size());
  for (size_t d = 0; d < array->size(); ++d) {
    const SpecDim& spec = ref.dims[d];
    int64_t block = (*array)[d];
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
  int64_t original = DTypeBytes(ref.type.dtype), padded = original;
  for (size_t d = 0; d < array->size(); ++d) {
    original *= ref.type.shape[d].size;
    padded *= (*array)[d];
  }
  if (!fresh_output && padded != original) {
    operand.host_pad_bytes = original + padded;
  }
  stage.operands.push_back(std::move(operand));
  return absl::OkStatus();
}

absl::Status Viewer::Walk(const Block& block, int stage, int64_t multiplier) {
  for (const Stmt& stmt : block.stmts) {
    if (stmt.kind == StmtKind::kAssign && stmt.value &&
        stmt.value->op == OpKind::kScratch && !stmt.results.empty()) {
      ScratchView scratch;
      scratch.name = stmt.results[0].name;
      scratch.dtype = stmt.results[0].type.dtype;
      for (const Dim& dim : stmt.results[0].type.shape) {
        if (!dim.is_static()) return Symbolic("a scratch shape");
        scratch.dims.push_back(dim.size);
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
    std::vector<const RefPlan*> streamed = plan_.StreamedBy(&stmt);
    if (plan_.launcher == Launcher::kUnroll || streamed.empty()) {
      view_.plain_loop_trips.emplace_back(&stmt, axis.steps());
      absl::Status status =
          Walk(stmt.regions[0], stage, multiplier * axis.steps());
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
    auto begin = StaticValue(dim.begin.get());
    auto end = StaticValue(dim.end.get());
    if (!begin || !end) {
      return Symbolic(fmt::format("the extent of grid dim {}", tile->name));
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

int64_t StageView::steps() const {
  int64_t steps = 1;
  for (const AxisView& axis : axes) steps *= axis.steps();
  return steps;
}

int64_t CostPlan::PlainTrips(const Stmt* loop) const {
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

absl::StatusOr<CostPlan> ViewKernelPlan(const KernelPlan& plan, bool prefetch) {
  Viewer viewer(plan, prefetch);
  return viewer.Run();
}

}  // namespace tessera::pallas
