#include "device_emitter.h"
#include "py_text.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "gather_plan.h"
#include "shifted_tiles.h"

namespace tessera::pallas {

DeviceEmitter::DeviceEmitter(const Module& module, const KernelPlan& plan,
                             ModuleState& state, const HostBindings& host,
                             const EmitOptions& options,
                             DiagnosticEngine& diagnostics)
    : module_(module),
      plan_(plan),
      state_(state),
      host_(host),
      options_(options),
      diagnostics_(diagnostics) {}

bool DeviceEmitter::Error(SourceLoc loc, std::string message) {
  diagnostics_.Error(module_.source_file, loc, std::move(message));
  return false;
}

bool DeviceEmitter::FlushExprErrors(SourceLoc loc) {
  bool ok = true;
  for (; reported_errors_ < errors().size(); ++reported_errors_) {
    Error(loc, errors()[reported_errors_]);
    ok = false;
  }
  return ok;
}

bool DeviceEmitter::Used(const std::string& name) const {
  auto it = plan_.use_counts.find(name);
  return it != plan_.use_counts.end() && it->second > 0;
}

std::string DeviceEmitter::Kwarg(const std::string& name,
                                 const std::string& host_value) {
  if (kwarg_names_.insert(name).second) {
    kwargs_.push_back(KernelKwarg{name, host_value});
  }
  return name;
}

std::string DeviceEmitter::KernelLocal(const std::string& name,
                                       const std::string& value) {
  if (kernel_scope_.defined.insert(name).second) {
    kernel_scope_.prelude.Line(fmt::format("{} = {}", name, value));
  }
  return name;
}

std::string DeviceEmitter::AddScratch(const std::string& base,
                                      const std::string& shape,
                                      VmemBuffer vmem) {
  std::string name = Fresh(base);
  scratch_names_.push_back(name);
  scratch_shapes_.push_back(shape);
  vmem_.push_back(std::move(vmem));
  return name;
}

std::string DeviceEmitter::HostShape(const Shape& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    if (dims[i].is_static()) {
      text += fmt::format("{}", dims[i].size);
    } else {
      auto it = host_.symbol_values.find(dims[i].symbol);
      text += it != host_.symbol_values.end() ? it->second : dims[i].symbol;
    }
  }
  if (dims.size() == 1) text += ",";
  return text + ")";
}

int64_t DeviceEmitter::StaticBytes(const std::vector<int64_t>& shape,
                                   DType dtype) {
  int64_t bytes = DTypeBytes(dtype);
  for (int64_t dim : shape) {
    if (dim < 0) return 0;  // a symbolic full dim: unknown until trace time
    bytes *= dim;
  }
  return bytes;
}

// --- Names and tiles -------------------------------------------------------

std::string DeviceEmitter::Var(const Expr& expr) {
  auto alias = value_aliases_.find(expr.name);
  if (alias != value_aliases_.end()) return alias->second;
  if (plan_.FindTile(expr.name) != nullptr) {
    Fail(fmt::format("tile '{}' used as a value", expr.name));
  }
  std::string name = SanitizeIdentifier(expr.name);
  // Scalars and shape symbols of the device function are kernel kwargs.
  auto host = host_.symbol_values.find(expr.name);
  if (host != host_.symbol_values.end()) return Kwarg(name, host->second);
  return name;
}

std::string DeviceEmitter::DimSymbol(const std::string& symbol) {
  auto host = host_.symbol_values.find(symbol);
  std::string name = SanitizeIdentifier(symbol);
  if (host != host_.symbol_values.end()) return Kwarg(name, host->second);
  return name;
}

std::string DeviceEmitter::TileOp(const Expr& expr) {
  const Expr& operand = *expr.operands[0];
  const TileInfo* tile = plan_.FindTile(operand.name);
  if (operand.op != OpKind::kVar || tile == nullptr) {
    Fail(fmt::format("'{}' expects a tile", OpInfoOf(expr.op).name));
    return "0";
  }
  switch (expr.op) {
    case OpKind::kTileBegin:
      return Paren(TileBegin(tile->name));
    case OpKind::kTileEnd:
      return fmt::format(
          "jnp.minimum({}, {})",
          AddText(TileBegin(tile->name), fmt::format("{}", tile->block)),
          TileLimit(tile->name));
    case OpKind::kTileIndex:
      return fmt::format("({} + jax.lax.broadcasted_iota(jnp.int32, ({},), 0))",
                         TileBegin(tile->name), tile->block);
    default:
      return fmt::format("{}", tile->block);
  }
}

