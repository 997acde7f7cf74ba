// The `tessera` command line: commands, flags and their help texts. Parsing
// is hand-written so that every mistake gets one clear message (with "did
// you mean" for a mistyped flag).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver/pipeline_resolution.h"

namespace tessera::cli {

enum class Command { kNone, kCompile, kPlugins, kPipeline, kTune };
enum class EmitKind { kIr, kCode, kReport };
enum class ReportFormat { kText, kJson };

// `tessera tune`: what to search and how far to check the winners.
struct TuneOptions {
  std::vector<std::string> launchers;  // empty: every launcher
  int top = 10;                        // rows shown
  // Candidates the real compiler checks: -1 follows `top` (the checked rows
  // are the shown ones unless asked otherwise); 0 skips the check.
  int verify_top = -1;
  int measure = 0;         // time the best N on a TPU host
  bool verify_tpu = true;  // --no-verify-tpu skips libtpu
  int jobs = 0;            // checker processes at once; 0: one per CPU
};

struct CliOptions {
  Command command = Command::kNone;
  bool show_help = false;     // --help (of `command`, or general)
  bool show_version = false;  // --version

  std::string input;   // compile
  std::string kernel;  // --kernel: only this kernel of the file ("" all)
  std::optional<std::string> config;
  std::optional<std::string> output;  // -o
  std::vector<std::string> plugin_paths;
  PipelineOverrides overrides;
  bool print_ir_after_all = false;
  std::vector<std::string> print_ir_after;
  bool timing = false;
  EmitKind emit = EmitKind::kCode;
  ReportFormat report_format = ReportFormat::kText;
  bool verify_each = true;
  bool verify_roundtrip = false;
  bool require_kernel = false;  // a module with no function is an error
  bool verify_tpu = false;      // --verify-tpu
  TuneOptions tune;
};

// Parses the arguments after the program name. On a usage error, `error`
// is set to a one-line message and the options are unusable.
CliOptions ParseCommandLine(const std::vector<std::string>& args,
                            std::string& error);

// The help text of `command` (kNone: the general usage).
std::string HelpText(Command command);
std::string CommandName(Command command);  // "compile", ...

}  // namespace tessera::cli
