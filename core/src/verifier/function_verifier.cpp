#include "verifier/function_verifier.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "tessera/ir/type_inference.h"
#include "verifier/stmt_summary.h"

namespace tessera::verifier {
namespace {

std::string LocString(SourceLoc loc) {
  return fmt::format("{}:{}", loc.line, loc.col);
}

std::string_view OpName(OpKind op) {
  return op < OpKind::kNumOps ? OpInfoOf(op).name : "<invalid op>";
}

std::string DimsString(const Shape& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) out += ", ";
    out += DimToString(dims[i]);
  }
  return out + "]";
}

// `value` can be stored into a region of shape `region`: its dims, aligned
// to the right, are 1 or equal to the region's; extra leading dims must be
// 1 (PyTorch's setitem accepts those).
bool BroadcastsTo(const Shape& value, const Shape& region) {
  const Dim one = Dim::Static(1);
  size_t extra =
      value.size() > region.size() ? value.size() - region.size() : 0;
  for (size_t i = 0; i < extra; ++i) {
    if (value[i] != one) return false;
  }
  for (size_t i = extra; i < value.size(); ++i) {
    const Dim& dim = value[i];
    const Dim& target = region[region.size() - (value.size() - i)];
    if (dim != one && dim != target) return false;
  }
  return true;
}

bool EndsWith(const Block& block, StmtKind kind) {
  return !block.stmts.empty() && block.stmts.back().kind == kind;
}

}  // namespace

bool IsIntegerScalar(const Type& type) {
  return type.is_scalar() && IsInteger(type.dtype);
}

// ---------------------------------------------------------------------------
// Function level
// ---------------------------------------------------------------------------

void FunctionVerifier::Run() {
  CollectSignatureSymbols();
  for (const Value& param : function_.params) {
    if (param.name.empty()) {
      reporter_.FunctionError(function_, "a parameter has no name");
      continue;
    }
    if (scope_.Define(param.name,
                      Binding{&param.type, function_.loc, DefKind::kParam})) {
      reporter_.FunctionError(
          function_,
          fmt::format("parameter '{}' is declared twice", param.name));
    }
  }
  VerifyBlock(function_.body, Region{});
  current_ = nullptr;
  if (!function_.result_types.empty() &&
      !EndsWith(function_.body, StmtKind::kReturn)) {
    reporter_.FunctionError(
        function_, fmt::format("@{} declares {} result(s) but its body does "
                               "not end with a return",
                               function_.name, function_.result_types.size()));
  }
  // The top-level scope now holds the parameters and everything the body
  // defines at its top level.
  VerifySignatureSymbols();
}

void FunctionVerifier::CollectSignatureSymbols() {
  auto collect = [&](const Type& type) {
    for (const Dim& dim : type.shape) {
      if (!dim.is_static()) signature_symbols_.insert(dim.symbol);
    }
  };
  for (const Value& param : function_.params) collect(param.type);
  for (const Type& type : function_.result_types) collect(type);
}

template <typename Describe>
void FunctionVerifier::CheckSignatureDim(const Dim& dim, Describe&& describe) {
  if (dim.is_static()) return;
  if (dim.size != Dim::kSymbolic || dim.symbol.empty()) {
    reporter_.FunctionError(
        function_,
        fmt::format("{} is neither static nor a symbol", describe()));
    return;
  }
  const Binding* binding = scope_.Lookup(dim.symbol);
  if (binding == nullptr) {
    std::string what =
        fmt::format("{} names no value of @{}", describe(), function_.name);
    if (const SourceLoc* nested = FindAnyDefinition(dim.symbol)) {
      what += fmt::format(
          " at its top level (it is defined at {}, inside a "
          "region)",
          LocString(*nested));
    } else if (const Function* owner =
                   index_.OtherFunctionDefining(dim.symbol, &function_)) {
      what += fmt::format(" (it is a value of function @{})", owner->name);
    }
    reporter_.FunctionError(function_, what);
  } else if (!IsIntegerScalar(*binding->type)) {
    reporter_.FunctionError(
        function_,
        fmt::format("{} names a value of type {}; dims must name integer "
                    "scalars",
                    describe(), TypeToString(*binding->type)));
  }
}