std::string DeviceEmitter::DeviceOp(const Expr& expr) {
  const int64_t* axis = GetAttr<int64_t>(expr.attrs, "axis");
  int ir_axis = axis ? static_cast<int>(*axis) : 0;
  if (ir_axis < 0 || ir_axis >= static_cast<int>(plan_.grid_tiles.size())) {
    Fail("program_id / num_programs axis out of range");
    return "0";
  }
  const std::string& grid_tile = plan_.grid_tiles[ir_axis];
  if (expr.op == OpKind::kProgramId) return GridIndex(grid_tile);
  if (expr.op == OpKind::kNumPrograms) {
    return KernelLocal(
        Fresh(grid_tile + "_count"),
        fmt::format("pl.num_programs({})", plan_.PallasAxis(grid_tile)));
  }
  Fail("'scratch' must be assigned to a name");
  return "None";
}

std::string DeviceEmitter::Size(const Expr& expr) {
  const int64_t* dim = GetAttr<int64_t>(expr.attrs, "dim");
  const Type& type = expr.operands[0]->type;
  size_t d = dim ? static_cast<size_t>(*dim) : 0;
  if (d < type.shape.size()) {
    const Dim& size = type.shape[d];
    return size.is_static() ? fmt::format("{}", size.size)
                            : DimSymbol(size.symbol);
  }
  Fail("size of a dim the ref does not have");
  return "0";
}

// --- Ref accesses ----------------------------------------------------------

std::string DeviceEmitter::RefAccess(const std::string& ref_name,
                                     const IndexList& indices, bool write) {
  const RefPlan* ref = plan_.FindRef(ref_name);
  auto value_alias = value_aliases_.find(ref_name);
  std::string suffix;
  bool has_new_axis = false;
  for (const Index& index : indices) {
    if (index.kind == IndexKind::kNewAxis) {
      has_new_axis = true;
      suffix += suffix.empty() ? "None" : ", None";
    } else if (index.kind != IndexKind::kScalar) {
      suffix += suffix.empty() ? ":" : ", :";
    }
  }
  auto with_suffix = [&](std::string text) {
    if (has_new_axis && !write) text += "[" + suffix + "]";
    return text;
  };
  auto stream = streams_.find(ref_name);
  if (stream != streams_.end()) {
    return with_suffix(write ? stream->second.store : stream->second.load);
  }
  std::string base = value_alias != value_aliases_.end()
                         ? value_alias->second
                         : SanitizeIdentifier(ref_name);
  // An accumulated output (atomic-accumulator) is read only by the load of
  // its accumulator on the block's first cell, before anything writes it:
  // that read is the caller's initial values, so it takes them from the
  // aliased input directly instead of copying them into the output first.
  if (!write && ref != nullptr && ref->accumulated &&
      init_ref_names_.count(ref_name) != 0) {
    base = init_ref_names_.at(ref_name);
  }
  std::vector<std::string> parts;
  size_t dim = 0;
  size_t axis = 0;  // of the accessed region
  bool all_whole = true;
  shift_masks_.clear();
  for (const Index& index : indices) {
    if (index.kind == IndexKind::kNewAxis) continue;
    const SpecDim* spec =
        ref && dim < ref->dims.size() ? &ref->dims[dim] : nullptr;
    const size_t ref_dim = dim++;
    if (index.kind != IndexKind::kScalar) ++axis;
    switch (index.kind) {
      case IndexKind::kSlice:
        if (spec && spec->pad_low > 0) {
          parts.push_back(fmt::format("pl.ds({}, {})", spec->pad_low,
                                      DimExtent(ref, ref_dim)));
          all_whole = false;
          break;
        }
        parts.push_back(":");
        break;
      case IndexKind::kScalar:
        parts.push_back(PadLowStart(ref, ref_dim, Emit(*index.expr)));
        all_whole = false;
        break;
      case IndexKind::kRange:
        parts.push_back(fmt::format(
            "pl.ds({}, {})", PadLowStart(ref, ref_dim, Emit(*index.expr)),
            index.size.is_static() ? fmt::format("{}", index.size.size)
                                   : DimSymbol(index.size.symbol)));
        all_whole = false;
        break;
      case IndexKind::kShiftedTile:
        parts.push_back(ShiftedSlice(index, ref, ref_dim, axis - 1));
        all_whole = false;
        break;
      case IndexKind::kTile: {
        const TileInfo* tile = plan_.FindTile(index.expr->name);
        if (tile == nullptr) {
          Fail(fmt::format("'{}' is not a tile", index.expr->name));
          parts.push_back(":");
          break;
        }
        if (spec && spec->kind == SpecKind::kBlocked &&
            spec->grid_tile == tile->name) {
          parts.push_back(":");
          break;
        }
        std::string start;
        if (spec && spec->kind == SpecKind::kBlocked) {
          // Offset inside the block of the grid tile this tile subdivides.
          start = "0";
          for (const TileInfo* t = tile; t && !t->is_grid;
               t = plan_.FindTile(t->parent)) {
            start = AddText(start,
                            MulText(Paren(runtime_[t->name].index), t->block));
          }
        } else {
          start = TileBegin(tile->name);
        }
        if (!IsNumber(start) && tile->aligned && tile->block > 1) {
          start = fmt::format("pl.multiple_of({}, {})", start, tile->block);
        } else if (tile->jagged && tile->align > 1) {
          start = fmt::format("pl.multiple_of({}, {})", start, tile->align);
        }
        // A ragged tile stored into a longer dim (`out[tile]` next to
        // `out[tile.index + n]`) keeps what lies past the tile's end.
        if (write && ref && tile->maybe_partial && !tile->jagged &&
            !TileSpansDim(plan_, *tile, ref->type.shape[ref_dim])) {
          const std::string begin = TileBegin(tile->name);
          shift_masks_.push_back(ShiftMask{
              axis - 1,
              fmt::format("{} - {}", TileLimit(tile->name), Paren(begin)),
              Paren(begin), DimExtent(ref, ref_dim), "", 0, nullptr});
        }
        start = PadLowStart(ref, ref_dim, start);
        parts.push_back(fmt::format("pl.ds({}, {})", start, tile->block));
        all_whole = false;
        break;
      }
      case IndexKind::kNewAxis:
        break;
      case IndexKind::kGather:
        // Loads route gathers to GatherLoad; a store never has one.
        Fail("a gather index in a store (a scatter) is not supported");
        parts.push_back(":");
        break;
    }
  }
  std::string text;
  if (all_whole) {
    text = base + "[...]";
  } else {
    text = base + "[";
    for (size_t i = 0; i < parts.size(); ++i) {
      text += (i ? ", " : "") + parts[i];
    }
    text += "]";
  }
  if (!write) text = ApplyShiftMasks(text, "0");
  return with_suffix(text);
}

