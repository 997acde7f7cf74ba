#include "atomic_accumulator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fmt/format.h"

namespace tessera {
namespace {

constexpr int kWholeDim = -1;

std::optional<int64_t> StaticInt(const Expr* expr) {
  if (expr == nullptr || expr->op != OpKind::kConst) return std::nullopt;
  if (const int64_t* value = GetAttr<int64_t>(expr->attrs, "value")) {
    return *value;
  }
  return std::nullopt;
}

// One ref parameter that atomics write, and how its accumulator is laid out.
struct Target {
  std::string name;
  Type type;  // the parameter's ref type
  // Per ref dim: the IR grid index whose tile picks the block, or kWholeDim.
  std::vector<int> mapping;
  std::vector<Stmt*> atomics;
  // Per ref dim: the block a grid cell accumulates (a grid tile's block or
  // the whole static dim) and the accumulator's extent (the block, rounded
  // up to whole inner tiles that index the dim).
  // A dim of symbolic extent n has block n and extent n rounded up to whole
  // inner tiles, a symbol the host computes (`padded_extents`).
  std::vector<Dim> block;
  std::vector<Dim> extent;
  std::vector<int64_t> pad_multiple;
  std::string acc_name;
  DType acc_dtype = DType::kF32;
  // Grid dims the block does not map and whose extent is not statically 1.
  std::vector<int> unmapped;
  // New host symbol -> (symbolic dim, multiple): symbol = cdiv(dim, m) * m.
  std::vector<std::pair<std::string, std::pair<std::string, int64_t>>>
      padded_extents;
};

class DeviceRewriter {
 public:
  DeviceRewriter(const Module& module, Function& device, const Stmt* launch,
                 DiagnosticEngine& diagnostics, bool remarks)
      : module_(module),
        device_(device),
        launch_(launch),
        diagnostics_(diagnostics),
        remarks_(remarks) {}

  // Returns false after reporting errors; sets `changed`.
  bool Run(bool& changed);
  // Host symbols the accumulators' shapes need: (symbol, (dim, multiple)),
  // symbol = cdiv(dim, multiple) * multiple. The caller defines them before
  // the launch and passes them in (AddHostExtents).
  std::vector<std::pair<std::string, std::pair<std::string, int64_t>>>
  host_extents() const {
    std::vector<std::pair<std::string, std::pair<std::string, int64_t>>> all;
    for (const Target& target : targets_) {
      all.insert(all.end(), target.padded_extents.begin(),
                 target.padded_extents.end());
    }
    return all;
  }

 private:
  void Error(SourceLoc loc, std::string message) {
    diagnostics_.Error(module_.source_file, loc, std::move(message));
    ok_ = false;
  }
  void FindGrid();
  void CollectNames();
  void ComputeGridDependence();
  bool DependsOnGrid(const Expr& expr) const;
  void CollectTargets();
  void CheckPlainAccesses();
  void PlanTarget(Target& target);
  std::string FreshName(const std::string& base);
  void RewriteAtomic(const Target& target, Stmt& atomic);
  IndexList RefIndices(const Target& target) const;
  IndexList AccIndices(const Target& target) const;
  Type AccType(const Target& target) const;
  Type BlockTensor(const Target& target, DType dtype) const;
  ExprPtr CellCondition(const std::vector<int>& dims, bool last,
                        SourceLoc loc) const;
  Stmt Guarded(ExprPtr condition, std::vector<Stmt> stmts, SourceLoc loc) const;

