// What the cost model needs to know about a kernel, read from the backend's
// KernelPlan in one place (this file) so that a change of the plan is a
// small fix here. Sizes are Counts: constants with static shapes, Python
// expressions of the host's sizes otherwise (SymbolicSizes).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "count.h"
#include "kernel_plan.h"

namespace tessera::pallas {

// How the generated host function names the sizes a plan leaves symbolic:
// per device shape symbol or scalar parameter, and per grid dim (IR order)
// its begin and end, as Python expressions (HostBindings has them).
struct SymbolicSizes {
  std::map<std::string, std::string> device_symbols;
  std::vector<std::string> grid_begin;
  std::vector<std::string> grid_end;
};

// One axis a stage iterates over, outermost first.
struct AxisView {
  std::string tile;  // IR tile name
  Count extent;
  int64_t block = 1;
  Count steps() const { return CeilDiv(extent, block); }
};

// An array moved between HBM and VMEM by a stage, one block per step.
struct OperandView {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<Count> array_dims;  // as the kernel sees it (host padding in)
  // Per dim: the multiple the host pads it to (1: not padded), and the
  // size before padding.
  std::vector<int64_t> pad_multiples;
  std::vector<Count> original_dims;
  std::vector<Count> block_dims;
  // Per dim: the stage axis that picks the block, or -1 (fixed per run).
  std::vector<int> axis_of_dim;
  bool read = false;
  bool written = false;
  // Bytes the host moves to zero-pad this array before the call (read the
  // original, write the padded copy); 0 when it is not padded.
  Count host_pad_bytes;
};

struct StageView {
  std::string name;
  const Stmt* loop = nullptr;  // nullptr: the launch grid
  std::vector<AxisView> axes;
  std::vector<OperandView> operands;
  const Block* body = nullptr;
  // Double-buffered: the next step's copies overlap this step's compute.
  bool prefetched = true;
  // Runs of the stage per run of its parent (loops: trips of the plain
  // loops between the two).
  Count runs_per_parent_step = 1;
  int parent = -1;  // index of the enclosing stage; -1 for the grid
  Count steps() const;
};

struct ScratchView {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<Count> dims;
};

struct CostPlan {
  std::string kernel;
  Launcher launcher = Launcher::kEmitPipeline;
  std::vector<StageView> stages;  // [0] is the grid
  std::vector<ScratchView> scratch;
  // Trip count of every inner loop that is not a stage of its own.
  std::vector<std::pair<const Stmt*, Count>> plain_loop_trips;
  const SymbolicSizes* sizes = nullptr;
  // Symbols DimCount met that `sizes` does not name (a count that uses one
  // cannot be written in the host's terms).
  mutable std::set<std::string> unnamed_symbols;
  Count PlainTrips(const Stmt* loop) const;
  // The stage a pipelined loop starts, or -1.
  int StageOf(const Stmt* loop) const;
  // A dim of a device IR type: its size, or the host's expression of its
  // symbol (the bare symbol when `sizes` does not name it).
  Count DimCount(const Dim& dim) const;
  // Why the timing model cannot run (a size that is not a constant), or OK.
  absl::Status CheckStatic() const;
};

// `prefetch`: the fori_loop launcher's two-slot prefetch option. `sizes`
// (may be null; must outlive the view) names the symbolic sizes.
absl::StatusOr<CostPlan> ViewKernelPlan(const KernelPlan& plan, bool prefetch,
                                        const SymbolicSizes* sizes = nullptr);

}  // namespace tessera::pallas
