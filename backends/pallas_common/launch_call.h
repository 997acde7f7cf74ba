// The kernel launch the host function makes, as data: the shared host
// emitter (module_emitter.cpp) fills it in, and the target writes it:
// `pl.pallas_call` by default (WritePallasCall), another entry point where a
// target's kernels have one (pallas-gpu's mosaic launcher: `pl.kernel` over
// a Mosaic GPU mesh).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device_emitter.h"
#include "python_writer.h"

namespace tessera::pallas {

// One operand's outer BlockSpec.
struct LaunchSpec {
  std::string text;  // as pallas_call takes it: "pl.BlockSpec(...)"
  // Empty when the ref stays in memory (streamed by an inner loop, or an
  // atomic target); else its block shape and index map's result, both as
  // tuples: "(128, 128)", "(tile_m, tile_n)".
  std::string block;
  std::string index;
  bool in_memory() const { return block.empty(); }
};

struct LaunchCall {
  std::string kernel_name;  // the source's kernel: "matmul"
  std::string kernel_fn;    // the emitted device function
  // The device function's parameters in order: inputs (scalar-prefetched
  // ones first), aliased initial values, outputs, scratch.
  std::vector<std::string> kernel_params;
  std::vector<KernelKwarg> kwargs;
  std::string grid;  // "(pl.cdiv(512, 128), ...)"
  // The grid's axes in order, named after their tiles; the index maps'
  // parameters (then the scalar-prefetched refs).
  std::vector<std::string> grid_names;
  std::string lambda_head;  // "lambda tile_m, tile_n"
  // The scalar-prefetch grid spec when some inputs are prefetched.
  std::optional<std::string> grid_spec;
  size_t num_prefetched = 0;
  // Operands after the prefetched ones: inputs, then aliased initial
  // values (each the input of `aliases`).
  std::vector<LaunchSpec> in_specs;
  std::vector<LaunchSpec> out_specs;
  std::vector<std::string> out_shapes;  // "jax.ShapeDtypeStruct(...)"
  std::vector<std::string> out_names;   // the host names they are bound to
  std::vector<std::string> scratch_shapes;
  // (operand index counting the prefetched ones, output index).
  std::vector<std::pair<size_t, size_t>> aliases;
  PyLines call_params;            // compiler_params=..., cost_estimate=...
  std::vector<std::string> args;  // host arrays, in operand order
};

// `key=[item, ...],`, one item a line; a single item bare (`key=item,`)
// where `single_bare`.
void WriteKeywordList(const std::string& key,
                      const std::vector<std::string>& items, bool single_bare,
                      PyLines& out);

// `outs = pl.pallas_call(kernel, grid=..., in_specs=..., ...)(args)`.
void WritePallasCall(const LaunchCall& call, PyLines& out);

}  // namespace tessera::pallas
