// Kernel parameters: their types (specialization, rank inference), defaults,
// compile-time (constexpr, callable) parameters.
#include <algorithm>
#include <functional>
#include <span>

#include "fmt/format.h"
#include "lower_internal.h"
#include "parser.h"
#include "python_literal.h"
#include "tessera/ir/text.h"
#include "tessera/python_literal.h"

namespace tessera::helion_py {

int KernelLowering::InferRank(const std::string& param) const {
  auto [cached, inserted] = inferred_ranks_.try_emplace(param, 0);
  if (inserted) cached->second = InferRankFromSource(param);
  return cached->second;
}

int KernelLowering::InferRankFromSource(const std::string& param) const {
  int exact = -1;
  int at_least = 1;
  auto is_param = [&](const Node& node) {
    return node.kind == NodeKind::kName && node.text == param;
  };
  // x.size(d) / x.shape[d] need rank d + 1; x.size(-d) / x.shape[-d] rank d.
  auto note_dim_index = [&](const Node& arg) {
    if (arg.kind == NodeKind::kInt) {
      at_least = std::max<int>(at_least, static_cast<int>(std::clamp<int64_t>(
                                             arg.int_value + 1, 1, 64)));
    } else if (arg.kind == NodeKind::kUnary &&
               arg.children[0]->kind == NodeKind::kInt) {
      at_least =
          std::max<int>(at_least, static_cast<int>(std::clamp<int64_t>(
                                      arg.children[0]->int_value, 1, 64)));
    }
  };
  std::function<void(const Node&)> visit = [&](const Node& node) {
    if (node.kind == NodeKind::kSubscript && node.children.size() == 2 &&
        node.children[1] && node.children[0]->kind == NodeKind::kAttribute &&
        node.children[0]->text == "shape" &&
        is_param(*node.children[0]->children[0])) {
      note_dim_index(*node.children[1]);
    }
    if (node.kind == NodeKind::kSubscript && is_param(*node.children[0])) {
      int count = 0;
      bool ellipsis = false;
      for (size_t i = 1; i < node.children.size(); ++i) {
        const Node* index = node.children[i].get();
        if (index && index->kind == NodeKind::kNone) continue;
        if (index && index->kind == NodeKind::kEllipsis) {
          ellipsis = true;
          continue;
        }
        ++count;
      }
      at_least = std::max(at_least, count);
      (void)ellipsis;
    }
    // hl.load(x, [i, j]) / hl.store(x, [i, j], v) / hl.atomic_add(x, ...):
    // one index per dim, as in x[i, j].
    if (node.kind == NodeKind::kCall && node.children.size() >= 3 &&
        node.children[1] && node.children[2] && is_param(*node.children[1]) &&
        node.children[0]->kind == NodeKind::kAttribute &&
        (node.children[0]->text == "load" ||
         node.children[0]->text == "store" ||
         node.children[0]->text.starts_with("atomic_"))) {
      const Node& list = *node.children[2];
      int count = 1;
      if (list.kind == NodeKind::kList || list.kind == NodeKind::kTuple) {
        count = 0;
        for (const NodePtr& index : list.children) {
          if (index && index->kind != NodeKind::kNone &&
              index->kind != NodeKind::kEllipsis) {
            ++count;
          }
        }
      }
      at_least = std::max(at_least, count);
    }
    // x.size(d) / x.size(-d)
    if (node.kind == NodeKind::kCall &&
        node.children[0]->kind == NodeKind::kAttribute &&
        node.children[0]->text == "size" &&
        is_param(*node.children[0]->children[0]) && node.children.size() == 2) {
      note_dim_index(*node.children[1]);
    }
  };
  WalkStmtNodes(kernel_.body, visit, [&](const PyStmt& stmt) {
    // a, b = x.size() / x.shape
    if (stmt.kind != PyStmtKind::kAssign || stmt.targets.size() != 1) return;
    const Node& target = *stmt.targets[0];
    if (target.kind != NodeKind::kTuple && target.kind != NodeKind::kList)
      return;
    const Node* value = stmt.value.get();
    if (value->kind == NodeKind::kCall && value->children.size() == 1) {
      value = value->children[0].get();
      if (value->kind != NodeKind::kAttribute || value->text != "size") return;
    } else if (value->kind != NodeKind::kAttribute || value->text != "shape") {
      return;
    }
    if (is_param(*value->children[0])) {
      exact = static_cast<int>(target.children.size());
    }
  });
  return exact > 0 ? exact : at_least;
}

// The generated host function keeps the signature's defaults (eps=1e-05),
// so callers may omit those arguments as they would with the kernel.
void KernelLowering::RecordParamDefaults() {
  std::vector<std::string> defaults;
  bool any = false;
  for (const Param& param : kernel_.params) {
    // Inlined or compile-time: not parameters of the IR function.
    if (IsCallable(param) || IsCompileTimeParam(param)) continue;
    std::string literal;
    if (param.default_value) {
      if (auto text = PythonLiteral(*param.default_value, constants_)) {
        literal = *text;
        any = true;
      } else {
        Report(param.default_value->loc,
               fmt::format("unsupported default value for kernel argument "
                           "'{}': use a number, True/False, None, a string or "
                           "a top-level constant",
                           param.name));
      }
    }
    defaults.push_back(std::move(literal));
  }
  if (any) SetAttr(function_.attrs, "defaults", std::move(defaults));
}

// A tensor parameter written rank-generically, as Helion's examples do:
// reshaped with a leading -1 (`q.reshape([-1, m, d])`, `q.view(-1, d)`) and
// otherwise used only through negative size indices, its whole size, dtype
// or device. Returns how many trailing dims the reshape names (0 for a
// flatten, `x.view(-1)`; -1: not rank-generic). Such a parameter accepts
// any rank >= that count.
int KernelLowering::RankGenericTrailing(const std::string& param) const {
  auto [cached, inserted] = rank_generic_trailing_.try_emplace(param, -1);
  if (inserted) cached->second = RankGenericTrailingFromSource(param);
  return cached->second;
}

int KernelLowering::RankGenericTrailingFromSource(
    const std::string& param) const {
  if (spec_.args.count(param)) return -1;  // --arg fixes the rank
  int trailing = -1;
  bool fixed_rank_use = false;
  auto is_param = [&](const Node& node) {
    return node.kind == NodeKind::kName && node.text == param;
  };
  auto is_minus_one = [](const Node& node) {
    return node.kind == NodeKind::kUnary &&
           static_cast<UnaryOp>(node.op) == UnaryOp::kNeg &&
           node.children[0]->kind == NodeKind::kInt &&
           node.children[0]->int_value == 1;
  };
  auto non_negative_int = [](const Node& node) {
    return node.kind == NodeKind::kInt;
  };
  WalkStmtNodes(
      kernel_.body,
      [&](const Node& node) {
        if (node.kind == NodeKind::kSubscript && is_param(*node.children[0]))
          fixed_rank_use = true;
        if (node.kind == NodeKind::kSubscript && node.children.size() == 2 &&
            node.children[1] &&
            node.children[0]->kind == NodeKind::kAttribute &&
            node.children[0]->text == "shape" &&
            is_param(*node.children[0]->children[0]) &&
            non_negative_int(*node.children[1])) {
          fixed_rank_use = true;
        }
        if (node.kind != NodeKind::kCall ||
            node.children[0]->kind != NodeKind::kAttribute ||
            !is_param(*node.children[0]->children[0])) {
          return;
        }
        const std::string& method = node.children[0]->text;
        if (method == "size" && node.children.size() == 2 &&
            non_negative_int(*node.children[1])) {
          fixed_rank_use = true;
        }
        if ((method == "reshape" || method == "view") &&
            node.children.size() >= 2) {
          const Node* first = node.children[1].get();
          size_t count = node.children.size() - 1;
          if ((first->kind == NodeKind::kList ||
               first->kind == NodeKind::kTuple) &&
              node.children.size() == 2 && !first->children.empty()) {
            count = first->children.size();
            first = first->children[0].get();
          }
          if (is_minus_one(*first)) {
            trailing = std::max<int>(trailing, static_cast<int>(count) - 1);
          }
        }
      },
      [&](const PyStmt& stmt) {
        // m, d = x.size() / x.shape fixes the rank.
        if (stmt.kind != PyStmtKind::kAssign || stmt.targets.size() != 1)
          return;
        const Node& target = *stmt.targets[0];
        if (target.kind != NodeKind::kTuple && target.kind != NodeKind::kList)
          return;
        const Node* value = stmt.value.get();
        if (value->kind == NodeKind::kCall) value = value->children[0].get();
        if (value->kind == NodeKind::kAttribute &&
            is_param(*value->children[0]))
          fixed_rank_use = true;
      });
  return fixed_rank_use ? -1 : trailing;
}

// `hl.constexpr` and `str` parameters are compile-time values: their
// default, or `--arg name=VALUE`. The host function keeps them as keyword
// arguments and checks at trace time that a call passes the compiled value.
// `list[int]`, `tuple[int, ...]`, `Sequence[int]` (layer_norm's
// normalized_shape): sizes the kernel is compiled for, as Helion
// specializes on them.
bool IsIntSequenceAnnotation(const Node& annotation) {
  if (annotation.kind != NodeKind::kSubscript || annotation.children.empty()) {
    return false;
  }
  const std::string base = DottedName(*annotation.children[0]);
  for (const char* sequence :
       {"list", "tuple", "List", "Tuple", "Sequence", "typing.List",
        "typing.Tuple", "typing.Sequence", "collections.abc.Sequence"}) {
    if (base == sequence) return true;
  }
  return false;
}

bool IsStaticParam(const Param& param) {
  if (param.annotation == nullptr) return false;
  if (IsIntSequenceAnnotation(*param.annotation)) return true;
  std::string name = DottedName(*param.annotation);
  return name == "constexpr" || name.ends_with(".constexpr") || name == "str";
}

// `x: Tensor | None = None` (or `Optional[Tensor]`): without `--arg x=...`
// the kernel is compiled for None, so `if x is not None:` folds; the host
// function then rejects a tensor for it.
bool IsOptionalNoneParam(const Param& param) {
  if (!param.default_value || param.default_value->kind != NodeKind::kNone ||
      !param.annotation)
    return false;
  const Node& a = *param.annotation;
  if (a.kind == NodeKind::kBinary &&
      a.op == static_cast<uint8_t>(BinaryOp::kBitOr))
    return a.children[0]->kind == NodeKind::kNone ||
           a.children[1]->kind == NodeKind::kNone;
  if (a.kind == NodeKind::kSubscript) {
    std::string name = DottedName(*a.children[0]);
    return name == "Optional" || name.ends_with(".Optional");
  }
  return false;
}

// `n = hl.specialize(n)` of an int argument: the kernel is compiled for one
// value of it (Helion specializes on each value it is called with).
bool KernelLowering::IsSpecializedInt(const Param& param) const {
  if (!specialized_ints_) {
    specialized_ints_.emplace();
    WalkStmtNodes(kernel_.body, [&](const Node& node) {
      if (node.kind == NodeKind::kCall && node.children.size() == 2 &&
          node.children[1]->kind == NodeKind::kName) {
        std::string callee = DottedName(*node.children[0]);
        if (callee == "specialize" || callee.ends_with(".specialize"))
          specialized_ints_->insert(node.children[1]->text);
      }
    });
  }
  if (!specialized_ints_->count(param.name)) return false;
  const Node* def = param.default_value.get();
  std::string annotation =
      param.annotation ? DottedName(*param.annotation) : "";
  return annotation == "int" ||
         (annotation.empty() && def && def->kind == NodeKind::kInt);
}

bool KernelLowering::IsCallable(const Param& param) const {
  if (IsCallableParam(param)) return true;
  auto it = spec_.args.find(param.name);
  return it != spec_.args.end() && it->second.starts_with("lambda");
}

const Node* KernelLowering::ArgumentLambda(const Param& param,
                                           const std::string& text) {
  // Parsed as the return value of a kernel of its own, so that the kernel
  // subset's parser reads it; its names resolve where it is called, as a
  // lambda default's do.
  const std::string path = fmt::format("<argument {}>", param.name);
  const std::string source = fmt::format(
      "import helion\n@helion.kernel()\ndef _argument():\n    return {}\n",
      text);
  DiagnosticEngine scratch;
  auto parsed = std::make_unique<ParsedFile>(ParseFile(source, path, scratch));
  const Node* lambda = nullptr;
  if (!scratch.has_errors() && parsed->kernels.size() == 1 &&
      parsed->kernels[0].body.size() == 1) {
    const PyStmt& statement = parsed->kernels[0].body[0];
    if (statement.kind == PyStmtKind::kReturn && statement.value &&
        statement.value->kind == NodeKind::kLambda) {
      lambda = statement.value.get();
    }
  }
  if (lambda == nullptr) {
    Diagnostic* d = Report(
        param.loc,
        fmt::format("the value given for callable argument '{}' is not a "
                    "lambda expression in the kernel subset: {}",
                    param.name, text));
    Note(d,
         "Tessera inlines a callable from its source: pass a lambda (or a "
         "function of one `return` expression)");
    return nullptr;
  }
  argument_sources_.push_back(std::move(parsed));
  return lambda;
}

bool KernelLowering::IsCompileTimeParam(const Param& param) const {
  if (IsStaticParam(param) || IsSpecializedInt(param)) return true;
  return IsOptionalNoneParam(param) && spec_.args.count(param.name) == 0;
}

namespace {

// "[1024]", "(4, 64)", "[]": a sequence of ints, spelled back as a tuple
// literal ("(1024,)"); nullopt when `text` is not one.
std::optional<Val> IntSequenceFromText(std::string_view text,
                                       std::string& literal) {
  if (text.size() < 2 || !((text.front() == '[' && text.back() == ']') ||
                           (text.front() == '(' && text.back() == ')'))) {
    return std::nullopt;
  }
  std::vector<Val> elems;
  std::vector<std::string> spelled;
  std::string_view rest = text.substr(1, text.size() - 2);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string item(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view()
                                           : rest.substr(comma + 1);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty() && rest.empty()) break;  // a trailing comma
    char* end = nullptr;
    const long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end == nullptr || *end != '\0') return std::nullopt;
    elems.push_back(Val::Int(value));
    spelled.push_back(std::to_string(value));
  }
  literal = spelled.size() == 1 ? fmt::format("({},)", spelled[0])
                                : fmt::format("({})", fmt::join(spelled, ", "));
  return Val::Tuple(std::move(elems));
}

}  // namespace

