// Host scalar reads (IR `host_read`: `n = int(x_offsets[-1].item())`):
// the host function reads one element of an argument from device memory
// before it launches -- a device-to-host sync, as PyTorch's `.item()` --
// and sizes the launch with the value. A jitted function cannot read data
// into shapes, so the module's host function splits in three:
//
//   def k_host_reads(x, offs):            # eager: the sync
//       n = int(offs[offs_d0 - 1])
//       return {"n": n}
//
//   @functools.partial(jax.jit, static_argnames=("n", "interpret", ...))
//   def k_launch(x, offs, *, n, interpret=False, ...):
//       ...                               # the host body, n a Python int
//
//   def k(x, offs, *, interpret=False, ...):
//       return k_launch(x, offs, **k_host_reads(x, offs), interpret=...)
//
// so `k_launch` (with the read values as static arguments) still exports
// and compiles ahead of time. A kernel without host reads keeps its one
// host function, unchanged.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "python_writer.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

// True when `expr` reads a host scalar somewhere in its tree.
bool ContainsHostRead(const Expr& expr);

// The Python number a host-read assignment's value is: `int(x[i, j])`,
// `float(...)` or `bool(...)` for `[cast(]host_read(x)[scalar(i), ...][)]`
// with x a parameter of `host`, read before the launch (`launched`: the
// statement comes after it); `index` spells an index expression. An
// InvalidArgument status with the reason for anything else.
absl::StatusOr<std::string> HostReadValue(
    const Expr& value, const Function& host, bool launched,
    const std::function<std::string(const Expr&)>& index);

struct HostRead {
  std::string name;   // the Python name the value is bound to
  std::string value;  // HostReadValue
};

struct HostSyncParts {
  const Function* host = nullptr;
  std::string kernel;    // the public host function's name
  std::string params;    // "x, offs, eps=1e-05, " (HostParameters)
  std::string keywords;  // target keywords after interpret (", tpu=\"v6e\"")
  PyLines shape_reads;   // `x_d0 = x.shape[0]`, ... (some unused)
  PyLines static_lines;  // host scalars from sizes (some unused)
  std::vector<HostRead> reads;
  PyLines body;  // the host function's body
};

// The host function `def k(...)` with `body`, or, when the kernel reads
// host scalars, the three functions above; as module text.
std::string HostFunctions(const HostSyncParts& parts);

}  // namespace tessera::pallas
