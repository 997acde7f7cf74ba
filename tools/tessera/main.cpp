// The `tessera` driver. Exit codes: 0 success, 1 a user error (reported as
// a diagnostic), 2 an internal error.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli_options.h"
#include "python_tools.h"
#include "session.h"
#include "tessera/plugin.h"

namespace tessera::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUserError = 1;
constexpr int kExitInternalError = 2;

int Main(const std::vector<std::string>& args) {
  // `tessera bench` is a Python tool: its options are its own.
  if (!args.empty() && args[0] == "bench") {
    return RunBench({args.begin() + 1, args.end()});
  }
  if (args.size() == 2 && args[0] == "help" && args[1] == "bench") {
    return RunBench({"--help"});
  }
  std::string error;
  const CliOptions options = ParseCommandLine(args, error);
  if (!error.empty()) {
    std::cerr << "tessera: error: " << error << "\n";
    return kExitUserError;
  }
  if (options.show_help) {
    std::cout << HelpText(options.command);
    return kExitOk;
  }
  if (options.show_version && options.command == Command::kNone) {
    std::cout << "tessera " << TESSERA_VERSION << " (plugin ABI version "
              << TESSERA_PLUGIN_ABI_VERSION << ")\n"
              << "allocator: " << TESSERA_ALLOCATOR_NAME << "\n";
    return kExitOk;
  }

  Session session;
  absl::Status status;
  switch (options.command) {
    case Command::kCompile:
      status = RunCompile(options, session);
      break;
    case Command::kPlugins:
      status = RunPlugins(options, session);
      break;
    case Command::kPipeline:
      status = RunPipeline(options, session);
      break;
    case Command::kTune:
      status = RunTune(options, session);
      break;
    case Command::kNone:
      break;
  }
  std::cerr << session.diagnostics.RenderAll() << std::flush;
  if (status.ok() && !session.diagnostics.has_errors()) return kExitOk;
  if (session.diagnostics.has_errors()) return kExitUserError;
  std::cerr << "tessera: internal error: " << status.message() << "\n";
  return kExitInternalError;
}

}  // namespace
}  // namespace tessera::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return tessera::cli::Main(args);
  } catch (const std::exception& exception) {
    std::cerr << "tessera: internal error: uncaught exception: "
              << exception.what() << "\n";
  } catch (...) {
    std::cerr << "tessera: internal error: uncaught exception\n";
  }
  return 2;
}
