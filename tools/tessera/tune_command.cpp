// `tessera tune`: block sizes and a launcher per kernel, ranked by the
// backend's cost model, the best checked by the real TPU compiler (one
// Python process for all), written as a config `tessera compile --config`
// reads (docs/tuning.md).
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compile_steps.h"
#include "driver/pipeline_resolution.h"
#include "fmt/format.h"
#include "session.h"
#include "tessera/ir/text.h"
#include "toml_text.h"
#include "tune_search.h"
#include "verify_tpu.h"

namespace tessera::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kLaunchers = {"unroll", "emit_pipeline",
                                             "fori_loop"};

std::string Blocks(const std::vector<int64_t>& blocks) {
  if (blocks.empty()) return "(kernel's own)";
  return fmt::format("[{}]", fmt::join(blocks, ", "));
}

std::string Micros(double seconds) {
  return seconds >= 1e-3 ? fmt::format("{:.3f} ms", seconds * 1e3)
                         : fmt::format("{:.2f} us", seconds * 1e6);
}

std::string Verdict(const Candidate& candidate) {
  if (!candidate.tpu_verdict) return "-";
  return candidate.tpu_verdict->empty() ? "compiles" : "REJECTED";
}

std::string Row(int rank, const Candidate& candidate) {
  const KernelEstimate& e = candidate.estimate;
  const StageEstimate& grid = e.stages.front();
  std::string row = fmt::format(
      "{:>4}  {:<14} {:<22} {:>11} {:<14} {:>5.0f}% {:>9.2f} MiB  {}",
      rank < 0 ? std::string("own") : std::to_string(rank), candidate.launcher,
      Blocks(candidate.block_sizes), Micros(e.time_s), grid.bound,
      grid.roofline_fraction * 100,
      static_cast<double>(e.vmem_peak_bytes) / (1 << 20), Verdict(candidate));
  if (candidate.measured_us) {
    row += fmt::format("  measured {:.2f} us", *candidate.measured_us);
  }
  return row;
}

// One line on why the winner won: against the kernel's own blocks and the
// best of every other launcher.
std::string WhyWinner(const Candidate& winner,
                      const std::optional<Candidate>& own,
                      const std::vector<Candidate>& ranked) {
  const KernelEstimate& e = winner.estimate;
  std::string line = fmt::format(
      "why: {} {} models {} ({}-bound, {:.0f}% of roofline, {} steps)",
      winner.launcher, Blocks(winner.block_sizes), Micros(e.time_s),
      e.stages.front().bound, e.stages.front().roofline_fraction * 100,
      e.stages.front().steps);
  if (own) {
    line += fmt::format(
        "; {:.1f}x faster than the kernel's own blocks {} under {} ({}, "
        "{}-bound)",
        own->estimate.time_s / e.time_s, Blocks(own->block_sizes),
        own->launcher, Micros(own->estimate.time_s),
        own->estimate.stages.front().bound);
  }
  for (const std::string& launcher : kLaunchers) {
    if (launcher == winner.launcher) continue;
    for (const Candidate& other : ranked) {
      if (other.launcher != launcher) continue;
      line += fmt::format("; best {} {} is {:+.0f}%", launcher,
                          Micros(other.estimate.time_s),
                          (other.estimate.time_s / e.time_s - 1) * 100);
      break;
    }
  }
  return line;
}

std::string CanonicalTypeSpelling(const std::string& spelling) {
  absl::StatusOr<Type> type = ParseType(spelling);
  return type.ok() ? TypeToString(*type) : spelling;
}

// The tuned config: the pipeline the search ran with (the winner's
// launcher), and per kernel an entry keyed by the generation, launcher and
// argument types.
std::string TunedToml(
    const ResolvedPipeline& pipeline, const std::string& tpu,
    const std::string& command,
    const std::vector<std::pair<std::string, Candidate>>& winners) {
  std::string out = "# Written by " + command + "\n";
  out += "[pipeline]\n";
  out += "frontend = " + TomlString(pipeline.info.frontend) + "\n";
  out += "passes = " + OptionValueToString(OptionValue(pipeline.info.passes)) +
         "\n";
  out += "backend = " + TomlString(pipeline.info.backend) + "\n\n";
  out += "[backend." + pipeline.info.backend + "]\n";
  OptionMap options = pipeline.info.backend_options;
  if (!winners.empty()) {
    options.Set("launcher", OptionValue(winners.front().second.launcher));
  }
  for (const auto& [name, value] : options.values()) {
    out += name + " = " + OptionValueToString(value) + "\n";
  }
  for (const auto& [kernel, winner] : winners) {
    const KernelEstimate& e = winner.estimate;
    out += fmt::format("\n# modeled {} on {}, {}-bound, {:.0f}% of roofline\n",
                       Micros(e.time_s), tpu, e.stages.front().bound,
                       e.stages.front().roofline_fraction * 100);
    out += "[kernels." + kernel + "]\n";
    out += "tpu = " + TomlString(tpu) + "\n";
    out += "launcher = " + TomlString(winner.launcher) + "\n";
    out += fmt::format("block_sizes = [{}]\n",
                       fmt::join(winner.block_sizes, ", "));
    out += "\n[kernels." + kernel + ".args]\n";
    for (const auto& [key, spec] : pipeline.info.kernels) {
      if (key != "*" && key != kernel) continue;
      for (const auto& [arg, type] : spec.args) {
        out += arg + " = " + TomlString(CanonicalTypeSpelling(type)) + "\n";
      }
    }
  }
  return out;
}

