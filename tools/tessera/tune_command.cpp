// `tessera tune`: block sizes and a launcher per kernel, ranked by the
// backend's cost model, the best checked by the real TPU compiler (a few
// Python processes at once, libtpu loaded once in each), written as a
// config `tessera compile --config` reads (docs/tuning.md).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

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

// The checker's error with the candidate's temporary folder dropped: the
// folder is gone after the run, and the same error for two candidates
// reads the same (the all-rejected summary counts equal texts).
std::string WithoutTemporaryPath(std::string detail, const fs::path& dir) {
  for (std::string folder :
       {dir.string(), fs::weakly_canonical(dir).string()}) {
    folder += "/";
    for (size_t at = detail.find(folder); at != std::string::npos;
         at = detail.find(folder, at)) {
      // Up to the module's own name: candidate_N/<kernel>_pallas.py.
      const size_t slash = detail.find('/', at + folder.size());
      detail.erase(at,
                   slash == std::string::npos ? folder.size() : slash + 1 - at);
    }
  }
  return detail;
}

// The real compiler's progress on stderr: a line per checked candidate
// and, on a terminal, a status line that keeps the elapsed time ticking
// (a check of large kernels takes tens of seconds, and a silent minute
// looks like a hang).
class CheckProgress : public BatchObserver {
 public:
  CheckProgress(const std::string& kernel, std::vector<std::string> labels,
                size_t jobs, fs::path dir)
      : kernel_(kernel),
        labels_(std::move(labels)),
        dir_(std::move(dir)),
        jobs_(jobs),
        terminal_(::isatty(STDERR_FILENO) == 1),
        start_(Clock::now()) {
    std::cerr << fmt::format(
        "tune: {}: checking the best {} with the real TPU compiler (libtpu, "
        "deviceless), {} at once\n",
        kernel_, labels_.size(), jobs_);
    Status();
  }
  ~CheckProgress() override { ClearStatus(); }

  void Checked(size_t index,
               const std::vector<BatchVerdict>& verdicts) override {
    ++done_;
    std::string verdict = "compiles";
    for (const BatchVerdict& line : verdicts) {
      if (line.kind == "rejected") {
        verdict = "REJECTED: " + WithoutTemporaryPath(line.detail, dir_);
      }
    }
    ClearStatus();
    std::cerr << fmt::format("tune: {}: [{}/{}] {}: {} ({:.1f} s)\n", kernel_,
                             done_, labels_.size(), labels_[index], verdict,
                             Elapsed());
    Status();
  }
  void Waiting() override { Status(); }

 private:
  double Elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }
  void Status() {
    if (!terminal_) return;
    const std::string line =
        fmt::format("tune: {}: [{}/{}] checking ... {:.0f} s", kernel_, done_,
                    labels_.size(), Elapsed());
    if (line == status_) return;
    std::cerr << "\r\033[K" << line << std::flush;
    status_ = line;
  }
  void ClearStatus() {
    if (terminal_ && !status_.empty()) std::cerr << "\r\033[K" << std::flush;
    status_.clear();
  }

  std::string kernel_;
  std::vector<std::string> labels_;  // per module: its rank and blocks
  fs::path dir_;                     // the modules' temporary folder
  size_t jobs_;
  bool terminal_;
  Clock::time_point start_;
  size_t done_ = 0;
  std::string status_;  // the status line shown, "" none
};

// The CPUs this process may run on (a container's or taskset's share,
// which hardware_concurrency does not see).
size_t DefaultJobs() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<size_t>(CPU_COUNT(&set));
  }
  const unsigned cpus = std::thread::hardware_concurrency();
  return cpus == 0 ? 1 : cpus;
}

