#include "kernel_plan.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

#include "fmt/format.h"
#include "gather_plan.h"
#include "indirect_plan.h"
#include "shifted_tiles.h"

namespace tessera::pallas {

std::string_view LauncherName(Launcher launcher) {
  switch (launcher) {
    case Launcher::kUnroll:
      return "unroll";
    case Launcher::kEmitPipeline:
      return "emit_pipeline";
    case Launcher::kForiLoop:
      return "fori_loop";
    case Launcher::kTriton:
      return "triton";
    case Launcher::kMosaicGpu:
      return "mosaic";
  }
  return "?";
}

std::optional<Launcher> LauncherByName(std::string_view name) {
  if (name == "unroll") return Launcher::kUnroll;
  if (name == "emit_pipeline") return Launcher::kEmitPipeline;
  if (name == "fori_loop") return Launcher::kForiLoop;
  if (name == "triton") return Launcher::kTriton;
  if (name == "mosaic") return Launcher::kMosaicGpu;
  return std::nullopt;
}

const RefPlan* KernelPlan::FindRef(std::string_view name) const {
  auto it = ref_by_name.find(std::string(name));
  return it == ref_by_name.end() ? nullptr : &refs[it->second];
}

const TileInfo* KernelPlan::FindTile(std::string_view name) const {
  auto it = tiles.find(std::string(name));
  return it == tiles.end() ? nullptr : &it->second;
}

int KernelPlan::PallasAxis(const std::string& grid_tile) const {
  for (size_t axis = 0; axis < grid_order.size(); ++axis) {
    if (grid_tiles[grid_order[axis]] == grid_tile)
      return static_cast<int>(axis);
  }
  return -1;
}

const TileInfo* KernelPlan::RootGrid(const TileInfo& tile) const {
  const TileInfo* current = &tile;
  while (current != nullptr && !current->is_grid) {
    if (current->parent.empty()) return nullptr;
    current = FindTile(current->parent);
  }
  return current;
}

std::vector<const RefPlan*> KernelPlan::StreamedBy(const Stmt* loop) const {
  std::vector<const RefPlan*> streamed;
  for (const RefPlan& ref : refs) {
    if (ref.stream_loop == loop) streamed.push_back(&ref);
  }
  return streamed;
}

namespace {

std::optional<int64_t> StaticInt(const Expr* expr) {
  if (expr == nullptr || expr->op != OpKind::kConst) return std::nullopt;
  const Attr* value = expr->attr("value");
  if (value == nullptr) return std::nullopt;
  if (const int64_t* i = std::get_if<int64_t>(&value->value)) return *i;
  return std::nullopt;
}

// The tile `p` when `expr` is tile_begin(p) / tile_end(p).
std::string TileOperand(const Expr* expr, OpKind op) {
  if (expr == nullptr || expr->op != op || expr->operands.size() != 1) {
    return "";
  }
  const Expr& operand = *expr->operands[0];
  return operand.op == OpKind::kVar ? operand.name : "";
}

class PlanBuilder {
 public:
  PlanBuilder(const Module& module, KernelPlan& plan,
              DiagnosticEngine& diagnostics)
      : module_(module), plan_(plan), diagnostics_(diagnostics) {}

  bool Build();