Val StaticValueFromText(const std::string& text, std::string& literal) {
  if (std::optional<Val> sequence = IntSequenceFromText(text, literal)) {
    return *std::move(sequence);
  }
  if (text == "True" || text == "False") {
    literal = text;
    return Val::Bool(text == "True");
  }
  if (text == "None") {
    literal = text;
    return Val::None();
  }
  char* end = nullptr;
  const long long as_int = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && end && *end == '\0') {
    literal = text;
    return Val::Int(as_int);
  }
  const double as_float = std::strtod(text.c_str(), &end);
  if (!text.empty() && end && *end == '\0') {
    literal = PythonFloatLiteral(as_float);
    return Val::Float(as_float);
  }
  std::string_view body = text;
  if (body.size() >= 2 && (body.front() == '\'' || body.front() == '"') &&
      body.back() == body.front()) {
    body = body.substr(1, body.size() - 2);
  }
  std::string quoted = "'";
  for (char c : body) {
    if (c == '\\' || c == '\'') quoted += '\\';
    quoted += c;
  }
  literal = quoted + "'";
  return Val::String(std::string(body));
}

std::optional<std::string> KernelLowering::BindStaticParam(const Param& param) {
  std::string literal;
  if (auto it = spec_.args.find(param.name); it != spec_.args.end()) {
    env_[param.name] = StaticValueFromText(it->second, literal);
    return literal;
  }
  if (param.default_value) {
    if (auto text = PythonLiteral(*param.default_value, constants_)) {
      Val value = Eval(*param.default_value);
      if (value.kind != ValKind::kValue && value.kind != ValKind::kPoison) {
        env_[param.name] = std::move(value);
        return *text;
      }
    }
  }
  if (IsSpecializedInt(param)) {
    // No value to specialize on: the default block size, which a call
    // must then pass (the host function checks it).
    env_[param.name] = Val::Int(kMinorBlock);
    return std::to_string(kMinorBlock);
  }
  Diagnostic* d = Report(
      param.loc,
      fmt::format("compile-time argument '{}' needs a constant default or "
                  "--arg {}=VALUE",
                  param.name, param.name));
  Note(d, "hl.constexpr and str arguments are fixed when the kernel compiles");
  env_[param.name] = Val::Poison();
  return std::nullopt;
}