std::string DeviceEmitter::Load(const Expr& expr) {
  const Expr& ref = *expr.operands[0];
  if (ref.op != OpKind::kVar) {
    Fail("load from something that is not a named ref");
    return "None";
  }
  if (HasZippedGather(expr)) return LaneSelectLoad(expr);
  for (size_t i = 0; i < expr.indices.size(); ++i) {
    if (expr.indices[i].kind == IndexKind::kGather) return GatherLoad(expr, i);
  }
  return RefAccess(ref.name, expr.indices, false);
}

// --- Statements --------------------------------------------------------------

void DeviceEmitter::SourceComment(const Stmt& stmt, PyLines& out) {
  if (!stmt.loc.known() || stmt.loc.line == last_line_) return;
  last_line_ = stmt.loc.line;
  out.Line(fmt::format("# src: line {}", stmt.loc.line));
}

std::string DeviceEmitter::TupleAssign(const std::vector<std::string>& targets,
                                       const std::vector<std::string>& values) {
  std::string lhs, rhs;
  for (size_t i = 0; i < targets.size(); ++i) {
    lhs += (i ? ", " : "") + targets[i];
    rhs += (i ? ", " : "") + values[i];
  }
  return lhs + " = " + rhs;
}

bool DeviceEmitter::EmitBlock(const Block& block, PyLines& out) {
  for (const Stmt& stmt : block.stmts) {
    if (!EmitStmt(stmt, out)) return false;
  }
  return true;
}

bool DeviceEmitter::EmitBody(const Block& body, PyLines& out,
                             YieldFn on_yield) {
  yield_stack_.push_back(std::move(on_yield));
  bool ok = EmitBlock(body, out);
  yield_stack_.pop_back();
  return ok;
}