// The real compiler on the best candidates, `jobs` Python processes at once.
absl::Status CheckWithCompiler(KernelSearch& search,
                               std::vector<Candidate>& top,
                               const PipelineInfo& info, int measure,
                               size_t jobs, std::string& note,
                               DiagnosticEngine& diagnostics) {
  std::error_code error;
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("tessera-tune-{}", ::getpid());
  fs::create_directories(dir, error);
  std::vector<std::string> modules;
  std::vector<size_t> checked;  // index in `top` of each module
  for (size_t i = 0; i < top.size(); ++i) {
    absl::StatusOr<std::string> code = search.Code(top[i]);
    if (!code.ok()) {
      // Its own verdict: the generator failed, not the real compiler.
      top[i].tpu_verdict = std::string(code.status().message());
      continue;
    }
    // <kernel>_pallas.py: the name the verifier finds the kernel's --arg by.
    const fs::path path =
        dir / fmt::format("candidate_{}", i) / (search.kernel() + "_pallas.py");
    fs::create_directories(path.parent_path(), error);
    std::ofstream(path) << *code;
    modules.push_back(path.string());
    checked.push_back(i);
  }
  std::vector<std::string> labels;
  for (size_t i : checked) {
    labels.push_back(fmt::format("rank {} {} {}", i + 1, top[i].launcher,
                                 Blocks(top[i].block_sizes)));
  }
  absl::StatusOr<std::vector<BatchVerdict>> verdicts = [&] {
    using Verdicts = absl::StatusOr<std::vector<BatchVerdict>>;
    if (modules.empty()) return Verdicts(std::vector<BatchVerdict>{});
    CheckProgress progress(search.kernel(), std::move(labels),
                           std::min(jobs, modules.size()), dir);
    return VerifyBatchOnTpu(modules, info, measure, static_cast<int>(jobs),
                            &progress);
  }();
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
    for (size_t m = 0; m < modules.size(); ++m) {
      if (modules[m] != verdict.module) continue;
      Candidate& candidate = top[checked[m]];
      if (verdict.kind == "ok" && !candidate.tpu_verdict) {
        candidate.tpu_verdict = "";
      }
      if (verdict.kind == "rejected") {
        candidate.tpu_verdict = WithoutTemporaryPath(verdict.detail, dir);
      }
      if (verdict.kind == "measured") {
        candidate.measured_us = std::strtod(verdict.detail.c_str(), nullptr);
      }
    }
  }
  return absl::OkStatus();
}

// Why every checked candidate was rejected: the compiler's most common
// error (ties: the best-ranked one's), and the best one's when it differs.
std::string RejectionSummary(const std::vector<Candidate>& checked) {
  std::map<std::string, int> counts;
  for (const Candidate& candidate : checked) {
    if (candidate.tpu_verdict) ++counts[*candidate.tpu_verdict];
  }
  std::string common;
  int most = 0;
  for (const Candidate& candidate : checked) {
    if (!candidate.tpu_verdict) continue;
    const int count = counts[*candidate.tpu_verdict];
    if (count > most) {
      most = count;
      common = *candidate.tpu_verdict;
    }
  }
  std::string text = fmt::format("{} of {}: {}", most, checked.size(), common);
  if (!checked.empty() && checked.front().tpu_verdict &&
      *checked.front().tpu_verdict != common) {
    text += fmt::format("; the best-ranked: {}", *checked.front().tpu_verdict);
  }
  return text;
}

// Argument types for one kernel's search: a type given for a parameter of
// a sibling kernel only is not this kernel's (its frontend, which lowers
// this kernel alone, would take it for a misspelt name).
std::map<std::string, std::string> ArgsOfKernel(
    const Module& module, const std::string& kernel,
    const std::map<std::string, std::string>& args) {
  std::set<std::string> own, siblings;
  for (const Function& function : module.functions) {
    for (const Value& param : function.params) {
      (function.name == kernel ? own : siblings).insert(param.name);
    }
  }
  std::map<std::string, std::string> kept;
  for (const auto& [name, type] : args) {
    if (own.count(name) || !siblings.count(name)) kept.emplace(name, type);
  }
  return kept;
}

}  // namespace

