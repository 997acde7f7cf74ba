#include "cli_options.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <string_view>

#include "fmt/format.h"
#include "tessera/diagnostics.h"

namespace tessera::cli {
namespace {

constexpr unsigned kCompile = 1;
constexpr unsigned kPlugins = 2;
constexpr unsigned kPipeline = 4;
constexpr unsigned kTune = 8;
constexpr unsigned kAll = kCompile | kPlugins | kPipeline | kTune;

struct FlagSpec {
  std::string_view name;        // "--timing", "-o"
  std::string_view value_name;  // "" for a switch
  unsigned commands;
  std::string_view help;
};

constexpr FlagSpec kFlags[] = {
    {"--config", "FILE", kAll,
     "pipeline config (TOML); default: the built-in pipeline"},
    {"-o", "OUT", kCompile,
     "output file (directory when several files result; '-' = stdout); "
     "default: stdout for --emit=ir, the current directory for code"},
    {"-o", "FILE", kTune,
     "write the tuned config (TOML) that `tessera compile --config` reads "
     "to FILE ('-' = stdout, the table then on stderr); default: none "
     "written"},
    {"--output", "OUT", kCompile | kTune, "same as -o"},
    {"--emit", "ir|code|report", kCompile,
     "'code' (default) runs the backend; 'ir' prints the IR after the "
     "passes; 'report' prints the backend's modeled performance"},
    {"--report-format", "text|json", kCompile,
     "--emit=report as a table (default) or as JSON"},
    {"--passes", "A,B,...", kCompile | kPipeline,
     "run these passes instead of the config's ('' = none)"},
    {"--launcher", "NAME", kCompile | kPipeline,
     "set the backend option 'launcher'"},
    {"--launchers", "A,B,...", kTune,
     "launchers to search (default: unroll,emit_pipeline,fori_loop)"},
    {"--top", "N", kTune, "candidates to show (default 10)"},
    {"--verify-top", "N", kTune,
     "the best N the real TPU compiler checks (default: --top; 0 = none, as "
     "--no-verify-tpu)"},
    {"--jobs", "N", kTune,
     "real TPU compiler checks run at once (default: the number of CPUs, at "
     "most one per candidate)"},
    {"--measure", "N", kTune,
     "time the best N on the TPU of this host (needs jax.devices() to have "
     "one)"},
    {"--kernel", "NAME", kCompile | kTune,
     "compile (tune) only this kernel of the file: its sibling kernels are "
     "not lowered, so their errors do not stop it"},
    {"--no-verify-tpu", "", kTune,
     "rank by the cost model only (skip the real TPU compiler's check)"},
    {"--tpu", "GEN", kCompile | kPipeline | kTune,
     "set the backend option 'tpu' (v5e, v6e, v7x): legality, VMEM budget "
     "and the cost model"},
    {"--arg", "NAME=TYPE", kCompile | kPipeline | kTune,
     "argument type for every kernel, e.g. x=bf16[1024,512] (repeatable)"},
    {"--plugin-path", "PATH", kAll,
     "load plugins from this file or directory first (repeatable)"},
    {"--print-ir-after-all", "", kCompile, "print the IR after every pass"},
    {"--print-ir-after", "PASS", kCompile,
     "print the IR after the named passes (repeatable, comma-separated)"},
    {"--timing", "", kCompile,
     "report the wall time of each step and the modeled kernel time"},
    {"--no-verify-each", "", kCompile,
     "do not verify the IR and its properties after each pass"},
    {"--verify-roundtrip", "", kCompile,
     "check print -> parse -> structural equality after every pass"},
    {"--require-kernel", "", kCompile,
     "fail (exit 1) when the input defines no kernel, instead of a note"},
    {"--verify-tpu", "", kCompile,
     "compile each written module with the real TPU compiler (libtpu, no "
     "TPU needed) and report its first error at the kernel line"},
    {"--verbose", "", kAll, "say what is loaded and run"},
    {"--help", "", kAll, "show this help"},
};

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

unsigned CommandBit(Command command) {
  switch (command) {
    case Command::kCompile:
      return kCompile;
    case Command::kPlugins:
      return kPlugins;
    case Command::kPipeline:
      return kPipeline;
    case Command::kTune:
      return kTune;
    case Command::kNone:
      break;
  }
  return 0;
}

std::string FlagHelp(unsigned bit) {
  std::string text = "options:\n";
  for (const FlagSpec& flag : kFlags) {
    if ((flag.commands & bit) == 0) continue;
    std::string spelled(flag.name);
    if (!flag.value_name.empty()) {
      spelled +=
          (flag.name.size() == 2 ? " " : "=") + std::string(flag.value_name);
    }
    text += fmt::format("  {:<26} {}\n", spelled, flag.help);
  }
  return text;
}

// Flags that take one value: given twice, one of the two would be dropped
// without a word (as GCC, Tessera refuses rather than guessing).
bool SingleValued(std::string_view name) {
  for (std::string_view single :
       {"--config", "-o", "--output", "--emit", "--report-format", "--passes",
        "--launcher", "--kernel", "--top", "--measure", "--launchers",
        "--verify-top", "--jobs"}) {
    if (name == single) return true;
  }
  return false;
}

// Applies one flag; returns an error message or "".
std::string Apply(const FlagSpec& flag, const std::string& value,
                  CliOptions& options,
                  std::map<std::string, std::string>& seen) {
  const std::string_view name = flag.name;
  if (SingleValued(name)) {
    // -o and --output are one flag.
    const std::string key = name == "-o" ? "--output" : std::string(name);
    auto [it, fresh] = seen.try_emplace(key, value);
    if (!fresh) {
      return fmt::format("{} given twice ('{}' and '{}'); give it once", name,
                         it->second, value);
    }
  }
  if (name == "--config") {
    options.config = value;
  } else if (name == "-o" || name == "--output") {
    if (value.empty()) return fmt::format("{} needs a path", name);
    options.output = value;
  } else if (name == "--emit") {
    if (value == "ir") {
      options.emit = EmitKind::kIr;
    } else if (value == "code") {
      options.emit = EmitKind::kCode;
    } else if (value == "report") {
      options.emit = EmitKind::kReport;
    } else {
      return fmt::format("--emit must be 'ir', 'code' or 'report', got '{}'",
                         value);
    }
  } else if (name == "--report-format") {
    if (value == "text") {
      options.report_format = ReportFormat::kText;
    } else if (value == "json") {
      options.report_format = ReportFormat::kJson;
    } else {
      return fmt::format("--report-format must be 'text' or 'json', got '{}'",
                         value);
    }

  } else if (name == "--passes") {
    std::vector<std::string> passes = SplitList(value);
    for (const std::string& pass : passes) {
      if (pass.empty())
        return fmt::format("empty pass name in --passes '{}'", value);
    }
    options.overrides.passes = std::move(passes);
  } else if (name == "--launcher") {
    options.overrides.backend_options.push_back(
        {"launcher", value, "--launcher"});
  } else if (name == "--tpu") {
    options.overrides.backend_options.push_back({"tpu", value, "--tpu"});
  } else if (name == "--arg") {
    const size_t equals = value.find('=');
    if (equals == std::string::npos || equals == 0 ||
        equals + 1 == value.size()) {
      return fmt::format(
          "--arg expects NAME=TYPE (e.g. x=bf16[1024,512]), got '{}'", value);
    }
    const std::string arg_name = value.substr(0, equals);
    for (const auto& [given, spelling] : options.overrides.args) {
      if (given == arg_name) {
        return fmt::format("--arg {} given twice ('{}' and '{}'); give it once",
                           arg_name, spelling, value.substr(equals + 1));
      }
    }
    options.overrides.args.emplace_back(arg_name, value.substr(equals + 1));
  } else if (name == "--plugin-path") {
    options.plugin_paths.push_back(value);
  } else if (name == "--print-ir-after-all") {
    options.print_ir_after_all = true;
  } else if (name == "--print-ir-after") {
    for (std::string& pass : SplitList(value)) {
      if (pass.empty()) return "empty pass name in --print-ir-after";
      options.print_ir_after.push_back(std::move(pass));
    }
  } else if (name == "--timing") {
    options.timing = true;
  } else if (name == "--no-verify-each") {
    options.verify_each = false;
  } else if (name == "--verify-roundtrip") {
    options.verify_roundtrip = true;
  } else if (name == "--require-kernel") {
    options.require_kernel = true;
  } else if (name == "--verify-tpu") {
    options.verify_tpu = true;
  } else if (name == "--launchers") {
    options.tune.launchers = SplitList(value);
  } else if (name == "--top" || name == "--measure" || name == "--verify-top" ||
             name == "--jobs") {
    // --jobs 0 is refused rather than read as "the default": a count the
    // user wrote is taken as written.
    const long least = name == "--jobs" ? 1 : 0;
    char* end = nullptr;
    errno = 0;
    const long count = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno != 0 || count < least ||
        count > 1000) {
      return fmt::format("{} expects a {} ({}-1000), got '{}'", name,
                         name == "--jobs" ? "job count" : "count", least,
                         value);
    }
    int& target = name == "--top"          ? options.tune.top
                  : name == "--measure"    ? options.tune.measure
                  : name == "--verify-top" ? options.tune.verify_top
                                           : options.tune.jobs;
    target = static_cast<int>(count);
  } else if (name == "--kernel") {
    options.kernel = value;
  } else if (name == "--no-verify-tpu") {
    options.tune.verify_tpu = false;
  } else if (name == "--verbose") {
    options.overrides.verbose = true;
  } else if (name == "--help") {
    options.show_help = true;
  }
  return "";
}

}  // namespace

