#include "launch_call.h"

#include "fmt/format.h"

namespace tessera::pallas {
namespace {

std::vector<std::string> SpecTexts(const std::vector<LaunchSpec>& specs) {
  std::vector<std::string> texts;
  for (const LaunchSpec& spec : specs) texts.push_back(spec.text);
  return texts;
}

}  // namespace

void WriteKeywordList(const std::string& key,
                      const std::vector<std::string>& items, bool single_bare,
                      PyLines& out) {
  if (single_bare && items.size() == 1) {
    out.Line(fmt::format("{}={},", key, items[0]));
    return;
  }
  out.Line(key + "=[");
  out.Indent();
  for (const std::string& item : items) out.Line(item + ",");
  out.Dedent();
  out.Line("],");
}

void WritePallasCall(const LaunchCall& call, PyLines& out) {
  std::string kernel = call.kernel_fn;
  if (!call.kwargs.empty()) {
    kernel = fmt::format("functools.partial({}", kernel);
    for (const KernelKwarg& kwarg : call.kwargs) {
      kernel += fmt::format(", {}={}", kwarg.name, kwarg.host_value);
    }
    kernel += ")";
  }
  std::string lhs;
  for (size_t i = 0; i < call.out_names.size(); ++i) {
    lhs += (i ? ", " : "") + call.out_names[i];
  }
  out.Line(fmt::format("{} = pl.pallas_call(", lhs.empty() ? "_" : lhs));
  out.Indent();
  out.Line(kernel + ",");
  const bool prefetch = call.grid_spec.has_value();
  if (prefetch) {
    out.Line(fmt::format("grid_spec={}(", *call.grid_spec));
    out.Indent();
    out.Line(fmt::format("num_scalar_prefetch={},", call.num_prefetched));
  }
  out.Line(fmt::format("grid={},", call.grid));
  WriteKeywordList("in_specs", SpecTexts(call.in_specs), false, out);
  WriteKeywordList("out_specs", SpecTexts(call.out_specs), true, out);
  if (prefetch) {
    if (!call.scratch_shapes.empty()) {
      WriteKeywordList("scratch_shapes", call.scratch_shapes, false, out);
    }
    out.Dedent();
    out.Line("),");
  }
  WriteKeywordList("out_shape", call.out_shapes, true, out);
  if (!prefetch && !call.scratch_shapes.empty()) {
    WriteKeywordList("scratch_shapes", call.scratch_shapes, false, out);
  }
  if (!call.aliases.empty()) {
    std::string text = "{";
    for (size_t i = 0; i < call.aliases.size(); ++i) {
      text += fmt::format("{}{}: {}", i ? ", " : "", call.aliases[i].first,
                          call.aliases[i].second);
    }
    out.Line(fmt::format("input_output_aliases={}}},", text));
  }
  out.Append(call.call_params);
  out.Line("interpret=interpret,");
  out.Dedent();
  std::string args;
  for (size_t i = 0; i < call.args.size(); ++i) {
    args += (i ? ", " : "") + call.args[i];
  }
  out.Line(fmt::format(")({})", args));
}

}  // namespace tessera::pallas
