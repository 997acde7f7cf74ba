// The host function's contract with its callers, from the attributes the
// frontend records (see README.md): the signature (defaults, compile-time
// parameters), rank-generic parameters and the trace-time shape checks.
#include "host_contract.h"

#include <algorithm>
#include <map>

#include "expr_emitter.h"
#include "fmt/format.h"

namespace tessera::pallas {

std::string HostParameters(const Function& host, PyLines& static_checks) {
  // Default values of parameters (eps=1e-05), when the frontend recorded
  // them: attribute `defaults`, one Python literal per parameter ("" for
  // none).
  const auto* defaults =
      GetAttr<std::vector<std::string>>(host.attrs, "defaults");
  // Compile-time parameters (`static_params`: `index:name=literal`) keep
  // their place in the signature, with the compiled value as default.
  std::map<size_t, std::pair<std::string, std::string>> statics;
  if (const auto* list =
          GetAttr<std::vector<std::string>>(host.attrs, "static_params")) {
    for (const std::string& entry : *list) {
      const size_t colon = entry.find(':');
      const size_t equals = entry.find('=', colon);
      if (colon == std::string::npos || equals == std::string::npos) continue;
      statics[std::stoul(entry.substr(0, colon))] = {
          SanitizeIdentifier(entry.substr(colon + 1, equals - colon - 1)),
          entry.substr(equals + 1)};
    }
  }
  // Each parameter as "name" or "name=default", in the kernel's order.
  std::vector<std::pair<std::string, std::string>> signature;
  const size_t count = host.params.size() + statics.size();
  for (size_t i = 0, position = 0; position < count; ++position) {
    if (auto it = statics.find(position); it != statics.end()) {
      const auto& [name, literal] = it->second;
      signature.emplace_back(name, literal);
      // `is not None`: a tensor passed for an argument compiled as None
      // must not be compared elementwise.
      // A sequence (list[int] parameters, spelled as a tuple) compares as
      // a tuple, so that a list passed for it is the same value.
      static_checks.Line(literal == "None"
                             ? fmt::format("if {} is not None:", name)
                         : literal.starts_with("(")
                             ? fmt::format("if tuple({}) != {}:", name, literal)
                             : fmt::format("if {} != {}:", name, literal));
      static_checks.Indent();
      static_checks.Line(fmt::format(
          "raise ValueError({} % ({},))",
          PyStringLiteral(fmt::format(
              "kernel '{}' was compiled for {}={}; got %r (recompile with "
              "--arg {}=VALUE)",
              host.name, name, literal, name)),
          name));
      static_checks.Dedent();
      continue;
    }
    if (i == host.params.size()) break;  // malformed positions
    signature.emplace_back(
        SanitizeIdentifier(host.params[i].name),
        defaults && i < defaults->size() ? (*defaults)[i] : std::string());
    ++i;
  }
  // A compile-time parameter's compiled value is its default only where
  // Python allows one: not before a parameter without a default (layer
  // norm's `normalized_shape: list[int]` before `weight`), which would make
  // the module fail to import. The caller then passes it, as the kernel's
  // own signature asks.
  bool defaults_allowed = true;
  for (auto it = signature.rbegin(); it != signature.rend(); ++it) {
    if (!defaults_allowed) it->second.clear();
    if (it->second.empty()) defaults_allowed = false;
  }
  std::string params;
  for (const auto& [name, default_value] : signature) {
    params += default_value.empty() ? name : name + "=" + default_value;
    params += ", ";
  }
  return params;
}

void EmitRankCollapse(const Function& host, NameTable& names, PyLines& out,
                      std::map<std::string, std::string>& caller_shapes) {
  const auto* list =
      GetAttr<std::vector<std::string>>(host.attrs, "rank_generic");
  if (list == nullptr) return;
  for (const std::string& entry : *list) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) continue;
    const std::string param = entry.substr(0, colon);
    const std::string name = SanitizeIdentifier(param);
    const std::string trailing = entry.substr(colon + 1);
    const auto* results =
        GetAttr<std::vector<std::string>>(host.attrs, "result_shapes");
    const bool keeps_shape =
        results &&
        std::find(results->begin(), results->end(), param) != results->end();
    if (trailing != "0") {  // a flatten accepts every rank
      out.Line(fmt::format("if {}.ndim < {}:", name, trailing));
      out.Indent();
      out.Line(
          fmt::format("raise ValueError({} % ({}.ndim,))",
                      PyStringLiteral(fmt::format(
                          "kernel '{}' needs {} of rank >= {}, got rank %d",
                          host.name, param, trailing)),
                      name));
      out.Dedent();
    }
    if (keeps_shape) {
      const std::string shape = names.Fresh(name + "_shape");
      caller_shapes[param] = shape;
      out.Line(fmt::format("{} = {}.shape", shape, name));
    }
    if (trailing == "0") {  // a flatten: shape[-0:] would be the whole shape
      out.Line(fmt::format("{} = jnp.reshape({}, (-1,))", name, name));
    } else {
      out.Line(fmt::format("{} = jnp.reshape({}, (-1,) + {}.shape[-{}:])", name,
                           name, name, trailing));
    }
  }
}

