#include "mosaic_launch.h"

#include <map>

#include "absl/strings/str_join.h"

#include "fmt/format.h"

namespace tessera::pallas {
namespace {

// "(a,)" for one item: a Python tuple.
std::string TupleText(const std::vector<std::string>& items) {
  return "(" + absl::StrJoin(items, ", ") + (items.size() == 1 ? ",)" : ")");
}

void SpecList(const std::string& key, const std::vector<LaunchSpec>& specs,
              PyLines& out) {
  std::vector<std::string> items;
  for (const LaunchSpec& spec : specs) {
    if (spec.in_memory()) continue;
    items.push_back(fmt::format("plgpu.BlockSpec({}, lambda _: {})", spec.block,
                                spec.index));
  }
  if (!items.empty()) WriteKeywordList(key, items, false, out);
}

}  // namespace

void WriteMosaicKernelLaunch(const LaunchCall& call, ModuleState& state,
                             const std::string& interpret_fn, PyLines& out) {
  // Kernel parameters: [inputs and initial values][outputs][scratch].
  const size_t num_in = call.in_specs.size();
  const size_t num_out = call.out_specs.size();
  std::map<size_t, size_t> init_of_output;  // output -> operand
  for (const auto& [operand, output] : call.aliases) {
    init_of_output[output] = operand - call.num_prefetched;
  }
  const std::vector<std::string>& params = call.kernel_params;
  auto param = [&](size_t i) -> const std::string& { return params[i]; };

  // The program: its operands are the inputs, the aliased refs and the
  // fresh outputs (pl.kernel's own outputs), then scratch.
  // staged_in: the inputs' names, both in the program and in the pipeline
  // step; staged_out: the outputs' names in the step, staged_out_refs the
  // refs they are copied back to (an aliased output's initial-values ref).
  std::vector<std::string> program_params, kernel_args, staged_in, staged_out,
      staged_out_refs;
  for (size_t i = 0; i < num_in; ++i) {
    program_params.push_back(param(i));
    kernel_args.push_back(param(i));
    if (!call.in_specs[i].in_memory()) staged_in.push_back(param(i));
  }
  for (size_t o = 0; o < num_out; ++o) {
    const std::string& name = param(num_in + o);
    auto init = init_of_output.find(o);
    const std::string memory_ref =
        init == init_of_output.end() ? name : param(init->second);
    if (init == init_of_output.end()) program_params.push_back(name);
    const bool staged = !call.out_specs[o].in_memory();
    kernel_args.push_back(staged ? name : memory_ref);
    if (staged) {
      staged_out.push_back(name);
      staged_out_refs.push_back(memory_ref);
    }
  }
  for (size_t i = num_in + num_out; i < params.size(); ++i) {
    program_params.push_back(param(i));
    kernel_args.push_back(param(i));
  }
  for (const KernelKwarg& kwarg : call.kwargs) {
    kernel_args.push_back(fmt::format("{}={}", kwarg.name, kwarg.host_value));
  }
  const std::string kernel_call =
      fmt::format("{}({})", call.kernel_fn, absl::StrJoin(kernel_args, ", "));

  const std::string program =
      state.names.Fresh("_" + call.kernel_name + "_program");
  out.Blank();
  out.Line(
      fmt::format("def {}({}):", program, absl::StrJoin(program_params, ", ")));
  out.Indent();
  if (staged_in.empty() && staged_out.empty()) {
    out.Line(kernel_call);
  } else {
    out.Line(
        "# This program's blocks pass through shared memory: one "
        "plgpu.emit_pipeline");
    out.Line(
        "# step copies them in (TMA), runs the kernel and copies them out.");
    // The mesh axes the index maps read.
    std::string indices;
    for (const auto* specs : {&call.in_specs, &call.out_specs}) {
      for (const LaunchSpec& spec : *specs) indices += spec.index + " ";
    }
    for (const std::string& axis : call.grid_names) {
      if (MentionsIdentifier(indices, axis)) {
        out.Line(fmt::format("{} = jax.lax.axis_index(\"{}\")", axis, axis));
      }
    }
    const std::string blocks =
        state.names.Fresh("_" + call.kernel_name + "_blocks");
    std::vector<std::string> block_params = {"_"};
    block_params.insert(block_params.end(), staged_in.begin(), staged_in.end());
    block_params.insert(block_params.end(), staged_out.begin(),
                        staged_out.end());
    out.Blank();
    out.Line(
        fmt::format("def {}({}):", blocks, absl::StrJoin(block_params, ", ")));
    out.Indent();
    out.Line(kernel_call);
    out.Dedent();
    out.Blank();
    out.Line("plgpu.emit_pipeline(");
    out.Indent();
    out.Line(blocks + ",");
    out.Line("grid=(1,),");
    SpecList("in_specs", call.in_specs, out);
    SpecList("out_specs", call.out_specs, out);
    out.Dedent();
    std::vector<std::string> refs = staged_in;
    refs.insert(refs.end(), staged_out_refs.begin(), staged_out_refs.end());
    out.Line(fmt::format(")({})", absl::StrJoin(refs, ", ")));
  }
  out.Dedent();
  out.Blank();

  // The launch: aliased outputs are refs it writes in place.
  std::vector<std::string> args = call.args;
  std::vector<std::pair<std::string, std::string>> frozen;  // name, ref
  for (const auto& [output, operand] : init_of_output) {
    const std::string ref = state.names.Fresh(call.out_names[output] + "_ref");
    out.Line(fmt::format("{} = jax.new_ref({}, memory_space=plgpu.GMEM)", ref,
                         args[operand]));
    args[operand] = ref;
    frozen.emplace_back(call.out_names[output], ref);
  }
  std::vector<std::string> fresh_names, fresh_shapes;
  for (size_t o = 0; o < num_out; ++o) {
    if (init_of_output.count(o)) continue;
    fresh_names.push_back(call.out_names[o]);
    fresh_shapes.push_back(call.out_shapes[o]);
  }
  out.Line(fresh_names.empty() ? "pl.kernel("
                               : fmt::format("{} = pl.kernel(",
                                             absl::StrJoin(fresh_names, ", ")));
  out.Indent();
  out.Line(program + ",");
  out.Line(fmt::format("out_type={},", fresh_shapes.size() == 1
                                           ? fresh_shapes[0]
                                           : TupleText(fresh_shapes)));
  std::vector<std::string> quoted;
  for (const std::string& axis : call.grid_names) {
    quoted.push_back(fmt::format("\"{}\"", axis));
  }
  out.Line("mesh=plgpu.Mesh(");
  out.Indent();
  out.Line(fmt::format("grid={},", call.grid));
  out.Line(fmt::format("grid_names={},", TupleText(quoted)));
  out.Dedent();
  out.Line("),");
  if (!call.scratch_shapes.empty()) {
    out.Line(fmt::format("scratch_types={},", TupleText(call.scratch_shapes)));
  }
  out.Append(call.call_params);
  out.Line(fmt::format("interpret={}(interpret),", interpret_fn));
  out.Dedent();
  out.Line(fmt::format(")({})", absl::StrJoin(args, ", ")));
  for (const auto& [name, ref] : frozen) {
    out.Line(fmt::format("{} = jax.freeze({})", name, ref));
  }
}

std::string MosaicInterpretHelper(const std::string& name) {
  PyLines helper;
  helper.Blank();
  helper.Blank();
  helper.Line(fmt::format("def {}(interpret):", name));
  helper.Indent();
  helper.Line(
      "# A Mosaic GPU kernel runs interpreted by Mosaic GPU's own "
      "interpreter (shared");
  helper.Line(
      "# memory, TMA copies); pl.kernel's generic interpretation has no rule "
      "for");
  helper.Line(
      "# them. JAX names its parameters only privately (jax 0.10 and 0.11).");
  helper.Line("if interpret is True:");
  helper.Indent();
  helper.Line(
      "from jax._src.pallas.mosaic_gpu.interpret.params import "
      "InterpretGPUParams");
  helper.Blank();
  helper.Line("return InterpretGPUParams()");
  helper.Dedent();
  helper.Line("return interpret");
  return helper.Text();
}

}  // namespace tessera::pallas