namespace {

// One kernel's search, check and table; a kernel that cannot be tuned
// (no estimate, every candidate rejected) sets `skipped` to why, which is
// not an error of the run while a sibling is tuned.
absl::Status TuneKernel(const CliOptions& options, const std::string& text,
                        ResolvedPipeline& pipeline,
                        const std::vector<std::string>& launchers,
                        const std::string& kernel, std::ostream& out,
                        std::optional<Candidate>& winner, std::string& skipped,
                        DiagnosticEngine& diagnostics) {
  const std::string tpu = pipeline.info.backend_options.GetString("tpu", "");
  const std::string own_launcher =
      pipeline.info.backend_options.GetString("launcher", "");
  const Clock::time_point start = Clock::now();
  KernelSearch search(options.input, text, pipeline, kernel);
  absl::StatusOr<std::vector<BlockSlot>> slots = search.DiscoverSlots();
  if (!slots.ok()) {
    skipped = std::string(slots.status().message());
    return absl::OkStatus();
  }
  std::string own_why;
  std::optional<Candidate> own = search.Evaluate({}, own_launcher, &own_why);
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
    // Without an estimate at its own blocks the kernel has none at any
    // (symbolic shapes, a data-dependent loop): that is the reason, not
    // the first candidate's legality error at some block the probe chose.
    skipped = own ? fmt::format(
                        "every candidate was rejected ({} enumerated); the "
                        "first: {}",
                        stats.enumerated, stats.first_rejection)
                  : own_why;
    return absl::OkStatus();
  }
  out << fmt::format("kernel {} on {}: block slots", kernel, tpu);
  for (const BlockSlot& slot : *slots) {
    out << fmt::format(" {}{}", fmt::join(slot.tiles, "+"),
                       Blocks(slot.values));
  }
  out << fmt::format(
      "\n  {} candidates: {} ranked, {} rejected by legality, {} "
      "duplicates, {} inner blocks not dividing their tile; {:.2f} s\n",
      stats.enumerated, ranked.size(), stats.rejected, stats.duplicates,
      stats.nested, search_s);
  const int verify_top = !options.tune.verify_tpu ? 0
                         : options.tune.verify_top < 0
                             ? options.tune.top
                             : options.tune.verify_top;
  const size_t checked_count =
      std::min<size_t>(ranked.size(), static_cast<size_t>(verify_top));
  std::vector<Candidate> checked(ranked.begin(),
                                 ranked.begin() + checked_count);
  std::string note;
  if (!checked.empty()) {
    const Clock::time_point verify_start = Clock::now();
    // --measure times on this host's one TPU: one process, so that the
    // timings do not disturb each other.
    const size_t jobs =
        options.tune.measure > 0
            ? 1
            : std::min(options.tune.jobs > 0
                           ? static_cast<size_t>(options.tune.jobs)
                           : DefaultJobs(),
                       checked.size());
    absl::Status status =
        CheckWithCompiler(search, checked, pipeline.info, options.tune.measure,
                          jobs, note, diagnostics);
    if (!status.ok()) return status;
    out << fmt::format(
        "  real TPU compiler (libtpu, deviceless) on the top {}: {:.2f} s, {} "
        "at once\n",
        checked.size(),
        std::chrono::duration<double>(Clock::now() - verify_start).count(),
        jobs);
    std::copy(checked.begin(), checked.end(), ranked.begin());
  }
  if (options.tune.measure > 0 && checked.empty()) {
    note =
        "needs the real compiler's check (drop --no-verify-tpu, or give "
        "--verify-top N > 0)";
  }
  if (!note.empty()) out << "  --measure: " << note << "\n";

