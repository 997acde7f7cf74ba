#include "lane_rewriter.h"

#include <utility>

#include "fmt/format.h"
#include "tessera/ir/type_inference.h"

namespace tessera::pre_broadcast {
namespace {

bool IsElementwiseUnary(OpKind op) {
  return OpInfoOf(op).category == OpCategory::kUnary || op == OpKind::kCast;
}

bool IsElementwiseNary(OpKind op) {
  OpCategory category = OpInfoOf(op).category;
  return (category == OpCategory::kBinary && op != OpKind::kCdiv) ||
         category == OpCategory::kCompare || category == OpCategory::kSelect;
}

bool IsRankedTensor(const Type& type) {
  return type.is_tensor() && type.rank() >= 1;
}

// The dims a reduction reduces, normalized against `rank`; nullopt when the
// attribute is malformed (type inference has already rejected such IR).
std::optional<std::vector<int64_t>> ReducedDims(const Expr& reduction,
                                                size_t rank) {
  std::vector<int64_t> dims;
  const Attr* attr = reduction.attr("dim");
  if (attr == nullptr) {
    for (size_t d = 0; d < rank; ++d) dims.push_back(static_cast<int64_t>(d));
    return dims;
  }
  if (const int64_t* one = std::get_if<int64_t>(&attr->value)) {
    dims.push_back(*one);
  } else if (const auto* list =
                 std::get_if<std::vector<int64_t>>(&attr->value)) {
    dims = *list;
  } else {
    return std::nullopt;
  }
  const auto r = static_cast<int64_t>(rank);
  for (int64_t& d : dims) {
    if (d < 0) d += r;
    if (d < 0 || d >= r) return std::nullopt;
  }
  return dims;
}

bool KeepsDims(const Expr& reduction) {
  const bool* keepdim = GetAttr<bool>(reduction.attrs, "keepdim");
  return keepdim != nullptr && *keepdim;
}

IndexList Slices(size_t count) {
  IndexList indices;
  for (size_t i = 0; i < count; ++i) indices.emplace_back(IndexKind::kSlice);
  return indices;
}

}  // namespace

absl::Status LaneRewriter::Run(Function& function) {
  RewriteBlock(function.body);
  return status_;
}

void LaneRewriter::RewriteBlock(Block& block) {
  for (Stmt& stmt : block.stmts) RewriteStmt(stmt);
}

void LaneRewriter::RewriteStmt(Stmt& stmt) {
  stmt_loc_ = stmt.loc;
  switch (stmt.kind) {
    case StmtKind::kAssign: {
      Shaped value = Rewrite(std::move(stmt.value));
      stmt.results[0].type = value.expr->type;
      if (value.layout != Layout::kOriginal) {
        values_[stmt.results[0].name] = {value.layout, value.mask,
                                         value.expr->type};
      }
      stmt.value = std::move(value.expr);
      return;
    }
    case StmtKind::kTileLoop:
    case StmtKind::kRangeLoop:
      RewriteLoop(stmt);
      return;
    case StmtKind::kIf:
      stmt.value = RewriteOriginal(std::move(stmt.value));
      yield_contexts_.emplace_back(stmt.results.size(), false);
      for (Block& region : stmt.regions) RewriteBlock(region);
      yield_contexts_.pop_back();
      return;
    case StmtKind::kYield: {
      const YieldContext* context =
          yield_contexts_.empty() ? nullptr : &yield_contexts_.back();
      for (size_t i = 0; i < stmt.operands.size(); ++i) {
        Shaped value = Rewrite(std::move(stmt.operands[i]));
        bool wide = context && i < context->size() && (*context)[i];
        stmt.operands[i] =
            wide ? ToWide(std::move(value)) : ToOriginal(std::move(value));
      }
      return;
    }
    case StmtKind::kStore:
    case StmtKind::kAtomic:
    case StmtKind::kReturn:
    case StmtKind::kLaunch:
      ForEachRootExpr(stmt, [&](ExprPtr& root) {
        if (root) root = RewriteOriginal(std::move(root));
      });
      return;
  }
}

void LaneRewriter::RewriteLoop(Stmt& loop) {
  for (LoopDim& dim : loop.dims) {
    if (dim.begin) dim.begin = RewriteOriginal(std::move(dim.begin));
    if (dim.end) dim.end = RewriteOriginal(std::move(dim.end));
  }
  YieldContext context(loop.iter_args.size(), false);
  std::vector<std::string> wide_names;
  for (size_t i = 0; i < loop.iter_args.size(); ++i) {
    Shaped init = Rewrite(std::move(loop.inits[i]));
    Value& arg = loop.iter_args[i];
    auto wide = wide_iter_args_.find(arg.name);
    if (wide == wide_iter_args_.end()) {
      loop.inits[i] = ToOriginal(std::move(init));
      continue;
    }
    loop.inits[i] = ToWide(std::move(init));
    arg.type = loop.inits[i]->type;
    values_[arg.name] = {Layout::kWide, wide->second, arg.type};
    if (i < loop.results.size()) {
      loop.results[i].type = arg.type;
      values_[loop.results[i].name] = {Layout::kWide, wide->second, arg.type};
    }
    context[i] = true;
    wide_names.push_back(arg.name);
  }
  if (!wide_names.empty()) {
    SetAttr(loop.attrs, "pre_broadcast", wide_names);
    SetAttr(loop.attrs, "lanes", lanes_);
  }
  yield_contexts_.push_back(std::move(context));
  for (Block& region : loop.regions) RewriteBlock(region);
  yield_contexts_.pop_back();
}

LaneRewriter::Shaped LaneRewriter::Rewrite(ExprPtr expr) {
  switch (expr->op) {
    case OpKind::kVar: {
      // A variable has its (possibly rewritten) definition's type.
      auto it = values_.find(expr->name);
      if (it == values_.end()) return {std::move(expr)};
      expr->type = it->second.type;
      return {std::move(expr), it->second.layout, it->second.mask};
    }
    case OpKind::kSubscript:
      return RewriteSubscript(std::move(expr));
    case OpKind::kSum:
    case OpKind::kAmax:
    case OpKind::kAmin:
    case OpKind::kMean:
      return RewriteReduction(std::move(expr));
    default:
      break;
  }
  if (IsElementwiseUnary(expr->op)) return RewriteUnary(std::move(expr));
  if (IsElementwiseNary(expr->op)) return RewriteElementwise(std::move(expr));
  return RewriteOpaque(std::move(expr));
}

LaneRewriter::Shaped LaneRewriter::RewriteOpaque(ExprPtr expr) {
  for (ExprPtr& operand : expr->operands) {
    if (operand) operand = RewriteOriginal(std::move(operand));
  }
  for (Index& index : expr->indices) {
    if (index.expr) index.expr = RewriteOriginal(std::move(index.expr));
  }
  return {std::move(expr)};
}

ExprPtr LaneRewriter::RewriteOriginal(ExprPtr expr) {
  return ToOriginal(Rewrite(std::move(expr)));
}

LaneRewriter::Shaped LaneRewriter::RewriteUnary(ExprPtr expr) {
  Shaped x = Rewrite(std::move(expr->operands[0]));
  expr->operands[0] = std::move(x.expr);
  if (x.layout == Layout::kOriginal) return {std::move(expr)};
  Retype(*expr);
  return {std::move(expr), x.layout, x.mask};
}

LaneRewriter::Shaped LaneRewriter::RewriteElementwise(ExprPtr expr) {
  std::vector<Shaped> operands;
  bool any_spread = false, any_extended = false, any_wide = false;
  CandidateMask mask = 0;
  for (ExprPtr& operand : expr->operands) {
    operands.push_back(Rewrite(std::move(operand)));
    const Shaped& value = operands.back();
    any_spread |= value.layout == Layout::kSpread;
    any_extended |=
        value.layout == Layout::kUnit || value.layout == Layout::kWide;
    any_wide |= value.layout == Layout::kWide;
    mask |= value.mask;
  }
  auto put_back = [&](bool original) {
    for (size_t i = 0; i < operands.size(); ++i) {
      expr->operands[i] = original ? ToOriginal(std::move(operands[i]))
                                   : std::move(operands[i].expr);
    }
  };
  if (!any_spread && !any_extended) {
    put_back(false);
    return {std::move(expr)};
  }
  if (any_spread && any_extended) {
    // A lane-carried value against an `x[..., None]` of another: no layout
    // fits both, so both go back to the original.
    Consumer consumer;
    consumer.candidates = mask;
    consumer.conflict = true;
    consumer.loc = LocOf(*expr);
    consumers_.push_back(consumer);
    put_back(true);
    return {std::move(expr)};
  }
  if (any_spread) {
    // The original result's last dim is what the `[..., None]` broadcast
    // against.
    const Dim& last = expr->type.shape.back();
    if (last.is_static() && last.size == 1) {
      put_back(false);
      Retype(*expr);
      return {std::move(expr), Layout::kSpread, mask};
    }
    Consumer consumer;
    consumer.candidates = mask;
    consumer.loc = LocOf(*expr);
    if (last.is_static()) consumer.width = last.size;
    consumer.fits = last.is_static() && last.size % lanes_ == 0;
    consumers_.push_back(consumer);
    if (!consumer.fits) {
      put_back(true);
      return {std::move(expr)};
    }
    const int64_t reps = last.size / lanes_;
    for (Shaped& operand : operands) {
      if (operand.layout != Layout::kSpread || reps == 1) continue;
      Type tiled = operand.expr->type;
      tiled.shape.back() = Dim::Static(last.size);
      SourceLoc loc = operand.expr->loc;
      ExprList repeated;
      repeated.push_back(std::move(operand.expr));
      operand.expr = MakeOp(OpKind::kRepeatLanes, std::move(tiled),
                            std::move(repeated), {{"reps", reps}}, loc);
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      expr->operands[i] = std::move(operands[i].expr);
    }
    Retype(*expr);
    return {std::move(expr)};
  }
  // Unit / wide operands: the others gain the trailing dim too.
  for (size_t i = 0; i < operands.size(); ++i) {
    Shaped& operand = operands[i];
    if (operand.layout == Layout::kOriginal &&
        IsRankedTensor(operand.expr->type)) {
      operand.expr = ToUnit(std::move(operand.expr));
    }
    expr->operands[i] = std::move(operand.expr);
  }
  Retype(*expr);
  return {std::move(expr), any_wide ? Layout::kWide : Layout::kUnit, mask};
}

LaneRewriter::Shaped LaneRewriter::RewriteSubscript(ExprPtr expr) {
  const bool unsqueeze = IsTrailingUnsqueeze(*expr);
  Shaped base = Rewrite(std::move(expr->operands[0]));
  for (Index& index : expr->indices) {
    if (index.expr) index.expr = RewriteOriginal(std::move(index.expr));
  }
  if (unsqueeze && base.layout == Layout::kWide) {
    unsqueezed_ |= base.mask;
    return {std::move(base.expr), Layout::kSpread, base.mask};
  }
  if (unsqueeze && base.layout == Layout::kUnit) {
    // `x[..., None]` of x kept as `x[..., None]` already.
    return {std::move(base.expr)};
  }
  expr->operands[0] = ToOriginal(std::move(base));
  return {std::move(expr)};
}

LaneRewriter::Shaped LaneRewriter::RewriteReduction(ExprPtr expr) {
  Shaped x = Rewrite(std::move(expr->operands[0]));
  if (x.layout == Layout::kWide || x.layout == Layout::kUnit) {
    const size_t rank = x.expr->type.rank() - 1;
    auto dims = ReducedDims(*expr, rank);
    bool to_scalar = dims && !KeepsDims(*expr) && dims->size() == rank;
    if (dims && !to_scalar) {
      // Reduce the same dims of the extended value; the lane dim stays last.
      if (dims->size() == 1) {
        SetAttr(expr->attrs, "dim", (*dims)[0]);
      } else {
        SetAttr(expr->attrs, "dim", *dims);
      }
      expr->operands[0] = std::move(x.expr);
      Retype(*expr);
      return {std::move(expr), x.layout, x.mask};
    }
  }
  expr->operands[0] = ToOriginal(std::move(x));
  return {std::move(expr)};
}

ExprPtr LaneRewriter::ToOriginal(Shaped value) {
  if (value.layout == Layout::kOriginal) return std::move(value.expr);
  const size_t rank = value.expr->type.rank();
  IndexList indices = Slices(rank - 1);
  indices.emplace_back(IndexKind::kScalar, MakeIntConst(0));
  if (value.layout == Layout::kSpread) {
    indices.emplace_back(IndexKind::kNewAxis);
  }
  return Subscript(std::move(value.expr), std::move(indices));
}

ExprPtr LaneRewriter::ToUnit(ExprPtr original) {
  Expr& expr = *original;
  if (IsElementwiseUnary(expr.op) || IsElementwiseNary(expr.op)) {
    // Push the new axis to the leaves so reductions among them can keep
    // their dim instead.
    for (ExprPtr& operand : expr.operands) {
      if (IsRankedTensor(operand->type)) {
        operand = ToUnit(std::move(operand));
      }
    }
    Retype(expr);
    return original;
  }
  if (OpInfoOf(expr.op).category == OpCategory::kReduction &&
      !KeepsDims(expr)) {
    const size_t rank = expr.operands[0]->type.rank();
    auto dims = ReducedDims(expr, rank);
    if (dims && dims->size() == 1 &&
        (*dims)[0] == static_cast<int64_t>(rank) - 1) {
      SetAttr(expr.attrs, "keepdim", true);
      Retype(expr);
      return original;
    }
  }
  IndexList indices = Slices(expr.type.rank());
  indices.emplace_back(IndexKind::kNewAxis);
  return Subscript(std::move(original), std::move(indices));
}

ExprPtr LaneRewriter::ToWide(Shaped value) {
  switch (value.layout) {
    case Layout::kWide:
      return std::move(value.expr);
    case Layout::kSpread:
      value.expr = ToOriginal(std::move(value));
      value.layout = Layout::kOriginal;
      break;
    case Layout::kUnit:
    case Layout::kOriginal:
      break;
  }
  Shape shape = value.expr->type.shape;
  if (value.layout == Layout::kUnit) shape.pop_back();
  shape.push_back(Dim::Static(lanes_));
  if (value.layout == Layout::kOriginal && value.expr->op == OpKind::kFull) {
    SetAttr(value.expr->attrs, "shape", shape);
    Retype(*value.expr);
    return std::move(value.expr);
  }
  ExprPtr unit = value.layout == Layout::kUnit ? std::move(value.expr)
                                               : ToUnit(std::move(value.expr));
  SourceLoc loc = unit->loc;
  Type type = Type::Tensor(unit->type.dtype, shape);
  ExprList operands;
  operands.push_back(std::move(unit));
  return MakeOp(OpKind::kBroadcastTo, std::move(type), std::move(operands),
                {{"shape", std::move(shape)}}, loc);
}

ExprPtr LaneRewriter::Subscript(ExprPtr base, IndexList indices) {
  SourceLoc loc = base->loc;
  ExprList operands;
  operands.push_back(std::move(base));
  ExprPtr expr =
      MakeOp(OpKind::kSubscript, Type::None(), std::move(operands), {}, loc);
  expr->indices = std::move(indices);
  Retype(*expr);
  return expr;
}

void LaneRewriter::Retype(Expr& expr) {
  absl::StatusOr<Type> type = InferType(expr);
  if (!type.ok()) {
    if (status_.ok()) {
      status_ = absl::InternalError(
          fmt::format("pre-broadcast produced an ill-typed '{}' at line {}: {}",
                      OpInfoOf(expr.op).name, stmt_loc_.line,
                      std::string(type.status().message())));
    }
    return;
  }
  expr.type = *std::move(type);
}

SourceLoc LaneRewriter::LocOf(const Expr& expr) const {
  return expr.loc.known() ? expr.loc : stmt_loc_;
}

}  // namespace tessera::pre_broadcast