  const Module& module_;
  Function& device_;
  const Stmt* launch_;
  DiagnosticEngine& diagnostics_;
  bool remarks_ = false;
  bool ok_ = true;
  std::vector<std::string> grid_tiles_;  // IR grid order
  std::vector<Type> grid_types_;
  std::map<std::string, int> grid_index_;
  std::map<std::string, const Value*> ref_params_;
  std::optional<FreshNames> names_;  // CollectNames
  std::set<std::string> grid_dependent_;
  std::vector<Target> targets_;
  std::map<std::string, size_t> target_index_;
};

void DeviceRewriter::FindGrid() {
  size_t rank = 0;
  if (launch_ != nullptr) {
    rank = launch_->dims.size();
  } else {
    while (rank < device_.params.size() && device_.params[rank].type.is_tile())
      ++rank;
  }
  for (size_t i = 0; i < rank && i < device_.params.size(); ++i) {
    grid_index_[device_.params[i].name] = static_cast<int>(i);
    grid_tiles_.push_back(device_.params[i].name);
    grid_types_.push_back(device_.params[i].type);
  }
  for (size_t i = rank; i < device_.params.size(); ++i) {
    if (device_.params[i].type.is_ref()) {
      ref_params_[device_.params[i].name] = &device_.params[i];
    }
  }
}

void DeviceRewriter::CollectNames() { names_.emplace(device_); }

bool DeviceRewriter::DependsOnGrid(const Expr& expr) const {
  bool depends = false;
  WalkExpr(expr, [&](const Expr& e) {
    if ((e.op == OpKind::kVar && grid_dependent_.count(e.name)) ||
        e.op == OpKind::kProgramId) {
      depends = true;
    }
  });
  return depends;
}

// Names whose value differs between grid cells: the grid tiles and
// everything computed from them (data and control dependence through loop
// and `if` results), to a fixpoint.
void DeviceRewriter::ComputeGridDependence() {
  grid_dependent_.insert(grid_tiles_.begin(), grid_tiles_.end());
  bool changed = true;
  while (changed) {
    changed = false;
    WalkStmts(device_.body, [&](const Stmt& stmt) {
      bool depends = false;
      ForEachRootExpr(stmt, [&](const Expr& root) {
        if (DependsOnGrid(root)) depends = true;
      });
      for (const Block& region : stmt.regions) {
        if (region.stmts.empty()) continue;
        const Stmt& last = region.stmts.back();
        if (last.kind != StmtKind::kYield) continue;
        for (const ExprPtr& operand : last.operands) {
          if (DependsOnGrid(*operand)) depends = true;
        }
      }
      if (!depends) return;
      for (const auto* values : {&stmt.results, &stmt.vars, &stmt.iter_args}) {
        for (const Value& value : *values) {
          if (grid_dependent_.insert(value.name).second) changed = true;
        }
      }
    });
  }
}

void DeviceRewriter::CollectTargets() {
  WalkStmts(device_.body, [&](Stmt& stmt) {
    if (stmt.kind != StmtKind::kAtomic || !stmt.target ||
        stmt.target->op != OpKind::kVar) {
      return;
    }
    auto param = ref_params_.find(stmt.target->name);
    if (param == ref_params_.end()) return;  // already an accumulator
    auto [it, inserted] = target_index_.emplace(param->first, targets_.size());
    if (inserted) {
      Target target;
      target.name = param->first;
      target.type = param->second->type;
      targets_.push_back(std::move(target));
    }
    targets_[it->second].atomics.push_back(&stmt);
  });
}

void DeviceRewriter::CheckPlainAccesses() {
  WalkStmts(device_.body, [&](const Stmt& stmt) {
    std::set<std::string> reported;
    auto report = [&](const std::string& ref, const char* how) {
      auto it = target_index_.find(ref);
      if (it == target_index_.end() || !reported.insert(ref).second) return;
      const Stmt& atomic = *targets_[it->second].atomics.front();
      Error(stmt.loc,
            fmt::format("'{}' is {} here and is also the target of atomics "
                        "(line {}); atomic-accumulator cannot mix plain "
                        "accesses and atomics on one ref",
                        ref, how, atomic.loc.line));
    };
    if (stmt.kind == StmtKind::kStore && stmt.target &&
        stmt.target->op == OpKind::kVar) {
      report(stmt.target->name, "stored");
    }
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op == OpKind::kLoad && !expr.operands.empty() &&
            expr.operands[0]->op == OpKind::kVar) {
          report(expr.operands[0]->name, "loaded");
        }
      });
    });
  });
}