 private:
  bool Error(SourceLoc loc, std::string message) {
    diagnostics_.Error(module_.source_file, loc, std::move(message));
    return false;
  }
  bool CollectBlock(const Block& block, std::vector<const Stmt*>& loops);
  void CountUses(const Stmt& stmt);
  // Drops the uses made by assignments whose value is never used (to a
  // fixpoint), so the emitter skips whole dead chains.
  void RemoveDeadUses(const Block& body);
  void RecordAccess(const std::string& ref, const IndexList& indices,
                    const std::vector<const Stmt*>& loops, bool write,
                    bool atomic, const Stmt* stmt, bool per_row = false);
  // The loads a gather index reads row by row, and the uses it makes of
  // the values its definitions name (gather_plan.h).
  void CollectGathers(const Stmt& stmt, const std::vector<const Stmt*>& loops,
                      std::set<const Expr*>& per_row_loads);
  // A lane select reads its row block whole along the lanes: recorded as
  // the access `x[tile(t), :]`.
  bool RecordLaneSelect(const Expr& load, const std::vector<const Stmt*>& loops,
                        const Stmt& stmt);
  void PlanSpecs(RefPlan& ref);
  void PlanStreaming(RefPlan& ref);
  void PlanPadding(RefPlan& ref);
  void PlanGrid();
  // False (with a located error) when the kernel reads refs one element at
  // a time or bounds loops by them and the target has no scalar prefetch.
  bool CheckIndirectAccess();

  const Module& module_;
  KernelPlan& plan_;
  DiagnosticEngine& diagnostics_;
};

const Stmt* FindLaunch(const Block& block) {
  for (const Stmt& stmt : block.stmts) {
    if (stmt.kind == StmtKind::kLaunch) return &stmt;
    for (const Block& region : stmt.regions) {
      if (const Stmt* found = FindLaunch(region)) return found;
    }
  }
  return nullptr;
}

bool PlanBuilder::Build() {
  const Function& host = *plan_.host;
  plan_.launch = FindLaunch(host.body);
  if (plan_.launch == nullptr) {
    return Error(host.loc,
                 fmt::format("host function '{}' has no launch", host.name));
  }
  const std::string* callee =
      GetAttr<std::string>(plan_.launch->attrs, "callee");
  plan_.device = LaunchCallee(module_, *plan_.launch, &host);
  if (plan_.device == nullptr || plan_.device->kind != FunctionKind::kDevice) {
    return Error(plan_.launch->loc,
                 fmt::format("launch of '{}' names no device function",
                             callee ? *callee : std::string("?")));
  }
  const Function& device = *plan_.device;
  const size_t grid_rank = plan_.launch->dims.size();
  if (device.params.size() < grid_rank ||
      plan_.launch->operands.size() + grid_rank != device.params.size()) {
    return Error(plan_.launch->loc,
                 "launch arguments do not match the device parameters");
  }
  for (size_t i = 0; i < grid_rank; ++i) {
    const Value& param = device.params[i];
    const LoopDim& dim = plan_.launch->dims[i];
    if (!param.type.is_tile() || !dim.block.is_static()) {
      return Error(plan_.launch->loc,
                   fmt::format("grid dim {} needs a static block size", i));
    }
    TileInfo tile;
    tile.name = param.name;
    tile.block = plan_.target->KernelBlockSize(dim.block.size);
    tile.is_grid = true;
    tile.grid_index = static_cast<int>(i);
    tile.dim = &dim;
    auto begin = StaticInt(dim.begin.get());
    auto end = StaticInt(dim.end.get());
    tile.aligned = begin && *begin % tile.block == 0;
    tile.maybe_partial = !(begin && end && (*end - *begin) % tile.block == 0);
    plan_.tiles[tile.name] = tile;
    plan_.grid_tiles.push_back(tile.name);
  }
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    const Value& param = device.params[i];
    if (!param.type.is_ref()) continue;
    RefPlan ref;
    ref.name = param.name;
    ref.param_index = static_cast<int>(i);
    ref.type = param.type;
    plan_.ref_by_name[ref.name] = static_cast<int>(plan_.refs.size());
    plan_.refs.push_back(std::move(ref));
  }
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.kind != StmtKind::kAssign || !stmt.value ||
        stmt.value->op != OpKind::kScratch) {
      return;
    }
    const std::string* target =
        GetAttr<std::string>(stmt.value->attrs, "accumulates");
    auto it =
        target ? plan_.ref_by_name.find(*target) : plan_.ref_by_name.end();
    if (it != plan_.ref_by_name.end())
      plan_.refs[it->second].accumulated = true;
  });
  plan_.tensor_defs = TensorDefinitions(device);
  std::vector<const Stmt*> loops;
  if (!CollectBlock(device.body, loops)) return false;
  RemoveDeadUses(device.body);
  PlanJaggedTiles(plan_);
  PlanScalarPrefetch(plan_);
  if (!CheckIndirectAccess()) return false;
  for (RefPlan& ref : plan_.refs) {
    if (ref.scalar_prefetch) {
      ref.dims.assign(ref.type.shape.size(), SpecDim{});
      continue;
    }
    PlanSpecs(ref);
    if (plan_.launcher == Launcher::kEmitPipeline ||
        plan_.launcher == Launcher::kForiLoop ||
        plan_.launcher == Launcher::kMosaicGpu) {
      PlanStreaming(ref);
    }
    if (ref.atomic && plan_.target->AtomicTargetsInMemory(plan_)) {
      for (SpecDim& dim : ref.dims) dim.kind = SpecKind::kFull;
    }
    std::optional<std::string> illegal =
        ref.stream_loop == nullptr && !plan_.keep_illegal_blocks
            ? plan_.target->CheckBlock(RefBlockDims(ref), ref.type.dtype)
            : std::nullopt;
    if (illegal) {
      // An illegal block keeps the whole array in VMEM along the offending
      // dims and the kernel slices it instead, which Mosaic compiles only
      // when each slice starts at an aligned offset.
      if (std::optional<std::string> why = plan_.target->UnalignedSlices(ref)) {
        return Error(plan_.launch->loc,
                     fmt::format("the block of '{}' is not {}-legal: {}; and "
                                 "slicing the whole array inside the kernel "
                                 "instead needs {}; choose another block size",
                                 ref.name, plan_.target->hardware_name(),
                                 *illegal, *why));
      }
      for (size_t d = ref.dims.size() >= 2 ? ref.dims.size() - 2 : 0;
           d < ref.dims.size(); ++d) {
        ref.dims[d].kind = SpecKind::kFull;
      }
    }
    PlanPadding(ref);
    if (std::optional<ShiftPlanError> error = PlanShiftedDims(plan_, ref)) {
      return Error(error->loc, error->message);
    }
  }
  PlanGrid();
  return true;
}

