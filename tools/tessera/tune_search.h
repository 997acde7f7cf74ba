// The search of `tessera tune`: which block sizes a kernel takes (its
// block-size slots, in Helion's order), the candidates of each, and one
// candidate's modeled cost, all in process through the pipeline (frontend,
// passes, the backend's estimate). docs/tuning.md explains the method.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compile_steps.h"
#include "driver/pipeline_resolution.h"
#include "tessera/cost_estimate.h"
#include "tessera/ir/ir.h"

namespace tessera::cli {

// One block size the kernel takes (`hl.tile` dim or hl.register_block_size),
// in the order of `[kernels.NAME] block_sizes`.
struct BlockSlot {
  std::vector<std::string> tiles;  // the tile loops it sizes
  int64_t default_block = 0;       // the kernel's own choice
  // The largest useful block: the dim it tiles (0: bounded by an enclosing
  // tile, whose block it must divide).
  int64_t extent = 0;
  // The TPU tile multiple of the array dims it indexes: 128 for lanes,
  // 8 x packing for sublanes, 1 otherwise.
  int64_t multiple = 1;
  std::vector<int64_t> values;  // candidates, ascending
  // The slot sizing the tile whose range this slot's tiles span (split-K's
  // chunk around its inner loop), or -1: this block must divide that one.
  int parent_slot = -1;
};

struct Candidate {
  std::string launcher;
  std::vector<int64_t> block_sizes;  // empty: the kernel's own
  KernelEstimate estimate;
  // Filled by the real compiler's check: "" compiled, else its error.
  std::optional<std::string> tpu_verdict;
  std::optional<double> measured_us;
};

struct SearchStats {
  int64_t enumerated = 0;       // block combinations x launchers
  int64_t duplicates = 0;       // same effective blocks as an earlier one
  int64_t nested = 0;           // inner block not dividing its enclosing tile
  int64_t rejected = 0;         // the backend's legality checks (or errors)
  std::string first_rejection;  // why the first rejected one was
  double start_time_s = 0;      // Descend: the kernel's own blocks' time
};

class KernelSearch {
 public:
  KernelSearch(std::string input, std::string text, ResolvedPipeline& pipeline,
               std::string kernel)
      : input_(std::move(input)),
        text_(std::move(text)),
        pipeline_(pipeline),
        kernel_(std::move(kernel)) {
    AllowInexactBlockSizes(pipeline_);
  }

  // Finds the slots by probing the frontend (a slot set to 1, then to a
  // huge block that the frontend clamps to the dim), and their candidates:
  // powers of two times the tile multiple up to the dim, plus the dim.
  // `stop_when_covered`: stop once every tile loop has its slot, rather
  // than after two slots that change nothing (the call-time choice, where
  // each probe is a frontend run of the budget).
  absl::StatusOr<std::vector<BlockSlot>> DiscoverSlots(
      bool stop_when_covered = false);

  // `slots` (found by DiscoverSlots for the same kernel at the same ranks
  // and dtypes) for this search's sizes: their default blocks, extents and
  // candidates, from two frontend runs instead of DiscoverSlots' probes.
  absl::StatusOr<std::vector<BlockSlot>> ResizeSlots(
      std::vector<BlockSlot> slots);

  // Every candidate of `slots` x `launchers` that the backend accepts,
  // fastest first.
  std::vector<Candidate> Rank(const std::vector<BlockSlot>& slots,
                              const std::vector<std::string>& launchers,
                              SearchStats& stats);

  // The fastest candidate a coordinate descent finds within
  // `max_estimates` estimates (a count, not a time, so that a call's
  // blocks do not depend on how busy the machine is): from the better of
  // the kernel's own blocks and each slot's middle value, under the best
  // launcher there, each slot moved to its next larger or smaller value
  // while the model says faster, then the winner's blocks under every other
  // launcher. For choosing blocks at a call, where Rank's exhaustive search
  // costs too much. nullopt when even the kernel's own blocks have no
  // estimate (a backend without a model).
  std::optional<Candidate> Descend(const std::vector<BlockSlot>& slots,
                                   const std::vector<std::string>& launchers,
                                   int64_t max_estimates, SearchStats& stats);

  // One configuration (empty block sizes: the kernel's own); `why` says
  // why it was rejected.
  std::optional<Candidate> Evaluate(const std::vector<int64_t>& block_sizes,
                                    const std::string& launcher,
                                    std::string* why);

  const std::string& kernel() const { return kernel_; }

  // The generated module of one configuration.
  absl::StatusOr<std::string> Code(const Candidate& candidate);

 private:
  struct TileBlock {
    std::string tile;
    int64_t block = 0;
    std::string parent;  // tile whose range it spans ("" none)
  };
  absl::StatusOr<Module> Frontend(const std::vector<int64_t>& block_sizes,
                                  std::string* why);
  void Configure(const std::vector<int64_t>& block_sizes,
                 const std::string& launcher);
  std::vector<TileBlock> TileBlocks(const Module& module) const;
  std::map<std::string, int64_t> TileMultiples(const Module& module) const;
  // Each slot's candidates: powers of two times its tile multiple up to its
  // extent, plus the extent and its default.
  static void AssignCandidates(std::vector<BlockSlot>& slots);

  std::string input_;
  std::string text_;
  ResolvedPipeline& pipeline_;
  std::string kernel_;
  std::set<std::string> seen_;
};

}  // namespace tessera::cli