// The frontend's `shape_checks` (`x.1==w.0:<message>`, `x.1==128:...`):
// dims the kernel's operations assume equal. Shapes are static under
// jax.jit, so the check raises at trace time, naming the kernel's line.
void EmitShapeChecks(const Function& host, PyLines& out) {
  const auto* checks =
      GetAttr<std::vector<std::string>>(host.attrs, "shape_checks");
  if (checks == nullptr) return;
  auto side = [&](std::string_view text) -> std::string {
    const size_t dot = text.find('.');
    if (dot == std::string_view::npos) return std::string(text);
    return fmt::format("{}.shape[{}]",
                       SanitizeIdentifier(std::string(text.substr(0, dot))),
                       text.substr(dot + 1));
  };
  for (const std::string& check : *checks) {
    const size_t equals = check.find("==");
    const size_t colon = check.find(':', equals);
    if (equals == std::string::npos || colon == std::string::npos) continue;
    const std::string lhs = side(std::string_view(check).substr(0, equals));
    const std::string rhs =
        side(std::string_view(check).substr(equals + 2, colon - equals - 2));
    std::string message;
    for (char c : check.substr(colon + 1)) {
      if (c == '%') message += '%';
      message += c;
    }
    out.Line(fmt::format("if {} != {}:", lhs, rhs));
    out.Indent();
    out.Line(fmt::format("raise ValueError({} % ({}, {}))",
                         PyStringLiteral(message + ", got %d and %d"), lhs,
                         rhs));
    out.Dedent();
  }
}

namespace {

// The helper behind EmitParamGuards. A shape is a tuple of static sizes and
// None (any size); a leading `...` stands for the leading dims a
// rank-generic parameter collapses.
constexpr std::string_view kCheckArgHelper = R"py(

def {0}(where, name, value, dtype, shape):
    # The module was compiled for one signature of the call: another dtype,
    # rank or specialized size needs another compile (tessera.load compiles
    # one per signature; the CLI takes --arg NAME=TYPE).
    if not hasattr(value, "shape") or not hasattr(value, "dtype"):
        raise TypeError(f"{{where}}: argument {{name!r}} must be an array, got {{type(value).__name__}}")
    have = tuple(value.shape)
    want = shape[1:] if shape[:1] == (...,) else shape
    rank_ok = len(have) >= len(want) if shape[:1] == (...,) else len(have) == len(want)
    trailing = have[len(have) - len(want):] if rank_ok else ()
    sizes_ok = rank_ok and all(w is None or h == w for h, w in zip(trailing, want))
    have_dtype = jax.dtypes.canonicalize_dtype(value.dtype)
    if sizes_ok and have_dtype == jax.dtypes.canonicalize_dtype(dtype):
        return
    expected = ", ".join("..." if d is Ellipsis else "?" if d is None else str(d) for d in shape)
    raise ValueError(
        f"{{where}} was compiled for {{name}}: {{jnp.dtype(dtype).name}}[{{expected}}], "
        f"got {{have_dtype.name}}{{list(have)}}; compile it for this call "
        f"(tessera.load binds each call; the CLI takes --arg {{name}}=TYPE)")
)py";

}  // namespace

std::map<std::string, std::set<std::string>> TypedParams(
    const PipelineInfo& pipeline) {
  std::map<std::string, std::set<std::string>> typed;
  for (const auto& [kernel, specialization] : pipeline.kernels) {
    for (const auto& [param, spelling] : specialization.args) {
      typed[kernel].insert(param);
    }
  }
  return typed;
}

std::string EmitParamGuards(
    const Function& host, std::string_view where,
    const std::map<std::string, std::set<std::string>>& typed_params,
    NameTable& names, PyLines& out) {
  auto typed = [&](const std::string& param) {
    for (const std::string& kernel : {host.name, std::string("*")}) {
      auto it = typed_params.find(kernel);
      if (it != typed_params.end() && it->second.count(param)) return true;
    }
    return false;
  };
  std::map<std::string, size_t> generic;  // param -> trailing dims
  if (const auto* list =
          GetAttr<std::vector<std::string>>(host.attrs, "rank_generic")) {
    for (const std::string& entry : *list) {
      const size_t colon = entry.find(':');
      if (colon == std::string::npos) continue;
      generic[entry.substr(0, colon)] = std::stoul(entry.substr(colon + 1));
    }
  }
  std::string helper;
  for (const Value& param : host.params) {
    // A parameter the compile was given no type for has the frontend's
    // guesses (f32, the rank its indexing suggests): nothing it was
    // specialized for, so nothing to guard.
    if (!param.type.is_ref() || !typed(param.name)) continue;
    if (helper.empty()) helper = names.Fresh("_check_arg");
    std::vector<std::string> dims;
    size_t first = 0;
    if (auto it = generic.find(param.name); it != generic.end()) {
      dims.push_back("...");
      // The IR sees [lead, trailing...]: the lead is the collapsed dims.
      first = param.type.shape.size() -
              std::min(it->second, param.type.shape.size());
    }
    for (size_t d = first; d < param.type.shape.size(); ++d) {
      const Dim& dim = param.type.shape[d];
      // A symbolic dim is None: its name in the module's text would read as
      // a use of the shape variable it names.
      dims.push_back(dim.is_static() ? fmt::format("{}", dim.size)
                                     : std::string("None"));
    }
    std::string shape = fmt::format("({}", fmt::join(dims, ", "));
    shape += dims.size() == 1 ? ",)" : ")";
    out.Line(fmt::format(
        "{}({}, {}, {}, {}, {})", helper,
        PyStringLiteral(fmt::format("{}: kernel '{}'", where, host.name)),
        PyStringLiteral(param.name), SanitizeIdentifier(param.name),
        JnpDType(param.type.dtype), shape));
  }
  return helper.empty() ? "" : fmt::format(kCheckArgHelper, helper);
}

}  // namespace tessera::pallas
