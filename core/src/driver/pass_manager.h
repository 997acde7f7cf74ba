// Runs a pipeline of passes over a module, enforcing their contracts:
//  - before a pass: the module has every property the pass requires;
//  - after it: module.properties = (properties - invalidated) | produced,
//    where a pass that changed the IR also drops the properties registered
//    as dropped_by_any_change (analysis results) it does not produce,
//    and with verify-each the verifier checks the IR and every property the
//    module now claims, so a pass that claims a property it breaks is
//    caught right there;
//  - optionally: the IR is printed after all or named passes, each pass is
//    timed, and the text format is round-tripped (print -> parse ->
//    structural equality) after every pass.
// The first failure stops the pipeline; no later pass runs.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "driver/pipeline_resolution.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/pass.h"
#include "tessera/pipeline_info.h"

namespace tessera {

struct PassManagerOptions {
  bool verify_each = true;
  bool verify_roundtrip = false;
  bool print_ir_after_all = false;
  std::vector<std::string> print_ir_after;  // pass names
  bool timing = false;
  // Where printed IR goes; std::cerr when null.
  std::ostream* ir_stream = nullptr;
};

// Wall time of one step of a compilation.
struct TimingEntry {
  std::string name;
  std::chrono::duration<double> elapsed{};
};

// Formats a timing table ("  12.345 ms  ssa"), with a total line.
std::string FormatTimingReport(const std::vector<TimingEntry>& entries);

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options)
      : options_(std::move(options)) {}

  void AddPass(ResolvedPass pass) { passes_.push_back(std::move(pass)); }

  // Runs every pass in order. Returns OK when all succeeded. A user-facing
  // failure (a missing property, a pass's own diagnostics, verification
  // failures) is reported to `diagnostics` and returns a non-OK status; a
  // pass that fails without any diagnostic, throws, or a round-trip
  // mismatch returns an internal error with no new diagnostic.
  absl::Status Run(Module& module, const PipelineInfo& pipeline,
                   DiagnosticEngine& diagnostics);

  // One entry per pass run (pass time; verification and round-trip checks
  // as separate "(verify)" entries) when timing is on.
  const std::vector<TimingEntry>& timings() const { return timings_; }

  // Checks the module as it enters the pipeline: verifies it with the
  // properties it claims (when verify-each is on) and round-trips it (when
  // that is on). Run calls it first.
  absl::Status CheckInput(const Module& module, DiagnosticEngine& diagnostics);

 private:
  absl::Status RunOne(const ResolvedPass& pass, Module& module,
                      const PipelineInfo& pipeline,
                      DiagnosticEngine& diagnostics);
  // Verifies the module and every property it claims, or, given `only`,
  // just the verifiers of those properties (for a module already verified).
  absl::Status VerifyAfter(const ResolvedPass* pass, const Module& module,
                           DiagnosticEngine& diagnostics,
                           const PropertySet* only = nullptr);
  absl::Status RoundTrip(const std::string& after, const Module& module);
  bool ShouldPrintAfter(const std::string& pass_name) const;
  void Time(std::string name, std::chrono::steady_clock::time_point start);

  PassManagerOptions options_;
  std::vector<ResolvedPass> passes_;
  std::vector<TimingEntry> timings_;
};

}  // namespace tessera
