// `emit_pipeline`: an inner tile loop becomes pltpu.emit_pipeline over the
// HBM refs it streams (double-buffered by Pallas); refs it does not stream
// keep their outer BlockSpec and are sliced. Loop-carried values live in
// VMEM scratch: written before the pipeline, read and written in the body,
// read after it. Inside the body pl.program_id(0) is the pipeline's own
// index, so grid indices are read at kernel level and captured.
#include <cctype>

#include "fmt/format.h"
#include "launchers.h"
#include "py_text.h"

namespace tessera::pallas {
namespace {

// `name` as a whole identifier, not an attribute (`x.name`). A plain
// search: compiling a std::regex per call cost ~6% of a whole attention
// compile.
bool MentionsIdentifier(const PyLines& lines, const std::string& name) {
  auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (const std::string& line : lines.lines()) {
    for (size_t at = line.find(name); at != std::string::npos;
         at = line.find(name, at + 1)) {
      const size_t end = at + name.size();
      if ((at == 0 || (!is_word(line[at - 1]) && line[at - 1] != '.')) &&
          (end == line.size() || !is_word(line[end]))) {
        return true;
      }
    }
  }
  return false;
}

class EmitPipelineEmitter : public DeviceEmitter {
 public:
  using DeviceEmitter::DeviceEmitter;