void PlanBuilder::CountUses(const Stmt& stmt) {
  auto count_attrs = [&](const AttrList& attrs) {
    for (const Attr& attr : attrs) {
      if (const auto* dims = std::get_if<Shape>(&attr.value)) {
        for (const Dim& dim : *dims) {
          if (!dim.is_static()) ++plan_.use_counts[dim.symbol];
        }
      }
    }
  };
  ForEachRootExpr(stmt, [&](const Expr& root) {
    WalkExpr(root, [&](const Expr& expr) {
      if (expr.op == OpKind::kVar) ++plan_.use_counts[expr.name];
      count_attrs(expr.attrs);
    });
  });
}

void PlanBuilder::RemoveDeadUses(const Block& body) {
  std::vector<const Stmt*> assigns;
  WalkStmts(body, [&](const Stmt& stmt) {
    if (stmt.kind == StmtKind::kAssign && !stmt.results.empty() && stmt.value &&
        stmt.value->op != OpKind::kScratch) {
      assigns.push_back(&stmt);
    }
  });
  std::set<const Stmt*> dead;
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Stmt* stmt : assigns) {
      if (dead.count(stmt) || plan_.use_counts[stmt->results[0].name] > 0) {
        continue;
      }
      dead.insert(stmt);
      changed = true;
      // A gather index already gave up its tensors' uses (CollectGathers):
      // a dead gather (an index only read row by row by another gather)
      // must not give them up twice.
      std::function<void(const Expr&)> release = [&](const Expr& expr) {
        if (expr.op == OpKind::kVar) --plan_.use_counts[expr.name];
        for (const Attr& attr : expr.attrs) {
          if (const auto* dims = std::get_if<Shape>(&attr.value)) {
            for (const Dim& dim : *dims) {
              if (!dim.is_static()) --plan_.use_counts[dim.symbol];
            }
          }
        }
        for (const ExprPtr& operand : expr.operands) release(*operand);
        for (const Index& index : expr.indices) {
          if (index.expr &&
              !(index.kind == IndexKind::kGather && expr.op == OpKind::kLoad)) {
            release(*index.expr);
          }
        }
      };
      release(*stmt->value);
    }
  }
  // A dead statement reads nothing: a gather's index evaluated row by row
  // leaves its vector form unused, and its loads must not decide how the
  // index refs are passed.
  for (RefPlan& ref : plan_.refs) {
    std::erase_if(ref.accesses, [&](const RefAccess& access) {
      return access.stmt != nullptr && dead.count(access.stmt) != 0;
    });
  }
}