  // The winner: the best-ranked candidate the real compiler accepts (or
  // the fastest measured), or the model's best when nothing was checked.
  const Candidate* best = nullptr;
  for (size_t i = 0; i < std::max<size_t>(checked_count, 1); ++i) {
    const Candidate& candidate = ranked[i];
    if (candidate.tpu_verdict && !candidate.tpu_verdict->empty()) continue;
    if (best == nullptr || (candidate.measured_us && best->measured_us &&
                            *candidate.measured_us < *best->measured_us)) {
      best = &candidate;
    }
  }
  const size_t shown = std::min<size_t>(ranked.size(), options.tune.top);
  out << fmt::format(
      "  {:>4}  {:<14} {:<22} {:>11} {:<14} {:>6} "
      "{:>13}  {}\n",
      "rank", "launcher", "block_sizes", "modeled", "bound", "roof", "VMEM",
      "real compiler");
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (i < shown || &ranked[i] == best) {
      out << "  " << Row(static_cast<int>(i) + 1, ranked[i]) << "\n";
    }
  }
  if (own) out << "  " << Row(-1, *own) << "\n";
  // The compiler's own words for each rejected row: "REJECTED" alone does
  // not say whether to fix the kernel, the shapes or the command.
  for (size_t i = 0; i < checked_count; ++i) {
    if (ranked[i].tpu_verdict && !ranked[i].tpu_verdict->empty()) {
      out << fmt::format("  rank {} rejected: {}\n", i + 1,
                         *ranked[i].tpu_verdict);
    }
  }
  if (best == nullptr) {
    skipped = fmt::format(
        "the real TPU compiler rejected all {} checked candidates ({})",
        checked_count, RejectionSummary(checked));
    return absl::OkStatus();
  }
  out << "  " << WhyWinner(*best, own, ranked) << "\n";
  winner = *best;
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
  if (!options.kernel.empty()) {
    pipeline.info.selected_kernels = {options.kernel};
  }
  absl::StatusOr<Module> module =
      ParseInput(options.input, pipeline, *text, false, diagnostics);
  if (!module.ok()) return module.status();
  std::vector<std::string> kernels;
  for (const Function& function : module->functions) {
    kernels.push_back(function.name);
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
  // With the TOML on stdout, the report goes to stderr: `-o -` stays a
  // config that can be piped.
  const bool toml_to_stdout = options.output && *options.output == "-";
  std::ostream& out = toml_to_stdout ? std::cerr : std::cout;
  std::vector<std::pair<std::string, Candidate>> winners;
  std::vector<std::pair<std::string, std::string>> skipped;
  const std::map<std::string, std::string> all_args =
      pipeline.info.kernels["*"].args;
  for (const std::string& kernel : kernels) {
    // Each kernel is lowered alone, so that a sibling without an estimate
    // (or with shapes given for this kernel only) does not reject it.
    pipeline.info.selected_kernels = {kernel};
    pipeline.info.kernels["*"].args = ArgsOfKernel(*module, kernel, all_args);
    std::optional<Candidate> winner;
    std::string why;
    absl::Status status = TuneKernel(options, *text, pipeline, launchers,
                                     kernel, out, winner, why, diagnostics);
    pipeline.info.kernels["*"].args = all_args;
    if (!status.ok()) return status;
    if (winner) {
      winners.emplace_back(kernel, *winner);
    } else {
      skipped.emplace_back(kernel, why);
    }
  }
  pipeline.info.selected_kernels.clear();
  for (const auto& [kernel, why] : skipped) {
    const std::string message =
        fmt::format("kernel '{}' not tuned: {}", kernel, why);
    const Function* function = module->FindFunction(kernel);
    const SourceLoc loc = function != nullptr ? function->loc : SourceLoc{};
    if (winners.empty()) {
      diagnostics.Error(options.input, loc, message);
    } else {
      diagnostics.Warning(options.input, loc, message);
    }
  }
  if (winners.empty()) {
    return absl::InvalidArgumentError("no kernel tuned");
  }
  if (options.output) {
    const std::string toml = TunedToml(pipeline, tpu, command, winners);
    if (toml_to_stdout) {
      std::cout << toml;
    } else {
      absl::Status written =
          WriteOutputFile(*options.output, toml, session.diagnostics);
      if (!written.ok()) return written;
      out << "wrote " << *options.output << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::cli
