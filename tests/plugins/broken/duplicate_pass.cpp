// Registers a pass named like one of the "test-passes" plugin's; loading
// both must name both plugin files.
#include "absl/status/statusor.h"
#include "tessera/plugin.h"

namespace {

class NoOp : public tessera::Pass {
 public:
  absl::StatusOr<bool> Run(tessera::Module&, tessera::PassContext&) override {
    return false;
  }
};

bool Register(tessera::PluginRegistrar* registrar) {
  tessera::PassInfo info;
  info.name = "test-tag";
  info.description = "clashes with test-passes' test-tag";
  info.create = [] { return std::make_unique<NoOp>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace

TESSERA_PLUGIN("duplicate-pass", "0.0.1", Register)