void PlanBuilder::CollectGathers(const Stmt& stmt,
                                 const std::vector<const Stmt*>& loops,
                                 std::set<const Expr*>& per_row_loads) {
  // Loads that gather rows, and stores and atomics that scatter them: either
  // way the ref keeps that dim whole and the index is read row by row.
  auto on_gather = [&](const std::string& ref_name, const Index& gather) {
    auto ref = plan_.ref_by_name.find(ref_name);
    if (ref != plan_.ref_by_name.end()) {
      plan_.refs[ref->second].gathered = true;
    }
    // One load (or store) at the index vector: its loads are ordinary
    // accesses.
    if (plan_.target->IndirectAccessByLoads()) return;
    WalkGatherIndex(*gather.expr, plan_.tensor_defs,
                    [&](const Expr& expr, bool expanded) {
                      // The row-by-row index names the scalars of the
                      // definitions it inlines, and no longer the tensors of
                      // the index itself.
                      if (expr.op == OpKind::kVar) {
                        if (expanded && !expr.type.is_tensor()) {
                          ++plan_.use_counts[expr.name];
                        } else if (!expanded && expr.type.is_tensor()) {
                          --plan_.use_counts[expr.name];
                        }
                      }
                      if (expr.op == OpKind::kLoad && !expr.operands.empty() &&
                          expr.operands[0]->op == OpKind::kVar) {
                        if (!expanded) per_row_loads.insert(&expr);
                        RecordAccess(expr.operands[0]->name, expr.indices,
                                     loops, false, false, nullptr, true);
                      }
                    });
  };
  ForEachRootExpr(stmt, [&](const Expr& root) {
    ForEachGather(root, [&](const Expr& load, const Index& gather) {
      on_gather(load.operands[0]->name, gather);
    });
  });
  if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
      stmt.target && stmt.target->op == OpKind::kVar) {
    for (const Index& index : stmt.indices) {
      if (index.kind == IndexKind::kGather && index.expr) {
        on_gather(stmt.target->name, index);
      }
    }
  }
}

bool PlanBuilder::RecordLaneSelect(const Expr& load,
                                   const std::vector<const Stmt*>& loops,
                                   const Stmt& stmt) {
  std::string why;
  std::optional<LaneSelect> select =
      MatchLaneSelect(load, plan_.tensor_defs, &why);
  if (!select) {
    return Error(
        stmt.loc,
        fmt::format("an element gather is supported only as one element per "
                    "row, x[tile.index, lanes] (or hl.load(x.view(-1), "
                    "[tile.index * x.size(1) + lanes])): {}",
                    why));
  }
  auto block = std::make_shared<IndexList>();
  block->push_back(Index(IndexKind::kTile, CloneExpr(*select->tile)));
  block->push_back(Index(IndexKind::kSlice));
  plan_.lane_select_blocks.push_back(block);
  if (auto ref = plan_.ref_by_name.find(load.operands[0]->name);
      ref != plan_.ref_by_name.end()) {
    plan_.refs[ref->second].lane_selected = true;
  }
  RecordAccess(load.operands[0]->name, *block, loops, false, false, &stmt);
  return true;
}

