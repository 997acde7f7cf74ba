// Plugin entry point of the `pre-broadcast` pass.
#include <memory>

#include "fmt/format.h"
#include "pre_broadcast.h"
#include "tessera/plugin.h"

namespace tessera {
namespace {

constexpr int64_t kDefaultLanes = 128;

class PreBroadcastPass : public Pass {
 public:
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    PreBroadcastOptions options;
    options.lanes = ctx.options().GetInt("lanes", kDefaultLanes);
    options.remarks = ctx.verbose();
    if (options.lanes <= 0) {
      ctx.diagnostics().Error(
          module.source_file, {},
          fmt::format("pre-broadcast: option 'lanes' must be positive, got {}",
                      options.lanes));
      return absl::InvalidArgumentError("invalid pre-broadcast options");
    }
    const std::string launcher =
        ctx.pipeline().backend_options.GetString("launcher");
    if (launcher == "unroll") {
      // Unrolled inner loops keep their carried values in registers, not in
      // a scratch that would hold the broadcast copy.
      if (ctx.verbose()) {
        ctx.diagnostics().Remark(
            module.source_file, {},
            "pre-broadcast: nothing to do under the 'unroll' launcher (its "
            "inner loops carry no values in scratch)");
      }
      return false;
    }
    return PreBroadcast(module, options, ctx.diagnostics());
  }
};

bool RegisterPreBroadcast(PluginRegistrar* registrar) {
  const Property pre_broadcast =
      registrar->AddProperty(PreBroadcastPropertyInfo());
  if (!pre_broadcast.valid()) return false;
  PassInfo info;
  info.name = "pre-broadcast";
  info.description =
      "carry loop-carried row statistics with a trailing lane dim so inner "
      "loops do not re-broadcast them (emit_pipeline and fori_loop)";
  info.required = {kSsaProperty, kOutlinedProperty};
  info.produced = {pre_broadcast};
  OptionSpec lanes;
  lanes.name = "lanes";
  lanes.type = OptionType::kInt;
  lanes.default_value = kDefaultLanes;
  lanes.help = "width of the trailing lane dim (the TPU's 128 lanes)";
  info.options.push_back(std::move(lanes));
  info.create = [] { return std::make_unique<PreBroadcastPass>(); };
  registrar->AddPass(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera

TESSERA_PLUGIN("tessera-pre-broadcast", "0.1.0", tessera::RegisterPreBroadcast)
