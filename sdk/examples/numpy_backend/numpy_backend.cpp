// numpy-reference: a Tessera backend plugin built out of tree against the
// installed SDK. It turns any module the core can express (structured
// kernels, SSA, or outlined host/device pairs) into a plain Python/NumPy
// module per kernel, as a second opinion on the Pallas backend's output.
//
// Select it in a pipeline config:
//
//   [pipeline]
//   backend = "numpy-reference"
//   [backend.numpy-reference]
//   float64 = true
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "python_emitter.h"
#include "same_dtype_casts.h"
#include "tessera/plugin.h"

namespace numpy_reference {
namespace {

class NumpyBackend final : public tessera::Backend {
 public:
  absl::StatusOr<std::vector<tessera::EmittedFile>> Emit(
      const tessera::Module& module, tessera::BackendContext& ctx) override {
    EmitOptions options;
    options.float64 = ctx.options().GetBool("float64", false);
    options.file_suffix = ctx.options().GetString("suffix", "_numpy");
    return EmitNumpyModules(module, options, ctx.diagnostics());
  }
};

bool Register(tessera::PluginRegistrar* registrar) {
  tessera::BackendInfo info;
  info.name = "numpy-reference";
  info.description =
      "plain NumPy emulation of each kernel (tiles as Python loops), for "
      "checking other backends";
  // Every IR form is accepted: structured, SSA and outlined.
  info.required = {};
  info.options = {
      {"float64",
       tessera::OptionType::kBool,
       false,
       "compute floating-point values in float64 instead of their IR dtype",
       {}},
      {"suffix",
       tessera::OptionType::kString,
       std::string("_numpy"),
       "appended to the kernel name to form the output file name",
       {}},
  };
  info.create = [] { return std::make_unique<NumpyBackend>(); };
  // A backend lowering pass: registered here, named in the backend's info;
  // the pass manager runs it after the config's passes.
  tessera::PassInfo casts = SameDtypeCastsPass();
  info.lowering_passes = {casts.name};
  registrar->AddPass(std::move(casts));
  registrar->AddBackend(std::move(info));
  return true;
}

}  // namespace
}  // namespace numpy_reference

TESSERA_PLUGIN("numpy-reference", "0.1.0", numpy_reference::Register)