bool PlanBuilder::CollectBlock(const Block& block,
                               std::vector<const Stmt*>& loops) {
  for (const Stmt& stmt : block.stmts) {
    CountUses(stmt);
    std::set<const Expr*> per_row_loads;
    CollectGathers(stmt, loops, per_row_loads);
    bool lane_selects_ok = true;
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op != OpKind::kLoad || expr.operands.empty() ||
            expr.operands[0]->op != OpKind::kVar ||
            per_row_loads.count(&expr)) {
          return;
        }
        if (HasZippedGather(expr)) {
          lane_selects_ok =
              lane_selects_ok && RecordLaneSelect(expr, loops, stmt);
          return;
        }
        RecordAccess(expr.operands[0]->name, expr.indices, loops, false, false,
                     &stmt);
      });
    });
    if (!lane_selects_ok) return false;
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        stmt.target && stmt.target->op == OpKind::kVar) {
      RecordAccess(stmt.target->name, stmt.indices, loops, true,
                   stmt.kind == StmtKind::kAtomic, &stmt);
    }
    if (stmt.kind == StmtKind::kTileLoop) {
      if (stmt.vars.size() != 1 || stmt.dims.size() != 1) {
        return Error(stmt.loc,
                     fmt::format("inner tile loops over several dims are not "
                                 "supported by the {} backend; nest one loop "
                                 "per dim",
                                 plan_.target->backend_name()));
      }
      const LoopDim& dim = stmt.dims[0];
      if (!dim.block.is_static()) {
        return Error(stmt.loc, "inner tile loop needs a static block size");
      }
      TileInfo tile;
      tile.name = stmt.vars[0].name;
      tile.block = plan_.target->KernelBlockSize(dim.block.size);
      tile.dim = &dim;
      tile.loop = &stmt;
      std::string begin_of = TileOperand(dim.begin.get(), OpKind::kTileBegin);
      std::string end_of = TileOperand(dim.end.get(), OpKind::kTileEnd);
      const TileInfo* parent = begin_of.empty() || begin_of != end_of
                                   ? nullptr
                                   : plan_.FindTile(begin_of);
      // One block covering the whole dim has no next chunk: its last step
      // reads the host's zero padding, like any ragged tile.
      const bool parent_has_next_chunk =
          parent != nullptr &&
          !(parent->dim != nullptr && StaticInt(parent->dim->begin.get()) &&
            StaticInt(parent->dim->end.get()) &&
            *StaticInt(parent->dim->end.get()) -
                    *StaticInt(parent->dim->begin.get()) <=
                parent->block);
      if (parent_has_next_chunk && parent->block % tile.block != 0) {
        return Error(
            stmt.loc,
            fmt::format("the inner block {} does not divide the block {} of "
                        "tile '{}' whose range this loop covers: its last "
                        "step would reach into the next program's chunk; "
                        "choose a block that divides {}",
                        tile.block, parent->block, parent->name,
                        parent->block));
      }
      if (parent != nullptr) {
        tile.parent = parent->name;
        tile.aligned = parent->aligned && parent->block % tile.block == 0;
        tile.maybe_partial =
            parent->maybe_partial || parent->block % tile.block != 0;
      } else {
        auto begin = StaticInt(dim.begin.get());
        auto end = StaticInt(dim.end.get());
        tile.aligned = begin && *begin % tile.block == 0;
        tile.maybe_partial =
            !(begin && end && (*end - *begin) % tile.block == 0);
      }
      plan_.tiles[tile.name] = tile;
      loops.push_back(&stmt);
      bool ok = CollectBlock(stmt.regions[0], loops);
      loops.pop_back();
      if (!ok) return false;
      continue;
    }
    for (const Block& region : stmt.regions) {
      if (!CollectBlock(region, loops)) return false;
    }
  }
  return true;
}

