// The `pallas-tpu` backend plugin: outlined SSA IR in, one Pallas TPU Python
// module per kernel out. The inner-loop strategy is the `launcher` option.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "host_contract.h"
#include "module_emitter.h"
#include "passes/lowering_passes.h"
#include "tessera/plugin.h"

namespace tessera::pallas {
namespace {

// Reads the backend options; reports a bad one to the diagnostics.
std::optional<ModuleOptions> ReadOptions(BackendContext& ctx) {
  const OptionMap& options = ctx.options();
  ModuleOptions module_options;
  std::string launcher_name = options.GetString("launcher", "emit_pipeline");
  std::optional<Launcher> launcher = LauncherByName(launcher_name);
  if (!launcher) {
    ctx.diagnostics().Error(
        "", {}, fmt::format("unknown pallas-tpu launcher '{}'", launcher_name));
    return std::nullopt;
  }
  module_options.launcher = *launcher;
  std::string tpu_name = options.GetString("tpu", "v6e");
  std::optional<TpuGeneration> tpu = TpuGenerationByName(tpu_name);
  if (!tpu) {
    ctx.diagnostics().Error(
        "", {}, fmt::format("unknown TPU generation '{}'", tpu_name));
    return std::nullopt;
  }
  module_options.tpu = *tpu;
  module_options.emit.prefetch = options.GetBool("prefetch", true);
  module_options.check_legality = options.GetBool("check_legality", true);
  module_options.emit.typed_params = TypedParams(ctx.pipeline());
  return module_options;
}

// Why --emit=report has nothing for `function`: with symbolic shapes, the
// parameters to pass with --arg.
std::string NoEstimateMessage(const Function& function,
                              const std::string& problem) {
  std::vector<std::string> symbolic;
  std::string example;
  for (const Value& param : function.params) {
    if (!param.type.is_ref()) continue;
    bool is_static = true;
    std::string dims;
    for (size_t d = 0; d < param.type.shape.size(); ++d) {
      is_static = is_static && param.type.shape[d].is_static();
      dims += fmt::format("{}D{}", d ? "," : "", d);
    }
    if (is_static) continue;
    symbolic.push_back(param.name);
    if (example.empty()) {
      example = fmt::format("--arg={}={}[{}]", param.name,
                            DTypeName(param.type.dtype), dims);
    }
  }
  if (symbolic.empty()) {
    return fmt::format("no cost estimate for kernel '{}': {}", function.name,
                       problem);
  }
  return fmt::format(
      "no cost estimate for kernel '{}': the model times a kernel at static "
      "shapes, and {} {} symbolic; pass {} with --arg, e.g. {} (the "
      "generated code's pl.CostEstimate needs none: it is written in terms "
      "of the shapes)",
      function.name, fmt::join(symbolic, ", "),
      symbolic.size() == 1 ? "is" : "are", symbolic.size() == 1 ? "it" : "each",
      example);
}

class PallasTpuBackend : public Backend {
 public:
  absl::StatusOr<std::vector<EmittedFile>> Emit(const Module& module,
                                                BackendContext& ctx) override {
    std::vector<EmittedFile> files;
    absl::Status status = EmitAll(module, ctx, files, nullptr);
    if (!status.ok()) return status;
    return files;
  }

  // The estimates come from emitting each kernel: the same plan, padding
  // and numbers as the pl.CostEstimate of the generated call.
  absl::StatusOr<std::vector<KernelEstimate>> Estimate(
      const Module& module, BackendContext& ctx) override {
    std::vector<EmittedFile> files;
    std::vector<KernelEstimate> estimates;
    absl::Status status = EmitAll(module, ctx, files, &estimates);
    if (!status.ok()) return status;
    return estimates;
  }

 private:
  absl::Status EmitAll(const Module& module, BackendContext& ctx,
                       std::vector<EmittedFile>& files,
                       std::vector<KernelEstimate>* estimates) {
    std::optional<ModuleOptions> module_options = ReadOptions(ctx);
    if (!module_options) return absl::InvalidArgumentError("bad options");
    bool failed = false;
    std::vector<std::pair<const Function*, std::string>> unestimated;
    for (const Function& function : module.functions) {
      if (function.kind != FunctionKind::kHost) continue;
      KernelCost cost;
      auto file = EmitKernelModule(module, function, *module_options,
                                   ctx.diagnostics(), &cost);
      if (!file.ok()) {
        failed = true;
        continue;
      }
      files.push_back(*std::move(file));
      if (estimates == nullptr) continue;
      if (!cost.estimate) {
        unestimated.emplace_back(&function, cost.problem);
        continue;
      }
      estimates->push_back(*std::move(cost.estimate));
    }
    // A kernel without an estimate does not take its siblings' report with
    // it: it is a warning while another kernel has one, an error otherwise.
    for (const auto& [function, problem] : unestimated) {
      const std::string message = NoEstimateMessage(*function, problem);
      if (estimates->empty()) {
        ctx.diagnostics().Error(module.source_file, function->loc, message);
        failed = true;
      } else {
        ctx.diagnostics().Warning(module.source_file, function->loc,
                                  message + "; the report covers the others");
      }
    }
    if (failed) {
      return absl::InvalidArgumentError("pallas-tpu code generation failed");
    }
    if (files.empty()) {
      ctx.diagnostics().Error(module.source_file, {},
                              "no outlined kernel (host function) to emit");
      return absl::InvalidArgumentError("nothing to emit");
    }
    return absl::OkStatus();
  }
};

bool Register(PluginRegistrar* registrar) {
  BackendInfo info;
  info.name = "pallas-tpu";
  info.description =
      "JAX Pallas TPU modules; inner loops by launcher (unroll, "
      "emit_pipeline, fori_loop)";
  info.required = {kSsaProperty, kOutlinedProperty};
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
  for (PassInfo& pass : TpuLoweringPasses()) {
    info.lowering_passes.push_back(pass.name);
    registrar->AddPass(std::move(pass));
  }
  registrar->AddBackend(std::move(info));
  return true;
}

}  // namespace
}  // namespace tessera::pallas

TESSERA_PLUGIN("pallas-tpu", "0.1.0", tessera::pallas::Register)
