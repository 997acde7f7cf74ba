#include "scalar_prefetch.h"

#include "fmt/format.h"

namespace tessera::pallas {

std::vector<const RefPlan*> ScalarPrefetchRefs(const KernelPlan& plan) {
  std::vector<const RefPlan*> refs;
  for (const RefPlan& ref : plan.refs) {
    if (ref.scalar_prefetch) refs.push_back(&ref);
  }
  return refs;
}

std::string ScalarPrefetchArg(ModuleState& state, const RefPlan& ref,
                              const std::string& host_array) {
  if (!IsInteger(ref.type.dtype)) return host_array;
  return fmt::format("{}({}, \"{}\")", state.Int32(), host_array, ref.name);
}

void AppendIndirectHelpers(const ModuleState& state, PyLines& helpers) {
  if (!state.int32_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(array, name):", state.int32_fn));
    helpers.Line(
        "    # SMEM holds 32-bit scalars. Concrete int64 indices are checked "
        "to fit;");
    helpers.Line(
        "    # traced ones are int32 already unless jax_enable_x64 is set.");
    helpers.Line("    if array.dtype == jnp.int32:");
    helpers.Line("        return array");
    helpers.Line(
        "    if not isinstance(array, jax.core.Tracer) and array.size:");
    helpers.Line(
        "        low, high = int(jnp.min(array)), int(jnp.max(array))");
    helpers.Line("        if low < -2**31 or high >= 2**31:");
    helpers.Line(
        "            raise ValueError(f\"{name}: values in [{low}, {high}] do "
        "not fit int32 (SMEM scalars)\")");
    helpers.Line("    return jnp.asarray(array).astype(jnp.int32)");
  }
  if (!state.gather_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(read_row, rows):", state.gather_fn));
    helpers.Line(
        "    # rows[r] = read_row(r) for every row, one dynamic-slice load a "
        "row;");
    helpers.Line(
        "    # returns the scratch ref (the TPU has no vector gather across "
        "memory;");
    helpers.Line("    # see docs/tpu_legality.md).");
    helpers.Line("    def copy(r, carry):");
    helpers.Line("        rows[pl.ds(r, 1)] = read_row(r)");
    helpers.Line("        return carry");
    helpers.Line("    jax.lax.fori_loop(0, rows.shape[0], copy, 0)");
    helpers.Line("    return rows");
  }
  if (!state.select_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(rows, lanes):", state.select_fn));
    helpers.Line(
        "    # Element lanes[r] of each row r: the TPU gathers lanes only "
        "within one");
    helpers.Line(
        "    # vreg, so the row block is compared with a lane iota and "
        "summed (exact:");
    helpers.Line("    # one nonzero term a row; see docs/tpu_legality.md).");
    helpers.Line(
        "    lane = jax.lax.broadcasted_iota(jnp.int32, rows.shape, 1)");
    helpers.Line("    hit = lane == lanes.astype(jnp.int32)[:, None]");
    helpers.Line(
        "    wide = jnp.int32 if jnp.issubdtype(rows.dtype, jnp.integer) "
        "else jnp.float32");
    helpers.Line(
        "    picked = jnp.sum(jnp.where(hit, rows.astype(wide), 0), axis=1)");
    helpers.Line("    return picked.astype(rows.dtype)");
  }
  if (!state.window_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(value, axis, start, lower, limit, fill):",
                             state.window_fn));
    helpers.Line(
        "    # Keeps the elements of a jagged block whose index along axis "
        "is in");
    helpers.Line(
        "    # [lower, limit); the block starts at an aligned row at or "
        "below lower.");
    helpers.Line(
        "    index = start + jax.lax.broadcasted_iota(jnp.int32, "
        "value.shape, axis)");
    helpers.Line(
        "    return jnp.where((index >= lower) & (index < limit), value, "
        "jnp.asarray(fill, value.dtype))");
  }
  if (!state.window_mask_fn.empty()) {
    helpers.Blank();
    helpers.Blank();
    helpers.Line(fmt::format("def {}(value, axis, start, lower, limit):",
                             state.window_mask_fn));
    helpers.Line(
        "    # True for the elements of a jagged block whose index along "
        "axis is in");
    helpers.Line(
        "    # [lower, limit): the rows a masked store writes, the others "
        "belong to");
    helpers.Line("    # neighbouring segments.");
    helpers.Line(
        "    index = start + jax.lax.broadcasted_iota(jnp.int32, "
        "value.shape, axis)");
    helpers.Line("    return (index >= lower) & (index < limit)");
  }
}

}  // namespace tessera::pallas
