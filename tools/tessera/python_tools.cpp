#include "python_tools.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

extern char** environ;

namespace tessera::cli {

std::string PythonInterpreter() {
  if (const char* python = std::getenv("TESSERA_PYTHON"); python && *python) {
    return python;
  }
  return TESSERA_DEFAULT_PYTHON;
}

int RunProcess(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error =
      posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (spawn_error != 0) {
    errno = spawn_error;
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int StartProcess(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const int spawn_error =
      posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    errno = spawn_error;
    return -1;
  }
  return pid;
}

std::optional<int> ProcessExitCode(int pid, bool block) {
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, block ? 0 : WNOHANG);
    if (done == 0) return std::nullopt;
    if (done > 0) break;
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunBench(const std::vector<std::string>& args) {
  std::vector<std::string> command = {PythonInterpreter(),
                                      TESSERA_BENCH_SCRIPT};
  bool names_driver = false;
  for (const std::string& arg : args) {
    names_driver |= arg == "--tessera" || arg.rfind("--tessera=", 0) == 0;
    command.push_back(arg);
  }
  std::error_code error;
  const std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (!names_driver && !error) command.push_back("--tessera=" + self.string());
  const int code = RunProcess(command);
  if (code < 0) {
    std::cerr << "tessera: error: bench: cannot run '" << command[0]
              << "': " << std::strerror(errno)
              << " (set TESSERA_PYTHON to a Python with jax, libtpu, "
                 "matplotlib and rich; scripts/setup.sh makes one)\n";
    return 1;
  }
  return code;
}

}  // namespace tessera::cli