void KernelLowering::SetUpParams() {
  for (const Param& param : kernel_.params) {
    taken_.insert(param.name);
  }
  std::vector<std::string> static_params;
  std::vector<std::string> rank_generic;
  rank_generic_params_.clear();
  if (!index_params_) index_params_ = IndexTensorParams(kernel_);
  const std::set<std::string>& index_params = *index_params_;
  size_t position = 0;  // in the host signature, which has no callables
  for (const Param& param : kernel_.params) {
    if (IsCompileTimeParam(param)) {
      std::optional<std::string> literal = BindStaticParam(param);
      if (literal) {
        static_params.push_back(
            fmt::format("{}:{}={}", position, param.name, *literal));
      }
      ++position;
      continue;
    }
    if (!IsCallable(param)) ++position;
    if (IsCallable(param)) {
      if (auto it = spec_.args.find(param.name); it != spec_.args.end()) {
        const Node* lambda = ArgumentLambda(param, it->second);
        env_[param.name] = lambda ? Eval(*lambda) : Val::Poison();
        continue;
      }
      if (param.default_value &&
          param.default_value->kind == NodeKind::kLambda) {
        env_[param.name] = Eval(*param.default_value);
        continue;
      }
      Diagnostic* d = Report(
          param.loc, fmt::format("callable argument '{}' has no lambda default",
                                 param.name));
      Note(d,
           "Tessera inlines callables it knows at compile time: give the "
           "parameter a lambda default (epilogue=lambda acc, tile: acc)");
      env_[param.name] = Val::Poison();
      continue;
    }
    Type type;
    bool typed = false;
    if (auto it = spec_.args.find(param.name); it != spec_.args.end()) {
      auto parsed = ParseType(it->second);
      if (!parsed.ok()) {
        Report(param.loc, fmt::format("invalid type '{}' for argument '{}': {}",
                                      it->second, param.name,
                                      std::string(parsed.status().message())));
        type = Type::Ref(DType::kF32, {});
      } else {
        type = *parsed;
        if (type.is_tensor()) type.kind = TypeKind::kRef;
        if (type.is_tile() || type.is_none()) {
          Report(param.loc,
                 fmt::format("argument '{}' must be a tensor or scalar "
                             "type, got '{}'",
                             param.name, it->second));
          type = Type::Ref(DType::kF32, {});
        }
      }
      typed = true;
    }
    if (!typed) {
      std::string annotation =
          param.annotation ? DottedName(*param.annotation) : "";
      const Node* def = param.default_value.get();
      if (annotation == "float" ||
          (annotation.empty() && def && def->kind == NodeKind::kFloat)) {
        type = Type::Scalar(DType::kF32);
      } else if (annotation == "int" ||
                 (annotation.empty() && def && def->kind == NodeKind::kInt)) {
        type = Type::Scalar(DType::kI64);
      } else if (annotation == "bool" ||
                 (annotation.empty() && def && def->kind == NodeKind::kBool)) {
        type = Type::Scalar(DType::kBool);
      } else if (annotation.empty() || annotation == "Tensor" ||
                 annotation == "torch.Tensor") {
        Shape shape;
        int rank = InferRank(param.name);
        if (int trailing = RankGenericTrailing(param.name); trailing >= 0) {
          // Leading dims collapse into dim 0 (the host function reshapes);
          // the IR sees [lead, trailing...].
          rank = std::max(rank, trailing + 1);
          rank_generic.push_back(fmt::format("{}:{}", param.name, rank - 1));
          rank_generic_params_.insert(param.name);
        }
        for (int d = 0; d < rank; ++d) {
          std::string symbol = fmt::format("{}_d{}", param.name, d);
          for (int n = 1; python_names_.count(symbol) || taken_.count(symbol);
               ++n) {
            symbol = fmt::format("{}_d{}_{}", param.name, d, n);
          }
          shape.push_back(Dim::Symbol(symbol));
        }
        type = Type::Ref(
            index_params.count(param.name) ? DType::kI32 : DType::kF32,
            std::move(shape));
      } else {
        Diagnostic* d =
            Report(param.annotation->loc,
                   fmt::format("unsupported type '{}' for kernel argument '{}'",
                               annotation, param.name));
        Note(d, "supported argument types: torch.Tensor, float, int, bool");
        type = Type::Ref(DType::kF32, {});
      }
    }
    for (size_t d = 0; d < type.shape.size(); ++d) {
      const Dim& dim = type.shape[d];
      if (dim.is_static()) continue;
      symbol_origin_.try_emplace(dim.symbol, param.name, static_cast<int>(d));
      param_symbols_.insert(dim.symbol);
      taken_.insert(dim.symbol);
      symbol_order_.emplace(dim.symbol, static_cast<int>(symbol_order_.size()));
    }
    for (Dim& dim : type.shape) dim = Substitute(dim, aliases_);
    function_.params.push_back(Value{param.name, type});
    env_[param.name] = Val::Value(MakeVar(param.name, type));
    py_names_[param.name] = PyName{param.name, type.kind};
  }
  RecordParamDefaults();
  if (!static_params.empty()) {
    SetAttr(function_.attrs, "static_params", std::move(static_params));
  }
  if (!rank_generic.empty()) {
    SetAttr(function_.attrs, "rank_generic", std::move(rank_generic));
  }
  if (!shape_checks_.empty()) {
    std::vector<std::string> checks;
    for (const auto& [symbol, check] : shape_checks_) checks.push_back(check);
    SetAttr(function_.attrs, "shape_checks", std::move(checks));
  }
  // Each shape symbol of the signature is also defined by a size query at
  // entry (as docs/ir.md shows), so the body and the verifier see it as a
  // value of the function.
  std::set<std::string> defined;
  for (const Value& param : function_.params) {
    for (size_t d = 0; d < param.type.shape.size(); ++d) {
      const Dim& dim = param.type.shape[d];
      if (dim.is_static() || !defined.insert(dim.symbol).second) continue;
      ExprList operands;
      operands.push_back(MakeVar(param.name, param.type));
      Emit(MakeAssign(
          Value{dim.symbol, Type::Scalar(DType::kI64)},
          MakeOp(OpKind::kSize, Type::Scalar(DType::kI64), std::move(operands),
                 {Attr{"dim", static_cast<int64_t>(d)}}, kernel_.loc),
          kernel_.loc));
    }
  }
}