void DeviceRewriter::PlanTarget(Target& target) {
  const size_t rank = target.type.shape.size();
  target.pad_multiple.assign(rank, 1);
  bool first = true;
  for (const Stmt* atomic : target.atomics) {
    std::vector<int> mapping(rank, kWholeDim);
    size_t dim = 0;
    bool ok = true;
    for (const Index& index : atomic->indices) {
      if (index.kind == IndexKind::kNewAxis) continue;
      if (dim >= rank) break;
      switch (index.kind) {
        case IndexKind::kTile: {
          const Expr& tile = *index.expr;
          auto grid = tile.op == OpKind::kVar ? grid_index_.find(tile.name)
                                              : grid_index_.end();
          if (grid != grid_index_.end()) {
            mapping[dim] = grid->second;
          } else if (tile.op != OpKind::kVar && DependsOnGrid(tile)) {
            Error(atomic->loc,
                  fmt::format("dim {} of atomic target '{}' is indexed by a "
                              "tile computed from a grid tile; "
                              "atomic-accumulator supports grid tiles, `:` "
                              "and inner-loop tiles",
                              dim, target.name));
            ok = false;
          } else if (tile.type.is_tile() && tile.type.shape[0].is_static()) {
            target.pad_multiple[dim] =
                std::lcm(target.pad_multiple[dim], tile.type.shape[0].size);
          }
          break;
        }
        case IndexKind::kScalar:
        case IndexKind::kRange:
          if (DependsOnGrid(*index.expr)) {
            Error(atomic->loc,
                  fmt::format("dim {} of atomic target '{}' has an index that "
                              "depends on a grid tile; atomic-accumulator "
                              "supports grid tiles, `:` and inner-loop tiles "
                              "(an index computed from the grid would make "
                              "every cell accumulate into its own part of "
                              "the whole dim)",
                              dim, target.name));
            ok = false;
          }
          break;
        case IndexKind::kGather:
          // A scatter (`hl.atomic_add(out, [idx, tile_f], v)`) may write any
          // row of the dim from any cell: the accumulator keeps the dim
          // whole, as for `:`, and the backend writes its rows one by one.
          break;
        case IndexKind::kShiftedTile:
          Error(atomic->loc,
                fmt::format("dim {} of atomic target '{}' is indexed by a "
                            "shifted tile (tile.index + offset); "
                            "atomic-accumulator supports grid tiles, `:` "
                            "and inner-loop tiles",
                            dim, target.name));
          ok = false;
          break;
        case IndexKind::kSlice:
        case IndexKind::kNewAxis:
          break;
      }
      ++dim;
    }
    if (!ok) return;
    if (first) {
      target.mapping = mapping;
      first = false;
    } else if (mapping != target.mapping) {
      auto describe = [&](const std::vector<int>& m) {
        std::string text = "[";
        for (size_t d = 0; d < m.size(); ++d) {
          text += (d ? ", " : "") +
                  (m[d] == kWholeDim ? std::string(":") : grid_tiles_[m[d]]);
        }
        return text + "]";
      };
      Error(
          atomic->loc,
          fmt::format("atomics on '{}' map its block differently: {} here, "
                      "{} at line {}; atomic-accumulator needs one block "
                      "per grid cell",
                      target.name, describe(mapping), describe(target.mapping),
                      target.atomics.front()->loc.line));
      return;
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (target.mapping[d] != kWholeDim) {
      const Dim& block = grid_types_[target.mapping[d]].shape[0];
      if (!block.is_static()) {
        Error(target.atomics.front()->loc,
              fmt::format("grid tile '{}' has no static block size",
                          grid_tiles_[target.mapping[d]]));
        return;
      }
      target.block.push_back(block);
      target.extent.push_back(block);
      continue;
    }
    const Dim& whole = target.type.shape[d];
    const int64_t multiple = target.pad_multiple[d];
    target.block.push_back(whole);
    if (whole.is_static()) {
      target.extent.push_back(
          Dim::Static((whole.size + multiple - 1) / multiple * multiple));
    } else if (multiple == 1) {
      target.extent.push_back(whole);
    } else {
      // Sized when the kernel is called: the host rounds the dim up.
      std::string symbol = FreshName(fmt::format("{}_acc_d{}", target.name, d));
      target.padded_extents.push_back({symbol, {whole.symbol, multiple}});
      target.extent.push_back(Dim::Symbol(symbol));
    }
  }
  for (size_t g = 0; g < grid_tiles_.size(); ++g) {
    if (std::find(target.mapping.begin(), target.mapping.end(),
                  static_cast<int>(g)) != target.mapping.end()) {
      continue;
    }
    if (launch_ != nullptr) {
      const LoopDim& dim = launch_->dims[g];
      auto begin = StaticInt(dim.begin.get());
      auto end = StaticInt(dim.end.get());
      if (begin && end && dim.block.is_static() && dim.block.size > 0 &&
          *end - *begin <= dim.block.size) {
        continue;  // a single cell: nothing to serialize
      }
    }
    target.unmapped.push_back(static_cast<int>(g));
  }
  target.acc_dtype = AccumulatorDType(target.type.dtype);
  target.acc_name = FreshName(target.name + "_acc");
}

std::string DeviceRewriter::FreshName(const std::string& base) {
  return names_->Take(base);
}

Type DeviceRewriter::AccType(const Target& target) const {
  Shape dims;
  for (const Dim& dim : target.extent) dims.push_back(dim);
  return Type::Ref(target.acc_dtype, std::move(dims));
}

Type DeviceRewriter::BlockTensor(const Target& target, DType dtype) const {
  Shape dims;
  for (const Dim& dim : target.block) dims.push_back(dim);
  return Type::Tensor(dtype, std::move(dims));
}

// The target's block of this grid cell: grid tiles where it is blocked,
// `:` elsewhere.
IndexList DeviceRewriter::RefIndices(const Target& target) const {
  IndexList indices;
  for (int grid : target.mapping) {
    if (grid == kWholeDim) {
      indices.emplace_back(IndexKind::kSlice);
    } else {
      indices.emplace_back(IndexKind::kTile,
                           MakeVar(grid_tiles_[grid], grid_types_[grid]));
    }
  }
  return indices;
}

// The same block in the accumulator: `:`, or `range(0, n)` where the
// accumulator is padded to whole inner tiles.
IndexList DeviceRewriter::AccIndices(const Target& target) const {
  IndexList indices;
  for (size_t d = 0; d < target.block.size(); ++d) {
    if (target.block[d] == target.extent[d]) {
      indices.emplace_back(IndexKind::kSlice);
    } else {
      indices.emplace_back(IndexKind::kRange, MakeIntConst(0), target.block[d]);
    }
  }
  return indices;
}

ExprPtr CastTo(ExprPtr value, DType dtype) {
  if (value->type.dtype == dtype) return value;
  Type type = value->type;
  type.dtype = dtype;
  SourceLoc loc = value->loc;
  ExprList operands;
  operands.push_back(std::move(value));
  return MakeOp(OpKind::kCast, std::move(type), std::move(operands),
                {Attr{"dtype", dtype}}, loc);
}

void DeviceRewriter::RewriteAtomic(const Target& target, Stmt& atomic) {
  atomic.target = MakeVar(target.acc_name, AccType(target), atomic.target->loc);
  for (Index& index : atomic.indices) {
    if (index.kind == IndexKind::kTile && index.expr->op == OpKind::kVar &&
        grid_index_.count(index.expr->name)) {
      index = Index(IndexKind::kSlice);
    }
  }
  // The frontend converts the value to the target's dtype (an f32 partial
  // sum to bf16): accumulate the unrounded value instead.
  if (target.acc_dtype != target.type.dtype &&
      atomic.value->op == OpKind::kCast &&
      atomic.value->type.dtype == target.type.dtype &&
      atomic.value->operands.size() == 1 &&
      IsFloat(atomic.value->operands[0]->type.dtype)) {
    ExprPtr unrounded = std::move(atomic.value->operands[0]);
    atomic.value = std::move(unrounded);
  }
  atomic.value = CastTo(std::move(atomic.value), target.acc_dtype);
}

// AND over `dims` of program_id == 0 (first) or == num_programs - 1 (last);
// null when `dims` is empty.
ExprPtr DeviceRewriter::CellCondition(const std::vector<int>& dims, bool last,
                                      SourceLoc loc) const {
  const Type i32 = Type::Scalar(DType::kI32);
  const Type boolean = Type::Scalar(DType::kBool);
  ExprPtr condition;
  for (int g : dims) {
    AttrList axis = {Attr{"axis", int64_t{g}}};
    ExprList operands;
    operands.push_back(MakeOp(OpKind::kProgramId, i32, {}, axis, loc));
    if (last) {
      ExprList sub;
      sub.push_back(MakeOp(OpKind::kNumPrograms, i32, {}, axis, loc));
      sub.push_back(MakeIntConst(1, DType::kI32, loc));
      operands.push_back(MakeOp(OpKind::kSub, i32, std::move(sub), {}, loc));
    } else {
      operands.push_back(MakeIntConst(0, DType::kI32, loc));
    }
    ExprPtr equal = MakeOp(OpKind::kEq, boolean, std::move(operands), {}, loc);
    if (!condition) {
      condition = std::move(equal);
      continue;
    }
    ExprList both;
    both.push_back(std::move(condition));
    both.push_back(std::move(equal));
    condition = MakeOp(OpKind::kAnd, boolean, std::move(both), {}, loc);
  }
  return condition;
}

Stmt DeviceRewriter::Guarded(ExprPtr condition, std::vector<Stmt> stmts,
                             SourceLoc loc) const {
  Stmt guarded;
  guarded.kind = StmtKind::kIf;
  guarded.loc = loc;
  guarded.value = std::move(condition);
  guarded.regions.resize(2);
  guarded.regions[0].stmts = std::move(stmts);
  return guarded;
}

bool DeviceRewriter::Run(bool& changed) {
  FindGrid();
  CollectTargets();
  if (targets_.empty()) return true;
  CollectNames();
  ComputeGridDependence();
  CheckPlainAccesses();
  for (Target& target : targets_) {
    PlanTarget(target);
  }
  if (!ok_) return false;

  std::vector<Stmt> prologue;
  // Load-on-first and write-back-on-last copies, grouped by their condition
  // (the unmapped grid dims), in order of the targets' first atomics.
  std::vector<std::vector<int>> conditions;
  std::map<std::vector<int>, std::vector<Stmt>> loads, write_backs;
  std::map<std::vector<int>, SourceLoc> condition_locs;
  for (Target& target : targets_) {
    const SourceLoc loc = target.atomics.front()->loc;
    if (remarks_) {
      std::string dims;
      for (int g : target.unmapped) {
        dims += (dims.empty() ? "" : ", ") + grid_tiles_[g];
      }
      diagnostics_.Remark(
          module_.source_file, loc,
          fmt::format("atomic-accumulator: {} atomic(s) on '{}' accumulate "
                      "in '{}' ({}); {}",
                      target.atomics.size(), target.name, target.acc_name,
                      TypeToString(AccType(target)),
                      dims.empty() ? "every grid cell has its own block"
                                   : "carried across the grid dim(s) " + dims +
                                         " (arbitrary)"));
    }
    for (Stmt* atomic : target.atomics) RewriteAtomic(target, *atomic);
    // out_acc: ref<...> = scratch() {shape, dtype, accumulates}
    Shape shape;
    for (const Dim& dim : target.extent) shape.push_back(dim);
    AttrList attrs = {Attr{"shape", shape}, Attr{"dtype", target.acc_dtype},
                      Attr{"accumulates", target.name}};
    prologue.push_back(MakeAssign(
        Value{target.acc_name, AccType(target)},
        MakeOp(OpKind::kScratch, AccType(target), {}, std::move(attrs), loc),
        loc));

    if (!condition_locs.count(target.unmapped)) {
      conditions.push_back(target.unmapped);
      condition_locs[target.unmapped] = loc;
    }
    // store out_acc[...] = cast(load(out)[block], acc dtype)
    ExprPtr ref = MakeVar(target.name, target.type, loc);
    ExprList load_operands;
    load_operands.push_back(std::move(ref));
    ExprPtr load = MakeOp(OpKind::kLoad, BlockTensor(target, target.type.dtype),
                          std::move(load_operands), {}, loc);
    load->indices = RefIndices(target);
    loads[target.unmapped].push_back(MakeStore(
        MakeVar(target.acc_name, AccType(target), loc), AccIndices(target),
        CastTo(std::move(load), target.acc_dtype), loc));
    // store out[block] = cast(load(out_acc)[...], out dtype)
    ExprList acc_operands;
    acc_operands.push_back(MakeVar(target.acc_name, AccType(target), loc));
    ExprPtr acc = MakeOp(OpKind::kLoad, BlockTensor(target, target.acc_dtype),
                         std::move(acc_operands), {}, loc);
    acc->indices = AccIndices(target);
    write_backs[target.unmapped].push_back(
        MakeStore(MakeVar(target.name, target.type, loc), RefIndices(target),
                  CastTo(std::move(acc), target.type.dtype), loc));
  }

  std::vector<Stmt> epilogue;
  for (const std::vector<int>& dims : conditions) {
    const SourceLoc loc = condition_locs[dims];
    auto emit = [&](std::vector<Stmt>& stmts, bool last,
                    std::vector<Stmt>& out) {
      if (dims.empty()) {
        for (Stmt& stmt : stmts) out.push_back(std::move(stmt));
        return;
      }
      out.push_back(
          Guarded(CellCondition(dims, last, loc), std::move(stmts), loc));
    };
    emit(loads[dims], /*last=*/false, prologue);
    emit(write_backs[dims], /*last=*/true, epilogue);
  }

  std::vector<Stmt>& body = device_.body.stmts;
  auto end = body.end();
  if (!body.empty() && body.back().kind == StmtKind::kReturn) --end;
  const size_t end_index = static_cast<size_t>(end - body.begin());
  body.insert(body.begin() + static_cast<std::ptrdiff_t>(end_index),
              std::make_move_iterator(epilogue.begin()),
              std::make_move_iterator(epilogue.end()));
  body.insert(body.begin(), std::make_move_iterator(prologue.begin()),
              std::make_move_iterator(prologue.end()));

  // The dims the accumulators are carried across must run in order.
  std::set<int64_t> arbitrary;
  if (const auto* existing =
          GetAttr<std::vector<int64_t>>(device_.attrs, "arbitrary_grid_dims")) {
    arbitrary.insert(existing->begin(), existing->end());
  }
  for (const Target& target : targets_) {
    arbitrary.insert(target.unmapped.begin(), target.unmapped.end());
  }
  if (!arbitrary.empty()) {
    SetAttr(device_.attrs, "arbitrary_grid_dims",
            std::vector<int64_t>(arbitrary.begin(), arbitrary.end()));
  }
  changed = true;
  return true;
}

// The host function of each device function, by name: found once, so a
// module of many kernels is not walked once per kernel.
std::map<std::string, Function*> HostsByDevice(Module& module) {
  std::map<std::string, Function*> hosts;
  for (Function& function : module.functions) {
    if (function.kind != FunctionKind::kHost) continue;
    WalkStmts(function.body, [&](const Stmt& stmt) {
      if (stmt.kind != StmtKind::kLaunch) return;
      const std::string* callee = GetAttr<std::string>(stmt.attrs, "callee");
      if (callee != nullptr) hosts.emplace(*callee, &function);
    });
  }
  return hosts;
}

// The launch of `device` in `host` (looked up at use: adding host extents
// inserts statements, which moves the host's statements).
Stmt* FindLaunchOf(Function* host, const std::string& device) {
  Stmt* found = nullptr;
  if (host == nullptr) return found;
  WalkStmts(host->body, [&](Stmt& stmt) {
    if (stmt.kind != StmtKind::kLaunch || found != nullptr) return;
    const std::string* callee = GetAttr<std::string>(stmt.attrs, "callee");
    if (callee != nullptr && *callee == device) found = &stmt;
  });
  return found;
}

// Defines each padded extent in the host block that holds the launch, just
// before it, and passes it to the device as a trailing i64 parameter.
void AddHostExtents(
    Module& module, Function& device, Stmt& launch,
    const std::vector<std::pair<std::string, std::pair<std::string, int64_t>>>&
        extents) {
  const Type i64 = Type::Scalar(DType::kI64);
  std::vector<Stmt> defs;
  for (const auto& [symbol, source] : extents) {
    const auto& [dim, multiple] = source;
    ExprList cdiv_operands;
    cdiv_operands.push_back(MakeVar(dim, i64, launch.loc));
    cdiv_operands.push_back(MakeIntConst(multiple, DType::kI64, launch.loc));
    ExprList mul_operands;
    mul_operands.push_back(
        MakeOp(OpKind::kCdiv, i64, std::move(cdiv_operands), {}, launch.loc));
    mul_operands.push_back(MakeIntConst(multiple, DType::kI64, launch.loc));
    defs.push_back(MakeAssign(
        Value{symbol, i64},
        MakeOp(OpKind::kMul, i64, std::move(mul_operands), {}, launch.loc),
        launch.loc));
    launch.operands.push_back(MakeVar(symbol, i64, launch.loc));
    device.params.push_back(Value{symbol, i64});
  }
  for (Function& function : module.functions) {
    if (function.kind != FunctionKind::kHost) continue;
    bool placed = false;
    std::function<void(Block&)> place = [&](Block& block) {
      for (size_t i = 0; i < block.stmts.size() && !placed; ++i) {
        if (&block.stmts[i] == &launch) {
          block.stmts.insert(
              block.stmts.begin() + static_cast<std::ptrdiff_t>(i),
              std::make_move_iterator(defs.begin()),
              std::make_move_iterator(defs.end()));
          placed = true;
          return;
        }
        for (Block& region : block.stmts[i].regions) place(region);
      }
    };
    place(function.body);
    if (placed) return;
  }
}

}  // namespace

