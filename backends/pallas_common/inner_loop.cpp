// The scaffolding every launcher shares around an inner tile loop: the
// carried values' initial values, the body emitted with the loop's tile
// bound, and where the loop's results come from. What differs between
// launchers -- where the body goes and how it is called -- stays in
// launchers/*.cpp.
#include "device_emitter.h"
#include "fmt/format.h"

namespace tessera::pallas {

std::string DeviceEmitter::EmitBodyFunction(const std::string& tile,
                                            const std::string& index,
                                            const std::string& carry_param,
                                            const InnerLoopBody& body,
                                            PyLines& out) {
  std::string body_fn = Fresh("_" + tile + "_body");
  out.Blank();
  out.Line(fmt::format("def {}({}, {}):", body_fn, index, carry_param));
  out.Indent();
  out.Append(body.scope.prelude);
  out.Append(body.lines);
  out.Dedent();
  out.Blank();
  return body_fn;
}

DeviceEmitter::LoopCarry DeviceEmitter::EmitLoopInits(const Stmt& loop) {
  LoopCarry carry;
  for (size_t i = 0; i < loop.iter_args.size(); ++i) {
    carry.names.push_back(SanitizeIdentifier(loop.iter_args[i].name));
    carry.inits.push_back(Emit(*loop.inits[i]));
    SetOrigins(loop.iter_args[i].name, Origins(*loop.inits[i]));
  }
  return carry;
}

bool DeviceEmitter::EmitInnerLoopBody(
    const Stmt& loop, const std::string& index, BodyPlacement placement,
    const std::vector<const RefPlan*>& streamed,
    const std::function<void(PyLines&)>& head, const YieldValuesFn& on_yield,
    InnerLoopBody& body) {
  const bool own_function = placement == BodyPlacement::kOwnFunction;
  const uint32_t saved_line = last_line();
  if (own_function) {
    PushScope(&body.scope);
    ResetSourceLine();
  }
  EnterTile(loop, index);
  if (head) head(body.lines);
  const bool ok =
      EmitBody(loop.regions[0], body.lines, [&](const Stmt& y, PyLines& o) {
        std::vector<std::string> values;
        for (const ExprPtr& value : y.operands) {
          values.push_back(Emit(*value));
          body.result_origins.push_back(LoopResultOrigins(loop, *value));
        }
        on_yield(values, o);
      });
  ExitTile(loop);
  for (const RefPlan* ref : streamed) streams_.erase(ref->name);
  if (own_function) {
    PopScope();
    SetSourceLine(saved_line);
  }
  return ok;
}

void DeviceEmitter::SetLoopResultOrigins(const Stmt& loop,
                                         const InnerLoopBody& body) {
  for (size_t i = 0; i < loop.results.size() && i < body.result_origins.size();
       ++i) {
    SetOrigins(loop.results[i].name, body.result_origins[i]);
  }
}

}  // namespace tessera::pallas
