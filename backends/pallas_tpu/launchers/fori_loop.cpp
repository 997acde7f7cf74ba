// `fori_loop`: an inner tile loop becomes jax.lax.fori_loop. The refs it
// streams stay in HBM and are copied into VMEM scratch with
// pltpu.make_async_copy + DMA semaphores; with prefetch (default) two slots
// double-buffer: copy 0 is started before the loop and iteration j starts
// copy j+1 before waiting on copy j. Loop-carried values are the carry.
#include "fmt/format.h"
#include "launchers.h"

namespace tessera::pallas {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  return joined;
}

class ForiLoopEmitter : public DeviceEmitter {
 public:
  using DeviceEmitter::DeviceEmitter;

 private:
  // Starts the copies a body iteration needs and waits for this one's;
  // returns the slot its blocks are in. With prefetch, iteration `index`
  // starts copy index+1 into the other slot first.
  std::string CopyBlocks(PyLines& lines, const std::string& index,
                         const std::string& count,
                         const std::vector<std::string>& copy_fns) {
    std::string slot = "0";
    if (plan_.prefetch) {
      slot = Fresh("slot");
      lines.Line(fmt::format("{} = {} % 2", slot, index));
      lines.Blank();
      lines.Line(fmt::format("@pl.when({} + 1 < {})", index, count));
      lines.Line(fmt::format("def {}():", Fresh("_prefetch_next")));
      lines.Indent();
      for (const std::string& copy_fn : copy_fns) {
        lines.Line(
            fmt::format("{}({} + 1, 1 - {}).start()", copy_fn, index, slot));
      }
      lines.Dedent();
      lines.Blank();
    } else {
      for (const std::string& copy_fn : copy_fns) {
        lines.Line(fmt::format("{}({}, 0).start()", copy_fn, index));
      }
    }
    for (const std::string& copy_fn : copy_fns) {
      lines.Line(fmt::format("{}({}, {}).wait()", copy_fn, index, slot));
    }
    return slot;
  }

 protected:
  bool EmitInnerLoop(const Stmt& loop, PyLines& out) override {
    if (IsJagged(loop)) return EmitJaggedLoop(loop, out);
    const std::string tile = loop.vars[0].name;
    const std::string index = SanitizeIdentifier(tile);
    const bool prefetch = plan_.prefetch;
    LoopBounds bounds = Bounds(loop);
    const InnerLoopPlan& inner = *plan_.InnerLoop(&loop);
    std::vector<const RefPlan*> streamed = plan_.StreamedBy(&loop);

    std::string count = bounds.trip;
    if (prefetch && !streamed.empty()) {
      count = Fresh(tile + "_count");
      out.Line(fmt::format("{} = {}", count, bounds.trip));
    }
    std::string sems;
    std::vector<std::string> copy_fns, buffers;
    size_t j = 0;  // the copy's row in the semaphore array
    for (const LoopBuffer& plan_buffer : inner.buffers) {
      if (plan_buffer.kind == LoopBuffer::Kind::kSemaphores) {
        sems =
            AddScratch(tile + "_sems",
                       fmt::format("pltpu.SemaphoreType.DMA(({}, {}))",
                                   plan_buffer.shape[0], plan_buffer.shape[1]),
                       VmemBuffer{"DMA semaphores", 0, 1});
        continue;
      }
      const RefPlan& ref = plan_.refs[plan_buffer.ref_index];
      std::string block = StreamBlockTuple(ref, true);
      std::string dims = block.substr(1, block.size() - 2);
      if (!dims.empty() && dims.back() == ',') dims.pop_back();
      std::string buffer = AddScratch(
          ref.name + "_buffer",
          fmt::format("pltpu.VMEM(({}, {}), {})", plan_buffer.copies, dims,
                      JnpDType(ref.type.dtype)),
          VmemBuffer{fmt::format("{} buffer of {} for the loop over {}",
                                 StreamBlockTuple(ref, false), ref.name, tile),
                     plan_buffer.bytes(), plan_buffer.copies});
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
      ++j;
    }
    if (prefetch) {
      for (const std::string& copy_fn : copy_fns) {
        out.Line(fmt::format("{}(0, 0).start()", copy_fn));
      }
    }

    const LoopCarry carry = EmitLoopInits(loop);
    const std::vector<std::string>& args = carry.names;
    std::string carry_param = args.size() == 1 ? args[0] : Fresh("carry");

    // The head of the body: unpack the carry, start the next copy and wait
    // for this one; the streamed refs then read the slot it landed in.
    auto unpack_and_copy = [&](PyLines& lines) {
      if (args.size() > 1) {
        lines.Line(fmt::format("{} = {}", JoinNames(args), carry_param));
      }
      const std::string slot =
          streamed.empty() ? "0" : CopyBlocks(lines, index, count, copy_fns);
      for (size_t j = 0; j < streamed.size(); ++j) {
        std::string value = fmt::format("{}[{}]", buffers[j], slot);
        streams_[streamed[j]->name] = StreamBinding{value, value};
      }
    };
    bool returned = false;
    auto return_carry = [&](const std::vector<std::string>& values,
                            PyLines& o) {
      std::string text = JoinNames(values);
      if (values.size() > 1) text = "(" + text + ")";
      o.Line(values.empty() ? fmt::format("return {}", carry_param)
                            : "return " + text);
      returned = true;
    };
    InnerLoopBody body;
    if (!EmitInnerLoopBody(loop, index, BodyPlacement::kOwnFunction, streamed,
                           unpack_and_copy, return_carry, body)) {
      return false;
    }
    if (!returned) body.lines.Line(fmt::format("return {}", carry_param));

    const std::string body_fn =
        EmitBodyFunction(tile, index, carry_param, body, out);

    std::string init = args.empty() ? "None" : carry.inits[0];
    if (args.size() > 1) init = "(" + JoinNames(carry.inits) + ")";
    std::string call =
        fmt::format("jax.lax.fori_loop(0, {}, {}, {})", count, body_fn, init);
    std::vector<std::string> results;
    bool any_used = false;
    SetLoopResultOrigins(loop, body);
    for (size_t i = 0; i < loop.results.size(); ++i) {
      results.push_back(SanitizeIdentifier(loop.results[i].name));
      if (Used(loop.results[i].name)) any_used = true;
    }
    out.Line(any_used ? fmt::format("{} = {}", JoinNames(results), call)
                      : call);
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
