// The driver's Python side: commands that run a script of the source tree
// (scripts/verify_tpu.py, bench/matrix/bench.py) with the project's Python.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tessera::cli {

// $TESSERA_PYTHON, else the project venv the build was configured with.
std::string PythonInterpreter();

// Runs args[0] with args (PATH lookup); returns its exit code, or -1 with
// errno set when it could not be started.
int RunProcess(const std::vector<std::string>& args);

// Starts args[0] with args (PATH lookup) without waiting, its stdout sent to
// this process's stderr (a child's chatter must not mix into a TOML written
// to stdout). Returns its pid, or -1 with errno set.
int StartProcess(const std::vector<std::string>& args);

// The exit code of a process StartProcess started once it has ended:
// nullopt while it runs (with `block`, waits), -1 with errno on failure.
std::optional<int> ProcessExitCode(int pid, bool block);

// `tessera bench ARGS...`: bench/matrix/bench.py with ARGS, told to use this
// driver (--tessera) unless ARGS name one. Returns the exit code.
int RunBench(const std::vector<std::string>& args);

}  // namespace tessera::cli
