// The `pallas-tpu` backend plugin: outlined SSA IR in, one Pallas TPU Python
// module per kernel out. The inner-loop strategy is the `launcher` option.
#include <memory>
#include <vector>

#include "fmt/format.h"
#include "module_emitter.h"
#include "tessera/plugin.h"

namespace tessera::pallas {
namespace {

class PallasTpuBackend : public Backend {
 public:
  absl::StatusOr<std::vector<EmittedFile>> Emit(const Module& module,
                                                BackendContext& ctx) override {
    const OptionMap& options = ctx.options();
    ModuleOptions module_options;
    std::string launcher_name = options.GetString("launcher", "emit_pipeline");
    std::optional<Launcher> launcher = LauncherByName(launcher_name);
    if (!launcher) {
      ctx.diagnostics().Error(
          "", {},
          fmt::format("unknown pallas-tpu launcher '{}'", launcher_name));
      return absl::InvalidArgumentError("unknown launcher");
    }
    module_options.launcher = *launcher;
    std::string tpu_name = options.GetString("tpu", "v6e");
    std::optional<TpuGeneration> tpu = TpuGenerationByName(tpu_name);
    if (!tpu) {
      ctx.diagnostics().Error(
          "", {}, fmt::format("unknown TPU generation '{}'", tpu_name));
      return absl::InvalidArgumentError("unknown TPU generation");
    }
    module_options.tpu = *tpu;
    module_options.emit.prefetch = options.GetBool("prefetch", true);
    module_options.check_legality = options.GetBool("check_legality", true);

    std::vector<EmittedFile> files;
    bool failed = false;
    for (const Function& function : module.functions) {
      if (function.kind != FunctionKind::kHost) continue;
      auto file =
          EmitKernelModule(module, function, module_options, ctx.diagnostics());
      if (!file.ok()) {
        failed = true;
        continue;
      }
      files.push_back(*std::move(file));
    }
    if (failed) {
      return absl::InvalidArgumentError("pallas-tpu code generation failed");
    }
    if (files.empty()) {
      ctx.diagnostics().Error(module.source_file, {},
                              "no outlined kernel (host function) to emit");
      return absl::InvalidArgumentError("nothing to emit");
    }
    return files;
  }
};

bool Register(PluginRegistrar* registrar) {
  BackendInfo info;
  info.name = "pallas-tpu";
  info.description =
      "JAX Pallas TPU modules; inner loops by launcher (unroll, "
      "emit_pipeline, fori_loop)";
  info.required = PropertySet{Property::kSSA, Property::kOutlined};
  info.options = {
      OptionSpec{"launcher",
                 OptionType::kString,
                 std::string("emit_pipeline"),
                 "how inner tile loops are lowered",
                 {"unroll", "emit_pipeline", "fori_loop"}},
      OptionSpec{"tpu",
                 OptionType::kString,
                 std::string("v6e"),
                 "TPU generation for legality and the VMEM budget",
                 {"v5e", "v6e", "v7x"}},
      OptionSpec{"check_legality",
                 OptionType::kBool,
                 true,
                 "reject blocks the TPU cannot tile and VMEM overflows at "
                 "compile time (false: emit them as asked)",
                 {}},
      OptionSpec{"prefetch",
                 OptionType::kBool,
                 true,
                 "fori_loop: double-buffer inner-loop DMAs in two slots",
                 {}},
  };
  info.create = [] { return std::make_unique<PallasTpuBackend>(); };
  registrar->AddBackend(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera::pallas

TESSERA_PLUGIN("pallas-tpu", "0.1.0", tessera::pallas::Register)
