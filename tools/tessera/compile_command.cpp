// `tessera compile`: input -> (frontend | .tir parser) -> passes -> IR or
// backend output.
#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <utility>

#include "compile_steps.h"
#include "driver/cost_report.h"
#include "driver/pass_manager.h"
#include "driver/pipeline_resolution.h"
#include "fmt/format.h"
#include "module_check.h"
#include "session.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"
#include "verify_tpu.h"

namespace tessera::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A backend-suggested name must stay inside the output directory.
bool IsPlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// Writes the backend's files; `written` receives the paths of files (none
// for stdout).
absl::Status WriteEmittedFiles(const std::vector<EmittedFile>& files,
                               const CliOptions& options,
                               DiagnosticEngine& diagnostics,
                               std::vector<std::string>& written) {
  for (const EmittedFile& file : files) {
    if (!IsPlainFileName(file.name)) {
      return absl::InternalError(fmt::format(
          "the backend emitted a file with an invalid name '{}'", file.name));
    }
  }
  if (files.empty()) {
    diagnostics.Warning("", {}, "the backend emitted no files");
    return absl::OkStatus();
  }
  if (options.output && *options.output == "-") {
    for (const EmittedFile& file : files) {
      if (files.size() > 1) std::cout << "# ---- " << file.name << " ----\n";
      std::cout << file.contents;
    }
    std::cout << std::flush;
    return absl::OkStatus();
  }
  fs::path directory = ".";
  if (options.output) {
    const std::string& output = *options.output;
    std::error_code error;
    const bool is_directory = fs::is_directory(output, error) ||
                              output.back() == '/' || files.size() > 1;
    if (!is_directory) {
      written.push_back(output);
      return WriteOutputFile(output, files.front().contents, diagnostics);
    }
    directory = output;
    fs::create_directories(directory, error);
    if (error) {
      diagnostics.Error("", {},
                        fmt::format("cannot create output directory '{}': {}",
                                    output, error.message()));
      return absl::InvalidArgumentError("cannot write output");
    }
  }
  for (const EmittedFile& file : files) {
    absl::Status status = WriteOutputFile((directory / file.name).string(),
                                          file.contents, diagnostics);
    if (!status.ok()) return status;
    written.push_back((directory / file.name).string());
    if (options.overrides.verbose) {
      std::cerr << "tessera: wrote " << (directory / file.name).string()
                << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

absl::Status WriteReport(const std::vector<KernelEstimate>& estimates,
                         const CliOptions& options,
                         DiagnosticEngine& diagnostics) {
  const std::string text = options.report_format == ReportFormat::kJson
                               ? FormatEstimateJson(estimates)
                               : FormatEstimateTable(estimates);
  if (options.output && *options.output != "-") {
    return WriteOutputFile(*options.output, text, diagnostics);
  }
  std::cout << text << std::flush;
  return absl::OkStatus();
}

// --timing: the modeled kernel time in one line, or why there is none
// (without failing the compile).
std::string ModeledTimeLine(const Module& module,
                            const ResolvedPipeline& pipeline) {
  DiagnosticEngine quiet;
  auto estimates = RunEstimate(module, pipeline, quiet);
  if (estimates.ok()) return FormatModeledTime(*estimates);
  std::string why(estimates.status().message());
  for (const Diagnostic& diagnostic : quiet.diagnostics()) {
    why = diagnostic.message;
  }
  return fmt::format("modeled kernel time: unavailable ({})\n", why);
}

// `[kernels.NAME]` entries of the config must name kernels of the input: a
// misspelt name would leave the kernel at its own blocks without a word.
absl::Status CheckConfigKernelNames(const PipelineConfig& config,
                                    const Module& module,
                                    DiagnosticEngine& diagnostics) {
  std::vector<std::string> kernels;
  for (const Function& function : module.functions) {
    kernels.push_back(function.name);
  }
  bool ok = true;
  for (const KernelConfig& entry : config.kernels) {
    if (entry.name == "*" || std::find(kernels.begin(), kernels.end(),
                                       entry.name) != kernels.end()) {
      continue;
    }
    std::string message =
        fmt::format("[kernels.{}]: '{}' has no kernel '{}'", entry.name,
                    module.source_file, entry.name);
    const std::string closest = ClosestName(entry.name, kernels);
    if (!closest.empty()) {
      message += fmt::format("; did you mean '{}'?", closest);
    } else {
      message += fmt::format(" (its kernels: {})", fmt::join(kernels, ", "));
    }
    diagnostics.Error(entry.file, entry.name_loc, std::move(message));
    ok = false;
  }
  return ok ? absl::OkStatus()
            : absl::InvalidArgumentError("config names unknown kernels");
}

// The `@line:col` a statement line of a .tir file ends with (before a
// block's `{`) -> where that statement starts in the .tir. Statement
// locations in a .tir are those of the source it was made from.
std::map<std::pair<uint32_t, uint32_t>, SourceLoc> TirStatementLines(
    std::string_view text) {
  std::map<std::pair<uint32_t, uint32_t>, SourceLoc> lines;
  uint32_t number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(start, end - start);
    start = end + 1;
    ++number;
    while (!row.empty() &&
           (row.back() == ' ' || row.back() == '{' || row.back() == '\r')) {
      row.remove_suffix(1);
    }
    const size_t at = row.rfind('@');
    const size_t colon = row.find(':', at == std::string_view::npos ? 0 : at);
    if (at == std::string_view::npos || colon == std::string_view::npos) {
      continue;
    }
    const std::string line(row.substr(at + 1, colon - at - 1));
    const std::string col(row.substr(colon + 1));
    if (line.empty() || col.empty() ||
        line.find_first_not_of("0123456789") != std::string::npos ||
        col.find_first_not_of("0123456789") != std::string::npos ||
        line.size() > 9 || col.size() > 9) {
      continue;
    }
    const size_t indent = row.find_first_not_of(' ');
    const size_t last = row.find_last_not_of(' ', at == 0 ? 0 : at - 1);
    SourceLoc loc;
    loc.line = number;
    loc.col = static_cast<uint32_t>(indent) + 1;
    loc.length = last >= indent && last != std::string_view::npos
                     ? static_cast<uint32_t>(last - indent + 1)
                     : 1;
    lines.try_emplace({static_cast<uint32_t>(std::stoul(line)),
                       static_cast<uint32_t>(std::stoul(col))},
                      loc);
  }
  return lines;
}

// A .tir input is verified before any pass, and what is wrong with it is
// reported in the .tir (the file being compiled), with the source location
// its statement carries as a note: the verifier alone would name the
// module's original source file, which the user may not even have.
absl::Status VerifyTirInput(const Module& module, const std::string& path,
                            std::string_view text, bool verify_claims,
                            DiagnosticEngine& diagnostics) {
  DiagnosticEngine found;
  // The properties the module claims are checked only under verify-each:
  // --no-verify-each lets a broken claim through, as it does after passes.
  const absl::Status status =
      Verify(module, found, verify_claims ? module.properties : PropertySet{});
  if (status.ok() && !found.has_errors()) return absl::OkStatus();
  const auto lines = TirStatementLines(text);
  for (const Diagnostic& diagnostic : found.diagnostics()) {
    SourceLoc loc;
    if (diagnostic.loc.known()) {
      auto it = lines.find({diagnostic.loc.line, diagnostic.loc.col});
      if (it != lines.end()) loc = it->second;
    }
    Diagnostic& reported =
        diagnostics.Report(diagnostic.severity, path, loc, diagnostic.message);
    if (diagnostic.loc.known() && !diagnostic.file.empty()) {
      DiagnosticEngine::AddNote(
          reported, "", SourceLoc{},
          fmt::format("the statement's location in the source of the IR: "
                      "{}:{}:{}",
                      diagnostic.file, diagnostic.loc.line,
                      diagnostic.loc.col));
    }
    for (const Diagnostic& note : diagnostic.notes) {
      DiagnosticEngine::AddNote(reported, note.file, note.loc, note.message);
    }
  }
  if (!found.has_errors()) {
    diagnostics.Error(path, {},
                      fmt::format("the input IR fails verification: {}",
                                  std::string(status.message())));
  }
  return absl::InvalidArgumentError("the input IR fails verification");
}

absl::Status CheckPrintAfterNames(const CliOptions& options,
                                  const ResolvedPipeline& pipeline,
                                  DiagnosticEngine& diagnostics) {
  bool ok = true;
  // What the pass manager runs: the config's passes, then the backend's.
  std::vector<std::string> run;
  for (const ResolvedPass& pass : pipeline.passes)
    run.push_back(pass.info->name);
  for (const std::string& name : options.print_ir_after) {
    if (std::find(run.begin(), run.end(), name) != run.end()) continue;
    std::string message =
        fmt::format("--print-ir-after: pass '{}' is not in the pipeline", name);
    const std::string closest = ClosestName(name, run);
    if (!closest.empty())
      message += fmt::format("; did you mean '{}'?", closest);
    diagnostics.Error("", {}, std::move(message));
    ok = false;
  }
  return ok ? absl::OkStatus()
            : absl::InvalidArgumentError("bad --print-ir-after");
}

}  // namespace

absl::Status RunCompile(const CliOptions& options, Session& session) {
  DiagnosticEngine& diagnostics = session.diagnostics;
  if (options.output && *options.output != "-") {
    // Writing over the kernel source would lose it (GCC refuses the same).
    std::error_code error;
    if (fs::equivalent(*options.output, options.input, error) ||
        (options.config &&
         fs::equivalent(*options.output, *options.config, error))) {
      diagnostics.Error("", {},
                        fmt::format("-o '{}' is an input of the compile; it "
                                    "would be overwritten",
                                    *options.output));
      return absl::InvalidArgumentError("output is an input");
    }
  }
  absl::StatusOr<std::string> text = LoadInput(options, session);
  if (!text.ok()) return text.status();
  const bool is_tir = fs::path(options.input).extension() == ".tir";

  ResolveRequest request;
  request.input_path = is_tir ? "" : options.input;
  request.need_frontend = !is_tir;
  request.need_backend = options.emit != EmitKind::kIr;
  if (options.verify_tpu && (options.emit != EmitKind::kCode ||
                             (options.output && *options.output == "-"))) {
    diagnostics.Error("", {},
                      "--verify-tpu needs generated code written to a file "
                      "(--emit=code, and -o FILE or a directory, not '-')");
    return absl::InvalidArgumentError("bad --verify-tpu");
  }
  absl::StatusOr<ResolvedPipeline> pipeline =
      ResolvePipeline(session.config, options.overrides, session.registry,
                      request, diagnostics);
  if (!pipeline.ok()) return pipeline.status();
  absl::Status status = CheckPrintAfterNames(options, *pipeline, diagnostics);
  if (!status.ok()) return status;
  if (!options.kernel.empty()) {
    if (is_tir) {
      diagnostics.Error("", {},
                        "--kernel selects a kernel of a source file; a .tir "
                        "file is compiled whole");
      return absl::InvalidArgumentError("bad --kernel");
    }
    pipeline->info.selected_kernels = {options.kernel};
  }

  std::vector<TimingEntry> timings;
  std::string modeled_time;
  Clock::time_point start = Clock::now();
  absl::StatusOr<Module> module =
      ParseInput(options.input, *pipeline, *text, is_tir, diagnostics);
  if (!module.ok()) return module.status();
  if (module->functions.empty() && !options.kernel.empty() && !is_tir) {
    diagnostics.Error(options.input, {},
                      fmt::format("--kernel: no kernel named '{}' in the file",
                                  options.kernel));
    return absl::InvalidArgumentError("no such kernel");
  }
  if (module->functions.empty()) {
    // The frontend said why (a note); only --require-kernel makes it fatal.
    if (!options.require_kernel) return absl::OkStatus();
    diagnostics.Error(options.input, {},
                      "no kernel to compile (--require-kernel)");
    return absl::InvalidArgumentError("no kernel");
  }
  status = is_tir ? VerifyTirInput(*module, options.input, *text,
                                   options.verify_each, diagnostics)
           : options.kernel.empty()
               ? CheckConfigKernelNames(session.config, *module, diagnostics)
               : absl::OkStatus();
  if (!status.ok()) return status;
  timings.push_back(TimingEntry{
      is_tir ? std::string("parse .tir")
             : fmt::format("frontend '{}'", pipeline->frontend->name),
      Clock::now() - start});

  PassManagerOptions pm_options;
  pm_options.verify_each = options.verify_each;
  pm_options.verify_roundtrip = options.verify_roundtrip;
  pm_options.print_ir_after_all = options.print_ir_after_all;
  pm_options.print_ir_after = options.print_ir_after;
  pm_options.timing = options.timing;
  PassManager pass_manager(pm_options);
  for (ResolvedPass& pass : pipeline->passes) pass_manager.AddPass(pass);
  if (options.overrides.verbose) {
    std::cerr << fmt::format("tessera: running {} pass(es)\n",
                             pipeline->passes.size());
  }
  status = pass_manager.Run(*module, pipeline->info, diagnostics);
  for (const TimingEntry& entry : pass_manager.timings()) {
    timings.push_back(entry);
  }
  if (status.ok()) {
    if (options.emit == EmitKind::kIr) {
      const std::string ir = PrintModule(*module);
      if (options.output && *options.output != "-") {
        status = WriteOutputFile(*options.output, ir, diagnostics);
      } else {
        std::cout << ir << std::flush;
      }
    } else if (options.emit == EmitKind::kReport) {
      start = Clock::now();
      absl::StatusOr<std::vector<KernelEstimate>> estimates =
          RunEstimate(*module, *pipeline, diagnostics);
      timings.push_back(TimingEntry{
          fmt::format("backend '{}' estimate", pipeline->backend->name),
          Clock::now() - start});
      status = estimates.ok() ? WriteReport(*estimates, options, diagnostics)
                              : estimates.status();
      if (estimates.ok() && options.timing) {
        modeled_time = FormatModeledTime(*estimates);
      }
    } else {
      start = Clock::now();
      absl::StatusOr<std::vector<EmittedFile>> files =
          RunBackend(*module, *pipeline, diagnostics);
      timings.push_back(
          TimingEntry{fmt::format("backend '{}'", pipeline->backend->name),
                      Clock::now() - start});
      std::vector<std::string> written;
      status = files.ok()
                   ? CheckEmittedModules(*files, SourceKernelNames(*module))
                   : files.status();
      if (status.ok()) {
        status = WriteEmittedFiles(*files, options, diagnostics, written);
      }
      if (status.ok() && options.verify_tpu) {
        start = Clock::now();
        status = VerifyOnTpu(written, pipeline->info, diagnostics);
        timings.push_back(TimingEntry{"real TPU compiler (--verify-tpu)",
                                      Clock::now() - start});
      }
      if (status.ok() && options.timing) {
        modeled_time = ModeledTimeLine(*module, *pipeline);
      }
    }
  }
  if (options.timing) std::cerr << FormatTimingReport(timings) << modeled_time;
  return status;
}

}  // namespace tessera::cli