void FunctionVerifier::VerifySignatureSymbols() {
  auto check_type = [&](const Type& type, auto&& owner) {
    for (const Dim& dim : type.shape) {
      CheckSignatureDim(dim, [&] {
        return fmt::format("symbol '{}' in the type {} of {}", dim.symbol,
                           TypeToString(type), owner());
      });
    }
  };
  for (const Value& param : function_.params) {
    check_type(param.type,
               [&] { return fmt::format("parameter '{}'", param.name); });
  }
  for (size_t i = 0; i < function_.result_types.size(); ++i) {
    check_type(function_.result_types[i],
               [&] { return fmt::format("result {}", i); });
  }
}

// ---------------------------------------------------------------------------
// Blocks and statements
// ---------------------------------------------------------------------------

void FunctionVerifier::Error(std::string_view what) {
  if (current_ != nullptr) {
    reporter_.StmtError(*current_, what);
  } else {
    reporter_.FunctionError(function_, what);
  }
}

void FunctionVerifier::VerifyBlock(const Block& block, const Region& region) {
  const Stmt* terminator = nullptr;
  bool reported_unreachable = false;
  for (const Stmt& stmt : block.stmts) {
    if (terminator != nullptr && !reported_unreachable) {
      current_ = &stmt;
      Error(fmt::format(
          "statement after '{}' is unreachable",
          terminator->kind == StmtKind::kYield ? "yield" : "return"));
      reported_unreachable = true;
    }
    VerifyStmt(stmt, region);
    if (stmt.kind == StmtKind::kYield || stmt.kind == StmtKind::kReturn) {
      terminator = &stmt;
    }
  }

  // Regions whose owner has results must hand them over with a yield.
  size_t expected = 0;
  std::string_view where;
  switch (region.kind) {
    case Region::kFunctionBody:
      return;
    case Region::kLoopBody:
      expected = region.owner->iter_args.size();
      where = "loop body";
      break;
    case Region::kThenBranch:
    case Region::kElseBranch:
      expected = region.owner->results.size();
      where =
          region.kind == Region::kThenBranch ? "then branch" : "else branch";
      break;
  }
  if (expected != 0 && !EndsWith(block, StmtKind::kYield)) {
    current_ = region.owner;
    Error(fmt::format("{} must end with a yield of {} value(s)", where,
                      expected));
  }
}

void FunctionVerifier::VerifyStmt(const Stmt& stmt, const Region& region) {
  current_ = &stmt;
  const bool has_regions = stmt.kind == StmtKind::kTileLoop ||
                           stmt.kind == StmtKind::kRangeLoop ||
                           stmt.kind == StmtKind::kIf;
  if (!has_regions && !stmt.regions.empty()) {
    Error("only loops and ifs have nested regions");
  }
  VerifyAttrDims(stmt.attrs);
  switch (stmt.kind) {
    case StmtKind::kAssign:
      VerifyAssign(stmt);
      return;
    case StmtKind::kStore:
    case StmtKind::kAtomic:
      VerifyStoreOrAtomic(stmt);
      return;
    case StmtKind::kTileLoop:
    case StmtKind::kRangeLoop:
      ++loop_depth_;
      VerifyLoop(stmt);
      --loop_depth_;
      return;
    case StmtKind::kIf:
      VerifyIf(stmt);
      return;
    case StmtKind::kYield:
      VerifyYield(stmt, region);
      return;
    case StmtKind::kReturn:
      VerifyReturn(stmt);
      return;
    case StmtKind::kLaunch:
      VerifyLaunch(stmt);
      return;
  }
  Error(fmt::format("unknown statement kind {}", static_cast<int>(stmt.kind)));
}

