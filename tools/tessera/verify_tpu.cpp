#include "verify_tpu.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

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
    int measure) {
  if (modules.empty()) return std::vector<BatchVerdict>{};
  std::vector<std::string> args = VerifierArgs(modules[0], pipeline);
  args.insert(args.begin() + 3, modules.begin() + 1, modules.end());
  const std::string results = modules[0] + ".results";
  args.push_back("--results=" + results);
  if (measure > 0) args.push_back(fmt::format("--measure={}", measure));
  const int code = RunProcess(args);
  if (code != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "the real TPU compiler's check could not run ('{}' exited with {}; "
        "set TESSERA_PYTHON to a Python with jax and libtpu, or pass "
        "--no-verify-tpu)",
        args[0],
        code < 0 ? std::string(std::strerror(errno)) : std::to_string(code)));
  }
  std::vector<BatchVerdict> verdicts;
  std::ifstream in(results);
  std::string line;
  while (std::getline(in, line)) {
    BatchVerdict verdict;
    const size_t first = line.find('\t');
    const size_t second = line.find('\t', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    verdict.kind = line.substr(0, first);
    verdict.module = line.substr(first + 1, second - first - 1);
    if (verdict.module == "-") verdict.module.clear();
    verdict.detail = line.substr(second + 1);
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

}  // namespace tessera::cli
