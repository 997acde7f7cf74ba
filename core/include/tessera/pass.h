// The pass interface. A pass is created by a plugin-registered factory,
// declares its contract (required / produced / invalidated properties) and
// its options in a PassInfo, and transforms a module in place:
//
//   absl::StatusOr<bool> Run(Module&, PassContext&)   // true: IR changed
//
// A user-facing problem (something in the kernel the pass cannot handle) is
// reported through ctx.diagnostics() with a location, and Run returns a
// non-OK status; the pass manager stops the pipeline there. A non-OK status
// with no error diagnostic is treated as an internal compiler error.
// Passes must not throw.
//
// Lifetime and threading: the core calls `create` each time it runs this
// pass (possibly several times per process) and destroys the object right
// after; all calls come from one thread. The context, the options and the
// module are valid only during the call: keep no pointer to them. Nothing
// may throw across the boundary.
//
// Remarks (ctx.diagnostics().Remark) are the way to report what a pass
// found without failing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/options.h"
#include "tessera/pipeline_info.h"
#include "tessera/properties.h"

namespace tessera {

class PassContext {
 public:
  PassContext(DiagnosticEngine& diagnostics, const OptionMap& options,
              const PipelineInfo& pipeline)
      : diagnostics_(diagnostics), options_(options), pipeline_(pipeline) {}

  DiagnosticEngine& diagnostics() { return diagnostics_; }
  // This pass's options, every declared option present.
  const OptionMap& options() const { return options_; }
  const PipelineInfo& pipeline() const { return pipeline_; }
  bool verbose() const { return pipeline_.verbose; }

 private:
  DiagnosticEngine& diagnostics_;
  const OptionMap& options_;
  const PipelineInfo& pipeline_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual absl::StatusOr<bool> Run(Module& module, PassContext& ctx) = 0;
};

struct PassInfo {
  std::string name;  // as written in configs and --passes
  std::string description;
  // The contract, by property handle or name (see PropertyRef); names are
  // resolved when the pipeline is resolved.
  PropertyRefs required;
  PropertyRefs produced;
  // May name properties no loaded plugin registers (ignored: none can be
  // claimed).
  PropertyRefs invalidated;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Pass>()> create;
};

}  // namespace tessera