// The real compiler on the best candidates, one Python process for all.
absl::Status CheckWithCompiler(KernelSearch& search,
                               std::vector<Candidate>& top,
                               const PipelineInfo& info, int measure,
                               std::string& note,
                               DiagnosticEngine& diagnostics) {
  std::error_code error;
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("tessera-tune-{}", ::getpid());
  fs::create_directories(dir, error);
  std::vector<std::string> modules;
  for (size_t i = 0; i < top.size(); ++i) {
    absl::StatusOr<std::string> code = search.Code(top[i]);
    // <kernel>_pallas.py: the name the verifier finds the kernel's --arg by.
    const fs::path path =
        dir / fmt::format("candidate_{}", i) / (search.kernel() + "_pallas.py");
    fs::create_directories(path.parent_path(), error);
    std::ofstream(path) << (code.ok() ? *code
                                      : std::string("raise SystemExit"));
    modules.push_back(path.string());
  }
  absl::StatusOr<std::vector<BatchVerdict>> verdicts =
      VerifyBatchOnTpu(modules, info, measure);
  fs::remove_all(dir, error);
  if (!verdicts.ok()) {
    diagnostics.Error("", {}, std::string(verdicts.status().message()));
    return verdicts.status();
  }
  for (const BatchVerdict& verdict : *verdicts) {
    if (verdict.module.empty()) {
      note = verdict.detail;
      continue;
    }
    for (size_t i = 0; i < modules.size(); ++i) {
      if (modules[i] != verdict.module) continue;
      if (verdict.kind == "ok" && !top[i].tpu_verdict) top[i].tpu_verdict = "";
      if (verdict.kind == "rejected") top[i].tpu_verdict = verdict.detail;
      if (verdict.kind == "measured") {
        top[i].measured_us = std::strtod(verdict.detail.c_str(), nullptr);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunTune(const CliOptions& options, Session& session) {
  DiagnosticEngine& diagnostics = session.diagnostics;
  absl::StatusOr<std::string> text = LoadInput(options, session);
  if (!text.ok()) return text.status();
  if (options.overrides.args.empty()) {
    diagnostics.Error("", {},
                      "tessera tune needs the argument shapes: pass --arg "
                      "NAME=TYPE for each tensor parameter (e.g. --arg "
                      "x=bf16[4096,4096])");
    return absl::InvalidArgumentError("no --arg");
  }
  ResolveRequest request;
  request.input_path = options.input;
  request.need_frontend = true;
  request.need_backend = true;
  absl::StatusOr<ResolvedPipeline> resolved =
      ResolvePipeline(session.config, options.overrides, session.registry,
                      request, diagnostics);
  if (!resolved.ok()) return resolved.status();
  ResolvedPipeline& pipeline = *resolved;
  const std::string tpu = pipeline.info.backend_options.GetString("tpu", "");
  const std::string own_launcher =
      pipeline.info.backend_options.GetString("launcher", "");
  std::vector<std::string> launchers =
      options.tune.launchers.empty() ? kLaunchers : options.tune.launchers;
  for (const std::string& launcher : launchers) {
    if (std::find(kLaunchers.begin(), kLaunchers.end(), launcher) ==
        kLaunchers.end()) {
      diagnostics.Error("", {},
                        fmt::format("--launchers: unknown launcher '{}' "
                                    "(unroll, emit_pipeline, fori_loop)",
                                    launcher));
      return absl::InvalidArgumentError("bad --launchers");
    }
  }

  // The kernels of the file, from one compile with their own blocks.
  absl::StatusOr<Module> module =
      ParseInput(options.input, pipeline, *text, false, diagnostics);
  if (!module.ok()) return module.status();
  std::vector<std::string> kernels;
  for (const Function& function : module->functions) {
    if (options.kernel.empty() || function.name == options.kernel) {
      kernels.push_back(function.name);
    }
  }
  if (kernels.empty()) {
    diagnostics.Error(
        options.input, {},
        options.kernel.empty()
            ? std::string("no kernel to tune")
            : fmt::format("no kernel named '{}'", options.kernel));
    return absl::InvalidArgumentError("no kernel");
  }

  std::string command = "tessera tune " + options.input;
  for (const auto& [name, type] : options.overrides.args) {
    command += fmt::format(" --arg {}={}", name, type);
  }
  command += " --tpu " + tpu;
  std::vector<std::pair<std::string, Candidate>> winners;
  for (const std::string& kernel : kernels) {
    const Clock::time_point start = Clock::now();
    KernelSearch search(options.input, *text, pipeline, kernel);
    absl::StatusOr<std::vector<BlockSlot>> slots = search.DiscoverSlots();
    if (!slots.ok()) {
      diagnostics.Error(options.input, {},
                        std::string(slots.status().message()));
      return slots.status();
    }
    std::optional<Candidate> own = search.Evaluate({}, own_launcher, nullptr);
    if (own) {
      for (const BlockSlot& slot : *slots) {
        own->block_sizes.push_back(slot.default_block);
      }
    }
    SearchStats stats;
    std::vector<Candidate> ranked = search.Rank(*slots, launchers, stats);
    const double search_s =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (ranked.empty()) {
      diagnostics.Error(
          options.input, {},
          fmt::format("kernel '{}': every candidate was "
                      "rejected ({} enumerated); the first: {}",
                      kernel, stats.enumerated, stats.first_rejection));
      return absl::InvalidArgumentError("no candidate");
    }
    std::cout << fmt::format("kernel {} on {}: block slots", kernel, tpu);
    for (const BlockSlot& slot : *slots) {
      std::cout << fmt::format(" {}{}", fmt::join(slot.tiles, "+"),
                               Blocks(slot.values));
    }
    std::cout << fmt::format(
        "\n  {} candidates: {} ranked, {} rejected by legality, {} "
        "duplicates, {} inner blocks not dividing their tile; {:.2f} s\n",
        stats.enumerated, ranked.size(), stats.rejected, stats.duplicates,
        stats.nested, search_s);
    std::vector<Candidate> top(
        ranked.begin(),
        ranked.begin() + std::min<size_t>(ranked.size(), options.tune.top));
    std::string note;
    if (options.tune.verify_tpu && !top.empty()) {
      const Clock::time_point verify_start = Clock::now();
      absl::Status status = CheckWithCompiler(
          search, top, pipeline.info, options.tune.measure, note, diagnostics);
      if (!status.ok()) return status;
      std::cout << fmt::format(
          "  real TPU compiler (libtpu, deviceless) on the top {}: {:.2f} s\n",
          top.size(),
          std::chrono::duration<double>(Clock::now() - verify_start).count());
    }
    if (options.tune.measure > 0 && !options.tune.verify_tpu) {
      note = "needs the real compiler's check (drop --no-verify-tpu)";
    }
    if (!note.empty()) std::cout << "  --measure: " << note << "\n";
    std::cout << fmt::format(
        "  {:>4}  {:<14} {:<22} {:>11} {:<14} {:>6} "
        "{:>13}  {}\n",
        "rank", "launcher", "block_sizes", "modeled", "bound", "roof", "VMEM",
        "real compiler");
    for (size_t i = 0; i < top.size(); ++i) {
      std::cout << "  " << Row(static_cast<int>(i) + 1, top[i]) << "\n";
    }
    if (own) std::cout << "  " << Row(-1, *own) << "\n";
    const Candidate* winner = nullptr;
    for (const Candidate& candidate : top) {
      const bool compiles =
          !candidate.tpu_verdict || candidate.tpu_verdict->empty();
      if (!compiles) continue;
      if (winner == nullptr ||
          (candidate.measured_us && winner->measured_us &&
           *candidate.measured_us < *winner->measured_us)) {
        winner = &candidate;
      }
    }
    if (winner == nullptr) {
      diagnostics.Error(options.input, {},
                        fmt::format("kernel '{}': the real TPU compiler "
                                    "rejected all {} best candidates",
                                    kernel, top.size()));
      return absl::InvalidArgumentError("no candidate compiles");
    }
    std::cout << "  " << WhyWinner(*winner, own, ranked) << "\n";
    winners.emplace_back(kernel, *winner);
  }
  if (options.output) {
    const std::string toml = TunedToml(pipeline, tpu, command, winners);
    if (*options.output == "-") {
      std::cout << toml;
    } else {
      absl::Status written =
          WriteOutputFile(*options.output, toml, session.diagnostics);
      if (!written.ok()) return written;
      std::cout << "wrote " << *options.output << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::cli
