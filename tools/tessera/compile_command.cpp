// `tessera compile`: input -> (frontend | .tir parser) -> passes -> IR or
// backend output.
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "compile_steps.h"
#include "driver/cost_report.h"
#include "driver/pass_manager.h"
#include "driver/pipeline_resolution.h"
#include "fmt/format.h"
#include "session.h"
#include "tessera/ir/text.h"
#include "verify_tpu.h"

namespace tessera::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

absl::Status WriteFile(const fs::path& path, const std::string& contents,
                       DiagnosticEngine& diagnostics) {
  std::ofstream stream(path, std::ios::binary);
  stream << contents;
  stream.close();
  if (!stream) {
    diagnostics.Error("", {}, fmt::format("cannot write '{}'", path.string()));
    return absl::InvalidArgumentError("cannot write output");
  }
  return absl::OkStatus();
}

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
      return WriteFile(output, files.front().contents, diagnostics);
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
    absl::Status status =
        WriteFile(directory / file.name, file.contents, diagnostics);
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
    return WriteFile(*options.output, text, diagnostics);
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

absl::Status CheckPrintAfterNames(const CliOptions& options,
                                  const ResolvedPipeline& pipeline,
                                  DiagnosticEngine& diagnostics) {
  bool ok = true;
  for (const std::string& name : options.print_ir_after) {
    bool found = false;
    for (const std::string& pass : pipeline.info.passes) found |= pass == name;
    if (found) continue;
    std::string message =
        fmt::format("--print-ir-after: pass '{}' is not in the pipeline", name);
    const std::string closest = ClosestName(name, pipeline.info.passes);
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
        status = WriteFile(*options.output, ir, diagnostics);
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
                   ? WriteEmittedFiles(*files, options, diagnostics, written)
                   : files.status();
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