std::string CommandName(Command command) {
  switch (command) {
    case Command::kCompile:
      return "compile";
    case Command::kPlugins:
      return "plugins";
    case Command::kPipeline:
      return "pipeline";
    case Command::kTune:
      return "tune";
    case Command::kNone:
      break;
  }
  return "";
}

std::string HelpText(Command command) {
  switch (command) {
    case Command::kCompile:
      return "usage: tessera compile INPUT [options]\n\n"
             "Compiles INPUT (a kernel file read by a frontend plugin, or "
             ".tir\n"
             "textual IR) through the pipeline's passes and backend.\n\n" +
             FlagHelp(kCompile);
    case Command::kPlugins:
      return "usage: tessera plugins [options]\n\n"
             "Lists the loaded plugins: name, version, file, and the\n"
             "frontends, passes and backends each registers.\n\n" +
             FlagHelp(kPlugins);
    case Command::kPipeline:
      return "usage: tessera pipeline [--config FILE] [options]\n\n"
             "Prints the resolved pipeline (as TOML), every option with its\n"
             "value.\n\n" +
             FlagHelp(kPipeline);
    case Command::kTune:
      return "usage: tessera tune INPUT --arg NAME=TYPE ... [options]\n\n"
             "Chooses block sizes and a launcher for each kernel of INPUT at\n"
             "the given shapes: enumerates candidates, drops what the TPU\n"
             "legality checks reject, ranks the rest by the cost model, "
             "checks\n"
             "the best with the real TPU compiler and writes the winner as a\n"
             "config that `tessera compile --config` reads "
             "(docs/tuning.md).\n\n" +
             FlagHelp(kTune);
    case Command::kNone:
      break;
  }
  return "usage: tessera <command> [options]\n\n"
         "commands:\n"
         "  compile INPUT   compile a kernel or a .tir file\n"
         "  plugins         list the loaded plugins and what they provide\n"
         "  pipeline        print the resolved pipeline\n"
         "  bench [MATRIX]  run the per-launcher benchmark matrix (bench "
         "--help)\n"
         "  tune INPUT      choose block sizes and a launcher (cost model)\n\n"
         "  tessera <command> --help   help of one command\n"
         "  tessera --version          print the version\n\n"
         "exit codes: 0 success, 1 user error (with a diagnostic), 2 internal "
         "error\n";
}

