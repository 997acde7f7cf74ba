// The `pallas-gpu` backend plugin: outlined SSA IR in, one Pallas GPU
// Python module per kernel out; `launcher` picks Triton or Mosaic GPU.
#include <memory>
#include <vector>

#include "fmt/format.h"
#include "gpu_target.h"
#include "host_contract.h"
#include "passes/lowering_passes.h"
#include "tessera/plugin.h"

namespace tessera::pallas {
namespace {

class PallasGpuBackend : public Backend {
 public:
  absl::StatusOr<std::vector<EmittedFile>> Emit(const Module& module,
                                                BackendContext& ctx) override {
    const OptionMap& options = ctx.options();
    GpuModuleOptions gpu;
    const std::string launcher = options.GetString("launcher", "triton");
    gpu.launcher =
        launcher == "mosaic" ? Launcher::kMosaicGpu : Launcher::kTriton;
    gpu.num_warps = options.GetInt("num_warps", 0);
    gpu.num_stages = options.GetInt("num_stages", 0);
    gpu.check_legality = options.GetBool("check_legality", true);
    gpu.f32_dots_ieee = options.GetString("dot_precision", "tf32") == "ieee";
    gpu.typed_params = TypedParams(ctx.pipeline());
    std::vector<EmittedFile> files;
    size_t failures = 0;
    for (const Function& function : module.functions) {
      if (function.kind != FunctionKind::kHost) continue;
      absl::StatusOr<EmittedFile> file =
          EmitGpuKernelModule(module, function, gpu, ctx.diagnostics());
      if (file.ok()) {
        files.push_back(*std::move(file));
      } else {
        ++failures;
      }
    }
    if (failures == 0 && files.empty()) {
      ctx.diagnostics().Error(module.source_file, {},
                              "no outlined kernel (host function) to emit");
    }
    if (failures > 0 || files.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "pallas-gpu code generation failed for {} kernel(s)", failures));
    }
    return files;
  }
};

}  // namespace

bool Register(PluginRegistrar* registrar) {
  BackendInfo info;
  info.create = [] { return std::make_unique<PallasGpuBackend>(); };
  info.name = "pallas-gpu";
  info.description =
      "JAX Pallas GPU modules (NVIDIA); launchers triton (fori_loop over "
      "pl.ds slices, pltriton atomics) and mosaic (Mosaic GPU, Hopper)";
  info.required = {kSsaProperty, kOutlinedProperty};
  auto option = [&](std::string name, OptionType type, OptionValue fallback,
                    std::string help, std::vector<std::string> choices) {
    info.options.push_back(OptionSpec{std::move(name), type,
                                      std::move(fallback), std::move(help),
                                      std::move(choices)});
  };
  option("launcher", OptionType::kString, std::string("triton"),
         "the Pallas GPU lowering", {"triton", "mosaic"});
  option("num_warps", OptionType::kInt, int64_t{0},
         "triton: warps per program (CompilerParams); 0: the kernel's "
         "helion.Config(num_warps=...), else from the largest tile, 64 "
         "values per thread",
         {});
  option("num_stages", OptionType::kInt, int64_t{0},
         "triton: software-pipeline stages of inner-loop loads; 0: the "
         "kernel's helion.Config(num_stages=...), else up to 3, as many as "
         "the dot operands fit in 227 KiB of shared memory; mosaic: blocks "
         "the wgmma pipeline keeps in flight (max_concurrent_steps), 0: 2",
         {});
  option("check_legality", OptionType::kBool, true,
         "reject blocks that are not powers of two, or that fit no launch "
         "(registers, shared memory), at compile time (false: emit them as "
         "asked)",
         {});
  option("dot_precision", OptionType::kString, std::string("tf32"),
         "triton: f32 x f32 dots on TF32 tensor cores (tf32, as Helion's "
         "Triton output; errors near 1e-3 of the result) or in full f32 "
         "(ieee: precision=HIGHEST, FMA loops that need smaller blocks)",
         {"tf32", "ieee"});
  for (PassInfo& pass : GpuLoweringPasses()) {
    info.lowering_passes.push_back(pass.name);
    registrar->AddPass(std::move(pass));
  }
  registrar->AddBackend(std::move(info));
  return true;
}

}  // namespace tessera::pallas

TESSERA_PLUGIN("pallas-gpu", "0.1.0", tessera::pallas::Register)
