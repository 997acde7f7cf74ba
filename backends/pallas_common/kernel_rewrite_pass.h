// A backend lowering pass that rewrites each kernel on its own: the host
// function and the device function it launches, for every kernel of the
// module (BackendInfo::lowering_passes).
//
// The rewrites of pallas-tpu and pallas-gpu are per kernel by nature (what a
// kernel's refs need from the target); running them once over the module in
// place, rather than on a copy of the module per kernel inside Emit, keeps
// a file of many kernels linear in its size and puts each rewrite under
// verify-each and --print-ir-after-all.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "tessera/ir/ir.h"
#include "tessera/pass.h"

namespace tessera::pallas {

// Rewrites `host`'s kernel in `module` in place; true when it changed.
using KernelRewrite = std::function<bool(Module& module, Function& host)>;

// Whether the rewrite applies under the pipeline's backend options (e.g.
// one launcher's rewrite); null: always.
using RewriteGate = std::function<bool(const PipelineInfo& pipeline)>;

// A pass running `rewrite` over every host function of the module. It
// requires SSA and outlined IR and keeps both: a rewrite adds fresh names
// and keeps one launch per host function. `invalidated`: the properties
// (by name) whose invariants the rewrite may break.
PassInfo KernelRewritePass(std::string name, std::string description,
                           KernelRewrite rewrite, RewriteGate gate = nullptr,
                           PropertyRefs invalidated = {});

}  // namespace tessera::pallas
