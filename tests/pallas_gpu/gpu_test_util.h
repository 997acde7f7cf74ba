// Helpers of the pallas-gpu unit tests: read an outlined .tir input, edit
// it, emit its modules with the pallas-gpu target.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "gpu_target.h"
#include "passes/lowering_passes.h"
#include "tessera/ir/text.h"

namespace tessera::pallas {

inline std::string ReadInput(const std::string& name,
                             const std::string& folder = PALLAS_INPUTS) {
  std::ifstream in(folder + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string Replaced(std::string text, const std::string& from,
                            const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

struct Result {
  std::string code;
  std::string diagnostics;
  bool ok = false;
};

inline Result Emit(const std::string& text, GpuModuleOptions options = {}) {
  Result result;
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "input.tir", diagnostics);
  if (!module.ok()) {
    result.diagnostics = diagnostics.RenderAll();
    return result;
  }
  // As the pipeline: the backend's lowering passes (under the options'
  // launcher), then Emit.
  PipelineInfo pipeline;
  pipeline.backend_options.Set(
      "launcher",
      std::string(options.launcher == Launcher::kMosaicGpu ? "mosaic"
                                                           : "triton"));
  const OptionMap no_options;
  for (const PassInfo& info : GpuLoweringPasses()) {
    PassContext context(diagnostics, no_options, pipeline);
    if (!info.create()->Run(*module, context).ok()) {
      result.diagnostics = diagnostics.RenderAll();
      return result;
    }
  }
  for (const Function& function : module->functions) {
    if (function.kind != FunctionKind::kHost) continue;
    auto file = EmitGpuKernelModule(*module, function, options, diagnostics);
    if (!file.ok()) {
      result.diagnostics = diagnostics.RenderAll();
      return result;
    }
    result.code += file->contents;
  }
  result.ok = true;
  return result;
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace tessera::pallas