bool DeviceEmitter::EmitStmt(const Stmt& stmt, PyLines& out) {
  switch (stmt.kind) {
    case StmtKind::kAssign:
      return EmitAssign(stmt, out);
    case StmtKind::kStore:
      SourceComment(stmt, out);
      return EmitStore(stmt, out);
    case StmtKind::kAtomic:
      SourceComment(stmt, out);
      return EmitAtomic(stmt, out);
    case StmtKind::kTileLoop:
      SourceComment(stmt, out);
      return EmitInnerLoop(stmt, out);
    case StmtKind::kRangeLoop:
      SourceComment(stmt, out);
      return EmitRangeLoop(stmt, out);
    case StmtKind::kIf:
      SourceComment(stmt, out);
      return EmitIf(stmt, out);
    case StmtKind::kYield:
      if (yield_stack_.empty()) return Error(stmt.loc, "yield outside a loop");
      yield_stack_.back()(stmt, out);
      return FlushExprErrors(stmt.loc);
    case StmtKind::kReturn:
      if (!stmt.operands.empty()) {
        return Error(stmt.loc,
                     fmt::format("a device function that returns values is "
                                 "not supported by the {} backend",
                                 plan_.target->backend_name()));
      }
      return true;
    case StmtKind::kLaunch:
      return Error(stmt.loc, "launch inside a device function");
  }
  return true;
}

bool DeviceEmitter::EmitAssign(const Stmt& stmt, PyLines& out) {
  const Value& target = stmt.results[0];
  const Expr& value = *stmt.value;
  if (value.op == OpKind::kScratch) {
    const auto* shape = GetAttr<Shape>(value.attrs, "shape");
    const DType* dtype = GetAttr<DType>(value.attrs, "dtype");
    Shape dims = shape ? *shape : value.type.shape;
    DType dt = dtype ? *dtype : value.type.dtype;
    std::vector<int64_t> sizes;
    for (const Dim& d : dims) sizes.push_back(d.is_static() ? d.size : -1);
    std::optional<std::string> scratch =
        plan_.target->ScratchShape(HostShape(dims), JnpDType(dt));
    if (!scratch) {
      return Error(stmt.loc,
                   fmt::format("scratch buffers (the atomic-accumulator "
                               "pass) are not supported by the {} backend",
                               plan_.target->backend_name()));
    }
    std::string name =
        AddScratch(target.name + "_scratch", *scratch,
                   VmemBuffer{fmt::format("scratch {}", target.name),
                              StaticBytes(sizes, dt), 1});
    value_aliases_[target.name] = name;
    return true;
  }
  if (!Used(target.name)) return true;
  SourceComment(stmt, out);
  std::string text = Emit(value);
  if (!FlushExprErrors(stmt.loc)) return false;
  out.Line(fmt::format("{} = {}", SanitizeIdentifier(target.name), text));
  SetOrigins(target.name, Origins(value));
  const Expr* base = &value;
  while (base->op == OpKind::kCast) base = base->operands[0].get();
  if (base->op == OpKind::kLoad ||
      (base->op == OpKind::kVar && loaded_values_.count(base->name))) {
    loaded_values_.insert(target.name);
  }
  return true;
}

namespace {
bool HasGatherIndex(const Stmt& stmt) {
  return std::any_of(
      stmt.indices.begin(), stmt.indices.end(),
      [](const Index& index) { return index.kind == IndexKind::kGather; });
}
}  // namespace

// A store's or atomic's value in the ref's dtype.
std::string DeviceEmitter::StoredValue(const Stmt& stmt) {
  const std::string value = Emit(*stmt.value);
  const DType ref_dtype = stmt.target->type.dtype;
  if (stmt.value->type.dtype == ref_dtype) return value;
  return stmt.value->type.is_tensor()
             ? fmt::format("{}.astype({})", Paren(value), JnpDType(ref_dtype))
             : fmt::format("jnp.asarray({}, {})", value, JnpDType(ref_dtype));
}

bool DeviceEmitter::EmitAtomic(const Stmt& stmt, PyLines& out) {
  const std::string* op = GetAttr<std::string>(stmt.attrs, "op");
  std::string kind = op ? *op : "add";
  if (kind != "add" && kind != "max" && kind != "min") {
    return Error(stmt.loc, fmt::format("unknown atomic op '{}'", kind));
  }
  if (HasGatherIndex(stmt)) return EmitScatter(stmt, kind, out);
  const std::string& ref = stmt.target->name;
  std::string value = StoredValue(stmt);
  std::string target = RefAccess(ref, stmt.indices, true);
  if (std::any_of(stmt.indices.begin(), stmt.indices.end(),
                  [](const Index& index) {
                    return index.kind == IndexKind::kShiftedTile;
                  })) {
    return Error(stmt.loc,
                 fmt::format("an atomic into '{}' at a shifted tile index "
                             "(tile.index + offset) is not supported by the "
                             "{} backend",
                             ref, plan_.target->backend_name()));
  }
  if (!FlushExprErrors(stmt.loc)) return false;
  out.Line(AtomicAt(kind, target, value));
  return true;
}