CliOptions ParseCommandLine(const std::vector<std::string>& args,
                            std::string& error) {
  CliOptions options;
  error.clear();
  size_t i = 0;
  // Leading global flags.
  for (; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      options.show_help = true;
    } else if (args[i] == "--version") {
      options.show_version = true;
    } else {
      break;
    }
  }
  if (i == args.size()) {
    if (!options.show_help && !options.show_version) {
      error = "no command given (try 'tessera --help')";
    }
    return options;
  }
  const std::string& command = args[i++];
  static const std::vector<std::string> kCommands = {
      "compile", "plugins", "pipeline", "bench", "tune", "help"};
  if (command == "compile") {
    options.command = Command::kCompile;
  } else if (command == "plugins") {
    options.command = Command::kPlugins;
  } else if (command == "pipeline") {
    options.command = Command::kPipeline;
  } else if (command == "tune") {
    options.command = Command::kTune;
  } else if (command == "help") {
    options.show_help = true;
    if (i < args.size()) {
      const std::string& topic = args[i++];
      if (topic == "compile")
        options.command = Command::kCompile;
      else if (topic == "plugins")
        options.command = Command::kPlugins;
      else if (topic == "pipeline")
        options.command = Command::kPipeline;
      else if (topic == "tune")
        options.command = Command::kTune;
      else
        error = fmt::format("no help for unknown command '{}'", topic);
    }
    return options;
  } else {
    error = fmt::format("unknown command '{}'", command);
    const std::string closest = ClosestName(command, kCommands);
    if (!closest.empty())
      error += fmt::format("; did you mean '{}'?", closest);
    else
      error += " (commands: compile, plugins, pipeline, bench, tune, help)";
    return options;
  }

  const unsigned bit = CommandBit(options.command);
  std::vector<std::string> positional;
  std::map<std::string, std::string> seen;  // single-valued flags given
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    if (arg == "-h") {
      options.show_help = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> value;
    if (arg.rfind("--", 0) == 0) {
      const size_t equals = arg.find('=');
      if (equals != std::string::npos) {
        name = arg.substr(0, equals);
        value = arg.substr(equals + 1);
      }
    }
    // A flag may have one entry per command (its help differs): the one of
    // this command wins.
    const FlagSpec* flag = nullptr;
    std::vector<std::string> known;
    for (const FlagSpec& candidate : kFlags) {
      if ((candidate.commands & bit) != 0) known.emplace_back(candidate.name);
      if (candidate.name == name &&
          (flag == nullptr || (candidate.commands & bit) != 0)) {
        flag = &candidate;
      }
    }
    if (flag == nullptr || (flag->commands & bit) == 0) {
      error = flag == nullptr
                  ? fmt::format("unknown option '{}' for 'tessera {}'", name,
                                command)
                  : fmt::format("option '{}' does not apply to 'tessera {}'",
                                name, command);
      const std::string closest = ClosestName(name, known);
      if (!closest.empty())
        error += fmt::format("; did you mean '{}'?", closest);
      return options;
    }
    if (flag->value_name.empty()) {
      if (value) {
        error = fmt::format("option '{}' takes no value", name);
        return options;
      }
      value = "";
    } else if (!value) {
      if (i + 1 >= args.size()) {
        error = fmt::format("option '{}' expects a value ({})", name,
                            flag->value_name);
        return options;
      }
      value = args[++i];
    }
    error = Apply(*flag, *value, options, seen);
    if (!error.empty()) return options;
  }
  if (options.show_help) return options;

  if (options.command == Command::kCompile ||
      options.command == Command::kTune) {
    if (positional.empty()) {
      error = fmt::format("'tessera {}' needs an INPUT file", command);
    } else if (positional.size() > 1) {
      error = fmt::format("'tessera {}' takes one INPUT, got '{}' and '{}'",
                          command, positional[0], positional[1]);
    } else {
      options.input = positional[0];
    }
  } else if (!positional.empty()) {
    error = fmt::format("unexpected argument '{}' for 'tessera {}'",
                        positional[0], command);
  }
  return options;
}

}  // namespace tessera::cli