 protected:
  bool EmitInnerLoop(const Stmt& loop, PyLines& out) override {
    if (IsJagged(loop)) return EmitJaggedLoop(loop, out);
    const std::string tile = loop.vars[0].name;
    const std::string index = SanitizeIdentifier(tile);
    LoopBounds bounds = Bounds(loop);
    const InnerLoopPlan& inner = *plan_.InnerLoop(&loop);
    std::vector<const RefPlan*> streamed = plan_.StreamedBy(&loop);

    // Loop-carried values: one VMEM scratch each (the plan's kCarried
    // buffers), initialised here.
    struct Carried {
      std::string scratch;
      bool scalar = false;
      std::string dtype;
    };
    std::vector<Carried> carried;
    for (const LoopBuffer& buffer : inner.buffers) {
      if (buffer.kind != LoopBuffer::Kind::kCarried) continue;
      const size_t i = static_cast<size_t>(buffer.iter_arg_index);
      const Value& arg = loop.iter_args[i];
      Carried c;
      c.scalar = !arg.type.is_tensor() || arg.type.shape.empty();
      c.dtype = JnpDType(arg.type.dtype);
      Shape dims =
          c.scalar ? Shape{Dim::Static(1), Dim::Static(1)} : arg.type.shape;
      c.scratch = AddScratch(
          arg.name + "_scratch",
          fmt::format("pltpu.VMEM({}, {})", HostShape(dims), c.dtype),
          VmemBuffer{fmt::format("loop-carried {} {}", arg.name,
                                 TypeToString(arg.type)),
                     buffer.bytes(), buffer.copies});
      std::string init = Emit(*loop.inits[i]);
      SetOrigins(arg.name, Origins(*loop.inits[i]));
      out.Line(fmt::format(
          "{}[...] = {}", c.scratch,
          c.scalar ? fmt::format("jnp.full((1, 1), {}, {})", init, c.dtype)
                   : init));
      carried.push_back(c);
    }

    std::string body_fn = Fresh("_" + tile + "_body");
    std::vector<std::string> block_params;
    for (const LoopBuffer& buffer : inner.buffers) {
      if (buffer.kind != LoopBuffer::Kind::kStreamedBlock) continue;
      const RefPlan& ref = plan_.refs[buffer.ref_index];
      std::string block = Fresh(ref.name + "_block");
      block_params.push_back(block);
      streams_[ref.name] = StreamBinding{block + "[...]", block + "[...]"};
      AddVmem(
          VmemBuffer{fmt::format("{} block of {} streamed by the loop over {}",
                                 StreamBlockTuple(ref, false), ref.name, tile),
                     buffer.bytes(), buffer.copies});
    }

    InnerLoopBody body;
    auto read_back = [&](PyLines& lines) {
      for (size_t i = 0; i < loop.iter_args.size(); ++i) {
        if (!Used(loop.iter_args[i].name)) continue;
        lines.Line(
            fmt::format("{} = {}", SanitizeIdentifier(loop.iter_args[i].name),
                        carried[i].scalar ? carried[i].scratch + "[0, 0]"
                                          : carried[i].scratch + "[...]"));
      }
    };
    auto write_back = [&](const std::vector<std::string>& values, PyLines& o) {
      for (size_t i = 0; i < values.size() && i < carried.size(); ++i) {
        o.Line(fmt::format("{}[...] = {}", carried[i].scratch,
                           carried[i].scalar
                               ? fmt::format("jnp.full((1, 1), {}, {})",
                                             values[i], carried[i].dtype)
                               : values[i]));
      }
    };
    if (!EmitInnerLoopBody(loop, index, BodyPlacement::kOwnFunction, streamed,
                           read_back, write_back, body)) {
      return false;
    }

    std::string params;
    for (size_t i = 0; i < block_params.size(); ++i) {
      params += (i ? ", " : "") + block_params[i];
    }
    out.Blank();
    out.Line(fmt::format("def {}({}):", body_fn, params));
    out.Indent();
    if (MentionsIdentifier(body.lines, index)) {
      out.Line(fmt::format("{} = pl.program_id(0)", index));
    }
    out.Append(body.scope.prelude);
    out.Append(body.lines);
    if (body.lines.empty() && body.scope.prelude.empty()) out.Line("pass");
    out.Dedent();
    out.Blank();

    std::vector<std::string> in_specs, out_specs, args_in, args_out;
    for (const RefPlan* ref : streamed) {
      std::vector<std::string> map = StreamIndexMap(*ref, tile, index);
      std::string tuple;
      for (size_t d = 0; d < map.size(); ++d) tuple += (d ? ", " : "") + map[d];
      if (map.size() == 1) tuple += ",";
      std::string spec =
          fmt::format("pl.BlockSpec({}, lambda {}: ({}))",
                      StreamBlockTuple(*ref, false), index, tuple);
      if (ref->written()) {
        out_specs.push_back(spec);
        args_out.push_back(SanitizeIdentifier(ref->name));
      } else {
        in_specs.push_back(spec);
        args_in.push_back(SanitizeIdentifier(ref->name));
      }
    }
    // A pipeline over no blocks fails in JAX ("grid must be strictly
    // positive"): a zero-size dim of the call (a matmul with K = 0) skips it,
    // and the carried values keep their initial ones (empty_grid.h).
    const bool known_nonempty =
        (IsNumber(bounds.trip) && std::stoll(bounds.trip) > 0) ||
        (IsNumber(bounds.begin) && IsNumber(bounds.end) &&
         std::stoll(bounds.end) > std::stoll(bounds.begin));
    const bool may_be_empty = bounds.static_trip && !known_nonempty;
    if (may_be_empty) {
      out.Line(fmt::format("if {} > 0:", bounds.trip));
      out.Indent();
    }
    out.Line("pltpu.emit_pipeline(");
    out.Indent();
    out.Line(body_fn + ",");
    out.Line(fmt::format("grid=({},),", bounds.trip));
    auto spec_list = [&](const char* key,
                         const std::vector<std::string>& specs) {
      if (specs.empty()) return;
      out.Line(fmt::format("{}=[", key));
      out.Indent();
      for (const std::string& spec : specs) out.Line(spec + ",");
      out.Dedent();
      out.Line("],");
    };
    spec_list("in_specs", in_specs);
    spec_list("out_specs", out_specs);
    out.Dedent();
    std::string call_args;
    for (const auto* list : {&args_in, &args_out}) {
      for (const std::string& arg : *list) {
        call_args += (call_args.empty() ? "" : ", ") + arg;
      }
    }
    out.Line(fmt::format(")({})", call_args));
    if (may_be_empty) out.Dedent();

    SetLoopResultOrigins(loop, body);
    for (size_t i = 0; i < loop.results.size() && i < carried.size(); ++i) {
      if (!Used(loop.results[i].name)) continue;
      out.Line(fmt::format("{} = {}", SanitizeIdentifier(loop.results[i].name),
                           carried[i].scalar ? carried[i].scratch + "[0, 0]"
                                             : carried[i].scratch + "[...]"));
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<DeviceEmitter> MakeEmitPipelineEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics) {
  return std::make_unique<EmitPipelineEmitter>(module, plan, state, host,
                                               options, diagnostics);
}

}  // namespace tessera::pallas