std::string DeviceEmitter::AtomicAt(std::string_view kind,
                                    const std::string& access,
                                    const std::string& value) const {
  // `access` is `ref[index]`: the target spells the update.
  const size_t bracket = access.find('[');
  return plan_.target->AtomicUpdate(
      kind, access.substr(0, bracket),
      access.substr(bracket + 1, access.size() - bracket - 2), value);
}

bool DeviceEmitter::EmitRangeLoop(const Stmt& stmt, PyLines& out) {
  const LoopDim& dim = stmt.dims[0];
  std::string step = dim.block.is_static() ? fmt::format("{}", dim.block.size)
                                           : DimSymbol(dim.block.symbol);
  std::string begin = Emit(*dim.begin);
  std::string end = Emit(*dim.end);
  std::vector<std::string> args, inits;
  for (size_t i = 0; i < stmt.iter_args.size(); ++i) {
    args.push_back(SanitizeIdentifier(stmt.iter_args[i].name));
    inits.push_back(Emit(*stmt.inits[i]));
    SetOrigins(stmt.iter_args[i].name, Origins(*stmt.inits[i]));
  }
  if (!FlushExprErrors(stmt.loc)) return false;
  if (!IsTraceTimeConstant(*dim.begin) || !IsTraceTimeConstant(*dim.end))
    return EmitDataRangeLoop(stmt, begin, end, step, args, inits, out);
  if (!args.empty()) out.Line(TupleAssign(args, inits));
  out.Line(fmt::format(
      "for {} in range({}, {}, {}):", SanitizeIdentifier(stmt.vars[0].name),
      begin, end, step));
  out.Indent();
  PyLines body;
  bool ok = EmitBody(stmt.regions[0], body, [&](const Stmt& y, PyLines& o) {
    std::vector<std::string> values;
    for (const ExprPtr& v : y.operands) values.push_back(Emit(*v));
    if (!args.empty()) o.Line(TupleAssign(args, values));
  });
  if (!ok) return false;
  if (body.empty()) body.Line("pass");
  out.Append(body);
  out.Dedent();
  std::vector<std::string> results;
  for (const Value& result : stmt.results) {
    results.push_back(SanitizeIdentifier(result.name));
  }
  if (!results.empty()) out.Line(TupleAssign(results, args));
  return true;
}

namespace {

// "(a == 0)" -> "a == 0"; "(a) & (b)" stays.
std::string StripOuterParens(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    return text;
  }
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0 && i + 1 != text.size()) return text;
  }
  return text.substr(1, text.size() - 2);
}

}  // namespace

bool DeviceEmitter::IsTraceTimeConstant(const Expr& expr) const {
  bool constant = true;
  WalkExpr(expr, [&](const Expr& e) {
    switch (OpInfoOf(e.op).category) {
      case OpCategory::kLeaf:
        // Kernel kwargs (scalars and shape symbols) are Python values.
        if (e.op == OpKind::kVar && !host_.symbol_values.count(e.name)) {
          constant = false;
        }
        break;
      case OpCategory::kUnary:
      case OpCategory::kBinary:
      case OpCategory::kCompare:
        break;
      default:
        constant = false;
    }
  });
  return constant;
}

