// Calls: the catalogue of supported functions, dispatch by family,
// Python builtins, helion.language calls and atomics. The families live
// in lower_calls_{math,reduce,alloc}.cpp, tensor methods in
// lower_methods.cpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {

const std::vector<std::string>& KnownFunctions() {
  static const auto* const names =
      new std::vector<std::string>{"torch.empty",
                                   "torch.empty_like",
                                   "torch.zeros",
                                   "torch.zeros_like",
                                   "torch.ones",
                                   "torch.ones_like",
                                   "torch.full",
                                   "torch.full_like",
                                   "torch.exp",
                                   "torch.exp2",
                                   "torch.log",
                                   "torch.log2",
                                   "torch.sqrt",
                                   "torch.rsqrt",
                                   "torch.tanh",
                                   "torch.sigmoid",
                                   "torch.erf",
                                   "torch.abs",
                                   "torch.relu",
                                   "torch.neg",
                                   "torch.maximum",
                                   "torch.minimum",
                                   "torch.where",
                                   "torch.clamp",
                                   "torch.broadcast_tensors",
                                   "torch.softmax",
                                   "torch.log_softmax",
                                   "torch.sum",
                                   "torch.amax",
                                   "torch.amin",
                                   "torch.mean",
                                   "torch.addmm",
                                   "torch.matmul",
                                   "torch.mm",
                                   "torch.bmm",
                                   "torch.baddbmm",
                                   "torch.promote_types",
                                   "torch.nn.functional.relu",
                                   "torch.nn.functional.gelu",
                                   "torch.nn.functional.silu",
                                   "torch.nn.functional.sigmoid",
                                   "torch.nn.functional.tanh",
                                   "torch.nn.functional.softmax",
                                   "torch.nn.functional.log_softmax",
                                   "helion.language.tile",
                                   "helion.language.zeros",
                                   "helion.language.full",
                                   "helion.language.specialize",
                                   "helion.language.register_block_size",
                                   "helion.language.dot",
                                   "helion.language.load",
                                   "helion.language.store",
                                   "helion.language.atomic_add",
                                   "helion.language.atomic_max",
                                   "helion.language.atomic_min",
                                   "helion.language.register_tunable",
                                   "helion.language.barrier",
                                   "helion.language.rand",
                                   "helion.language.associative_scan",
                                   "helion.language.cumsum",
                                   "helion.language.cumprod",
                                   "torch.cumsum",
                                   "torch.cumprod",
                                   "helion.language.arange",
                                   "helion.autotuner.PowerOfTwoFragment",
                                   "helion.autotuner.IntegerFragment",
                                   "helion.autotuner.EnumFragment",
                                   "helion.autotuner.BooleanFragment",
                                   "helion.cdiv",
                                   "helion.next_power_of_2",
                                   "helion.runtime.get_num_sm",
                                   "math.sqrt",
                                   "math.exp",
                                   "math.log",
                                   "math.log2",
                                   "math.pow",
                                   "math.ceil",
                                   "math.floor",
                                   "math.erf",
                                   "math.tanh",
                                   "math.fabs",
                                   "builtins.float",
                                   "builtins.int",
                                   "builtins.bool",
                                   "builtins.len",
                                   "builtins.min",
                                   "builtins.max",
                                   "builtins.abs",
                                   "builtins.range",
                                   "builtins.slice"};
  return *names;
}

const std::vector<std::string>& KnownMethods() {
  static const auto* const names = new std::vector<std::string>{
      "size",      "numel",      "dim",          "to",         "float",
      "half",      "bfloat16",   "type_as",      "sum",        "amax",
      "amin",      "mean",       "exp",          "exp2",       "log",
      "log2",      "sqrt",       "rsqrt",        "tanh",       "sigmoid",
      "erf",       "abs",        "relu",         "neg",        "view",
      "reshape",   "transpose",  "permute",      "t",          "squeeze",
      "unsqueeze", "expand",     "broadcast_to", "contiguous", "maximum",
      "minimum",   "new_empty",  "new_zeros",    "new_ones",   "new_full",
      "view_as",   "reshape_as", "expand_as",    "item"};
  return *names;
}

bool IsBuiltinFunction(const std::string& name) {
  static const std::set<std::string, std::less<>> kBuiltins = {
      "float", "int", "bool", "len", "min", "max", "abs", "range", "slice"};
  return kBuiltins.count(name) != 0;
}

