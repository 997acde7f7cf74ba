#include "scan_lowering.h"

#include "fmt/format.h"

namespace tessera::pallas {

std::string TpuScanExpr(ModuleState& state, const PallasTarget::ScanCall& call,
                        std::string& error) {
  // Mosaic rotates along the two minor dims of a vector (sublanes and
  // lanes); a leading dim of a rank-3 block would be a relayout.
  if (call.rank > 2 && call.axis + 2 < static_cast<int64_t>(call.rank)) {
    error = fmt::format(
        "a scan along dim {} of a rank-{} block is not supported on the TPU "
        "(the rotations of its steps run along the two minor dims only)",
        call.axis, call.rank);
    return "None";
  }
  std::string values;
  for (size_t j = 0; j < call.inputs.size(); ++j) {
    values += (j ? ", " : "") + call.inputs[j];
  }
  if (call.inputs.size() == 1) values += ",";
  std::string text =
      fmt::format("{}({}, ({}), {}, {}", state.ScanBlock(), call.combine,
                  values, call.axis, call.reverse ? "True" : "False");
  if (!call.valid.empty()) text += ", valid=" + call.valid;
  return fmt::format("{})[{}]", text, call.result);
}

void AppendScanHelper(const ModuleState& state, PyLines& helpers) {
  if (state.scan_fn.empty()) return;
  helpers.Blank();
  helpers.Blank();
  helpers.Line(fmt::format(
      "def {}(combine, values, axis, reverse, valid=None):", state.scan_fn));
  for (
      const char* line : {
          "    # The inclusive scan of the tuple `values` along `axis`, within "
          "the block:",
          "    # log2(n) Hillis-Steele steps of a rotation and a select "
          "(Mosaic "
          "lowers",
          "    # neither lax.associative_scan nor jnp.cumsum). Element i "
          "combines the",
          "    # element `step` before it (after it when reversed, up to the "
          "`valid`",
          "    # elements of a ragged tail). Members narrower than 32 bits are "
          "scanned",
          "    # as 32-bit values: Mosaic rotates no packed type and has no "
          "int8 vector",
          "    # arithmetic.",
          "    shape = values[0].shape",
          "    dtypes = tuple(v.dtype for v in values)",
          "    values = tuple(",
          "        v if v.dtype.itemsize == 4",
          "        else v.astype(jnp.float32 if jnp.issubdtype(v.dtype, "
          "jnp.floating) else jnp.int32)",
          "        for v in values)",
          "    if len(shape) == 1:",
          "        values = tuple(v.reshape(1, shape[0]) for v in values)",
          "        axis = 1",
          "    n = values[0].shape[axis]",
          "    position = jax.lax.broadcasted_iota(jnp.int32, "
          "values[0].shape, axis)",
          "    # `valid` counts from the block's start to the dim's end (it "
          "may "
          "pass n).",
          "    limit = n if valid is None else jnp.minimum(valid, n)",
          "    step = 1",
          "    while step < n:",
          "        shift = n - step if reverse else step",
          "        moved = tuple(pltpu.roll(v, shift, axis) for v in values)",
          "        keep = position + step < limit if reverse else position >= "
          "step",
          "        combined = combine(*moved, *values)",
          "        values = tuple(jnp.where(keep, c, v).astype(v.dtype)",
          "                       for c, v in zip(combined, values))",
          "        step *= 2",
          "    return tuple(v.reshape(shape).astype(d) for v, d in zip(values, "
          "dtypes))",
      }) {
    helpers.Line(line);
  }
}

}  // namespace tessera::pallas
