// The pallas-gpu target (NVIDIA, Pallas's Triton and Mosaic GPU lowerings)
// over the shared plan and emitters of ../pallas_common.
#pragma once

#include <cstdint>

#include <memory>

#include "absl/status/statusor.h"
#include "device_emitter.h"
#include "pallas_module.h"

namespace tessera::pallas {

struct GpuModuleOptions {
  Launcher launcher = Launcher::kTriton;
  // Triton's CompilerParams: warps per program and software-pipeline
  // stages of the loads in inner loops; 0: the kernel's own (the host
  // function's `num_warps` / `num_stages` attrs, from its decorator's
  // helion.Config), else chosen by gpu_policy.h.
  int64_t num_warps = 0;
  int64_t num_stages = 0;
  bool check_legality = true;
  // f32 x f32 dots in full f32 (Triton's IEEE input precision, FMA) rather
  // than TF32 tensor cores, Pallas's and Helion's default on NVIDIA.
  bool f32_dots_ieee = false;
  // EmitOptions::typed_params.
  std::map<std::string, std::set<std::string>> typed_params;
};

// The module of one kernel (host function `host` of `module`).
absl::StatusOr<EmittedFile> EmitGpuKernelModule(const Module& module,
                                                const Function& host,
                                                const GpuModuleOptions& options,
                                                DiagnosticEngine& diagnostics);

// The device emitter of `plan.launcher`:
// - `triton`: an inner tile loop is jax.lax.fori_loop over pl.ds slices of
//   the refs (Triton loads them as pointer blocks); carried values are the
//   loop carry.
// - `mosaic` (Mosaic GPU): inner loops only in the wgmma form of the
//   matmul family (mosaic_wgmma.h); any other inner loop is a located error
//   naming what the launcher does not do yet.
std::unique_ptr<DeviceEmitter> MakeGpuEmitter(const Module& module,
                                              const KernelPlan& plan,
                                              ModuleState& state,
                                              const HostBindings& host,
                                              const EmitOptions& options,
                                              DiagnosticEngine& diagnostics);
std::unique_ptr<DeviceEmitter> MakeMosaicGpuEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics);

}  // namespace tessera::pallas
