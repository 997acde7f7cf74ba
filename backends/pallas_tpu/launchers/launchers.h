// The three inner-loop strategies. Each is a DeviceEmitter that lowers
// inner tile loops its own way; everything else is shared.
#pragma once

#include <memory>

#include "device_emitter.h"

namespace tessera::pallas {

std::unique_ptr<DeviceEmitter> MakeUnrollEmitter(const Module& module,
                                                 const KernelPlan& plan,
                                                 ModuleState& state,
                                                 const HostBindings& host,
                                                 const EmitOptions& options,
                                                 DiagnosticEngine& diagnostics);
std::unique_ptr<DeviceEmitter> MakeEmitPipelineEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics);
std::unique_ptr<DeviceEmitter> MakeForiLoopEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics);

}  // namespace tessera::pallas
