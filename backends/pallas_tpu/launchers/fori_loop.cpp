// `fori_loop`: an inner tile loop becomes jax.lax.fori_loop. The refs it
// streams stay in HBM and are copied into VMEM scratch with
// pltpu.make_async_copy + DMA semaphores; with prefetch (default) two slots
// double-buffer: copy 0 is started before the loop and iteration j starts
// copy j+1 before waiting on copy j. Loop-carried values are the carry.
#include "fmt/format.h"
#include "launchers.h"

namespace tessera::pallas {
namespace {

class ForiLoopEmitter : public DeviceEmitter {
 public:
  using DeviceEmitter::DeviceEmitter;

 protected:
  bool EmitInnerLoop(const Stmt& loop, PyLines& out) override {
    const std::string tile = loop.vars[0].name;
    const std::string index = SanitizeIdentifier(tile);
    const bool prefetch = options_.prefetch;
    const int slots = prefetch ? 2 : 1;
    LoopBounds bounds = Bounds(loop);
    std::vector<const RefPlan*> streamed = plan_.StreamedBy(&loop);

    std::string count = bounds.trip;
    if (prefetch && !streamed.empty()) {
      count = Fresh(tile + "_count");
      out.Line(fmt::format("{} = {}", count, bounds.trip));
    }
    std::string sems;
    if (!streamed.empty()) {
      sems = AddScratch(tile + "_sems",
                        fmt::format("pltpu.SemaphoreType.DMA(({}, {}))",
                                    streamed.size(), slots),
                        VmemBuffer{"DMA semaphores", 0, 1});
    }
    std::vector<std::string> copy_fns, buffers;
    for (size_t j = 0; j < streamed.size(); ++j) {
      const RefPlan& ref = *streamed[j];
      std::vector<int64_t> shape = StreamBlockShape(plan_, ref);
      std::string block = StreamBlockTuple(ref, true);
      std::string dims = block.substr(1, block.size() - 2);
      if (!dims.empty() && dims.back() == ',') dims.pop_back();
      std::string buffer = AddScratch(
          ref.name + "_buffer",
          fmt::format("pltpu.VMEM(({}, {}), {})", slots, dims,
                      JnpDType(ref.type.dtype)),
          VmemBuffer{fmt::format("{} buffer of {} for the loop over {}",
                                 StreamBlockTuple(ref, false), ref.name, tile),
                     StaticBytes(shape, ref.type.dtype), slots});
      buffers.push_back(buffer);
      std::string copy_fn = Fresh("_" + ref.name + "_copy");
      copy_fns.push_back(copy_fn);
      std::vector<std::string> slices = StreamSlices(ref, tile, index);
      std::string at;
      for (size_t d = 0; d < slices.size(); ++d) {
        at += (d ? ", " : "") + slices[d];
      }
      out.Blank();
      out.Line(fmt::format("def {}({}, slot):", copy_fn, index));
      out.Indent();
      out.Line("return pltpu.make_async_copy(");
      out.Indent();
      out.Line(fmt::format("{}.at[{}],", SanitizeIdentifier(ref.name), at));
      out.Line(fmt::format("{}.at[slot],", buffer));
      out.Line(fmt::format("{}.at[{}, slot])", sems, j));
      out.Dedent();
      out.Dedent();
      out.Blank();
    }
    if (prefetch) {
      for (const std::string& copy_fn : copy_fns) {
        out.Line(fmt::format("{}(0, 0).start()", copy_fn));
      }
    }

    std::vector<std::string> args, inits;
    for (size_t i = 0; i < loop.iter_args.size(); ++i) {
      args.push_back(SanitizeIdentifier(loop.iter_args[i].name));
      inits.push_back(Emit(*loop.inits[i]));
      SetOrigins(loop.iter_args[i].name, Origins(*loop.inits[i]));
    }
    std::string carry_param = args.size() == 1 ? args[0] : Fresh("carry");

    Scope scope;
    PushScope(&scope);
    uint32_t saved_line = last_line();
    ResetSourceLine();
    EnterTile(loop, index);
    PyLines body;
    if (args.size() > 1) {
      std::string lhs;
      for (size_t i = 0; i < args.size(); ++i) lhs += (i ? ", " : "") + args[i];
      body.Line(fmt::format("{} = {}", lhs, carry_param));
    }
    std::string slot = "0";
    if (!streamed.empty()) {
      if (prefetch) {
        slot = Fresh("slot");
        body.Line(fmt::format("{} = {} % 2", slot, index));
        body.Blank();
        body.Line(fmt::format("@pl.when({} + 1 < {})", index, count));
        body.Line(fmt::format("def {}():", Fresh("_prefetch_next")));
        body.Indent();
        for (const std::string& copy_fn : copy_fns) {
          body.Line(
              fmt::format("{}({} + 1, 1 - {}).start()", copy_fn, index, slot));
        }
        body.Dedent();
        body.Blank();
      } else {
        for (const std::string& copy_fn : copy_fns) {
          body.Line(fmt::format("{}({}, 0).start()", copy_fn, index));
        }
      }
      for (const std::string& copy_fn : copy_fns) {
        body.Line(fmt::format("{}({}, {}).wait()", copy_fn, index, slot));
      }
    }
    for (size_t j = 0; j < streamed.size(); ++j) {
      std::string value = fmt::format("{}[{}]", buffers[j], slot);
      streams_[streamed[j]->name] = StreamBinding{value, value};
    }
    std::vector<std::vector<std::string>> result_origins;
    bool returned = false;
    bool ok = EmitBody(loop.regions[0], body, [&](const Stmt& y, PyLines& o) {
      std::vector<std::string> values;
      for (const ExprPtr& v : y.operands) {
        values.push_back(Emit(*v));
        result_origins.push_back(LoopResultOrigins(loop, *v));
      }
      std::string text;
      for (size_t i = 0; i < values.size(); ++i) {
        text += (i ? ", " : "") + values[i];
      }
      if (values.size() > 1) text = "(" + text + ")";
      o.Line(values.empty() ? fmt::format("return {}", carry_param)
                            : "return " + text);
      returned = true;
    });
    ExitTile(loop);
    for (const RefPlan* ref : streamed) streams_.erase(ref->name);
    PopScope();
    SetSourceLine(saved_line);
    if (!ok) return false;
    if (!returned) body.Line(fmt::format("return {}", carry_param));

    std::string body_fn = Fresh("_" + tile + "_body");
    out.Blank();
    out.Line(fmt::format("def {}({}, {}):", body_fn, index, carry_param));
    out.Indent();
    out.Append(scope.prelude);
    out.Append(body);
    out.Dedent();
    out.Blank();

    std::string init = args.empty() ? "None" : inits[0];
    if (args.size() > 1) {
      init = "(";
      for (size_t i = 0; i < inits.size(); ++i) {
        init += (i ? ", " : "") + inits[i];
      }
      init += ")";
    }
    std::string call =
        fmt::format("jax.lax.fori_loop(0, {}, {}, {})", count, body_fn, init);
    std::vector<std::string> results;
    bool any_used = false;
    for (size_t i = 0; i < loop.results.size(); ++i) {
      if (i < result_origins.size()) {
        SetOrigins(loop.results[i].name, result_origins[i]);
      }
      results.push_back(SanitizeIdentifier(loop.results[i].name));
      if (Used(loop.results[i].name)) any_used = true;
    }
    if (!any_used) {
      out.Line(call);
    } else {
      std::string lhs;
      for (size_t i = 0; i < results.size(); ++i) {
        lhs += (i ? ", " : "") + results[i];
      }
      out.Line(fmt::format("{} = {}", lhs, call));
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<DeviceEmitter> MakeForiLoopEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics) {
  return std::make_unique<ForiLoopEmitter>(module, plan, state, host, options,
                                           diagnostics);
}

}  // namespace tessera::pallas
