#include "driver/pass_manager.h"

#include <exception>
#include <iostream>

#include "fmt/format.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;

// Copies `source`'s diagnostics into `target` (after a summary line there).
void Forward(const DiagnosticEngine& source, DiagnosticEngine& target) {
  for (const Diagnostic& diagnostic : source.diagnostics()) {
    Diagnostic& copy = target.Report(diagnostic.severity, diagnostic.file,
                                     diagnostic.loc, diagnostic.message);
    for (const Diagnostic& note : diagnostic.notes) {
      DiagnosticEngine::AddNote(copy, note.file, note.loc, note.message);
    }
  }
}

std::string PropertiesOrNone(PropertySet properties) {
  return properties.empty() ? std::string("none") : properties.ToString();
}

// The analysis-like properties of `properties`, which hold only for the IR
// they were computed on.
PropertySet DroppedByAnyChange(PropertySet properties) {
  PropertySet dropped;
  for (Property property : properties.ToVector()) {
    if (property.info().dropped_by_any_change) dropped.Insert(property);
  }
  return dropped;
}

}  // namespace

std::string FormatTimingReport(const std::vector<TimingEntry>& entries) {
  std::string report = "===--- Tessera timing report ---===\n";
  report += fmt::format("{:>12}  {}\n", "wall (ms)", "step");
  double total = 0;
  for (const TimingEntry& entry : entries) {
    const double ms = entry.elapsed.count() * 1e3;
    total += ms;
    report += fmt::format("{:>12.3f}  {}\n", ms, entry.name);
  }
  report += fmt::format("{:>12.3f}  {}\n", total, "total");
  return report;
}

void PassManager::Time(std::string name, Clock::time_point start) {
  if (!options_.timing) return;
  timings_.push_back(TimingEntry{std::move(name), Clock::now() - start});
}

bool PassManager::ShouldPrintAfter(const std::string& pass_name) const {
  if (options_.print_ir_after_all) return true;
  for (const std::string& name : options_.print_ir_after) {
    if (name == pass_name) return true;
  }
  return false;
}

absl::Status PassManager::CheckInput(const Module& module,
                                     DiagnosticEngine& diagnostics) {
  absl::Status status = VerifyAfter(nullptr, module, diagnostics);
  if (!status.ok()) return status;
  return RoundTrip("the input", module);
}

