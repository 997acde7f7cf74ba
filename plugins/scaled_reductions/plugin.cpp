// Plugin entry point of the `scaled-reductions` pass.
#include <memory>

#include "scaled_reductions.h"
#include "tessera/plugin.h"

namespace tessera {
namespace {

class ScaledReductionsPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext&) override {
    return ScaleReductionOperands(module);
  }
};

bool RegisterScaledReductions(PluginRegistrar* registrar) {
  PassInfo info;
  info.name = "scaled-reductions";
  info.description =
      "take a max / min scaled by a positive constant over the scaled "
      "operand, when that operand is computed anyway (attention's row "
      "maximum of the scaled scores)";
  info.required = {kSsaProperty};
  info.create = [] { return std::make_unique<ScaledReductionsPass>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera

TESSERA_PLUGIN("tessera-scaled-reductions", "0.1.0",
               tessera::RegisterScaledReductions)
