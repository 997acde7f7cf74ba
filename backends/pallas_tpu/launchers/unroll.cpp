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
    LoopBounds bounds = Bounds(loop);
    if (!bounds.static_trip) {
      return Error(loop.loc,
                   "the unroll launcher needs an inner loop whose trip count "
                   "is known at trace time (bounds from sizes and constants, "
                   "or the bounds of an enclosing tile); use emit_pipeline or "
                   "fori_loop");
    }
    std::vector<std::string> args, inits;
    for (size_t i = 0; i < loop.iter_args.size(); ++i) {
      args.push_back(SanitizeIdentifier(loop.iter_args[i].name));
      inits.push_back(Emit(*loop.inits[i]));
      SetOrigins(loop.iter_args[i].name, Origins(*loop.inits[i]));
    }
    if (!args.empty()) out.Line(TupleAssign(args, inits));
    std::string index = SanitizeIdentifier(loop.vars[0].name);
    out.Line(fmt::format("for {} in range({}):", index, bounds.trip));
    out.Indent();
    EnterTile(loop, index);
    PyLines body;
    std::vector<std::vector<std::string>> result_origins;
    bool ok = EmitBody(loop.regions[0], body, [&](const Stmt& y, PyLines& o) {
      std::vector<std::string> values;
      for (const ExprPtr& v : y.operands) {
        values.push_back(Emit(*v));
        result_origins.push_back(LoopResultOrigins(loop, *v));
      }
      if (!args.empty()) o.Line(TupleAssign(args, values));
    });
    ExitTile(loop);
    if (!ok) return false;
    if (body.empty()) body.Line("pass");
    out.Append(body);
    out.Dedent();
    std::vector<std::string> results, sources;
    for (size_t i = 0; i < loop.results.size(); ++i) {
      if (i < result_origins.size()) {
        SetOrigins(loop.results[i].name, result_origins[i]);
      }
      if (!Used(loop.results[i].name)) continue;
      results.push_back(SanitizeIdentifier(loop.results[i].name));
      sources.push_back(args[i]);
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