absl::Status PassManager::Run(Module& module, const PipelineInfo& pipeline,
                              DiagnosticEngine& diagnostics) {
  absl::Status status = CheckInput(module, diagnostics);
  if (!status.ok()) return status;
  for (const ResolvedPass& pass : passes_) {
    status = RunOne(pass, module, pipeline, diagnostics);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status PassManager::RunOne(const ResolvedPass& pass, Module& module,
                                 const PipelineInfo& pipeline,
                                 DiagnosticEngine& diagnostics) {
  const PassInfo& info = *pass.info;
  std::vector<std::string> unknown;
  const PropertyContract contract = ResolveContract(info, &unknown);
  if (!unknown.empty()) {
    // Pipeline resolution reports these at the config; this catches a pass
    // added by hand.
    diagnostics.Error(pass.file, pass.loc,
                      fmt::format("pass '{}' names unknown property '{}'",
                                  info.name, unknown.front()));
    return absl::FailedPreconditionError(
        fmt::format("pass '{}' names unknown properties", info.name));
  }
  const PropertySet missing = contract.required.Minus(module.properties);
  if (!missing.empty()) {
    Diagnostic& error = diagnostics.Error(
        pass.file, pass.loc,
        fmt::format("pass '{}' requires propert{} '{}', which the module does "
                    "not have",
                    info.name, missing.ToVector().size() == 1 ? "y" : "ies",
                    missing.ToString()));
    DiagnosticEngine::AddNote(
        error, "", {},
        fmt::format("the module has: {}; run a pass that produces '{}' "
                    "before '{}'",
                    PropertiesOrNone(module.properties), missing.ToString(),
                    info.name));
    return absl::FailedPreconditionError(
        fmt::format("pass '{}' is missing required properties", info.name));
  }

  std::unique_ptr<Pass> instance = info.create();
  if (instance == nullptr) {
    return absl::InternalError(
        fmt::format("the factory of pass '{}' returned null", info.name));
  }
  PassContext context(diagnostics, pass.options, pipeline);
  const size_t errors_before = diagnostics.error_count();
  const Clock::time_point start = Clock::now();
  absl::StatusOr<bool> result = false;
  // Passes must not throw; one that does is a compiler bug, reported as an
  // internal error rather than a crash.
  try {
    result = instance->Run(module, context);
  } catch (const std::exception& exception) {
    return absl::InternalError(fmt::format("pass '{}' threw an exception: {}",
                                           info.name, exception.what()));
  } catch (...) {
    return absl::InternalError(
        fmt::format("pass '{}' threw a non-standard exception", info.name));
  }
  Time(info.name, start);
  const bool reported_errors = diagnostics.error_count() != errors_before;
  if (!result.ok()) {
    if (reported_errors) return result.status();
    return absl::InternalError(
        fmt::format("pass '{}' failed without a diagnostic: {}", info.name,
                    result.status().ToString()));
  }
  if (reported_errors) {
    return absl::InvalidArgumentError(
        fmt::format("pass '{}' reported errors", info.name));
  }

  const PropertySet verified = module.properties;
  PropertySet kept = module.properties.Minus(contract.invalidated);
  if (*result) kept = kept.Minus(DroppedByAnyChange(kept));
  module.properties = kept.Union(contract.produced);

  if (ShouldPrintAfter(info.name)) {
    std::ostream& out =
        options_.ir_stream != nullptr ? *options_.ir_stream : std::cerr;
    out << "# IR after pass '" << info.name << "'\n"
        << PrintModule(module) << std::flush;
  }

  // As MLIR's pass manager does for a pass that preserved everything: an
  // unchanged module was verified already, so only the properties it newly
  // claims need their verifiers (all of it when the new claim is one the
  // base walk checks).
  const PropertySet newly_claimed = module.properties.Minus(verified);
  if (!*result && newly_claimed.empty()) return absl::OkStatus();
  const bool claims_only_plugin_properties =
      !*result && !newly_claimed.Contains(kSsaProperty) &&
      !newly_claimed.Contains(kOutlinedProperty);
  absl::Status status =
      VerifyAfter(&pass, module, diagnostics,
                  claims_only_plugin_properties ? &newly_claimed : nullptr);
  if (!status.ok()) return status;
  return RoundTrip(fmt::format("pass '{}'", info.name), module);
}

absl::Status PassManager::VerifyAfter(const ResolvedPass* pass,
                                      const Module& module,
                                      DiagnosticEngine& diagnostics,
                                      const PropertySet* only) {
  if (!options_.verify_each) return absl::OkStatus();
  const Clock::time_point start = Clock::now();
  DiagnosticEngine verifier_diagnostics;
  absl::Status status = absl::OkStatus();
  if (only == nullptr) {
    status = Verify(module, verifier_diagnostics, module.properties);
  } else {
    for (Property property : only->ToVector()) {
      status.Update(VerifyProperty(module, property, verifier_diagnostics));
    }
  }
  if (pass != nullptr) Time(pass->info->name + " (verify)", start);
  if (status.ok() && !verifier_diagnostics.has_errors()) {
    return absl::OkStatus();
  }
  const std::string claimed = PropertiesOrNone(module.properties);
  Diagnostic& summary =
      pass != nullptr
          ? diagnostics.Error(
                pass->file, pass->loc,
                fmt::format("the IR after pass '{}' fails verification "
                            "(properties checked: {})",
                            pass->info->name, claimed))
          : diagnostics.Error(
                module.source_file, {},
                fmt::format("the input IR fails verification (properties "
                            "checked: {})",
                            claimed));
  if (!status.ok() && !verifier_diagnostics.has_errors()) {
    DiagnosticEngine::AddNote(summary, "", {}, std::string(status.message()));
  }
  Forward(verifier_diagnostics, diagnostics);
  return absl::InvalidArgumentError("verification failed");
}

absl::Status PassManager::RoundTrip(const std::string& after,
                                    const Module& module) {
  if (!options_.verify_roundtrip) return absl::OkStatus();
  const std::string text = PrintModule(module);
  const std::string name = fmt::format("<round-trip after {}>", after);
  DiagnosticEngine parse_diagnostics;
  parse_diagnostics.AddSource(name, text);
  absl::StatusOr<Module> reparsed = ParseModule(text, name, parse_diagnostics);
  if (!reparsed.ok()) {
    return absl::InternalError(fmt::format(
        "round-trip after {}: the printed IR does not parse:\n{}\n{}", after,
        parse_diagnostics.RenderAll(), text));
  }
  if (!StructurallyEqual(module, *reparsed)) {
    return absl::InternalError(
        fmt::format("round-trip after {}: parse(print(ir)) differs from ir: {}",
                    after, FirstDifference(module, *reparsed)));
  }
  const std::string reprinted = PrintModule(*reparsed);
  if (reprinted != text) {
    return absl::InternalError(
        fmt::format("round-trip after {}: print(parse(print(ir))) differs from "
                    "print(ir):\n--- first print\n{}--- second print\n{}",
                    after, text, reprinted));
  }
  return absl::OkStatus();
}

}  // namespace tessera