DType AccumulatorDType(DType target) {
  return IsFloat(target) && DTypeBytes(target) < 4 ? DType::kF32 : target;
}

absl::StatusOr<bool> AccumulateAtomics(Module& module,
                                       DiagnosticEngine& diagnostics,
                                       bool remarks) {
  bool changed = false;
  bool ok = true;
  const std::map<std::string, Function*> hosts = HostsByDevice(module);
  for (Function& function : module.functions) {
    if (function.kind != FunctionKind::kDevice) continue;
    const auto host = hosts.find(function.name);
    Stmt* launch = FindLaunchOf(host == hosts.end() ? nullptr : host->second,
                                function.name);
    DeviceRewriter rewriter(module, function, launch, diagnostics, remarks);
    if (!rewriter.Run(changed)) {
      ok = false;
      continue;
    }
    auto extents = rewriter.host_extents();
    if (!extents.empty() && launch != nullptr) {
      AddHostExtents(module, function, *launch, extents);
    } else if (!extents.empty()) {
      diagnostics.Error(module.source_file, function.loc,
                        "atomic-accumulator: an accumulator of symbolic "
                        "size needs the device function's launch");
      ok = false;
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        "atomic-accumulator: unsupported atomics (see diagnostics)");
  }
  return changed;
}

}  // namespace tessera
