#include "verify_tpu.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "fmt/format.h"
#include "python_tools.h"

namespace tessera::cli {
namespace {

// "x_pallas.py" -> "x": the kernel a module was generated for.
std::string KernelOf(const std::string& module) {
  std::string stem = std::filesystem::path(module).stem().string();
  const std::string suffix = "_pallas";
  if (stem.size() > suffix.size() &&
      stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
    stem.resize(stem.size() - suffix.size());
  }
  return stem;
}

std::vector<std::string> VerifierArgs(const std::string& module,
                                      const PipelineInfo& pipeline) {
  std::vector<std::string> args = {PythonInterpreter(),
                                   TESSERA_VERIFY_TPU_SCRIPT, module};
  const std::string tpu = pipeline.backend_options.GetString("tpu", "");
  if (!tpu.empty()) args.push_back("--tpu=" + tpu);
  std::set<std::string> given;
  for (const std::string& key : {std::string("*"), KernelOf(module)}) {
    auto kernel = pipeline.kernels.find(key);
    if (kernel == pipeline.kernels.end()) continue;
    for (const auto& [name, type] : kernel->second.args) {
      if (given.insert(name).second) {
        args.push_back(fmt::format("--arg={}={}", name, type));
      }
    }
  }
  return args;
}

// The complete lines of a verifier's --results file (it may be mid-write).
std::vector<BatchVerdict> ReadVerdicts(const std::string& results) {
  std::vector<BatchVerdict> verdicts;
  std::ifstream in(results);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start)) {
    const std::string line = text.substr(start, end - start);
    const size_t first = line.find('\t');
    const size_t second = line.find('\t', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    BatchVerdict verdict;
    verdict.kind = line.substr(0, first);
    verdict.module = line.substr(first + 1, second - first - 1);
    if (verdict.module == "-") verdict.module.clear();
    verdict.detail = line.substr(second + 1);
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

}  // namespace

absl::Status VerifyOnTpu(const std::vector<std::string>& modules,
                         const PipelineInfo& pipeline,
                         DiagnosticEngine& diagnostics) {
  size_t rejected = 0;
  for (const std::string& module : modules) {
    const std::vector<std::string> args = VerifierArgs(module, pipeline);
    const int code = RunProcess(args);
    if (code < 0) {
      diagnostics.Error("", {},
                        fmt::format("--verify-tpu: cannot run '{}': {} (set "
                                    "TESSERA_PYTHON to a Python with jax and "
                                    "libtpu; scripts/setup.sh makes one)",
                                    args[0], std::strerror(errno)));
      return absl::FailedPreconditionError("no Python for --verify-tpu");
    }
    if (code != 0) ++rejected;
  }
  if (rejected == 0) return absl::OkStatus();
  diagnostics.Error("", {},
                    fmt::format("--verify-tpu: the real TPU compiler did not "
                                "compile {} of {} module(s)",
                                rejected, modules.size()));
  return absl::InvalidArgumentError("rejected by the real TPU compiler");
}

absl::StatusOr<std::vector<BatchVerdict>> VerifyBatchOnTpu(
    const std::vector<std::string>& modules, const PipelineInfo& pipeline,
    int measure, int jobs, BatchObserver* observer) {
  if (modules.empty()) return std::vector<BatchVerdict>{};
  const size_t count =
      measure > 0 ? 1
                  : std::clamp<size_t>(static_cast<size_t>(std::max(jobs, 1)),
                                       1, modules.size());
  struct Worker {
    std::vector<std::string> args;
    std::string results;
    int pid = -1;
    std::optional<int> code;
  };
  std::vector<Worker> workers(count);
  for (size_t w = 0; w < count; ++w) {
    Worker& worker = workers[w];
    worker.args = VerifierArgs(modules[w], pipeline);
    std::vector<std::string> rest;
    for (size_t i = w + count; i < modules.size(); i += count) {
      rest.push_back(modules[i]);
    }
    worker.args.insert(worker.args.begin() + 3, rest.begin(), rest.end());
    worker.results = modules[w] + ".results";
    worker.args.push_back("--results=" + worker.results);
    if (measure > 0) {
      worker.args.push_back(fmt::format("--measure={}", measure));
    }
  }
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < modules.size(); ++i) index_of[modules[i]] = i;
  std::vector<bool> reported(modules.size(), false);
  auto report_new = [&] {
    for (const Worker& worker : workers) {
      std::map<size_t, std::vector<BatchVerdict>> checked;
      for (BatchVerdict& verdict : ReadVerdicts(worker.results)) {
        auto found = index_of.find(verdict.module);
        if (found == index_of.end() || reported[found->second]) continue;
        checked[found->second].push_back(std::move(verdict));
      }
      for (const auto& [index, verdicts] : checked) {
        reported[index] = true;
        if (observer != nullptr) observer->Checked(index, verdicts);
      }
    }
  };

  std::string failure;
  for (Worker& worker : workers) {
    worker.pid = StartProcess(worker.args);
    if (worker.pid < 0) {
      failure = std::strerror(errno);
      worker.code = -1;
      break;
    }
  }
  if (!failure.empty()) {
    // Nothing half-done is left running behind an error.
    for (Worker& worker : workers) {
      if (worker.pid < 0 || worker.code) continue;
      ::kill(worker.pid, SIGTERM);
      worker.code = ProcessExitCode(worker.pid, true);
    }
  }
  while (failure.empty()) {
    bool running = false;
    for (Worker& worker : workers) {
      if (!worker.code) worker.code = ProcessExitCode(worker.pid, false);
      running |= !worker.code.has_value();
    }
    if (observer != nullptr) report_new();
    if (!running) break;
    if (observer != nullptr) observer->Waiting();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const Worker& worker : workers) {
    if (failure.empty() && worker.code && *worker.code != 0) {
      failure = *worker.code < 0 ? std::string(std::strerror(errno))
                                 : std::to_string(*worker.code);
    }
  }
  if (!failure.empty()) {
    for (const Worker& worker : workers) std::remove(worker.results.c_str());
    return absl::FailedPreconditionError(fmt::format(
        "the real TPU compiler's check could not run ('{}' exited with {}; "
        "set TESSERA_PYTHON to a Python with jax and libtpu, or pass "
        "--no-verify-tpu)",
        workers.front().args[0], failure));
  }
  // The order of `modules`, not of the processes: "no-tpu" first, then
  // each module's lines.
  std::vector<BatchVerdict> notes;
  std::vector<std::vector<BatchVerdict>> by_module(modules.size());
  for (const Worker& worker : workers) {
    for (BatchVerdict& verdict : ReadVerdicts(worker.results)) {
      auto found = index_of.find(verdict.module);
      if (verdict.module.empty()) {
        notes.push_back(std::move(verdict));
      } else if (found != index_of.end()) {
        by_module[found->second].push_back(std::move(verdict));
      }
    }
    std::remove(worker.results.c_str());
  }
  std::vector<BatchVerdict> verdicts = std::move(notes);
  for (std::vector<BatchVerdict>& lines : by_module) {
    for (BatchVerdict& verdict : lines) verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

}  // namespace tessera::cli
