// `unroll`: an inner tile loop becomes a Python `for` over a static trip
// count, traced once per iteration. Operands keep their outer BlockSpec
// with the inner dim whole and are sliced with pl.ds; loop-carried values
// are plain Python values.
#include "fmt/format.h"
#include "launchers.h"

namespace tessera::pallas {
namespace {

class UnrollEmitter : public DeviceEmitter {
 public:
  using DeviceEmitter::DeviceEmitter;

 protected:
  bool EmitInnerLoop(const Stmt& loop, PyLines& out) override {
    if (IsJagged(loop)) return EmitJaggedLoop(loop, out);
    LoopBounds bounds = Bounds(loop);
    if (!bounds.static_trip) {
      return Error(loop.loc,
                   "the unroll launcher needs an inner loop whose trip count "
                   "is known at trace time (bounds from sizes and constants, "
                   "or the bounds of an enclosing tile); use emit_pipeline or "
                   "fori_loop");
    }
    const LoopCarry carry = EmitLoopInits(loop);
    if (!carry.names.empty()) out.Line(TupleAssign(carry.names, carry.inits));
    std::string index = SanitizeIdentifier(loop.vars[0].name);
    out.Line(fmt::format("for {} in range({}):", index, bounds.trip));
    out.Indent();
    InnerLoopBody body;
    bool ok = EmitInnerLoopBody(
        loop, index, BodyPlacement::kInline, {}, nullptr,
        [&](const std::vector<std::string>& values, PyLines& o) {
          if (!carry.names.empty()) o.Line(TupleAssign(carry.names, values));
        },
        body);
    if (!ok) return false;
    if (body.lines.empty()) body.lines.Line("pass");
    out.Append(body.lines);
    out.Dedent();
    SetLoopResultOrigins(loop, body);
    std::vector<std::string> results, sources;
    for (size_t i = 0; i < loop.results.size(); ++i) {
      if (!Used(loop.results[i].name)) continue;
      results.push_back(SanitizeIdentifier(loop.results[i].name));
      sources.push_back(carry.names[i]);
    }
    if (!results.empty()) out.Line(TupleAssign(results, sources));
    return true;
  }
};

}  // namespace

std::unique_ptr<DeviceEmitter> MakeUnrollEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics) {
  return std::make_unique<UnrollEmitter>(module, plan, state, host, options,
                                         diagnostics);
}

}  // namespace tessera::pallas
