// Renders backend performance estimates (tessera/cost_estimate.h): a
// readable table for people and JSON for tools (`tessera compile
// --emit=report [--report-format=json]`, the benchmark matrix, the tuner).
#pragma once

#include <string>
#include <vector>

#include "tessera/cost_estimate.h"

namespace tessera {

std::string FormatEstimateTable(const std::vector<KernelEstimate>& kernels);
std::string FormatEstimateJson(const std::vector<KernelEstimate>& kernels);
// "modeled kernel time: matmul 12.3 us (v6e)" - one line for --timing.
std::string FormatModeledTime(const std::vector<KernelEstimate>& kernels);

}  // namespace tessera
