#include "gpu_device_context.h"

#include "fmt/format.h"

namespace tessera::pallas {

std::string GpuDeviceContextHelper(const std::string& name) {
  // An H100's kind: JAX maps it to compute capability 9.0 (sm_90a), what
  // the cubin checks compile for (jax/_src/pallas/triton/gpu_info.py).
  return fmt::format(R"py(

def {}():
    # Lowering asks the default device for its compute capability. With no
    # GPU as the default device (interpret mode or export on a CPU host), an
    # abstract Hopper GPU (compute capability 9.0) answers it.
    if jax.sharding.get_abstract_mesh().abstract_device is not None:
        return contextlib.nullcontext()
    default = jax.config.jax_default_device or jax.devices()[0]
    if getattr(default, "platform", default) in ("gpu", "cuda", "rocm"):
        return contextlib.nullcontext()
    device = jax.sharding.AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu")
    return jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((), (), abstract_device=device))
)py",
                     name);
}

}  // namespace tessera::pallas
