#include "pre_broadcast.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "lane_rewriter.h"

namespace tessera {
namespace {

using pre_broadcast::CandidateMask;
using pre_broadcast::Consumer;
using pre_broadcast::LaneRewriter;

struct Candidate {
  std::string name;  // the iter_arg
  SourceLoc loop_loc;
  CandidateMask bit = 0;
};

bool IsInnerLoop(const Stmt& stmt) {
  if (stmt.kind == StmtKind::kRangeLoop) return true;
  if (stmt.kind != StmtKind::kTileLoop) return false;
  const bool* grid = GetAttr<bool>(stmt.attrs, "grid");
  return grid == nullptr || !*grid;
}

// Loop-carried tensors whose last dim could take the lanes: a trailing dim
// of 1 is already what `x[..., None]` would make.
std::vector<Candidate> CollectCandidates(const Function& function) {
  std::vector<Candidate> candidates;
  WalkStmts(function.body, [&](const Stmt& stmt) {
    if (!IsInnerLoop(stmt)) return;
    const auto* carried =
        GetAttr<std::vector<std::string>>(stmt.attrs, "pre_broadcast");
    for (const Value& arg : stmt.iter_args) {
      if (carried && std::find(carried->begin(), carried->end(), arg.name) !=
                         carried->end()) {
        continue;  // already carried wide by an earlier run
      }
      const Type& type = arg.type;
      if (!type.is_tensor() || type.rank() == 0 || type.dtype == DType::kBool ||
          (type.shape.back().is_static() && type.shape.back().size == 1)) {
        continue;
      }
      if (candidates.size() == pre_broadcast::kMaxCandidates) return;
      Candidate candidate;
      candidate.name = arg.name;
      candidate.loop_loc = stmt.loc;
      candidate.bit = CandidateMask{1} << candidates.size();
      candidates.push_back(std::move(candidate));
    }
  });
  return candidates;
}

std::map<std::string, CandidateMask> WideIterArgs(
    const std::vector<Candidate>& candidates, CandidateMask accepted) {
  std::map<std::string, CandidateMask> wide;
  for (const Candidate& candidate : candidates) {
    if (accepted & candidate.bit) wide[candidate.name] = candidate.bit;
  }
  return wide;
}

std::string WidthText(const Consumer& consumer) {
  return consumer.width ? fmt::format("{}", *consumer.width) : "symbolic";
}

class FunctionPreBroadcast {
 public:
  FunctionPreBroadcast(Function& function, const std::string& file,
                       const PreBroadcastOptions& options,
                       DiagnosticEngine& diagnostics)
      : function_(function),
        file_(file),
        options_(options),
        diagnostics_(diagnostics) {}

  absl::StatusOr<bool> Run() {
    candidates_ = CollectCandidates(function_);
    if (candidates_.empty()) return false;
    CandidateMask accepted = 0;
    for (const Candidate& candidate : candidates_) accepted |= candidate.bit;
    // Dropping a candidate changes what the others meet, so decide again
    // until nothing more is dropped.
    std::optional<Function> rewritten;  // the trial that kept them all
    while (accepted != 0) {
      Function trial = CloneFunction(function_);
      LaneRewriter rewriter(options_.lanes,
                            WideIterArgs(candidates_, accepted));
      absl::Status status = rewriter.Run(trial);
      if (!status.ok()) return status;
      // Values never unsqueezed are not row statistics (e.g. `acc`); drop
      // them before judging the others, whose uses they would blur.
      CandidateMask kept = accepted & rewriter.unsqueezed();
      if (kept == accepted) kept = Decide(rewriter.consumers(), accepted);
      if (kept == accepted) {
        rewritten = std::move(trial);
        break;
      }
      accepted = kept;
    }
    if (accepted == 0) return false;
    // The last trial rewrote exactly the accepted candidates: it is the
    // result, not a rehearsal to repeat on the original.
    function_ = *std::move(rewritten);
    pre_broadcast::FoldUnsqueezes(function_, options_.lanes);
    RemarkCarried(accepted);
    return true;
  }

 private:
  // The candidates of `accepted` that meet a wider operand and never one
  // whose width is not a multiple of the lanes.
  CandidateMask Decide(const std::vector<Consumer>& consumers,
                       CandidateMask accepted) {
    CandidateMask fitting = 0, misfit = 0;
    for (const Consumer& consumer : consumers) {
      (consumer.fits ? fitting : misfit) |= consumer.candidates;
    }
    for (const Candidate& candidate : candidates_) {
      if (!(accepted & candidate.bit) || !(misfit & candidate.bit)) continue;
      for (const Consumer& consumer : consumers) {
        if (consumer.fits || !(consumer.candidates & candidate.bit)) continue;
        Remark(consumer.loc,
               consumer.conflict
                   ? fmt::format("pre-broadcast: '{}' is not carried with {} "
                                 "lanes: it meets another carried value "
                                 "broadcast with [..., None]",
                                 candidate.name, options_.lanes)
                   : fmt::format("pre-broadcast: '{}' is not carried with {} "
                                 "lanes: it meets an operand of width {}, not "
                                 "a multiple of {}",
                                 candidate.name, options_.lanes,
                                 WidthText(consumer), options_.lanes));
        break;
      }
    }
    return accepted & fitting & ~misfit;
  }

  void RemarkCarried(CandidateMask accepted) {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::string>> by_loop;
    std::map<std::pair<uint32_t, uint32_t>, SourceLoc> locs;
    for (const Candidate& candidate : candidates_) {
      if (!(accepted & candidate.bit)) continue;
      auto key =
          std::make_pair(candidate.loop_loc.line, candidate.loop_loc.col);
      by_loop[key].push_back("'" + candidate.name + "'");
      locs[key] = candidate.loop_loc;
    }
    for (const auto& [key, names] : by_loop) {
      Remark(locs[key],
             fmt::format("pre-broadcast: carrying {} with a trailing dim of "
                         "{} lanes",
                         fmt::join(names, ", "), options_.lanes));
    }
  }

  void Remark(SourceLoc loc, std::string message) {
    if (options_.remarks) diagnostics_.Remark(file_, loc, std::move(message));
  }

  Function& function_;
  const std::string& file_;
  const PreBroadcastOptions& options_;
  DiagnosticEngine& diagnostics_;
  std::vector<Candidate> candidates_;
};

}  // namespace

absl::StatusOr<bool> PreBroadcast(Module& module,
                                  const PreBroadcastOptions& options,
                                  DiagnosticEngine& diagnostics) {
  bool changed = false;
  for (Function& function : module.functions) {
    if (function.kind != FunctionKind::kDevice) continue;
    absl::StatusOr<bool> result =
        FunctionPreBroadcast(function, module.source_file, options, diagnostics)
            .Run();
    if (!result.ok()) return result.status();
    changed |= *result;
  }
  return changed;
}

}  // namespace tessera
