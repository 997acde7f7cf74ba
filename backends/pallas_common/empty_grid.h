// Launches with nothing to do. A kernel called with a zero-size dim that its
// grid or its outputs depend on has no program to run, and Pallas cannot
// express that: an empty grid axis fails in JAX (slices past the end of an
// empty operand), a zero-size block divides by zero. PyTorch and Helion
// return empty tensors there, so the host function skips the launch and
// binds each output to what the kernel would have left in it: its initial
// values (zeros, full, the caller's array) or, for a fresh output, zeros.
// The host code around the launch runs unchanged.
//
// A launch that does run may still read an operand with a zero-size dim (a
// matmul with K = 0, a sum over an empty axis): such an operand is padded to
// one block of zeros, which the kernel's loops over the true size never read
// (or mask, as any ragged tail), so a sum over it is 0 as in NumPy.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "device_emitter.h"
#include "kernel_plan.h"
#include "python_writer.h"

namespace tessera::pallas {

// One array a launch binds, as the host sees it after the call.
struct LaunchOutput {
  std::string name;               // the host name the launch binds
  std::vector<std::string> dims;  // its true sizes, host Python
  std::string dtype;              // "jnp.float32"
  // Aliased to its initial values (zeros, full, the caller's array): the
  // host name already holds what an empty grid leaves in it.
  bool has_init = false;
};

enum class LaunchEmptiness { kNever, kAlways, kAtCall };

struct EmptyLaunchGuard {
  LaunchEmptiness when = LaunchEmptiness::kNever;
  std::string condition;  // Python, when kAtCall: "x_d0 == 0 or n == 0"
  // Host sizes that are non-zero whenever the launch runs.
  std::set<std::string> nonzero_when_launched;
};

// The refs the launch writes, as the host binds them; `host_text(ref, d)`
// spells the host name of `ref` (d < 0) or its true size along dim d.
std::vector<LaunchOutput> LaunchOutputs(
    const KernelPlan& plan, const HostBindings& bindings,
    const std::function<std::string(const RefPlan&, int)>& host_text);

// Whether the launch is empty: some grid axis's extent (end - begin) is
// <= 0, or every output has a zero-size dim. Static sizes (numbers) decide
// at compile time.
EmptyLaunchGuard EmptyLaunchCondition(const HostBindings& bindings,
                                      const std::vector<LaunchOutput>& outputs);

// Writes the launch's lines (padding, the call, cropping) into `out` as the
// guard says: unchanged (kNever), replaced by the outputs' empties
// (kAlways), or under `if <condition>: <empties> else: <launch>`.
void WriteGuardedLaunch(const EmptyLaunchGuard& guard,
                        const std::vector<LaunchOutput>& outputs,
                        const PyLines& launch, PyLines& out);

// Whether `ref` is an operand whose dim `d` (of true size `size`, host
// Python) may be zero when the launch runs: then it is padded (to one
// block, PaddedStaticSize and the pad helper).
bool MayReadEmpty(const EmptyLaunchGuard& guard, const RefPlan& ref, size_t d,
                  const std::string& size);

// A static dim padded as `spec` says; an operand's dim of size 0 becomes
// one multiple (at least 1), so that its block is not empty.
int64_t PaddedStaticSize(int64_t size, const SpecDim& spec, bool operand);

}  // namespace tessera::pallas
