// Plugin entry point of the `ssa` pass.
#include <memory>

#include "ssa.h"
#include "tessera/plugin.h"

namespace tessera {
namespace {

class SSAPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    return ConvertToSSA(module, ctx.diagnostics());
  }
};

bool RegisterSSA(PluginRegistrar* registrar) {
  PassInfo info;
  info.name = "ssa";
  info.description =
      "SSA form: versioned names, loop iter_args / yield / results, if "
      "results; idempotent";
  info.produced = {kSsaProperty};
  info.create = [] { return std::make_unique<SSAPass>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera

TESSERA_PLUGIN("tessera-ssa", "0.1.0", tessera::RegisterSSA)