namespace {

// Calls of lambdas being inlined, innermost last: each call lowers the body
// in place, so a lambda that calls itself (`f = lambda v: f(v)`) would
// recurse until the stack overflows. Thread-local rather than a member: the
// count spans nested KernelLowering work on one thread only. Once the limit
// is hit every call until the outermost returns is poison, so that a body
// calling itself twice does not take 2^limit steps to fail.
thread_local int lambda_inline_depth = 0;
thread_local bool lambda_inline_overflow = false;

struct LambdaInlineGuard {
  LambdaInlineGuard() { ++lambda_inline_depth; }
  ~LambdaInlineGuard() {
    if (--lambda_inline_depth == 0) lambda_inline_overflow = false;
  }
  LambdaInlineGuard(const LambdaInlineGuard&) = delete;
  LambdaInlineGuard& operator=(const LambdaInlineGuard&) = delete;
};

}  // namespace

Val KernelLowering::CallLambda(const Node& lambda, CallArgs& args) {
  LambdaInlineGuard guard;
  if (lambda_inline_overflow) return Val::Poison();
  if (lambda_inline_depth > kMaxNestingDepth) {
    lambda_inline_overflow = true;
    return Fail(args.loc,
                fmt::format("lambda calls are nested more than {} deep (does "
                            "a lambda call itself?)",
                            kMaxNestingDepth));
  }
  const std::vector<Param>& params = lambda.lambda->params;
  if (args.positional.size() > params.size()) {
    return Fail(args.loc, fmt::format("the lambda takes {} arguments, got {}",
                                      params.size(), args.positional.size()));
  }
  std::vector<Val> bound(params.size());
  std::vector<bool> given(params.size(), false);
  for (size_t i = 0; i < args.positional.size(); ++i) {
    bound[i] = std::move(args.positional[i]);
    given[i] = true;
  }
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    auto& [name, value] = args.keywords[k];
    size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    if (i == params.size() || given[i]) {
      return Fail(args.keyword_locs[k],
                  i == params.size()
                      ? fmt::format("the lambda has no parameter '{}'", name)
                      : fmt::format("parameter '{}' given twice", name));
    }
    bound[i] = std::move(value);
    given[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (given[i]) continue;
    if (!params[i].default_value) {
      return Fail(args.loc, fmt::format("missing argument '{}' of the lambda",
                                        params[i].name));
    }
    bound[i] = Eval(*params[i].default_value);
  }
  // The body sees its parameters over the enclosing names (Python scoping);
  // the names it shadows come back afterwards.
  std::vector<std::optional<Val>> shadowed;
  for (size_t i = 0; i < params.size(); ++i) {
    auto it = env_.find(params[i].name);
    shadowed.push_back(it == env_.end()
                           ? std::nullopt
                           : std::optional<Val>(it->second.Clone()));
    env_[params[i].name] = std::move(bound[i]);
  }
  Val result = Eval(*lambda.children[0]);
  for (size_t i = params.size(); i-- > 0;) {
    if (shadowed[i])
      env_[params[i].name] = std::move(*shadowed[i]);
    else
      env_.erase(params[i].name);
  }
  return result;
}

}  // namespace tessera::helion_py
