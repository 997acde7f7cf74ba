// Plugin entry point of the `outline` pass.
#include <memory>

#include "outline.h"
#include "tessera/plugin.h"

namespace tessera {
namespace {

class OutlinePass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    return OutlineKernels(module, ctx.diagnostics());
  }
};

bool RegisterOutline(PluginRegistrar* registrar) {
  PassInfo info;
  info.name = "outline";
  info.description =
      "split each kernel into a host function that launches a device "
      "function (the body of the grid loop)";
  info.required = {kSsaProperty};
  info.produced = {kOutlinedProperty, kSsaProperty};
  info.create = [] { return std::make_unique<OutlinePass>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera

TESSERA_PLUGIN("tessera-outline", "0.1.0", tessera::RegisterOutline)
