// What the cost model needs to know about a kernel, read from the backend's
// KernelPlan in one place (this file) so that a change of the plan is a
// small fix here. Everything is static: a symbolic extent is an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernel_plan.h"

namespace tessera::pallas {

// One axis a stage iterates over, outermost first.
struct AxisView {
  std::string tile;  // IR tile name
  int64_t extent = 0;
  int64_t block = 1;
  int64_t steps() const { return (extent + block - 1) / block; }
};

// An array moved between HBM and VMEM by a stage, one block per step.
struct OperandView {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> array_dims;  // as the kernel sees it (host padding in)
  std::vector<int64_t> block_dims;
  // Per dim: the stage axis that picks the block, or -1 (fixed per run).
  std::vector<int> axis_of_dim;
  bool read = false;
  bool written = false;
  // Bytes the host moves to zero-pad this array before the call (read the
  // original, write the padded copy); 0 when it is not padded.
  int64_t host_pad_bytes = 0;
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
  int64_t runs_per_parent_step = 1;
  int parent = -1;  // index of the enclosing stage; -1 for the grid
  int64_t steps() const;
};

struct ScratchView {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
};

struct CostPlan {
  std::string kernel;
  Launcher launcher = Launcher::kEmitPipeline;
  std::vector<StageView> stages;  // [0] is the grid
  std::vector<ScratchView> scratch;
  // Trip count of every inner loop that is not a stage of its own.
  std::vector<std::pair<const Stmt*, int64_t>> plain_loop_trips;
  int64_t PlainTrips(const Stmt* loop) const;
  // The stage a pipelined loop starts, or -1.
  int StageOf(const Stmt* loop) const;
};

// `prefetch`: the fori_loop launcher's two-slot prefetch option.
absl::StatusOr<CostPlan> ViewKernelPlan(const KernelPlan& plan, bool prefetch);

}  // namespace tessera::pallas