void PlanBuilder::RecordAccess(const std::string& ref_name,
                               const IndexList& indices,
                               const std::vector<const Stmt*>& loops,
                               bool write, bool atomic, const Stmt* stmt,
                               bool per_row) {
  auto it = plan_.ref_by_name.find(ref_name);
  if (it == plan_.ref_by_name.end()) return;
  RefPlan& ref = plan_.refs[it->second];
  ref.accesses.push_back(RefAccess{&indices, loops, write, stmt, per_row});
  if (atomic) {
    ref.atomic = true;
  } else if (write) {
    ref.stored = true;
  } else {
    ref.read = true;
  }
}

// For each ref dim, the index every access uses there (nullptr: `:` by
// omission).
std::vector<const Index*> IndicesByDim(const IndexList& indices, size_t rank) {
  std::vector<const Index*> by_dim(rank, nullptr);
  size_t dim = 0;
  for (const Index& index : indices) {
    if (index.kind == IndexKind::kNewAxis) continue;
    if (dim < rank) by_dim[dim] = &index;
    ++dim;
  }
  return by_dim;
}

std::string TileNameOf(const Index* index) {
  if (index == nullptr || index->kind != IndexKind::kTile || !index->expr ||
      index->expr->op != OpKind::kVar) {
    return "";
  }
  return index->expr->name;
}

void PlanBuilder::PlanSpecs(RefPlan& ref) {
  const size_t rank = ref.type.shape.size();
  ref.dims.assign(rank, SpecDim{});
  for (size_t d = 0; d < rank; ++d) {
    std::string grid;
    bool blocked = !ref.accesses.empty();
    for (const RefAccess& access : ref.accesses) {
      const Index* index = IndicesByDim(*access.indices, rank)[d];
      const TileInfo* tile = plan_.FindTile(TileNameOf(index));
      const TileInfo* root = tile ? plan_.RootGrid(*tile) : nullptr;
      if (root == nullptr || !root->aligned || root->block % tile->block != 0 ||
          (!grid.empty() && grid != root->name)) {
        blocked = false;
        break;
      }
      grid = root->name;
    }
    if (blocked) {
      ref.dims[d].kind = SpecKind::kBlocked;
      ref.dims[d].grid_tile = grid;
      ref.dims[d].block = plan_.FindTile(grid)->block;
    }
  }
}

void PlanBuilder::PlanStreaming(RefPlan& ref) {
  // Atomic targets and accumulated refs stay resident across the grid dims
  // they accumulate over: never streamed.
  if (ref.accesses.empty() || ref.atomic || ref.accumulated || ref.gathered) {
    return;
  }
  if (ref.stored && (ref.read || plan_.launcher != Launcher::kEmitPipeline)) {
    return;
  }
  // The innermost loop around every access.
  const std::vector<const Stmt*>& first = ref.accesses[0].loops;
  if (first.empty()) return;
  const Stmt* loop = first.back();
  for (const RefAccess& access : ref.accesses) {
    if (access.loops.empty() || access.loops.back() != loop) return;
  }
  const TileInfo* loop_tile = plan_.FindTile(loop->vars[0].name);
  if (loop_tile == nullptr) return;
  const size_t rank = ref.type.shape.size();
  // Every access must index the same way: tiles, `:` or None, using the
  // loop's own tile somewhere.
  const IndexList& pattern = *ref.accesses[0].indices;
  bool uses_loop_tile = false;
  for (const RefAccess& access : ref.accesses) {
    const IndexList& indices = *access.indices;
    if (indices.size() != pattern.size()) return;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i].kind != pattern[i].kind) return;
      if (indices[i].kind == IndexKind::kTile) {
        if (TileNameOf(&indices[i]) != TileNameOf(&pattern[i])) return;
      } else if (indices[i].kind != IndexKind::kSlice &&
                 indices[i].kind != IndexKind::kNewAxis) {
        return;
      }
    }
  }
  std::vector<const Index*> by_dim = IndicesByDim(pattern, rank);
  std::vector<BlockDim> block;
  for (size_t d = 0; d < rank; ++d) {
    const TileInfo* tile = plan_.FindTile(TileNameOf(by_dim[d]));
    if (by_dim[d] != nullptr && by_dim[d]->kind == IndexKind::kTile) {
      if (tile == nullptr || !tile->aligned) return;
      if (tile->name == loop_tile->name) uses_loop_tile = true;
      block.push_back(BlockDim{tile->block, false});
    } else {
      block.push_back(BlockDim{0, true});
    }
  }
  if (!uses_loop_tile) return;
  // The loop's block index must be computable: it starts at 0 or at its
  // parent's begin.
  if (!loop_tile->aligned) return;
  if (plan_.target->CheckBlock(block, ref.type.dtype).has_value()) return;
  ref.stream_loop = loop;
}