void FunctionVerifier::VerifyAssign(const Stmt& stmt) {
  bool value_ok = false;
  if (stmt.value == nullptr) {
    Error("assignment has no value");
  } else {
    value_ok = VerifyExpr(stmt.value.get());
  }
  if (stmt.results.size() != 1) {
    Error(fmt::format("assignment must have exactly one target, has {}",
                      stmt.results.size()));
    return;
  }
  const Value& target = stmt.results[0];
  CheckTypeSymbols(target.type, target.name);
  if (value_ok && stmt.value->type != target.type) {
    Error(fmt::format("'{}' is declared as {} but its value has type {}",
                      target.name, TypeToString(target.type),
                      TypeToString(stmt.value->type)));
  }
  // Defined after the value is checked: `x = add(x, 1)` reads the old `x`.
  Define(target, DefKind::kAssign);
}

void FunctionVerifier::VerifyStoreOrAtomic(const Stmt& stmt) {
  const std::string_view what =
      stmt.kind == StmtKind::kStore ? "store" : "atomic";
  bool target_ok = false;
  if (stmt.target == nullptr) {
    Error(fmt::format("{} has no target", what));
  } else {
    target_ok = VerifyExpr(stmt.target.get());
    if (stmt.target->op != OpKind::kVar) {
      Error(fmt::format("{} target must name a ref, got '{}'", what,
                        SummarizeExpr(*stmt.target)));
      target_ok = false;
    } else if (target_ok && !stmt.target->type.is_ref()) {
      Error(fmt::format("{} target '{}' must be a ref, has type {}", what,
                        stmt.target->name, TypeToString(stmt.target->type)));
      target_ok = false;
    }
  }
  bool indices_ok = true;
  for (const Index& index : stmt.indices) indices_ok &= VerifyIndex(index);
  bool value_ok = false;
  if (stmt.value == nullptr) {
    Error(fmt::format("{} has no value", what));
  } else {
    value_ok = VerifyExpr(stmt.value.get());
  }
  if (stmt.kind == StmtKind::kAtomic) {
    const std::string* op = GetAttr<std::string>(stmt.attrs, "op");
    if (op == nullptr || (*op != "add" && *op != "max" && *op != "min")) {
      Error("atomic needs an 'op' attribute of \"add\", \"max\" or \"min\"");
    }
  }
  if (!stmt.results.empty()) {
    Error(fmt::format("{} has no results", what));
  }
  if (!target_ok || !indices_ok ||
      !CheckIndexRank(
          stmt.target->type, stmt.indices,
          stmt.kind == StmtKind::kStore ? "store target" : "atomic target",
          stmt.target->name)) {
    return;
  }
  if (!value_ok) return;

  // The shape of the indexed region of the ref.
  const Type& ref = stmt.target->type;
  Shape region;
  size_t ref_dim = 0;
  const Index* previous = nullptr;
  for (const Index& index : stmt.indices) {
    switch (index.kind) {
      case IndexKind::kTile:
        region.push_back(index.expr->type.shape.at(0));
        ++ref_dim;
        break;
      case IndexKind::kSlice:
        region.push_back(ref.shape[ref_dim++]);
        break;
      case IndexKind::kNewAxis:
        region.push_back(Dim::Static(1));
        break;
      case IndexKind::kScalar:
        ++ref_dim;
        break;
      case IndexKind::kRange:
        region.push_back(index.size);
        ++ref_dim;
        break;
      case IndexKind::kGather:
      case IndexKind::kShiftedTile:
        // Side-by-side gathers zip into one dim (type_inference.cpp).
        if (index.kind != IndexKind::kGather || previous == nullptr ||
            previous->kind != IndexKind::kGather) {
          region.push_back(index.expr->type.shape.at(0));
        }
        ++ref_dim;
        break;
    }
    previous = &index;
  }
  const Type& value = stmt.value->type;
  if (value.is_scalar()) return;
  if (!value.is_tensor()) {
    Error(fmt::format("{} value must be a scalar or a tensor, has type {}",
                      what, TypeToString(value)));
  } else if (!BroadcastsTo(value.shape, region)) {
    Error(fmt::format(
        "{} value of type {} does not broadcast to the indexed "
        "region {} of '{}'",
        what, TypeToString(value), DimsString(region), stmt.target->name));
  }
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

bool FunctionVerifier::VerifyExpr(const Expr* expr) {
  if (expr == nullptr) {
    Error("missing expression");
    return false;
  }
  if (expr->op == OpKind::kVar) return VerifyVarUse(*expr);
  if (expr->op == OpKind::kConst) return VerifyConst(*expr);
  if (expr->op >= OpKind::kNumOps) {
    Error(fmt::format("invalid op kind {}", static_cast<int>(expr->op)));
    return false;
  }
  if (expr->op == OpKind::kScanArg) {
    Error("'scan_arg' is only valid inside the combine function of a 'scan'");
    return false;
  }
  if (expr->op == OpKind::kHostRead &&
      (function_.kind == FunctionKind::kDevice || loop_depth_ > 0)) {
    Error(
        "'host_read' is valid only outside loops of a kernel or host "
        "function: the host reads the element before the launch");
    return false;
  }
  bool ok = true;
  if (expr->op == OpKind::kScan) {
    ok = VerifyScanOperands(*expr);
  } else {
    for (const ExprPtr& operand : expr->operands) {
      ok &= VerifyExpr(operand.get());
    }
  }
  for (const Index& index : expr->indices) ok &= VerifyIndex(index);
  VerifyAttrDims(expr->attrs);
  if (!ok) return false;

  const std::string_view name = OpName(expr->op);
  if ((expr->op == OpKind::kLoad || expr->op == OpKind::kSubscript ||
       expr->op == OpKind::kSliceView || expr->op == OpKind::kHostRead) &&
      expr->operands.size() == 1 &&
      !CheckIndexRank(expr->operands[0]->type, expr->indices,
                      fmt::format("operand of '{}'", OpName(expr->op)), {})) {
    return false;
  }
  // The result type is derived from the operands' (already checked) types
  // and the attributes, so checking it against InferType also covers the
  // symbols inside it.
  // InferType(Expr) reads the operands' types in place: nothing is copied.
  absl::StatusOr<Type> inferred = InferType(*expr);
  if (!inferred.ok()) {
    Error(fmt::format("invalid '{}': {}", name,
                      std::string(inferred.status().message())));
    return false;
  }
  if (*inferred != expr->type) {
    Error(
        fmt::format("'{}' has type {} but its operands and attributes give "
                    "{}",
                    name, TypeToString(expr->type), TypeToString(*inferred)));
    return false;
  }
  return true;
}

bool FunctionVerifier::VerifyVarUse(const Expr& expr) {
  if (expr.name.empty()) {
    Error("value reference without a name");
    return false;
  }
  const Binding* binding = scope_.Lookup(expr.name);
  if (binding == nullptr) {
    ReportUnresolved(expr.name, fmt::format("value '{}'", expr.name));
    return false;
  }
  if (*binding->type != expr.type) {
    Error(
        fmt::format("'{}' is used with type {} but its definition at {} "
                    "has type {}",
                    expr.name, TypeToString(expr.type), LocString(binding->loc),
                    TypeToString(*binding->type)));
    return false;
  }
  return true;
}

// A literal's dtype is its own (`1:i32`, `0.5:bf16`); InferType only gives
// the default (i64 / f32 / bool), so check that the value fits the dtype.
bool FunctionVerifier::VerifyConst(const Expr& expr) {
  const Attr* value = expr.attr("value");
  bool fits = false;
  if (value != nullptr && expr.type.is_scalar()) {
    const DType dtype = expr.type.dtype;
    if (std::holds_alternative<bool>(value->value)) {
      fits = dtype == DType::kBool;
    } else if (std::holds_alternative<int64_t>(value->value)) {
      fits = IsInteger(dtype) || IsFloat(dtype);
    } else if (std::holds_alternative<double>(value->value)) {
      fits = IsFloat(dtype);
    }
  }
  if (!fits) {
    Error(
        fmt::format("constant '{}' of type {} needs a scalar type and a "
                    "bool, integer or float 'value' that fits it",
                    SummarizeExpr(expr), TypeToString(expr.type)));
  }
  return fits;
}

bool FunctionVerifier::VerifyIndex(const Index& index) {
  switch (index.kind) {
    case IndexKind::kSlice:
    case IndexKind::kNewAxis:
      return true;
    case IndexKind::kTile: {
      if (index.expr == nullptr) {
        Error("tile index without a tile");
        return false;
      }
      if (!VerifyExpr(index.expr.get())) return false;
      const Type& type = index.expr->type;
      if (!type.is_tile() || type.shape.size() != 1) {
        Error(fmt::format("tile index '{}' must be a tile, has type {}",
                          SummarizeExpr(*index.expr), TypeToString(type)));
        return false;
      }
      return true;
    }
    case IndexKind::kScalar:
      return VerifyIntegerScalarExpr(index.expr.get(), "scalar index");
    case IndexKind::kGather: {
      if (index.expr == nullptr) {
        Error("gather index without an index tensor");
        return false;
      }
      if (!VerifyExpr(index.expr.get())) return false;
      const Type& type = index.expr->type;
      if (!type.is_tensor() || type.shape.size() != 1 ||
          !IsInteger(type.dtype)) {
        Error(fmt::format(
            "gather index '{}' must be a rank-1 integer tensor, has type {}",
            SummarizeExpr(*index.expr), TypeToString(type)));
        return false;
      }
      return true;
    }
    case IndexKind::kRange: {
      bool ok = VerifyIntegerScalarExpr(index.expr.get(), "range index start");
      CheckDim(index.size, [&] {
        return fmt::format("symbol '{}' in the size of a range index",
                           index.size.symbol);
      });
      return ok;
    }
    case IndexKind::kShiftedTile: {
      if (index.expr == nullptr || !VerifyExpr(index.expr.get())) {
        if (index.expr == nullptr) Error("shifted tile index without a tile");
        return false;
      }
      const Type& type = index.expr->type;
      if (!MatchTileShift(*index.expr) || !type.is_tensor() ||
          type.shape.size() != 1) {
        Error(fmt::format(
            "shifted tile index '{}' must be tile_index(t) plus or minus an "
            "integer scalar, has type {}",
            SummarizeExpr(*index.expr), TypeToString(type)));
        return false;
      }
      return true;
    }
  }
  Error(fmt::format("unknown index kind {}", static_cast<int>(index.kind)));
  return false;
}

bool FunctionVerifier::VerifyIntegerScalarExpr(const Expr* expr,
                                               std::string_view role) {
  if (expr == nullptr) {
    Error(fmt::format("missing {}", role));
    return false;
  }
  if (!VerifyExpr(expr)) return false;
  if (!IsIntegerScalar(expr->type)) {
    Error(fmt::format("{} '{}' must be an integer scalar, has type {}", role,
                      SummarizeExpr(*expr), TypeToString(expr->type)));
    return false;
  }
  return true;
}

bool FunctionVerifier::CheckIndexRank(const Type& base,
                                      const IndexList& indices,
                                      std::string_view what,
                                      std::string_view name) {
  const size_t indexed = static_cast<size_t>(std::count_if(
      indices.begin(), indices.end(),
      [](const Index& index) { return index.kind != IndexKind::kNewAxis; }));
  if (indexed == base.rank()) return true;
  Error(
      fmt::format("{}{} has type {} of rank {} but is indexed with {} "
                  "non-None indices",
                  what, name.empty() ? "" : fmt::format(" '{}'", name),
                  TypeToString(base), base.rank(), indexed));
  return false;
}

void FunctionVerifier::VerifyLoopDim(const LoopDim& dim,
                                     std::string_view block_role) {
  VerifyIntegerScalarExpr(dim.begin.get(), "loop begin");
  VerifyIntegerScalarExpr(dim.end.get(), "loop end");
  if (dim.block.is_static() && dim.block.size == 0) {
    Error(fmt::format("{} must be positive, is 0", block_role));
  }
  CheckDim(dim.block, [&] {
    return fmt::format("symbol '{}' used as a {}", dim.block.symbol,
                       block_role);
  });
}

void FunctionVerifier::VerifyAttrDims(const AttrList& attrs) {
  for (const Attr& attr : attrs) {
    const auto* dims = std::get_if<Shape>(&attr.value);
    if (dims == nullptr) continue;
    for (const Dim& dim : *dims) {
      CheckDim(dim, [&] {
        return fmt::format("symbol '{}' in attribute '{}'", dim.symbol,
                           attr.name);
      });
    }
  }
}

// ---------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------

template <typename Describe>
void FunctionVerifier::CheckDim(const Dim& dim, Describe&& describe) {
  if (dim.is_static()) return;
  if (dim.size != Dim::kSymbolic || dim.symbol.empty()) {
    Error(fmt::format("dim {} is neither static nor a symbol", dim.size));
    return;
  }
  if (const Binding* binding = scope_.Lookup(dim.symbol)) {
    if (!IsIntegerScalar(*binding->type)) {
      Error(
          fmt::format("{} names a value of type {}; dims must name integer "
                      "scalars",
                      describe(), TypeToString(*binding->type)));
    }
    return;
  }
  // A parameter's shape symbol is bound on entry; VerifySignature has
  // checked that the function defines it somewhere.
  if (signature_symbols_.contains(dim.symbol)) return;
  ReportUnresolved(dim.symbol, describe());
}

void FunctionVerifier::CheckTypeSymbols(const Type& type,
                                        std::string_view owner) {
  for (const Dim& dim : type.shape) {
    CheckDim(dim, [&] {
      return fmt::format("symbol '{}' in the type {} of '{}'", dim.symbol,
                         TypeToString(type), owner);
    });
  }
}

void FunctionVerifier::Define(const Value& value, DefKind kind) {
  if (value.name.empty()) {
    Error("a defined value has no name");
    return;
  }
  std::optional<Binding> previous =
      scope_.Define(value.name, Binding{&value.type, current_->loc, kind});
  if (ssa_ && previous.has_value()) {
    Error(
        fmt::format("'{}' is defined more than once in SSA form (previous "
                    "definition at {})",
                    value.name, LocString(previous->loc)));
  }
}

const SourceLoc* FunctionVerifier::FindAnyDefinition(std::string_view name) {
  if (!all_definitions_built_) {
    ForEachDefinition(function_, [&](const std::string& defined, const Type&,
                                     const Stmt* stmt) {
      all_definitions_.try_emplace(defined,
                                   stmt == nullptr ? function_.loc : stmt->loc);
    });
    all_definitions_built_ = true;
  }
  auto it = all_definitions_.find(name);
  return it == all_definitions_.end() ? nullptr : &it->second;
}

void FunctionVerifier::DefineEscapes(const Escapes& escapes) {
  for (const auto& [name, binding] : escapes) scope_.Define(name, binding);
}

void FunctionVerifier::ReportUnresolved(std::string_view name,
                                        const std::string& subject) {
  // Defined, but where this use cannot see it: later, in a region that has
  // ended, or in the other branch of an if.
  const Binding* out_of_scope = scope_.LookupOutOfScope(name);
  const SourceLoc* definition =
      out_of_scope != nullptr ? &out_of_scope->loc : FindAnyDefinition(name);
  if (definition != nullptr) {
    Error(fmt::format("{} is not dominated by its definition at {}", subject,
                      LocString(*definition)));
    return;
  }
  if (const Function* owner = index_.OtherFunctionDefining(name, &function_)) {
    Error(
        fmt::format("{} is not defined in @{}; it is a value of function "
                    "@{}",
                    subject, function_.name, owner->name));
    return;
  }
  // A suggestion costs a scan of every visible name; a module broken
  // everywhere (say by a renaming bug) gets them only for its first few
  // problems, so that verification stays linear.
  constexpr int kMaxSuggestions = 16;
  std::string suggestion;
  if (suggestions_made_ < kMaxSuggestions) {
    ++suggestions_made_;
    std::vector<std::string> candidates;
    for (std::string_view visible : scope_.VisibleNames()) {
      candidates.emplace_back(visible);
    }
    // Hash order is arbitrary; ties must not make messages flaky.
    std::sort(candidates.begin(), candidates.end());
    suggestion = ClosestName(name, candidates);
  }
  Error(fmt::format("{} is not defined{}", subject,
                    suggestion.empty()
                        ? ""
                        : fmt::format("; did you mean '{}'?", suggestion)));
}

}  // namespace tessera::verifier
