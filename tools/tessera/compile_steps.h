// The steps of a compile that other commands reuse (`tessera tune` runs
// them once per candidate): the frontend (or .tir parser) and the backend's
// code or estimates, with failures mapped to the driver's conventions.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/pipeline_resolution.h"
#include "tessera/backend.h"
#include "tessera/cost_estimate.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::cli {

absl::StatusOr<Module> ParseInput(const std::string& input,
                                  const ResolvedPipeline& pipeline,
                                  const std::string& text, bool is_tir,
                                  DiagnosticEngine& diagnostics);

absl::StatusOr<std::vector<EmittedFile>> RunBackend(
    const Module& module, const ResolvedPipeline& pipeline,
    DiagnosticEngine& diagnostics);

absl::StatusOr<std::vector<KernelEstimate>> RunEstimate(
    const Module& module, const ResolvedPipeline& pipeline,
    DiagnosticEngine& diagnostics);

}  // namespace tessera::cli