void PlanBuilder::PlanPadding(RefPlan& ref) {
  const size_t rank = ref.type.shape.size();
  // A whole static dim whose kernel block is larger (rounded up) is padded
  // to that block.
  const std::vector<BlockDim> block = RefBlockDims(ref);
  for (size_t d = 0; d < rank && d < block.size(); ++d) {
    if (!block[d].is_full) continue;
    if (block[d].size == 0) {
      ref.dims[d].pad_to_kernel_block =
          plan_.target->KernelBlockSizeText("n") != "n";
      continue;
    }
    const int64_t kernel_block = plan_.target->KernelBlockSize(block[d].size);
    if (kernel_block != block[d].size) {
      ref.dims[d].pad_multiple =
          std::lcm(ref.dims[d].pad_multiple, kernel_block);
    }
  }
  for (const RefAccess& access : ref.accesses) {
    std::vector<const Index*> by_dim = IndicesByDim(*access.indices, rank);
    for (size_t d = 0; d < rank; ++d) {
      const TileInfo* tile = plan_.FindTile(TileNameOf(by_dim[d]));
      if (tile == nullptr) continue;
      SpecDim& spec = ref.dims[d];
      // A grid tile picking its own block needs no padding: Pallas handles
      // the ragged edge block. Everything sliced inside the kernel or
      // streamed by DMA does.
      bool edge_ok = spec.kind == SpecKind::kBlocked && tile->is_grid &&
                     ref.stream_loop == nullptr &&
                     !plan_.target->PadEdgeBlocks();
      if (edge_ok) continue;
      int64_t multiple = tile->block;
      if (tile->jagged) spec.pad_extra = std::max(spec.pad_extra, tile->block);
      if (spec.kind == SpecKind::kBlocked) {
        multiple = std::lcm(multiple, spec.block);
      }
      spec.pad_multiple = std::lcm(spec.pad_multiple, multiple);
    }
  }
}

void PlanBuilder::PlanGrid() {
  const size_t rank = plan_.grid_tiles.size();
  plan_.grid_arbitrary.assign(rank, false);
  for (const RefPlan& ref : plan_.refs) {
    if (!ref.written()) continue;
    for (size_t g = 0; g < rank; ++g) {
      bool mapped = false;
      if (ref.stream_loop != nullptr) {
        for (const Index& index : *ref.accesses[0].indices) {
          const TileInfo* tile = plan_.FindTile(TileNameOf(&index));
          const TileInfo* root = tile ? plan_.RootGrid(*tile) : nullptr;
          if (root && root->name == plan_.grid_tiles[g]) mapped = true;
        }
      }
      for (const SpecDim& dim : ref.dims) {
        if (dim.kind == SpecKind::kBlocked &&
            dim.grid_tile == plan_.grid_tiles[g]) {
          mapped = true;
        }
      }
      if (!mapped) plan_.grid_arbitrary[g] = true;
    }
  }
  // Dims a pass declared sequential (atomic-accumulator: the dims an
  // accumulator is carried across).
  if (const auto* declared = GetAttr<std::vector<int64_t>>(
          plan_.device->attrs, "arbitrary_grid_dims")) {
    for (int64_t g : *declared) {
      if (g >= 0 && static_cast<size_t>(g) < rank)
        plan_.grid_arbitrary[g] = true;
    }
  }
  for (size_t g = 0; g < rank; ++g) {
    if (!plan_.grid_arbitrary[g])
      plan_.grid_order.push_back(static_cast<int>(g));
  }
  for (size_t g = 0; g < rank; ++g) {
    if (plan_.grid_arbitrary[g])
      plan_.grid_order.push_back(static_cast<int>(g));
  }
}

