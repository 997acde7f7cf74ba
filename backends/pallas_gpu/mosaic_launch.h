// The mosaic launcher's kernel launch: `pl.kernel` over a `plgpu.Mesh`, the
// entry point of Mosaic GPU kernels in jax 0.10 and 0.11 alike. JAX 0.11
// lowers a GPU `pl.pallas_call` with Mosaic GPU only on a deprecated path
// (on an H200 with jax 0.11.2 every such call failed with a bare
// AssertionError). Each program of the mesh's grid stages its blocks in
// shared memory with one plgpu.emit_pipeline step (TMA copies in, the
// kernel, TMA copies out), as pallas_call's BlockSpecs did; refs that stay
// in memory reach the kernel as GMEM refs, and an output aliased to its
// initial values is a `jax.new_ref` the kernel writes in place.
#pragma once

#include <string>

#include "launch_call.h"

namespace tessera::pallas {

// Writes the program function and the pl.kernel call for `call`;
// `interpret_fn` names the module's MosaicInterpretHelper.
void WriteMosaicKernelLaunch(const LaunchCall& call, ModuleState& state,
                             const std::string& interpret_fn, PyLines& out);

// The module helper that turns `interpret=True` into Mosaic GPU's own
// interpreter (Python source, preceded by two blank lines).
std::string MosaicInterpretHelper(const std::string& name);

}  // namespace tessera::pallas
