#include "host_reads.h"

#include <algorithm>

#include "fmt/format.h"

namespace tessera::pallas {

namespace {

// The Python conversion of a scalar of `dtype`: int(), float() or bool().
std::string PythonNumber(DType dtype, const std::string& text) {
  if (dtype == DType::kBool) return fmt::format("bool({})", text);
  if (IsFloat(dtype)) return fmt::format("float({})", text);
  return fmt::format("int({})", text);
}

// "x, offs, eps=1e-05, " -> {"x", "offs", "eps"}.
std::vector<std::string> ParameterNames(const std::string& params) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start < params.size()) {
    size_t comma = params.find(", ", start);
    if (comma == std::string::npos) comma = params.size();
    std::string entry = params.substr(start, comma - start);
    entry = entry.substr(0, entry.find('='));
    if (!entry.empty()) names.push_back(entry);
    start = comma + 2;
  }
  return names;
}

std::string Join(const std::vector<std::string>& items,
                 const std::string& suffix = "") {
  std::string text;
  for (const std::string& item : items) {
    text += (text.empty() ? "" : ", ") + item + suffix;
  }
  return text;
}

}  // namespace

bool ContainsHostRead(const Expr& expr) {
  bool found = false;
  WalkExpr(expr, [&](const Expr& e) { found |= e.op == OpKind::kHostRead; });
  return found;
}

absl::StatusOr<std::string> HostReadValue(
    const Expr& value, const Function& host, bool launched,
    const std::function<std::string(const Expr&)>& index) {
  const Expr* read = &value;
  if (value.op == OpKind::kCast && value.type.is_scalar()) {
    read = value.operands[0].get();
  }
  if (read->op != OpKind::kHostRead) {
    return absl::InvalidArgumentError(
        "a host scalar read must be assigned on its own (n = "
        "int(x[-1].item())); compute with its name afterwards");
  }
  const Expr& ref = *read->operands[0];
  const bool is_param =
      ref.op == OpKind::kVar &&
      std::any_of(host.params.begin(), host.params.end(),
                  [&](const Value& p) { return p.name == ref.name; });
  if (!is_param || launched) {
    return absl::InvalidArgumentError(
        "a host scalar read reads an argument of the kernel before the "
        "launch; reading a view, an allocation or a result is not "
        "supported");
  }
  std::vector<std::string> indices;
  for (const Index& i : read->indices) {
    if (i.kind != IndexKind::kScalar || i.expr == nullptr) {
      return absl::InvalidArgumentError(
          "a host scalar read takes one integer index per dim");
    }
    indices.push_back(index(*i.expr));
  }
  const std::string element =
      fmt::format("{}[{}]", SanitizeIdentifier(ref.name),
                  indices.empty() ? "()" : Join(indices));
  return PythonNumber(value.type.dtype, element);
}

std::string HostFunctions(const HostSyncParts& parts) {
  if (parts.reads.empty()) {
    PyLines host;
    host.Line(fmt::format("def {}({}*, interpret=False{}):", parts.kernel,
                          parts.params, parts.keywords));
    host.Indent();
    host.Append(parts.body);
    return DropUnusedShapeReads(host).Text();
  }
  const std::vector<std::string> params = ParameterNames(parts.params);
  std::vector<std::string> keywords = {"interpret"};
  for (const std::string& name : ParameterNames(parts.keywords)) {
    if (!name.empty()) keywords.push_back(name);
  }
  std::vector<std::string> statics;
  for (const HostRead& read : parts.reads) statics.push_back(read.name);
  // Compile-time parameters (`static_params`: `index:name=literal`) are
  // checked against their literal while tracing: static too.
  if (const auto* list = GetAttr<std::vector<std::string>>(parts.host->attrs,
                                                           "static_params")) {
    for (const std::string& entry : *list) {
      const size_t colon = entry.find(':');
      const size_t equals = entry.find('=', colon);
      if (colon == std::string::npos || equals == std::string::npos) continue;
      statics.push_back(
          SanitizeIdentifier(entry.substr(colon + 1, equals - colon - 1)));
    }
  }
  for (const std::string& name : keywords) statics.push_back(name);
  std::vector<std::string> quoted;
  for (const std::string& name : statics) {
    quoted.push_back(PyStringLiteral(name));
  }

  PyLines reads;
  reads.Line(fmt::format("def {}_host_reads({}):", parts.kernel, Join(params)));
  reads.Indent();
  reads.Line(
      "# Host sync: reads device memory to size the launch (torch's .item()).");
  // The sizes the reads index by, and nothing else.
  std::string read_text;
  for (const HostRead& read : parts.reads) read_text += read.value + "\n";
  reads.Append(parts.shape_reads);
  reads.Append(DropUnusedAssignments(parts.static_lines, read_text));
  std::vector<std::string> entries;
  for (const HostRead& read : parts.reads) {
    reads.Line(fmt::format("{} = {}", read.name, read.value));
    entries.push_back(
        fmt::format("{}: {}", PyStringLiteral(read.name), read.name));
  }
  reads.Line(fmt::format("return {{{}}}", Join(entries)));

  std::vector<std::string> read_names;
  for (const HostRead& read : parts.reads) read_names.push_back(read.name);
  PyLines launch;
  launch.Line(fmt::format("@functools.partial(jax.jit, static_argnames=({}{}))",
                          Join(quoted), quoted.size() == 1 ? "," : ""));
  launch.Line(
      fmt::format("def {}_launch({}*, {}, interpret=False{}):", parts.kernel,
                  parts.params, Join(read_names), parts.keywords));
  launch.Indent();
  launch.Append(parts.body);

  PyLines wrapper;
  wrapper.Line(fmt::format("def {}({}*, interpret=False{}):", parts.kernel,
                           parts.params, parts.keywords));
  wrapper.Indent();
  std::vector<std::string> arguments = params;
  arguments.push_back(
      fmt::format("**{}_host_reads({})", parts.kernel, Join(params)));
  for (const std::string& name : keywords) {
    arguments.push_back(fmt::format("{}={}", name, name));
  }
  wrapper.Line(
      fmt::format("return {}_launch({})", parts.kernel, Join(arguments)));

  return DropUnusedShapeReads(reads).Text() + "\n\n" +
         DropUnusedShapeReads(launch).Text() + "\n\n" + wrapper.Text();
}

}  // namespace tessera::pallas