bool PlanBuilder::CheckIndirectAccess() {
  if (plan_.target->ScalarPrefetchGridSpec() ||
      plan_.target->IndirectAccessByLoads()) {
    return true;
  }
  const std::string backend = plan_.target->IndirectAccessUnsupportedBy();
  const std::string alternative = plan_.target->IndirectAccessAlternative();
  for (const auto& [name, tile] : plan_.tiles) {
    if (!tile.jagged) continue;
    return Error(tile.loop->loc,
                 fmt::format("loop bounds read from memory (jagged tile {}) "
                             "are not supported by {} yet{}",
                             name, backend, alternative));
  }
  for (const RefPlan& ref : plan_.refs) {
    if (!ref.scalar_prefetch) continue;
    const bool indexes_gather =
        std::any_of(ref.accesses.begin(), ref.accesses.end(),
                    [](const RefAccess& access) { return access.per_row; });
    if (indexes_gather) {
      return Error(plan_.launch->loc,
                   fmt::format("gathers are not supported by {} yet: the "
                               "rows a gather selects are read from index "
                               "tensor {} one element at a time (scalar "
                               "prefetch){}",
                               backend, ref.name, alternative));
    }
    return Error(plan_.launch->loc,
                 fmt::format("scalar prefetch (ref {} is read one element at "
                             "a time) is not supported by {} yet{}",
                             ref.name, backend, alternative));
  }
  return true;
}

}  // namespace

std::vector<BlockDim> RefBlockDims(const RefPlan& ref) {
  std::vector<BlockDim> block;
  for (size_t d = 0; d < ref.dims.size(); ++d) {
    const SpecDim& dim = ref.dims[d];
    // A block as large as a static dim is the whole dim (a one-step grid).
    const Dim& size = ref.type.shape[d];
    const bool whole = dim.kind != SpecKind::kBlocked ||
                       (size.is_static() && size.size == dim.block);
    // A whole dim carries its static size (0: symbolic) for rules that
    // constrain it too (a GPU's power-of-two tensors).
    const int64_t whole_size = size.is_static() ? size.size : 0;
    block.push_back(whole ? BlockDim{whole_size, true}
                          : BlockDim{dim.block, false});
  }
  return block;
}

std::vector<int64_t> StreamBlockShape(const KernelPlan& plan,
                                      const RefPlan& ref) {
  const size_t rank = ref.type.shape.size();
  std::vector<const Index*> by_dim =
      IndicesByDim(*ref.accesses[0].indices, rank);
  std::vector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    const TileInfo* tile = plan.FindTile(TileNameOf(by_dim[d]));
    shape.push_back(tile ? tile->block : -1);
  }
  return shape;
}

absl::StatusOr<KernelPlan> PlanKernel(const Module& module,
                                      const Function& host, Launcher launcher,
                                      const PallasTarget& target,
                                      DiagnosticEngine& diagnostics,
                                      bool keep_illegal_blocks) {
  KernelPlan plan;
  plan.target = &target;
  plan.host = &host;
  plan.kernel_name = host.name;
  plan.launcher = launcher;
  plan.keep_illegal_blocks = keep_illegal_blocks;
  PlanBuilder builder(module, plan, diagnostics);
  if (!builder.Build()) {
    return absl::InvalidArgumentError(
        fmt::format("cannot plan kernel '{}'", host.name));
  }
  return plan;
}

}  // namespace tessera::pallas
