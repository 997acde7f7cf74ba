#include "module_helpers.h"
#include "scan_lowering.h"

#include "fmt/format.h"
#include "python_writer.h"
#include "scalar_prefetch.h"
#include "tail_helpers.h"

namespace tessera::pallas {

std::string ModuleHelpers(const ModuleState& state,
                          const std::string& tpu_target_fn) {
  PyLines helpers;
  helpers.Blank();
  helpers.Blank();
  helpers.Line(fmt::format("def {}(tpu):", tpu_target_fn));
  helpers.Line(
      "    # Tracing a kernel asks for the chip's tiling (pipelines, "
      "packed");
  helpers.Line(
      "    # layouts). With no TPU as the default device (interpret mode or "
      "export");
  helpers.Line(
      "    # on a CPU host), an abstract TPU of generation `tpu` answers it.");
  helpers.Line(
      "    if jax.sharding.get_abstract_mesh().abstract_device is not None:");
  helpers.Line("        return contextlib.nullcontext()");
  helpers.Line(
      "    default = jax.config.jax_default_device or jax.devices()[0]");
  helpers.Line("    if getattr(default, \"platform\", default) == \"tpu\":");
  helpers.Line("        return contextlib.nullcontext()");
  helpers.Line(
      "    kinds = {\"v5e\": \"TPU v5 lite\", \"v6e\": \"TPU v6 lite\", "
      "\"v7x\": \"TPU7x\"}");
  helpers.Line("    if tpu not in kinds:");
  helpers.Line(
      "        raise ValueError(f\"tpu must be one of {sorted(kinds)}, got "
      "{tpu!r}\")");
  helpers.Line(
      "    device = jax.sharding.AbstractDevice(device_kind=kinds[tpu], "
      "num_cores=1, platform=\"tpu\")");
  helpers.Line(
      "    return jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((), "
      "(), abstract_device=device))");
  EmitTailHelpers(
      {state.round_up_fn, state.pad_fn, state.mask_fn, state.shift_mask_fn},
      helpers);
  AppendIndirectHelpers(state, helpers);
  AppendScanHelper(state, helpers);
  if (!state.shift_window_fn.empty()) {
    // A shifted tile on a minor dim (TpuTarget::ShiftAlignment): the window
    // is rotated in 32-bit, as Mosaic rotates no packed type ("unsupported
    // packed type rotation"); libtpu 0.0.42 accepts the f32 / i32 rotate
    // by a dynamic amount on both minor dims, v5e-v7x.
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(window, axis, delta, size):",
                             state.shift_window_fn));
    helpers.Line(
        "    # Rotates element `delta` of an aligned window to 0 and keeps "
        "`size`:");
    helpers.Line(
        "    # a slice at any offset of a dim Mosaic slices only aligned.");
    // A window of a 1-D value (a lane row read at a scalar row) is rotated
    // as one row of a 2-D value: Mosaic rotates no 1-D vector ("Unsupported
    // 1D shape", libtpu 0.0.42, v5e-v7x).
    helpers.Line("    if window.ndim == 1:");
    helpers.Line(
        fmt::format("        return {}(window.reshape(1, -1), 1, delta, "
                    "size).reshape(size)",
                    state.shift_window_fn));
    helpers.Line(
        "    wide = jnp.float32 if jnp.issubdtype(window.dtype, jnp.floating) "
        "else jnp.int32");
    helpers.Line("    count = window.shape[axis]");
    helpers.Line(
        "    rotated = pltpu.roll(window.astype(wide), (count - delta) % "
        "count, "
        "axis)");
    helpers.Line(
        "    return jax.lax.slice_in_dim(rotated, 0, size, "
        "axis=axis).astype(window.dtype)");
  }
  if (!state.shift_place_fn.empty()) {
    // The inverse of the shifted window, for stores: rotated in 32-bit too.
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(value, axis, delta, window):",
                             state.shift_place_fn));
    helpers.Line(
        "    # Puts value at element `delta` of a window as long as "
        "`window` along axis.");
    helpers.Line(
        "    wide = jnp.float32 if jnp.issubdtype(value.dtype, jnp.floating) "
        "else jnp.int32");
    helpers.Line("    count = window.shape[axis]");
    helpers.Line("    pads = [(0, 0)] * value.ndim");
    helpers.Line("    pads[axis] = (0, count - value.shape[axis])");
    helpers.Line("    padded = jnp.pad(value.astype(wide), pads)");
    helpers.Line(
        "    return pltpu.roll(padded, delta, axis).astype(value.dtype)");
  }
  if (!state.shift_place_mask_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(
        fmt::format("def {}(value, axis, delta, lanes, start, size, window):",
                    state.shift_place_mask_fn));
    helpers.Line(
        "    # Keeps the placed tile's lanes (delta .. delta + lanes) whose "
        "element lies");
    helpers.Line(
        "    # in [0, size); the rest of the window is left as it was.");
    helpers.Line(
        "    lane = jax.lax.broadcasted_iota(jnp.int32, value.shape, axis) - "
        "delta");
    helpers.Line(
        "    keep = (lane >= 0) & (lane < lanes) & (start + lane >= 0) & "
        "(start + lane < size)");
    helpers.Line("    return jnp.where(keep, value, window)");
  }
  return helpers.Text();
}

}  // namespace tessera::pallas
