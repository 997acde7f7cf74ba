// Kernel-level lowering: parameters and their specialization, statements,
// loops, block sizes. See lower_internal.h for the model of values.
#include <algorithm>
#include <functional>
#include <span>

#include "fmt/format.h"
#include "lower_internal.h"
#include "python_literal.h"
#include "tessera/ir/text.h"

namespace tessera::helion_py {
namespace {

// How many times a kernel is re-lowered to apply what a pass learned
// (dims proven equal by asserts and operations, default block sizes).
constexpr int kMaxPasses = 8;

}  // namespace

std::string DottedName(const Node& node) {
  if (node.kind == NodeKind::kName) return node.text;
  if (node.kind == NodeKind::kAttribute) {
    std::string base = DottedName(*node.children[0]);
    return base.empty() ? "" : base + "." + node.text;
  }
  return "";
}

// `Callable`, `Callable[[...], T]`, `typing.Callable`, ... or no annotation
// with a lambda default: a parameter that is inlined, not passed.
bool IsCallableParam(const Param& param) {
  if (param.default_value && param.default_value->kind == NodeKind::kLambda)
    return true;
  const Node* annotation = param.annotation.get();
  if (annotation && annotation->kind == NodeKind::kSubscript)
    annotation = annotation->children[0].get();
  if (annotation == nullptr) return false;
  std::string name = DottedName(*annotation);
  return name == "Callable" || name.ends_with(".Callable");
}

Dim Substitute(const Dim& dim, const std::map<std::string, Dim>& aliases) {
  Dim result = dim;
  for (int guard = 0; guard < 16 && !result.is_static(); ++guard) {
    auto it = aliases.find(result.symbol);
    if (it == aliases.end()) break;
    result = it->second;
  }
  return result;
}

// ---------------------------------------------------------------------------
// Val
// ---------------------------------------------------------------------------
Val Val::Clone() const {
  Val copy;
  copy.kind = kind;
  copy.i = i;
  copy.f = f;
  copy.b = b;
  copy.dtype = dtype;
  copy.text = text;
  if (expr) copy.expr = CloneExpr(*expr);
  copy.is_dim = is_dim;
  copy.tile = tile;
  copy.elems.reserve(elems.size());
  for (const Val& elem : elems) copy.elems.push_back(elem.Clone());
  copy.is_list = is_list;
  copy.callable = callable;
  copy.function = function;
  return copy;
}
Val Val::None() {
  Val v;
  v.kind = ValKind::kNone;
  return v;
}
Val Val::Int(int64_t value) {
  Val v;
  v.kind = ValKind::kInt;
  v.i = value;
  return v;
}
Val Val::Float(double value) {
  Val v;
  v.kind = ValKind::kFloat;
  v.f = value;
  return v;
}
Val Val::Bool(bool value) {
  Val v;
  v.kind = ValKind::kBool;
  v.b = value;
  return v;
}
Val Val::String(std::string value) {
  Val v;
  v.kind = ValKind::kString;
  v.text = std::move(value);
  return v;
}
Val Val::DTypeOf(DType d) {
  Val v;
  v.kind = ValKind::kDType;
  v.dtype = d;
  return v;
}
Val Val::Module(std::string path) {
  Val v;
  v.kind = ValKind::kModule;
  v.text = std::move(path);
  return v;
}
Val Val::Value(ExprPtr e, bool is_dim) {
  Val v;
  v.kind = ValKind::kValue;
  v.expr = std::move(e);
  v.is_dim = is_dim;
  return v;
}
Val Val::Tuple(std::vector<Val> elems, bool is_list) {
  Val v;
  v.kind = ValKind::kTuple;
  v.elems = std::move(elems);
  v.is_list = is_list;
  return v;
}

const Val* CallArgs::Get(size_t index, std::string_view name) const {
  if (index < positional.size()) return &positional[index];
  for (const auto& [key, value] : keywords) {
    if (key == name) return &value;
  }
  return nullptr;
}
SourceLoc CallArgs::LocOf(size_t index, std::string_view name) const {
  if (index < positional_locs.size()) return positional_locs[index];
  for (size_t i = 0; i < keywords.size(); ++i) {
    if (keywords[i].first == name) return keyword_locs[i];
  }
  return loc;
}

// ---------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------
KernelLowering::KernelLowering(const KernelDef& kernel, const ParsedFile& file,
                               const std::string& path,
                               const PipelineInfo& pipeline,
                               DiagnosticEngine& diagnostics)
    : kernel_(kernel),
      imports_(file.imports),
      constants_(file.constants),
      functions_(file.functions),
      path_(path),
      diagnostics_(diagnostics) {
  // "*" applies to every kernel; the kernel's own entry wins per argument.
  if (auto it = pipeline.kernels.find("*"); it != pipeline.kernels.end()) {
    spec_ = it->second;
  }
  if (auto it = pipeline.kernels.find(kernel.name);
      it != pipeline.kernels.end()) {
    for (const auto& [name, type] : it->second.args) spec_.args[name] = type;
    if (!it->second.block_sizes.empty()) {
      spec_.block_sizes = it->second.block_sizes;
    }
  }
  // The kernel's own helion.Config applies when the pipeline (a tuned
  // entry, [kernels.NAME] or "*") gives no block sizes.
  if (spec_.block_sizes.empty() && !kernel.config_block_sizes.empty()) {
    spec_.block_sizes = kernel.config_block_sizes;
    decorator_blocks_ = true;
  }
}

Val KernelLowering::Fail(SourceLoc loc, std::string message) {
  Report(loc, std::move(message));
  return Val::Poison();
}

Diagnostic* KernelLowering::Report(SourceLoc loc, std::string message) {
  if (quiet_) {
    if (!in_assert_) ++suppressed_errors_;
    return nullptr;
  }
  return &diagnostics_.Error(path_, loc, std::move(message));
}

void KernelLowering::Note(Diagnostic* diagnostic, std::string message) {
  if (diagnostic == nullptr) return;
  DiagnosticEngine::AddNote(*diagnostic, "", SourceLoc{}, std::move(message));
}

void KernelLowering::Emit(Stmt stmt) {
  blocks_.back()->stmts.push_back(std::move(stmt));
}

std::string KernelLowering::Fresh(const std::string& base) {
  std::string name = base;
  for (int n = 1; taken_.count(name) || python_names_.count(name); ++n) {
    name = base + "_" + std::to_string(n);
  }
  taken_.insert(name);
  return name;
}

void KernelLowering::CollectNames(const std::vector<PyStmt>& body) {
  WalkStmtNodes(body, [&](const Node& node) {
    if (node.kind == NodeKind::kName) python_names_.insert(node.text);
  });
}

std::optional<Function> KernelLowering::Run() {
  // Quiet probe passes learn what the source implies before anything is
  // reported: sizes that asserts prove equal, and how each tile dim
  // indexes refs (for default block sizes). The last pass reports errors.
  // The first pass starts from the leading asserts' aliases and a reading
  // of the subscripts (lower_first_pass.cpp), so it is usually the last.
  if (size_t prefix = AssertPrefixLength(); prefix > 0) {
    quiet_ = true;
    LowerOnce(prefix);
    quiet_ = false;
  }
  probed_usage_ = GuessTileUsage();
  default_blocks_ = DefaultBlocksFor(probed_usage_);
  for (int pass = 0; pass + 1 < kMaxPasses; ++pass) {
    std::map<std::string, Dim> aliases_before = aliases_;
    quiet_ = true;
    LowerOnce();
    quiet_ = false;
    // Only what the pass consulted must agree with what it found.
    bool blocks_changed = false;
    for (const auto& [ordinal, block] : consulted_blocks_) {
      blocks_changed |= DefaultBlockFor(tile_usage_[ordinal]) != block;
    }
    for (const auto& [ordinal, usage] : consulted_usage_) {
      blocks_changed |= tile_usage_[ordinal] != usage;
    }
    default_blocks_ = DefaultBlocksFor(tile_usage_);
    probed_usage_ = tile_usage_;
    if (aliases_ == aliases_before && !blocks_changed) {
      // The probe used exactly what a final pass would use: when it met no
      // error its result is the answer.
      if (suppressed_errors_ == 0) return WarnAboutBlocks(std::move(function_));
      break;
    }
  }
  size_t errors = diagnostics_.error_count();
  LowerOnce();
  if (diagnostics_.error_count() != errors) return std::nullopt;
  return WarnAboutBlocks(std::move(function_));
}

std::optional<Function> KernelLowering::WarnAboutBlocks(
    std::optional<Function> function) {
  if (function && exact_block_sizes_ && !decorator_blocks_ &&
      !spec_.block_sizes.empty() &&
      spec_.block_sizes.size() != next_block_slot_) {
    Diagnostic* d = Report(
        kernel_.loc,
        fmt::format("block_sizes gives {} size{} for kernel '{}', which has "
                    "{} block dim{}",
                    spec_.block_sizes.size(),
                    spec_.block_sizes.size() == 1 ? "" : "s", kernel_.name,
                    next_block_slot_, next_block_slot_ == 1 ? "" : "s"));
    Note(d,
         fmt::format("give exactly {} (one per hl.tile dim without block_size= "
                     "and per hl.register_block_size, in source order) in "
                     "[kernels.{}] of the config",
                     next_block_slot_, kernel_.name));
    return std::nullopt;
  }
  for (std::string& warning : block_warnings_) {
    diagnostics_.Warning(path_, kernel_.config_loc, std::move(warning));
  }
  block_warnings_.clear();
  return function;
}

bool KernelLowering::LowerOnce(size_t statement_limit) {
  function_ = Function{};
  function_.name = kernel_.name;
  function_.kind = FunctionKind::kKernel;
  function_.loc = kernel_.loc;
  if (kernel_.launch.num_warps) {
    SetAttr(function_.attrs, "num_warps", *kernel_.launch.num_warps);
  }
  if (kernel_.launch.num_stages) {
    SetAttr(function_.attrs, "num_stages", *kernel_.launch.num_stages);
  }
  env_.clear();
  ended_loop_targets_.clear();
  py_names_.clear();
  taken_.clear();
  python_names_.clear();
  param_symbols_.clear();
  blocks_ = {&function_.body};
  tile_depth_ = 0;
  loop_depth_ = 0;
  returned_ = false;
  next_block_slot_ = 0;
  next_tile_ordinal_ = 0;
  tile_usage_.clear();
  consulted_blocks_.clear();
  registered_default_block_ = 0;
  consulted_usage_.clear();
  tile_extents_.clear();
  suppressed_errors_ = 0;
  block_warnings_.clear();
  if (!body_names_) {
    CollectNames(kernel_.body);
    for (const Param& param : kernel_.params) python_names_.erase(param.name);
    body_names_ = python_names_;
  } else {
    python_names_ = *body_names_;
  }
  SetUpParams();
  for (const auto& [name, node] : constants_) {
    if (!env_.count(name)) env_[name] = Eval(*node);
  }
  if (statement_limit >= kernel_.body.size()) ++full_passes_;
  const size_t count = std::min(statement_limit, kernel_.body.size());
  for (size_t i = 0; i < count && !returned_; ++i) LowerStmt(kernel_.body[i]);
  return true;
}

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------
void KernelLowering::LowerBlock(const std::vector<PyStmt>& body) {
  for (const PyStmt& stmt : body) {
    if (returned_) break;  // code after `return` never runs
    LowerStmt(stmt);
  }
}

void KernelLowering::LowerStmt(const PyStmt& stmt) {
  switch (stmt.kind) {
    case PyStmtKind::kPass:
      return;
    case PyStmtKind::kAssign: {
      Val value = Eval(*stmt.value);
      for (size_t t = 0; t < stmt.targets.size(); ++t) {
        Assign(*stmt.targets[t],
               t + 1 == stmt.targets.size() ? std::move(value) : value.Clone(),
               stmt.loc);
      }
      return;
    }
    case PyStmtKind::kAugAssign: {
      const Node& target = *stmt.target;
      if (target.kind != NodeKind::kName &&
          target.kind != NodeKind::kSubscript) {
        Fail(target.loc,
             "augmented assignment needs a name or a subscript as target");
        return;
      }
      Val current = Eval(target);
      Val rhs = Eval(*stmt.value);
      SourceLoc loc = target.loc;
      loc.length = std::max<uint32_t>(loc.length, 1);
      Val result = Binary(stmt.aug_op, std::move(current), std::move(rhs),
                          stmt.value->loc);
      Assign(target, std::move(result), stmt.loc);
      return;
    }
    case PyStmtKind::kExpr: {
      const Node& value = *stmt.value;
      if (value.kind == NodeKind::kString) return;  // docstring
      Eval(value);
      return;
    }
    case PyStmtKind::kFor:
      LowerFor(stmt);
      return;
    case PyStmtKind::kIf:
      LowerIf(stmt);
      return;
    case PyStmtKind::kReturn:
      LowerReturn(stmt);
      return;
    case PyStmtKind::kAssert:
      LowerAssert(stmt);
      return;
    case PyStmtKind::kUnsupported: {
      SourceLoc loc = stmt.loc;
      Diagnostic* d = Report(
          loc, fmt::format("'{}' is not supported in a kernel", stmt.keyword));
      Note(d,
           "supported statements: assignment (also tuple unpacking and "
           "+=, -=, *=, /=), 'for' over hl.tile / range, 'if', 'return', "
           "'assert', 'pass'");
      return;
    }
  }
}

void KernelLowering::Assign(const Node& target, Val value, SourceLoc loc) {
  switch (target.kind) {
    case NodeKind::kName:
      BindName(target.text, std::move(value), target.loc);
      return;
    case NodeKind::kTuple:
    case NodeKind::kList: {
      if (value.kind == ValKind::kPoison) {
        for (const NodePtr& child : target.children)
          Assign(*child, Val::Poison(), loc);
        return;
      }
      if (value.kind != ValKind::kTuple) {
        Fail(target.loc, "cannot unpack a non-tuple value");
        for (const NodePtr& child : target.children)
          Assign(*child, Val::Poison(), loc);
        return;
      }
      if (value.elems.size() != target.children.size()) {
        Fail(target.loc,
             fmt::format("cannot unpack {} values into {} targets",
                         value.elems.size(), target.children.size()));
        for (const NodePtr& child : target.children)
          Assign(*child, Val::Poison(), loc);
        return;
      }
      for (size_t i = 0; i < target.children.size(); ++i) {
        Assign(*target.children[i], std::move(value.elems[i]), loc);
      }
      return;
    }
    case NodeKind::kSubscript:
      Store(target, std::move(value), loc);
      return;
    default:
      Fail(target.loc,
           "unsupported assignment target; assign to a name, a "
           "tuple of names or a subscript of a tensor argument");
      return;
  }
}

std::string KernelLowering::IrNameFor(const std::string& name, TypeKind kind) {
  auto category = [](TypeKind k) {
    return k == TypeKind::kRef ? 0 : k == TypeKind::kTile ? 1 : 2;
  };
  bool is_param = std::any_of(function_.params.begin(), function_.params.end(),
                              [&](const Value& p) { return p.name == name; });
  auto it = py_names_.find(name);
  if (it != py_names_.end() && !is_param && kind != TypeKind::kRef &&
      category(it->second.kind) == category(kind)) {
    return it->second.ir_name;
  }
  // Refs are never reassigned and params/symbols are bound by the
  // signature: a new binding of such a name gets a fresh IR name.
  std::string ir_name;
  if (!taken_.count(name)) {
    ir_name = name;
    taken_.insert(name);
  } else {
    std::string base = name;
    python_names_.erase(name);  // allow name_1 even if name itself is used
    ir_name = Fresh(base);
    python_names_.insert(name);
  }
  py_names_[name] = PyName{ir_name, kind};
  return ir_name;
}

void KernelLowering::BindName(const std::string& name, Val value,
                              SourceLoc loc) {
  if (value.kind == ValKind::kValue && !value.is_dim) {
    const Type type = value.type();
    if (type.is_ref() && value.expr->op == OpKind::kVar) {
      env_[name] = std::move(value);  // another name for the same memory
      return;
    }
    std::string ir_name = IrNameFor(name, type.kind);
    if (value.expr->op == OpKind::kVar && value.expr->name == ir_name) return;
    Emit(MakeAssign(Value{ir_name, type}, std::move(value.expr), loc));
    env_[name] = Val::Value(MakeVar(ir_name, type));
    return;
  }
  if (value.IsNumber()) {
    // A name that already holds a runtime value (e.g. a loop-carried
    // accumulator) keeps being one: the constant is stored into it.
    auto it = env_.find(name);
    if (it != env_.end() && it->second.IsValue() && !it->second.is_dim &&
        !it->second.IsRef()) {
      const Type& current = it->second.type();
      ExprPtr constant = ToExpr(value, &current, loc);
      if (!constant) return;
      Type type = constant->type;
      std::string ir_name = IrNameFor(name, type.kind);
      Emit(MakeAssign(Value{ir_name, type}, std::move(constant), loc));
      env_[name] = Val::Value(MakeVar(ir_name, type));
      return;
    }
  }
  env_[name] = std::move(value);
}

void KernelLowering::LowerReturn(const PyStmt& stmt) {
  if (loop_depth_ > 0) {
    Fail(stmt.loc,
         "'return' inside a loop is not supported; return after "
         "the hl.tile loop");
    return;
  }
  ExprList values;
  std::vector<std::string> result_shapes;
  if (stmt.value) {
    if (stmt.value->kind == NodeKind::kTuple) {
      for (const NodePtr& item : stmt.value->children)
        result_shapes.push_back(ResultShapeOf(*item));
    } else {
      result_shapes.push_back(ResultShapeOf(*stmt.value));
    }
    Val value = Eval(*stmt.value);
    if (value.kind == ValKind::kPoison) return;
    std::vector<Val> items;
    if (value.kind == ValKind::kTuple) {
      items = std::move(value.elems);
    } else if (value.kind != ValKind::kNone) {
      items.push_back(std::move(value));
    }
    for (Val& item : items) {
      if (item.kind == ValKind::kPoison) return;
      if (!item.IsValue()) {
        Fail(stmt.value->loc, "a kernel returns tensors (or scalars)");
        return;
      }
      if (item.IsRef())
        item = MaterializeRef(std::move(item), "result", stmt.loc);
      if (item.kind == ValKind::kPoison) return;
      function_.result_types.push_back(item.type());
      values.push_back(std::move(item.expr));
    }
  }
  if (std::any_of(result_shapes.begin(), result_shapes.end(),
                  [](const std::string& p) { return !p.empty(); }) &&
      result_shapes.size() == values.size()) {
    SetAttr(function_.attrs, "result_shapes", std::move(result_shapes));
  }
  Emit(MakeReturn(std::move(values), stmt.loc));
  returned_ = true;
}

std::string KernelLowering::ResultShapeOf(const Node& node) const {
  // x.view(p.size()) / x.reshape(p.shape) / x.view(p.shape) / x.view_as(p)
  if (node.kind != NodeKind::kCall || node.children.size() != 2 ||
      node.children[0]->kind != NodeKind::kAttribute) {
    return "";
  }
  const std::string& method = node.children[0]->text;
  const Node* arg = node.children[1].get();
  if ((method == "view_as" || method == "reshape_as") &&
      arg->kind == NodeKind::kName) {
    return rank_generic_params_.count(arg->text) ? arg->text : "";
  }
  if (method != "view" && method != "reshape") return "";
  if (arg->kind == NodeKind::kCall && arg->children.size() == 1)
    arg = arg->children[0].get();
  else if (arg->kind == NodeKind::kCall)
    return "";
  if (arg->kind != NodeKind::kAttribute ||
      (arg->text != "size" && arg->text != "shape") ||
      arg->children[0]->kind != NodeKind::kName) {
    return "";
  }
  const std::string& param = arg->children[0]->text;
  return rank_generic_params_.count(param) ? param : "";
}

}  // namespace tessera::helion_py
