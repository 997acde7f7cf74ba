// Helpers of the backends' lowering passes (pallas_tpu/passes,
// pallas_gpu/passes): finding a kernel's launch and its device function,
// and naming what a rewrite adds.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "tessera/ir/ir.h"

namespace tessera::pallas {

// The first launch among the host function's top-level statements, or null.
const Stmt* FindTopLevelLaunch(const Function& host);
Stmt* FindTopLevelLaunch(Function& host);

// The device function `launch` calls, or null.
const Function* LaunchCallee(const Module& module, const Stmt& launch);

// What every rewrite starts from: the host function's first top-level launch
// and the device function it calls (its first grid_rank() parameters are
// the grid's tiles, the others the launch's operands in order).
struct LaunchedDevice {
  const Stmt* launch = nullptr;
  const Function* device = nullptr;
  size_t grid_rank() const { return launch->dims.size(); }
};
// nullopt when `host` launches no device function of `module`.
std::optional<LaunchedDevice> FindLaunchedDevice(const Module& module,
                                                 const Function& host);

// `base`, or `base_1`, `base_2`, ...: the first that names no parameter,
// result, loop variable or iter arg of `function`.
std::string FreshName(const Function& function, const std::string& base);

}  // namespace tessera::pallas
