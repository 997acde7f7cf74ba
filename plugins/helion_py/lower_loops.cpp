// Loops and block sizes: hl.tile loops (grid and inner), range loops,
// `if`, and the choice of each tile dim's block size.
#include <algorithm>
#include <set>

#include "fmt/format.h"
#include "lower_internal.h"

namespace tessera::helion_py {
namespace {

void CollectTargetNames(const Node& target, std::set<std::string>& out) {
  if (target.kind == NodeKind::kName) out.insert(target.text);
  if (target.kind == NodeKind::kTuple || target.kind == NodeKind::kList) {
    for (const NodePtr& child : target.children)
      CollectTargetNames(*child, out);
  }
}

void AssignedNames(const std::vector<PyStmt>& body,
                   std::set<std::string>& out) {
  for (const PyStmt& stmt : body) {
    for (const NodePtr& target : stmt.targets) CollectTargetNames(*target, out);
    if (stmt.kind == PyStmtKind::kAugAssign)
      CollectTargetNames(*stmt.target, out);
    AssignedNames(stmt.body, out);
    AssignedNames(stmt.orelse, out);
  }
}

// The tile `t` when `begin` is t.begin and `end` is t.end of one tile with a
// static block.
const Expr* SameTileBounds(const Val& begin, const Val& end) {
  auto tile_of = [](const Val& bound, OpKind op) -> const Expr* {
    if (!bound.IsValue() || bound.expr->op != op ||
        bound.expr->operands.size() != 1) {
      return nullptr;
    }
    const Expr* tile = bound.expr->operands[0].get();
    const bool static_tile = tile->op == OpKind::kVar && tile->type.is_tile() &&
                             !tile->type.shape.empty() &&
                             tile->type.shape[0].is_static();
    return static_tile ? tile : nullptr;
  };
  const Expr* begin_tile = tile_of(begin, OpKind::kTileBegin);
  const Expr* end_tile = tile_of(end, OpKind::kTileEnd);
  if (begin_tile == nullptr || end_tile == nullptr ||
      begin_tile->name != end_tile->name) {
    return nullptr;
  }
  return begin_tile;
}

}  // namespace

// ---------------------------------------------------------------------------
// Block sizes
// ---------------------------------------------------------------------------
TileVal KernelLowering::AllocateTileDim(const Val* explicit_block,
                                        std::optional<Dim> extent,
                                        SourceLoc loc) {
  TileVal tile;
  tile.ordinal = next_tile_ordinal_++;
  tile_usage_.push_back(0);
  tile_extents_.push_back(extent);
  int64_t block = 0;
  // A block size Helion derives from shapes at call time is Tessera's to
  // choose, as if none were given.
  if (explicit_block && explicit_block->kind != ValKind::kNone &&
      explicit_block->kind != ValKind::kCallTimeInt) {
    if (explicit_block->kind == ValKind::kInt && explicit_block->i > 0) {
      block = explicit_block->i;
    } else {
      Report(loc,
             "block_size must be a positive integer known at compile "
             "time (a literal or hl.register_block_size)");
      block = kMinorBlock;
    }
  } else if (next_block_slot_ < spec_.block_sizes.size()) {
    block = spec_.block_sizes[next_block_slot_++];
    if (block <= 0) {
      Report(loc, fmt::format("configured block size {} for this hl.tile dim "
                              "must be positive",
                              block));
      block = kMinorBlock;
    } else if (decorator_blocks_) {
      block = TpuGranularBlock(tile.ordinal, block, loc);
    }
  } else {
    ++next_block_slot_;
    block = tile.ordinal < static_cast<int>(default_blocks_.size())
                ? default_blocks_[tile.ordinal]
                : kMinorBlock;
    consulted_blocks_.emplace_back(tile.ordinal, block);
    if (default_block_cap_ > 0) block = std::min(block, default_block_cap_);
  }
  if (extent && extent->is_static() && extent->size > 0) {
    block = std::min(block, extent->size);
  }
  tile.block = block;
  return tile;
}

bool KernelLowering::DefaultBlockAbove(int64_t cap) const {
  for (const auto& [ordinal, block] : consulted_blocks_) {
    const std::optional<Dim>& extent =
        static_cast<size_t>(ordinal) < tile_extents_.size()
            ? tile_extents_[ordinal]
            : std::nullopt;
    const int64_t used = extent && extent->is_static() && extent->size > 0
                             ? std::min(block, extent->size)
                             : block;
    if (used > cap) return true;
  }
  return registered_default_block_ > cap;
}

// helion.Config block sizes are tuned for GPUs (long_sum.py's row block of
// 1): a tile that indexes a tensor's lane dim gets a multiple of 128 lanes,
// one that indexes its sublane dim a multiple of 8 sublanes (the TPU's
// (8, 128) tiling; packed dtypes need more and are checked by the backend),
// with a warning at the kernel's `block_sizes`.
int64_t KernelLowering::TpuGranularBlock(int ordinal, int64_t block,
                                         SourceLoc loc) {
  const int usage = ordinal < static_cast<int>(probed_usage_.size())
                        ? probed_usage_[ordinal]
                        : 0;
  consulted_usage_.emplace_back(ordinal, usage);
  const int64_t granule = (usage & 4) != 0   ? kMinorBlock
                          : (usage & 1) != 0 ? kSublaneBlock
                                             : 1;
  const int64_t rounded = (block + granule - 1) / granule * granule;
  if (rounded != block) {
    block_warnings_.push_back(
        fmt::format("helion.Config block size {} of the hl.tile at line {} "
                    "rounds up to {}: the tile indexes a {} dim, which the "
                    "TPU tiles by {}",
                    block, loc.line, rounded,
                    granule == kMinorBlock ? "lane" : "sublane", granule));
  }
  return rounded;
}

int64_t KernelLowering::RegisterBlockSize(std::optional<Dim> extent) {
  int64_t block = kMinorBlock;
  if (next_block_slot_ < spec_.block_sizes.size() &&
      spec_.block_sizes[next_block_slot_] > 0) {
    block = spec_.block_sizes[next_block_slot_];
  } else {
    const int64_t whole = extent && extent->is_static() && extent->size > 0
                              ? std::min(block, extent->size)
                              : block;
    registered_default_block_ = std::max(registered_default_block_, whole);
    if (default_block_cap_ > 0) block = std::min(block, default_block_cap_);
  }
  ++next_block_slot_;
  if (extent && extent->is_static() && extent->size > 0) {
    block = std::min(block, extent->size);
  }
  return block;
}

// Python constants that a loop body reassigns must exist as IR values
// before the loop, or each iteration would restart from the constant.
void KernelLowering::MaterializeLoopCarried(const std::vector<PyStmt>& body) {
  std::set<std::string> assigned;
  AssignedNames(body, assigned);
  for (const std::string& name : assigned) {
    auto it = env_.find(name);
    if (it == env_.end() || !it->second.IsNumber()) continue;
    ExprPtr constant = ToExpr(it->second, nullptr, SourceLoc{});
    Type type = constant->type;
    std::string ir_name = IrNameFor(name, type.kind);
    Emit(MakeAssign(Value{ir_name, type}, std::move(constant), kernel_.loc));
    env_[name] = Val::Value(MakeVar(ir_name, type));
  }
}

void KernelLowering::LowerFor(const PyStmt& stmt) {
  const Node& iter = *stmt.iter;
  std::string callee;
  if (iter.kind == NodeKind::kCall) {
    Val fn = Eval(*iter.children[0]);
    if (fn.kind == ValKind::kPoison) return;
    if (fn.kind == ValKind::kModule) callee = fn.text;
  }
  if (callee == "helion.language.tile") return LowerTileLoop(stmt, iter);
  if (callee == "helion.language.jagged_tile") {
    return LowerJaggedTileLoop(stmt, iter);
  }
  // A top-level hl.grid is the grid: a tile loop of block 1 whose targets
  // are the scalar indices (tile.begin).
  if (callee == "helion.language.grid" && tile_depth_ == 0) {
    grid_scalars_ = true;
    return LowerTileLoop(stmt, iter);
  }
  if (callee == "builtins.range" || callee == "helion.language.grid" ||
      callee == "helion.language.static_range") {
    return LowerRangeLoop(stmt, iter);
  }
  // A misspelt loop function (`hl.tiel`): the loop function of its module
  // it is closest to, spelt as the source spells the module.
  std::string suggestion;
  if (const size_t dot = callee.rfind('.'); dot != std::string::npos) {
    std::vector<std::string> loops;
    for (const char* known :
         {"helion.language.tile", "helion.language.jagged_tile",
          "helion.language.grid", "helion.language.static_range",
          "builtins.range"}) {
      const std::string_view path = known;
      if (path.substr(0, dot + 1) == callee.substr(0, dot + 1)) {
        loops.emplace_back(path.substr(dot + 1));
      }
    }
    const std::string closest = ClosestName(callee.substr(dot + 1), loops);
    const std::string written = DottedName(*iter.children[0]);
    const size_t written_dot = written.rfind('.');
    if (!closest.empty()) {
      suggestion =
          fmt::format("; did you mean '{}'?",
                      written_dot == std::string::npos
                          ? closest
                          : written.substr(0, written_dot + 1) + closest);
    }
  }
  Diagnostic* d = Report(iter.loc,
                         "unsupported loop: a kernel loops over "
                         "hl.tile(...) or range(...)" +
                             suggestion);
  Note(d,
       "supported: for tile in hl.tile(n); for tile_m, tile_n in "
       "hl.tile([m, n]); hl.tile(begin, end); block_size=...; "
       "hl.jagged_tile(lengths); for i in range(n)");
}

void KernelLowering::LowerTileLoop(const PyStmt& stmt, const Node& call) {
  const bool scalars = grid_scalars_;
  grid_scalars_ = false;
  const Val unit_block = Val::Int(1);
  CallArgs args;
  args.loc = call.loc;
  for (size_t i = 1; i < call.children.size(); ++i) {
    args.positional.push_back(Eval(*call.children[i]));
    args.positional_locs.push_back(call.children[i]->loc);
  }
  for (const Keyword& keyword : call.keywords) {
    args.keywords.emplace_back(keyword.name, Eval(*keyword.value));
    args.keyword_locs.push_back(keyword.loc);
    if (keyword.name != "block_size") {
      Fail(keyword.loc, fmt::format("unknown argument '{}' of hl.tile; "
                                    "supported: block_size",
                                    keyword.name));
      return;
    }
  }
  for (const Val& arg : args.positional) {
    if (arg.kind == ValKind::kPoison) return;
  }
  const Val* block_arg =
      args.Get(args.positional.size() == 3 ? 2 : 99, "block_size");
  if (args.positional.empty() || args.positional.size() > 3) {
    Fail(call.loc,
         "hl.tile takes (sizes), (begin, end) or (begin, end, block_size)");
    return;
  }
  // Each dim: begin, end and an optional explicit block size.
  struct DimSpec {
    Val begin, end;
    const Val* block = nullptr;
    SourceLoc loc;
  };
  std::vector<DimSpec> dims;
  bool multi = false;
  auto as_list = [](const Val& v) { return v.kind == ValKind::kTuple; };
  if (args.positional.size() == 1) {
    const Val& sizes = args.positional[0];
    multi = as_list(sizes);
    size_t n = multi ? sizes.elems.size() : 1;
    for (size_t d = 0; d < n; ++d) {
      DimSpec spec;
      spec.begin = Val::Int(0);
      spec.end = multi ? sizes.elems[d].Clone() : sizes.Clone();
      spec.loc = args.positional_locs[0];
      dims.push_back(std::move(spec));
    }
  } else {
    const Val& begins = args.positional[0];
    const Val& ends = args.positional[1];
    multi = as_list(ends);
    size_t n = multi ? ends.elems.size() : 1;
    if (as_list(begins) != multi || (multi && begins.elems.size() != n)) {
      Fail(call.loc,
           "hl.tile(begin, end): begin and end must both be sizes "
           "or lists of the same length");
      return;
    }
    for (size_t d = 0; d < n; ++d) {
      DimSpec spec;
      spec.begin = multi ? begins.elems[d].Clone() : begins.Clone();
      spec.end = multi ? ends.elems[d].Clone() : ends.Clone();
      spec.loc = args.positional_locs[1];
      dims.push_back(std::move(spec));
    }
  }
  if (dims.empty()) {
    Fail(call.loc, "hl.tile needs at least one dim");
    return;
  }
  if (block_arg && block_arg->kind == ValKind::kTuple) {
    if (block_arg->elems.size() != dims.size()) {
      Fail(args.LocOf(2, "block_size"),
           fmt::format("block_size has {} entries for {} dims",
                       block_arg->elems.size(), dims.size()));
      return;
    }
    for (size_t d = 0; d < dims.size(); ++d)
      dims[d].block = &block_arg->elems[d];
  } else if (block_arg) {
    if (dims.size() != 1) {
      Fail(args.LocOf(2, "block_size"),
           "block_size of a multi-dim hl.tile must be a list");
      return;
    }
    dims[0].block = block_arg;
  }

  // Targets.
  const Node& target = *stmt.target;
  std::vector<std::string> names;
  if (target.kind == NodeKind::kName) {
    if (!multi) {
      names.push_back(target.text);
    } else {
      for (size_t d = 0; d < dims.size(); ++d) {
        names.push_back(fmt::format("{}_{}", target.text, d));
      }
    }
  } else if (target.kind == NodeKind::kTuple ||
             target.kind == NodeKind::kList) {
    if (target.children.size() != dims.size()) {
      Fail(target.loc, fmt::format("hl.tile yields {} tiles, but the loop "
                                   "unpacks {}",
                                   dims.size(), target.children.size()));
      return;
    }
    for (const NodePtr& child : target.children) {
      if (child->kind != NodeKind::kName) {
        Fail(child->loc, "a tile loop target must be a name");
        return;
      }
      names.push_back(child->text);
    }
  } else {
    Fail(target.loc, "a tile loop target must be a name or a tuple of names");
    return;
  }

  MaterializeLoopCarried(stmt.body);
  Stmt loop;
  loop.kind = tessera::StmtKind::kTileLoop;
  loop.loc = stmt.loc;
  std::vector<Val> tiles;
  for (size_t d = 0; d < dims.size(); ++d) {
    DimSpec& spec = dims[d];
    ExprPtr begin = ToIndexExpr(spec.begin, spec.loc);
    ExprPtr end = ToIndexExpr(spec.end, spec.loc);
    if (!begin || !end) return;
    std::optional<Dim> extent;
    if (spec.begin.kind == ValKind::kInt) {
      if (spec.end.kind == ValKind::kInt) {
        extent = Dim::Static(spec.end.i - spec.begin.i);
      } else if (spec.begin.i == 0 && spec.end.IsValue() &&
                 spec.end.expr->op == OpKind::kVar) {
        extent = Dim::Symbol(spec.end.expr->name);
      }
    } else if (const Expr* parent = SameTileBounds(spec.begin, spec.end)) {
      // hl.tile(t.begin, t.end): the range is one block of `t`, so a wider
      // inner block is clamped to it (Helion masks it to the range; past
      // the range lies the neighbouring program's chunk).
      extent = parent->type.shape[0];
    }
    // The rows of an hl.jagged_tile run one per grid step
    // (lower_jagged_rows.cpp says why).
    const bool jagged_rows = tile_depth_ == 0 && dims.size() == 1 &&
                             JaggedRowTiles().count(names[d]) != 0;
    if (jagged_rows && spec.block && spec.block->kind == ValKind::kInt &&
        spec.block->i != 1) {
      Diagnostic* diag = Report(
          spec.loc, fmt::format("block_size {} of a rows tile that bounds an "
                                "hl.jagged_tile is not supported; it must be 1",
                                spec.block->i));
      Note(diag,
           "on TPU each grid step reads its row's offsets as SMEM scalars, "
           "which bound the jagged loop (a block of rows would need the max "
           "of a vector as a scalar loop bound)");
    }
    TileVal tile = AllocateTileDim(
        scalars || jagged_rows ? &unit_block : spec.block, extent, spec.loc);
    tile.jagged_rows = jagged_rows;
    std::string ir_name = IrNameFor(names[d], TypeKind::kTile);
    tile.name = ir_name;
    tile.zero_based = spec.begin.kind == ValKind::kInt && spec.begin.i == 0;
    Type tile_type = Type::Tile(Dim::Static(tile.block));
    loop.vars.push_back(Value{ir_name, tile_type});
    loop.dims.push_back(
        LoopDim{std::move(begin), std::move(end), Dim::Static(tile.block)});
    Val tile_val;
    tile_val.kind = ValKind::kTile;
    tile_val.tile = tile;
    tiles.push_back(std::move(tile_val));
  }
  if (tile_depth_ == 0) SetAttr(loop.attrs, "grid", true);
  if (scalars) {
    for (Val& tile : tiles)
      tile = EvalAttribute(std::move(tile), "begin", call.loc);
  }
  if (target.kind == NodeKind::kName) {
    env_[target.text] =
        multi ? Val::Tuple(std::move(tiles)) : std::move(tiles[0]);
  } else {
    for (size_t d = 0; d < names.size(); ++d)
      env_[names[d]] = std::move(tiles[d]);
  }
  // Inside the grid, hl.tile([a, b]) visits the same blocks as one loop
  // per dim, nested in order, which is what the backends run (an inner
  // loop streams along one dim); moe_matmul_ogs tiles [tokens, N] so.
  std::vector<Stmt> levels;
  if (tile_depth_ > 0 && loop.dims.size() > 1) {
    for (size_t d = 0; d < loop.dims.size(); ++d) {
      Stmt level;
      level.kind = tessera::StmtKind::kTileLoop;
      level.loc = loop.loc;
      level.vars.push_back(std::move(loop.vars[d]));
      level.dims.push_back(std::move(loop.dims[d]));
      levels.push_back(std::move(level));
    }
  } else {
    levels.push_back(std::move(loop));
  }
  for (Stmt& level : levels) level.regions.resize(1);
  LowerTileBody(stmt.body, levels.back().regions[0]);
  const std::vector<std::string> bound =
      target.kind == NodeKind::kName ? std::vector<std::string>{target.text}
                                     : names;
  for (const std::string& name : bound) {
    env_.erase(name);
    ended_loop_targets_[name] = stmt.loc;
  }
  for (size_t d = levels.size() - 1; d > 0; --d) {
    levels[d - 1].regions[0].stmts.push_back(std::move(levels[d]));
  }
  Emit(std::move(levels[0]));
}

void KernelLowering::LowerRangeLoop(const PyStmt& stmt, const Node& call) {
  std::vector<Val> args;
  for (size_t i = 1; i < call.children.size(); ++i) {
    args.push_back(Eval(*call.children[i]));
    if (args.back().kind == ValKind::kPoison) return;
  }
  if (!call.keywords.empty() || args.empty() || args.size() > 3) {
    Fail(call.loc, "range takes (end), (begin, end) or (begin, end, step)");
    return;
  }
  if (stmt.target->kind != NodeKind::kName) {
    Fail(stmt.target->loc, "a range loop target must be a name");
    return;
  }
  Val begin = args.size() >= 2 ? std::move(args[0]) : Val::Int(0);
  Val end = args.size() >= 2 ? std::move(args[1]) : std::move(args[0]);
  int64_t step = 1;
  if (args.size() == 3) {
    if (args[2].kind != ValKind::kInt || args[2].i <= 0) {
      Fail(call.children[3]->loc,
           "the step of a range loop must be a positive "
           "integer constant");
      return;
    }
    step = args[2].i;
  }
  ExprPtr begin_expr = ToIndexExpr(begin, call.loc);
  ExprPtr end_expr = ToIndexExpr(end, call.loc);
  if (!begin_expr || !end_expr) return;
  MaterializeLoopCarried(stmt.body);
  Stmt loop;
  loop.kind = tessera::StmtKind::kRangeLoop;
  loop.loc = stmt.loc;
  std::string ir_name = IrNameFor(stmt.target->text, TypeKind::kScalar);
  loop.vars.push_back(Value{ir_name, Type::Scalar(DType::kI64)});
  loop.dims.push_back(
      LoopDim{std::move(begin_expr), std::move(end_expr), Dim::Static(step)});
  env_[stmt.target->text] =
      Val::Value(MakeVar(ir_name, Type::Scalar(DType::kI64)));
  loop.regions.resize(1);
  blocks_.push_back(&loop.regions[0]);
  ++loop_depth_;
  LowerBlock(stmt.body);
  --loop_depth_;
  blocks_.pop_back();
  env_.erase(stmt.target->text);
  ended_loop_targets_[stmt.target->text] = stmt.loc;
  Emit(std::move(loop));
}

void KernelLowering::LowerTileBody(const std::vector<PyStmt>& body,
                                   Block& region) {
  blocks_.push_back(&region);
  ++tile_depth_;
  ++loop_depth_;
  LowerBlock(body);
  --loop_depth_;
  --tile_depth_;
  blocks_.pop_back();
}

void KernelLowering::LowerIf(const PyStmt& stmt) {
  Val test = Eval(*stmt.test);
  if (test.kind == ValKind::kPoison) return;
  if (test.IsNumber() || test.kind == ValKind::kNone ||
      test.kind == ValKind::kString || test.kind == ValKind::kDType) {
    bool taken = test.kind == ValKind::kString  ? !test.text.empty()
                 : test.kind == ValKind::kDType ? true
                 : test.kind == ValKind::kNone  ? false
                                                : test.AsDouble() != 0;
    LowerBlock(taken ? stmt.body : stmt.orelse);
    return;
  }
  // A rank-0 tensor (`x.sum() > 0`) is one run-time value, like a scalar.
  const bool one_value =
      test.IsScalar() || (test.IsTensor() && test.type().shape.empty());
  if (!one_value || test.type().dtype != DType::kBool) {
    Diagnostic* d = Report(stmt.test->loc,
                           "the condition of 'if' must be a compile-time "
                           "constant or a scalar bool");
    Note(d, test.IsTensor() ? "a tensor condition needs torch.where"
                            : "got a value that is neither");
    return;
  }
  Stmt branch;
  branch.kind = tessera::StmtKind::kIf;
  branch.loc = stmt.loc;
  branch.value = std::move(test.expr);
  branch.regions.resize(2);
  blocks_.push_back(&branch.regions[0]);
  LowerBlock(stmt.body);
  bool returned_in_then = returned_;
  returned_ = false;
  blocks_.back() = &branch.regions[1];
  LowerBlock(stmt.orelse);
  blocks_.pop_back();
  if (returned_in_then || returned_) {
    returned_ = false;
    Fail(stmt.loc, "'return' inside a runtime 'if' is not supported");
  }
  Emit(std::move(branch));
}

}  // namespace tessera::helion_py
