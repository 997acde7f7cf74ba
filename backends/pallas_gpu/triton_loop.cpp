// `triton`: every inner tile loop is a jax.lax.fori_loop whose body is a
// function of the block index and the carried values. No ref is streamed:
// each keeps its outer BlockSpec with the loop's dim whole, and the body
// reads and writes pl.ds slices of it, which Triton turns into pointer
// arithmetic on global memory (the loop's "pipeline" is Triton's own
// num_stages software pipelining of those loads).
#include "fmt/format.h"
#include "gpu_target.h"

namespace tessera::pallas {
namespace {

std::string CommaList(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    text += (i ? ", " : "") + items[i];
  }
  return text;
}

// "(a, b)" for several values, "a" for one.
std::string CarryTuple(const std::vector<std::string>& items) {
  return items.size() == 1 ? items[0] : "(" + CommaList(items) + ")";
}

class TritonLoopEmitter : public DeviceEmitter {
 public:
  using DeviceEmitter::DeviceEmitter;

 protected:
  bool HalfFloatMathInF32() const override { return true; }
  bool TwoDimDotsOnly() const override { return true; }
  // Pallas Triton lowers an f32 dot of the default precision to TF32
  // (10-bit mantissas: errors near 1e-3 of the result, seen on an H200), as
  // Helion's Triton output does; `dot_precision = "ieee"` asks for f32.
  std::string DotKeywords(DType operands) const override {
    return operands == DType::kF32 && options_.f32_dots_full_precision
               ? ", precision=jax.lax.Precision.HIGHEST"
               : "";
  }
  bool HasMaskedStores() const override { return true; }
  std::string MaskedStore(const std::string& ref_at, const std::string& value,
                          const std::string& mask) const override {
    return fmt::format("pltriton.store({}, {}, mask={})", ref_at, value, mask);
  }
  bool EmitInnerLoop(const Stmt& loop, PyLines& out) override {
    // Bounds read from memory: a fori_loop with a traced trip count, its
    // blocks masked outside [begin, end) (jagged_tiles.cpp).
    if (IsJagged(loop)) return EmitJaggedLoop(loop, out);
    const std::string index = SanitizeIdentifier(loop.vars[0].name);
    const LoopBounds bounds = Bounds(loop);
    const LoopCarry carry = EmitLoopInits(loop);
    // fori_loop always carries something: no carried value is `None`.
    const std::string carry_name =
        carry.names.size() == 1 ? carry.names[0] : Fresh("carry");
    InnerLoopBody body;
    bool returned = false;
    const bool ok = EmitInnerLoopBody(
        loop, index, BodyPlacement::kOwnFunction, {},
        [&](PyLines& lines) {
          if (carry.names.size() > 1) {
            lines.Line(
                fmt::format("{} = {}", CommaList(carry.names), carry_name));
          }
        },
        [&](const std::vector<std::string>& values, PyLines& lines) {
          lines.Line(values.empty() ? "return " + carry_name
                                    : "return " + CarryTuple(values));
          returned = true;
        },
        body);
    if (!ok) return false;
    if (!returned) body.lines.Line("return " + carry_name);

    const std::string body_fn = Fresh("_" + loop.vars[0].name + "_body");
    PyLines function;
    function.Line(fmt::format("def {}({}, {}):", body_fn, index, carry_name));
    function.Indent();
    for (const PyLines* part : {&body.scope.prelude, &body.lines}) {
      function.Append(*part);
    }
    out.Blank();
    out.Append(function);
    out.Blank();
    const std::string init =
        carry.inits.empty() ? "None" : CarryTuple(carry.inits);
    const std::string call = fmt::format("jax.lax.fori_loop(0, {}, {}, {})",
                                         bounds.trip, body_fn, init);
    SetLoopResultOrigins(loop, body);
    std::vector<std::string> results;
    bool used = false;
    for (const Value& result : loop.results) {
      results.push_back(SanitizeIdentifier(result.name));
      used = used || Used(result.name);
    }
    out.Line(used ? fmt::format("{} = {}", CommaList(results), call) : call);
    return true;
  }
};

}  // namespace

std::unique_ptr<DeviceEmitter> MakeGpuEmitter(const Module& module,
                                              const KernelPlan& plan,
                                              ModuleState& state,
                                              const HostBindings& host,
                                              const EmitOptions& options,
                                              DiagnosticEngine& diagnostics) {
  if (plan.launcher == Launcher::kMosaicGpu) {
    return MakeMosaicGpuEmitter(module, plan, state, host, options,
                                diagnostics);
  }
  return std::make_unique<TritonLoopEmitter>(module, plan, state, host, options,
                                             diagnostics);
}

}  // namespace tessera::pallas