bool DeviceEmitter::EmitWhen(const Stmt& stmt, const std::string& cond,
                             PyLines& out) {
  // A condition known only at run time (program_id, loaded values): each
  // branch is a function run under pl.when, since a Python `if` cannot
  // branch on a traced value. Branches have no results, so their locals
  // stay inside.
  for (size_t region = 0; region < stmt.regions.size(); ++region) {
    if (stmt.regions[region].stmts.empty()) continue;
    PyLines body;
    if (!EmitBody(stmt.regions[region], body, [](const Stmt&, PyLines&) {})) {
      return false;
    }
    body.TrimTrailingBlanks();
    if (body.empty()) continue;
    std::string when =
        region == 0 ? cond : fmt::format("jnp.logical_not({})", cond);
    if (region == 0) when = StripOuterParens(when);
    out.Line(fmt::format("@pl.when({})", when));
    // Name the branch after what it does when it only stores (the
    // accumulator's load and write-back): `_store_out_acc`, `_store_out`.
    std::string fn_name = region == 0 ? "_then" : "_else";
    const std::vector<Stmt>& stmts = stmt.regions[region].stmts;
    if (std::all_of(stmts.begin(), stmts.end(), [](const Stmt& s) {
          return s.kind == StmtKind::kStore && s.target &&
                 s.target->op == OpKind::kVar;
        })) {
      fn_name = "_store_" + SanitizeIdentifier(stmts[0].target->name);
    }
    out.Line(fmt::format("def {}():", Fresh(fn_name)));
    out.Indent();
    out.Append(body);
    out.Dedent();
    out.Blank();
  }
  return true;
}

bool DeviceEmitter::EmitCond(const Stmt& stmt, const std::string& cond,
                             PyLines& out) {
  // A condition known only at run time whose branches merge values: each
  // branch is a function returning the merged values, chosen by lax.cond
  // (scf.if in Mosaic), since a Python `if` cannot branch on a traced value.
  std::vector<std::string> results;
  for (const Value& result : stmt.results) {
    results.push_back(SanitizeIdentifier(result.name));
  }
  std::vector<std::string> branch_names;
  for (size_t region = 0; region < 2; ++region) {
    std::string returned;
    auto on_yield = [&](const Stmt& y, PyLines&) {
      std::vector<std::string> values;
      for (const ExprPtr& v : y.operands) values.push_back(Emit(*v));
      returned = absl::StrJoin(values, ", ");
    };
    PyLines body;
    if (region < stmt.regions.size() &&
        !EmitBody(stmt.regions[region], body, on_yield)) {
      return false;
    }
    body.TrimTrailingBlanks();
    if (returned.empty()) {
      return Error(stmt.loc,
                   "a run-time 'if' with results has a branch without a "
                   "yield");
    }
    branch_names.push_back(Fresh(region == 0 ? "_then" : "_else"));
    out.Line(fmt::format("def {}():", branch_names.back()));
    out.Indent();
    out.Append(body);
    out.Line("return " + returned);
    out.Dedent();
    out.Blank();
  }
  out.Line(fmt::format("{} = jax.lax.cond({}, {}, {})",
                       absl::StrJoin(results, ", "), StripOuterParens(cond),
                       branch_names[0], branch_names[1]));
  return true;
}

bool DeviceEmitter::EmitIf(const Stmt& stmt, PyLines& out) {
  std::string cond = Emit(*stmt.value);
  if (!FlushExprErrors(stmt.loc)) return false;
  if (!IsTraceTimeConstant(*stmt.value)) {
    if (stmt.results.empty()) return EmitWhen(stmt, cond, out);
    return EmitCond(stmt, cond, out);
  }
  std::vector<std::string> results;
  for (const Value& result : stmt.results) {
    results.push_back(SanitizeIdentifier(result.name));
  }
  auto on_yield = [&](const Stmt& y, PyLines& o) {
    std::vector<std::string> values;
    for (const ExprPtr& v : y.operands) values.push_back(Emit(*v));
    if (!results.empty()) o.Line(TupleAssign(results, values));
  };
  out.Line(fmt::format("if {}:", cond));
  for (size_t region = 0; region < stmt.regions.size(); ++region) {
    // The text format has no `if` without `else`: skip an empty one.
    if (region == 1 && stmt.regions[1].stmts.empty()) break;
    if (region == 1) out.Line("else:");
    out.Indent();
    PyLines body;
    if (!EmitBody(stmt.regions[region], body, on_yield)) return false;
    body.TrimTrailingBlanks();
    if (body.empty()) body.Line("pass");
    out.Append(body);
    out.Dedent();
  }
  return true;
}

