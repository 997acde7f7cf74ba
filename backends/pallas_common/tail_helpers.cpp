#include "tail_helpers.h"

#include "fmt/format.h"

namespace tessera::pallas {

void EmitTailHelpers(const TailHelperNames& names, PyLines& helpers) {
  if (!names.round_up_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(size, multiple):", names.round_up_fn));
    helpers.Line("    return (size + multiple - 1) // multiple * multiple");
  }
  if (!names.pad_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(array, multiples):", names.pad_fn));
    helpers.Line(
        "    # Zero padding up to whole blocks: zero is neutral for "
        "the dots and sums");
    helpers.Line(
        "    # that read it; other reductions mask the tail. An empty dim "
        "gets one");
    helpers.Line(
        "    # block, which the kernel reads as such a tail (a sum over it "
        "is 0).");
    helpers.Line(
        "    pads = [(0, -size % multiple if size else multiple) for size, "
        "multiple in zip(array.shape, multiples)]");
    helpers.Line("    if not any(high for _, high in pads):");
    helpers.Line("        return array");
    helpers.Line("    return jnp.pad(array, pads)");
  }
  if (!names.mask_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(
        fmt::format("def {}(value, axis, start, limit, fill):", names.mask_fn));
    helpers.Line(
        "    # Replaces the elements of a ragged last tile (index >= "
        "limit) along axis.");
    helpers.Line(
        "    index = start + jax.lax.broadcasted_iota(jnp.int32, "
        "value.shape, axis)");
    helpers.Line(
        "    return jnp.where(index < limit, value, "
        "jnp.asarray(fill, value.dtype))");
  }
  if (!names.shift_mask_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(value, axis, lanes, start, size, fill):",
                             names.shift_mask_fn));
    helpers.Line(
        "    # A shifted tile index (tile.index + offset) along axis: keeps "
        "the lanes");
    helpers.Line(
        "    # of the tile (below lanes) whose element start + lane lies in "
        "[0, size).");
    helpers.Line(
        "    shape = jnp.broadcast_shapes(jnp.shape(value), jnp.shape(fill))");
    helpers.Line("    lane = jax.lax.broadcasted_iota(jnp.int32, shape, axis)");
    helpers.Line(
        "    keep = (lane < lanes) & (start + lane >= 0) & (start + lane < "
        "size)");
    helpers.Line(
        "    return jnp.where(keep, value, jnp.asarray(fill, value.dtype))");
  }
}

}  // namespace tessera::pallas
