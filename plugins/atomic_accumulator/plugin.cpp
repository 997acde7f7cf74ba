// Plugin entry point of the `atomic-accumulator` pass.
#include <memory>

#include "atomic_accumulator.h"
#include "tessera/plugin.h"

namespace tessera {
namespace {

class AtomicAccumulatorPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    return AccumulateAtomics(module, ctx.diagnostics(), ctx.verbose());
  }
};

bool RegisterAtomicAccumulator(PluginRegistrar* registrar) {
  const Property accumulated =
      registrar->AddProperty(AtomicAccumulatedPropertyInfo());
  if (!accumulated.valid()) return false;
  PassInfo info;
  info.name = "atomic-accumulator";
  info.description =
      "accumulate every atomic target in a VMEM scratch of its block (f32 "
      "for bf16/f16), loaded on the first cell of the grid dims the block "
      "does not map and written back on the last; those dims become "
      "arbitrary";
  info.required = {kSsaProperty, kOutlinedProperty};
  info.produced = {accumulated};
  info.create = [] { return std::make_unique<AtomicAccumulatorPass>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera

TESSERA_PLUGIN("tessera-atomic-accumulator", "0.1.0",
               tessera::RegisterAtomicAccumulator)