Val KernelLowering::CallFunction(const std::string& path, CallArgs& args) {
  const CallSite site{path, ModuleOf(path), LastComponent(path)};
  // Each family returns nothing when the path is not one of its own.
  if (std::optional<Val> result = CallElementwise(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallReductionOrMatmul(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallAllocation(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallLanguage(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallMathConstant(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallBuiltin(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallTunable(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallRandom(site, args))
    return std::move(*result);
  if (std::optional<Val> result = CallArange(site, args))
    return std::move(*result);
  return UnknownFunction(site, args);
}

Val KernelLowering::UnknownFunction(const CallSite& site, CallArgs& args) {
  const std::string& path = site.path;
  SourceLoc loc = args.loc;
  const std::string& module = site.module;
  const std::string& name = site.name;
  // Unknown: did you mean, and what is supported in that module.
  std::vector<std::string> candidates;
  std::vector<std::string> in_module;
  for (const std::string& known : KnownFunctions()) {
    candidates.push_back(known);
    if (ModuleOf(known) == module) in_module.push_back(LastComponent(known));
  }
  std::string shown = module == "builtins" ? name : path;
  std::string closest = ClosestName(name, in_module);
  if (!closest.empty() && module != "builtins")
    closest = module + "." + closest;
  Diagnostic* d =
      Report(loc, closest.empty()
                      ? fmt::format("unknown function '{}'", shown)
                      : fmt::format("unknown function '{}'; did you mean '{}'?",
                                    shown, closest));
  if (!in_module.empty()) {
    std::string list;
    for (const std::string& n : in_module)
      list += (list.empty() ? "" : ", ") + n;
    Note(d, fmt::format("supported functions of '{}': {}", module, list));
  } else {
    Note(
        d,
        "supported modules: torch, torch.nn.functional, helion.language, math");
  }
  return Val::Poison();
}

std::optional<Val> KernelLowering::CallLanguage(const CallSite& site,
                                                CallArgs& args) {
  const std::string& path = site.path;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& name = site.name;
  // helion.language
  if (path == "helion.language.tile") {
    return Fail(loc,
                "hl.tile(...) is used as the iterator of a for loop: "
                "for tile in hl.tile(n)");
  }
  if (std::optional<Val> scan = CallScan(site, args)) return scan;
  if (path == "helion.language.specialize") {
    const Val* x = c.Required(0, "value", name);
    return x ? x->Clone() : Val::Poison();
  }
  if (path == "helion.language.register_block_size") {
    if (args.positional.empty() || args.positional.size() > 2) {
      return Fail(loc, "hl.register_block_size takes (max) or (min, max)");
    }
    const Val& extent = args.positional.back();
    std::optional<Dim> dim;
    if (extent.kind == ValKind::kInt) dim = Dim::Static(extent.i);
    return Val::Int(RegisterBlockSize(dim));
  }
  if (path == "helion.language.load") return LoadCall(args);
  if (path == "helion.language.store") {
    StoreCall(args);
    return Val::None();
  }
  if (path == "helion.language.atomic_add" ||
      path == "helion.language.atomic_max" ||
      path == "helion.language.atomic_min") {
    Atomic(name.substr(std::string("atomic_").size()), args);
    return Val::None();
  }
  return std::nullopt;
}

std::optional<Val> KernelLowering::CallBuiltin(const CallSite& site,
                                               CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& module = site.module;
  const std::string& name = site.name;
  // Python builtins.
  if (module == "builtins") {
    if (name == "slice") {
      // slice(stop), slice(start, stop): an index like `start:stop`.
      if (args.positional.empty() || args.positional.size() > 2 ||
          !args.keywords.empty()) {
        return Fail(loc, "slice takes (stop) or (start, stop)");
      }
      Val slice;
      slice.kind = ValKind::kSlice;
      if (args.positional.size() == 1) slice.elems.push_back(Val::None());
      for (Val& bound : args.positional) slice.elems.push_back(bound.Clone());
      return slice;
    }
    if (name == "range") {
      return Fail(loc,
                  "range(...) is supported only as the iterator of a for loop");
    }
    if (name == "float" || name == "int" || name == "bool") {
      if (args.positional.empty()) {
        return name == "float" ? Val::Float(0)
               : name == "int" ? Val::Int(0)
                               : Val::Bool(false);
      }
      const Val& x = args.positional[0];
      if (x.kind == ValKind::kString && name == "float") {
        std::string text = x.text;
        std::transform(text.begin(), text.end(), text.begin(), ::tolower);
        double inf = std::numeric_limits<double>::infinity();
        if (text == "inf" || text == "+inf" || text == "infinity")
          return Val::Float(inf);
        if (text == "-inf" || text == "-infinity") return Val::Float(-inf);
        if (text == "nan")
          return Val::Float(std::numeric_limits<double>::quiet_NaN());
        char* end = nullptr;
        double v = std::strtod(x.text.c_str(), &end);
        if (end && *end == '\0' && !x.text.empty()) return Val::Float(v);
        return Fail(args.positional_locs[0],
                    "could not convert string to float");
      }
      if (x.IsNumber()) {
        if (name == "float") return Val::Float(x.AsDouble());
        if (name == "bool") return Val::Bool(x.AsDouble() != 0);
        double v = x.AsDouble();
        if (!(std::fabs(v) < 9.2e18))
          return Fail(args.positional_locs[0], "integer overflow");
        return Val::Int(static_cast<int64_t>(v));
      }
      if (x.IsScalar()) {
        DType dtype = name == "float" ? DType::kF32
                      : name == "int" ? DType::kI64
                                      : DType::kBool;
        return MakeTyped(OpKind::kCast, One(CloneExpr(*x.expr)),
                         {Attr{"dtype", dtype}}, loc);
      }
      return Fail(
          args.positional_locs[0],
          fmt::format("{}() of {} is not supported", name, Describe(x)));
    }
    if (name == "len") {
      const Val* x = c.Required(0, "obj", name);
      if (!x) return Val::Poison();
      if (x->kind == ValKind::kTuple)
        return Val::Int(static_cast<int64_t>(x->elems.size()));
      if (x->IsValue() && !x->IsScalar() && x->type().rank() > 0)
        return DimVal(x->type().shape[0]);
      return Fail(loc,
                  fmt::format("len() of {} is not supported", Describe(*x)));
    }
    if (name == "abs") {
      const Val* x = c.Required(0, "x", name);
      if (!x) return Val::Poison();
      return c.Unary(OpKind::kAbs, Abs, *x, loc);
    }
    if (name == "min" || name == "max") {
      std::vector<Val> items;
      if (args.positional.size() == 1 &&
          args.positional[0].kind == ValKind::kTuple) {
        for (const Val& v : args.positional[0].elems)
          items.push_back(v.Clone());
      } else {
        for (const Val& v : args.positional) items.push_back(v.Clone());
      }
      if (items.empty())
        return Fail(loc, fmt::format("{}() needs arguments", name));
      Val result = std::move(items[0]);
      for (size_t i = 1; i < items.size(); ++i) {
        result = c.BinaryFn(name == "max" ? OpKind::kMaximum : OpKind::kMinimum,
                            result, items[i], loc);
        if (result.kind == ValKind::kPoison) return result;
      }
      return result;
    }
  }
  return std::nullopt;
}

void KernelLowering::Atomic(const std::string& op, CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const Val* target = c.Required(0, "target", "atomic_" + op);
  const Val* index = c.Required(1, "index", "atomic_" + op);
  const Val* value = c.Required(2, "value", "atomic_" + op);
  if (!target || !index || !value) return;
  if (!target->IsRef()) {
    Fail(c.LocOf(0, "target"),
         fmt::format("the target of an atomic must be a tensor "
                     "argument or allocation, got {}",
                     Describe(*target)));
    return;
  }
  if (!in_device()) {
    Fail(loc, "an atomic must be inside an hl.tile loop");
    return;
  }
  Val base;
  IndexList indices;
  ExprPtr stored;
  if (!PrepareWrite(*target, *index, *value, c.LocOf(1, "index"),
                    c.LocOf(2, "value"), "an atomic", base, indices, stored)) {
    return;
  }
  Stmt stmt;
  stmt.kind = tessera::StmtKind::kAtomic;
  stmt.loc = loc;
  stmt.target = std::move(base.expr);
  stmt.indices = std::move(indices);
  stmt.value = std::move(stored);
  SetAttr(stmt.attrs, "op", op);
  Emit(std::move(stmt));
}

}  // namespace tessera::helion_py
