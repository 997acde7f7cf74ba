#include "target.h"

#include "device_emitter.h"
#include "fmt/format.h"
#include "launch_call.h"
#include "py_text.h"
#include "scalar_prefetch.h"
#include "tail_helpers.h"

namespace tessera::pallas {

std::string PallasTarget::AtomicUpdate(std::string_view kind,
                                       const std::string& ref,
                                       const std::string& index,
                                       const std::string& value) const {
  // The output block stays resident across the grid dims it does not map
  // ("arbitrary", innermost), so a read-modify-write of it accumulates.
  const std::string target = fmt::format("{}[{}]", ref, index);
  if (kind == "max") {
    return fmt::format("{} = jnp.maximum({}, {})", target, target, value);
  }
  if (kind == "min") {
    return fmt::format("{} = jnp.minimum({}, {})", target, target, value);
  }
  return fmt::format("{} = {} + {}", target, target, Paren(value));
}

std::optional<std::string> PallasTarget::GatherRowsProblem(DType) const {
  return fmt::format("the {} backend does not lower gathers", backend_name());
}

std::string PallasTarget::ScanExpr(ModuleState&, const ScanCall&,
                                   std::string& error) const {
  error = fmt::format("the {} backend does not lower scans", backend_name());
  return "None";
}

void PallasTarget::WriteLaunch(const LaunchCall& call, ModuleState&,
                               PyLines& out) const {
  WritePallasCall(call, out);
}

std::string PallasTarget::ModuleHelpers(const ModuleState& state) const {
  PyLines helpers;
  EmitTailHelpers(
      {state.round_up_fn, state.pad_fn, state.mask_fn, state.shift_mask_fn},
      helpers);
  AppendIndirectHelpers(state, helpers);
  return helpers.Text();
}

}  // namespace tessera::pallas
