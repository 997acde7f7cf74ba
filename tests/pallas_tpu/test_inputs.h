// The hand-checked IR inputs of the pallas-tpu tests (inputs/*.tir) and the
// properties they claim.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "atomic_accumulator.h"
#include "passes/lowering_passes.h"
#include "pre_broadcast.h"
#include "tessera/properties.h"

namespace tessera::pallas {

// Inputs that come out of the pipeline claim the pre-broadcast and
// atomic-accumulator properties; their plugins register them when they
// load, the tests before parsing.
[[maybe_unused]] inline const Property kPreBroadcastRegistered =
    PreBroadcastProperty();
[[maybe_unused]] inline const Property kAccumulatedRegistered =
    AtomicAccumulatedProperty();

inline std::string ReadInput(const std::string& name) {
  std::ifstream in(std::string(PALLAS_TPU_INPUTS) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs the backend's lowering passes (passes/lowering_passes.h) over
// `module`, as the pipeline does before Emit; false if one failed.
inline bool RunTpuLoweringPasses(Module& module) {
  DiagnosticEngine diagnostics;
  const OptionMap no_options;
  const PipelineInfo pipeline;
  for (const PassInfo& info : TpuLoweringPasses()) {
    PassContext context(diagnostics, no_options, pipeline);
    if (!info.create()->Run(module, context).ok()) return false;
  }
  return true;
}

}  // namespace tessera::pallas
