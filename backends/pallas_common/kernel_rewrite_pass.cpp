#include "kernel_rewrite_pass.h"

#include <memory>
#include <utility>

#include "tessera/properties.h"

namespace tessera::pallas {
namespace {

class KernelRewriteRunner : public Pass {
 public:
  KernelRewriteRunner(std::shared_ptr<const KernelRewrite> rewrite,
                      std::shared_ptr<const RewriteGate> gate)
      : rewrite_(std::move(rewrite)), gate_(std::move(gate)) {}

  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    if (*gate_ && !(*gate_)(ctx.pipeline())) return false;
    bool changed = false;
    // A rewrite looks its device function up by name and adds none.
    for (size_t i = 0; i < module.functions.size(); ++i) {
      Function& function = module.functions[i];
      if (function.kind != FunctionKind::kHost) continue;
      changed = (*rewrite_)(module, function) || changed;
    }
    return changed;
  }

 private:
  std::shared_ptr<const KernelRewrite> rewrite_;
  std::shared_ptr<const RewriteGate> gate_;
};

}  // namespace

PassInfo KernelRewritePass(std::string name, std::string description,
                           KernelRewrite rewrite, RewriteGate gate,
                           PropertyRefs invalidated) {
  PassInfo info;
  info.name = std::move(name);
  info.description = std::move(description);
  info.required = {kSsaProperty, kOutlinedProperty};
  info.invalidated = std::move(invalidated);
  auto shared_rewrite =
      std::make_shared<const KernelRewrite>(std::move(rewrite));
  auto shared_gate = std::make_shared<const RewriteGate>(std::move(gate));
  info.create = [shared_rewrite, shared_gate]() -> std::unique_ptr<Pass> {
    return std::make_unique<KernelRewriteRunner>(shared_rewrite, shared_gate);
  };
  return info;
}

}  // namespace tessera::pallas
