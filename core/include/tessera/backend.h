// The backend interface: a module that has the backend's required
// properties in, generated files out (e.g. one Python module per kernel).
// User errors (e.g. a block shape the target cannot run) go to
// ctx.diagnostics() with a location and Emit returns a non-OK status.
//
// Lifetime and threading: the core calls `create` each time it runs this
// backend (possibly several times per process) and destroys the object right
// after; all calls come from one thread. The context, the options and the
// module are valid only during the call: keep no pointer to them. Nothing
// may throw across the boundary.
//
// Emit plans and emits the module it is given: rewrites the target needs
// first are lowering passes (BackendInfo::lowering_passes), not recursion
// inside Emit, so they have contracts and show in the pipeline.
//
// The driver writes the returned files (-o names a file when there is one,
// a directory when there are several).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/cost_estimate.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/options.h"
#include "tessera/pipeline_info.h"
#include "tessera/properties.h"

namespace tessera {

class BackendContext {
 public:
  BackendContext(DiagnosticEngine& diagnostics, const OptionMap& options,
                 const PipelineInfo& pipeline)
      : diagnostics_(diagnostics), options_(options), pipeline_(pipeline) {}

  DiagnosticEngine& diagnostics() { return diagnostics_; }
  const OptionMap& options() const { return options_; }
  const PipelineInfo& pipeline() const { return pipeline_; }
  bool verbose() const { return pipeline_.verbose; }

 private:
  DiagnosticEngine& diagnostics_;
  const OptionMap& options_;
  const PipelineInfo& pipeline_;
};

struct EmittedFile {
  std::string name;  // suggested file name, e.g. "attention_<backend>.py"
  std::string contents;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual absl::StatusOr<std::vector<EmittedFile>> Emit(
      const Module& module, BackendContext& ctx) = 0;
  // Optional: a modeled performance estimate per kernel Emit would produce
  // (`tessera compile --emit=report`). Problems with the input (a shape the
  // model needs is symbolic) go to ctx.diagnostics() as for Emit. A backend
  // without a model keeps this default.
  virtual absl::StatusOr<std::vector<KernelEstimate>> Estimate(
      const Module& module, BackendContext& ctx) {
    (void)module;
    (void)ctx;
    return absl::UnimplementedError("this backend has no performance model");
  }
};

struct BackendInfo {
  std::string name;
  std::string description;
  PropertyRefs required;  // by handle or name, as PassInfo's
  std::vector<OptionSpec> options;
  // The backend's lowering passes, by registered pass name: the
  // target-motivated IR->IR rewrites its Emit expects to have run (a
  // compiler's lowering stages, in our terms). The pass manager runs them after
  // the config's passes, in this order, with verify-each, --print-ir-after-all
  // and --timing like any pass, whenever the backend is part of the
  // pipeline. A pass that applies only under some of the backend's options
  // (a launcher) reads them from PipelineInfo::backend_options and leaves
  // the module as it is otherwise.
  std::vector<std::string> lowering_passes;
  std::function<std::unique_ptr<Backend>()> create;
};

}  // namespace tessera
