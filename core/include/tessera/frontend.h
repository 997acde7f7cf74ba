// The frontend interface: source text in, a verified structured module out.
// User errors go to ctx.diagnostics() (several per run where possible) and
// the frontend returns a non-OK status; it never throws and never crashes on
// any input.
//
// Lifetime and threading: the core calls `create` each time it runs this
// frontend (possibly several times per process) and destroys the object right
// after; all calls come from one thread. The context, the options and the
// source text are valid only during the call: keep no pointer to them. Nothing
// may throw across the boundary.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/options.h"
#include "tessera/pipeline_info.h"

namespace tessera {

class FrontendContext {
 public:
  FrontendContext(DiagnosticEngine& diagnostics, const OptionMap& options,
                  const PipelineInfo& pipeline)
      : diagnostics_(diagnostics), options_(options), pipeline_(pipeline) {}

  DiagnosticEngine& diagnostics() { return diagnostics_; }
  const OptionMap& options() const { return options_; }
  const PipelineInfo& pipeline() const { return pipeline_; }

 private:
  DiagnosticEngine& diagnostics_;
  const OptionMap& options_;
  const PipelineInfo& pipeline_;
};

class Frontend {
 public:
  virtual ~Frontend() = default;
  // `path` is used for diagnostics and Module::source_file; `text` is the
  // file's contents (already registered with the diagnostic engine).
  virtual absl::StatusOr<Module> Parse(std::string_view path,
                                       std::string_view text,
                                       FrontendContext& ctx) = 0;
};

struct FrontendInfo {
  std::string name;
  std::string description;
  // File extensions this frontend reads by default, e.g. {".py"}.
  std::vector<std::string> extensions;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Frontend>()> create;
};

}  // namespace tessera
