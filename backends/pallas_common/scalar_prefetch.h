// Scalar prefetch: refs the kernel reads one element at a time (offsets,
// indices, counts) are passed with the target's scalar-prefetch grid spec
// (PallasTarget::ScalarPrefetchGridSpec; pltpu.PrefetchScalarGridSpec). Pallas
// copies them whole into SMEM before the grid runs; the kernel reads
// scalars from them (loop bounds, `if` conditions, dynamic offsets) and the
// BlockSpec index maps receive them after the grid indices.
#pragma once

#include <string>
#include <vector>

#include "device_emitter.h"
#include "kernel_plan.h"
#include "python_writer.h"

namespace tessera::pallas {

// The scalar-prefetch refs in parameter order.
std::vector<const RefPlan*> ScalarPrefetchRefs(const KernelPlan& plan);

// The host expression passed for a scalar-prefetch ref: SMEM words are 32
// bits, so integer arrays are narrowed to int32 (checked when concrete).
std::string ScalarPrefetchArg(ModuleState& state, const RefPlan& ref,
                              const std::string& host_array);

// The helpers of this file and of jagged tiles, appended to the module's
// helpers when used.
void AppendIndirectHelpers(const ModuleState& state, PyLines& helpers);

}  // namespace tessera::pallas
