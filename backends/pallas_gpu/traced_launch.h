// The launch of a triton pallas_call whose tiles or dots have call-time
// dims (a shape-generic module, compiled without --arg): gpu_policy.h sizes
// only what is static, so the host function finishes the choice when it is
// traced, with module helpers written from the policy's constants:
// `num_warps` raised to the traced tiles' need, `num_stages` lowered until
// the traced dots fit shared memory, or a ValueError located at the tile
// loop past the limits (the compile-time policy's error, at call time).
#pragma once

#include <optional>
#include <string>

#include "device_emitter.h"
#include "gpu_policy.h"
#include "python_writer.h"

namespace tessera::pallas {

// A size the kernel holds as a power of two, known when traced (a Python
// int expression): "pl.next_power_of_2(x_d1)".
std::string PowerOfTwoText(const std::string& size);

// The module's names of the two helpers, and whether a kernel used them.
struct TracedLaunchHelpers {
  std::string num_warps_fn;
  std::string num_stages_fn;
  bool num_warps_used = false;
  bool num_stages_used = false;
};

// The `compiler_params=` lines of a triton pallas_call: the numbers of
// `launch` where all is static (one line, as before call-time sizes were
// checked) or nothing is checked (`where` nullopt), else calls of the
// helpers. `where` ("file:line:col" of the tile loop) and the kernel name
// go into the errors; `stages_requested`: the config or kernel fixed
// num_stages.
void WriteTritonCompilerParams(const GpuLaunch& launch, const KernelPlan& plan,
                               const HostBindings& host,
                               const std::optional<std::string>& where,
                               bool stages_requested,
                               TracedLaunchHelpers& helpers, PyLines& out);

// The used helpers' source, each preceded by two blank lines.
std::string TracedLaunchHelperSource(const TracedLaunchHelpers& helpers);

}  // namespace tessera::pallas