void DeviceEmitter::EmitOutputInits(PyLines& out) {
  for (const RefPlan* ref : outputs_) {
    bool has_init = host_.outputs_with_init.count(ref->name) != 0;
    bool partial_block = false;
    for (const SpecDim& dim : ref->dims) {
      if (dim.kind == SpecKind::kFull) partial_block = true;
    }
    // An accumulated ref (atomic-accumulator) is read on its first cell
    // like an atomic target: it starts from its initial values, or zeros.
    const bool accumulates = ref->atomic || ref->accumulated;
    if (ref->accumulated && has_init) continue;  // read from the init input
    // Hardware atomics update the aliased output in memory.
    if (ref->atomic && plan_.target->NativeAtomics()) continue;
    // The aliased output already holds its initial values; a copy by the
    // first program would race with the others (a GPU runs them at once).
    if (has_init && !accumulates && plan_.target->OutputsInMemory(plan_)) {
      continue;
    }
    if (!(accumulates || ref->read || (has_init && partial_block))) continue;
    if (!has_init && !accumulates) continue;
    // First visit of the block: the grid dims the block does not map are
    // all at index 0.
    std::vector<std::string> conditions;
    for (size_t g = 0; g < plan_.grid_tiles.size(); ++g) {
      bool mapped = false;
      for (const SpecDim& dim : ref->dims) {
        if (dim.kind == SpecKind::kBlocked &&
            dim.grid_tile == plan_.grid_tiles[g]) {
          mapped = true;
        }
      }
      if (!mapped) {
        conditions.push_back(
            fmt::format("({} == 0)", GridIndex(plan_.grid_tiles[g])));
      }
    }
    std::string name = SanitizeIdentifier(ref->name);
    std::string init =
        has_init ? fmt::format("{}[...]", init_ref_names_[ref->name])
                 : fmt::format("jnp.zeros({}.shape, {}.dtype)", name, name);
    if (conditions.empty()) {
      out.Line(fmt::format("{}[...] = {}", name, init));
      continue;
    }
    std::string cond;
    for (size_t i = 0; i < conditions.size(); ++i) {
      cond += (i ? " & " : "") + conditions[i];
    }
    if (conditions.size() == 1) cond = cond.substr(1, cond.size() - 2);
    out.Line(fmt::format("@pl.when({})", cond));
    out.Line(fmt::format("def {}():", Fresh("_init_" + name)));
    out.Indent();
    out.Line(fmt::format("{}[...] = {}", name, init));
    out.Dedent();
    out.Blank();
  }
}

bool DeviceEmitter::EmitKernel(PyLines& out) {
  kernel_fn_ = Fresh("_" + plan_.kernel_name + "_kernel");
  for (const RefPlan& ref : plan_.refs) {
    if (ref.written()) {
      outputs_.push_back(&ref);
      if (host_.outputs_with_init.count(ref.name)) {
        init_refs_.push_back(&ref);
        init_ref_names_[ref.name] = Fresh(ref.name + "_init");
      }
    } else {
      inputs_.push_back(&ref);
    }
  }
  // Scalar-prefetch operands come first (PrefetchScalarGridSpec).
  std::stable_partition(inputs_.begin(), inputs_.end(), [](const RefPlan* ref) {
    return ref->scalar_prefetch;
  });
  PushScope(&kernel_scope_);
  PyLines body;
  EmitOutputInits(body);
  bool ok = EmitBlock(plan_.device->body, body);
  body.TrimTrailingBlanks();
  PopScope();
  if (!ok) return false;
  std::vector<std::string> params;
  for (const RefPlan* ref : inputs_) {
    params.push_back(SanitizeIdentifier(ref->name));
  }
  for (const RefPlan* ref : init_refs_) {
    params.push_back(init_ref_names_[ref->name]);
  }
  for (const RefPlan* ref : outputs_) {
    params.push_back(SanitizeIdentifier(ref->name));
  }
  for (const std::string& scratch : scratch_names_) params.push_back(scratch);
  kernel_params_ = params;
  std::string signature;
  for (size_t i = 0; i < params.size(); ++i) {
    signature += (i ? ", " : "") + params[i];
  }
  if (!kwargs_.empty()) {
    signature += params.empty() ? "*" : ", *";
    for (const KernelKwarg& kwarg : kwargs_) signature += ", " + kwarg.name;
  }
  out.Line(fmt::format("def {}({}):", kernel_fn_, signature));
  out.Indent();
  // Grid indices asked for while emitting text that was later simplified
  // away (e.g. the bounds of a loop with a static trip count) are dropped.
  PyLines prelude = DropUnusedAssignments(kernel_scope_.prelude, body.Text());
  out.Append(prelude);
  out.Append(body);
  if (prelude.empty() && body.empty()) out.Line("pass");
  out.Dedent();
  return true;
}

}  // namespace tessera::pallas
