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

// Lets the pipeline's block_sizes be shorter or longer than a kernel's
// block dims (the frontend option `exact_block_sizes`, where the frontend
// declares one): the block-slot search probes with partial lists, and the
// runtime's choices may leave trailing dims of 1 out.
void AllowInexactBlockSizes(ResolvedPipeline& pipeline);

// Writes an output file; a failure is reported with its reason.
absl::Status WriteOutputFile(const std::string& path,
                             const std::string& contents,
                             DiagnosticEngine& diagnostics);

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
