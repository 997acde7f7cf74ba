// The analysis shared by every launcher: which tiles exist and how they
// nest, how each ref of the device function is blocked (its outer BlockSpec),
// which refs an inner loop streams, which grid dims revisit an output, and
// which dims must be zero-padded on the host.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "target.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

// Every launcher of the Pallas backends: unroll, emit_pipeline and fori_loop
// (pallas-tpu), triton and mosaic (pallas-gpu).
enum class Launcher { kUnroll, kEmitPipeline, kForiLoop, kTriton, kMosaicGpu };
std::string_view LauncherName(Launcher launcher);
std::optional<Launcher> LauncherByName(std::string_view name);

struct TileInfo {
  std::string name;  // IR name (also the Python name after sanitizing)
  int64_t block = 1;
  bool is_grid = false;
  int grid_index = -1;           // position in the launch grid (IR order)
  const LoopDim* dim = nullptr;  // grid: launch dim; inner: loop dim
  const Stmt* loop = nullptr;    // inner loops only
  // Set when the loop runs over exactly [parent.begin, parent.end).
  std::string parent;
  // True when the tile's begin is a multiple of its block size.
  bool aligned = false;
  // False when every tile is known to be whole (static extents that divide).
  bool maybe_partial = true;
  // Inner loops whose bounds are read from memory (`hl.tile(start, end)`
  // with `start = offsets[b]`; jagged_tiles.cpp): the loop runs over blocks
  // that start at `begin` rounded down to `align` rows, and masks what lies
  // outside [begin, end).
  bool jagged = false;
  int64_t align = 1;
};

enum class SpecKind { kBlocked, kFull };

struct SpecDim {
  SpecKind kind = SpecKind::kFull;
  std::string grid_tile;  // kBlocked: the grid tile that picks the block
  int64_t block = 0;      // kBlocked: block size
  // The dim is zero-padded on the host to a multiple of this (1: no pad).
  int64_t pad_multiple = 1;
  // A symbolic whole dim rounded up to the target's kernel block
  // (PallasTarget::KernelBlockSizeText), padded to it on the host.
  bool pad_to_kernel_block = false;
  // Elements added after that padding: a jagged tile's last block may start
  // anywhere below the dim's end.
  int64_t pad_extra = 0;
  // Elements added before the dim's start: a shifted tile index
  // (`tile.index - offset`) may start up to one block below 0. Every access
  // of the dim adds it to its start.
  int64_t pad_low = 0;
  // Shifted tile indices along the dim start their slices at multiples of
  // this (PallasTarget::ShiftAlignment; 1: anywhere).
  int64_t shift_align = 1;
};

struct RefAccess {
  const IndexList* indices = nullptr;
  // Inner tile loops around the access, outermost first.
  std::vector<const Stmt*> loops;
  bool write = false;
  // The statement the access is part of (dropped with it when dead).
  const Stmt* stmt = nullptr;
  // Read one element per gathered row: a load inside the index of a
  // gather, evaluated row by row (gather_plan.h).
  bool per_row = false;
};

struct RefPlan {
  std::string name;  // IR name of the device parameter
  int param_index = 0;
  Type type;
  bool read = false;
  bool stored = false;
  bool atomic = false;
  // Named by the `accumulates` attribute of a scratch: atomics into it go
  // through that VMEM accumulator (atomic-accumulator pass).
  bool accumulated = false;
  bool written() const { return stored || atomic; }
  // Read only one element at a time (`offsets[b]`): passed to the kernel in
  // SMEM by scalar prefetch (scalar_prefetch.cpp).
  bool scalar_prefetch = false;
  std::vector<RefAccess> accesses;
  std::vector<SpecDim> dims;
  // emit_pipeline / fori_loop: the inner loop that streams this ref from HBM.
  const Stmt* stream_loop = nullptr;
  // Some load selects rows of this ref by an index tensor (a gather): the
  // gathered dim stays whole in VMEM and is never streamed.
  bool gathered = false;
  // Some load picks one element per row of this ref at a lane from data (a
  // lane select): its blocks hold whole rows.
  bool lane_selected = false;
};

// One VMEM buffer a launcher keeps for an inner loop.
struct LoopBuffer {
  enum class Kind {
    kStreamedBlock,  // a block of a ref the loop streams from HBM
    kCarried,        // a loop-carried value kept in scratch
    kSemaphores,     // the DMA semaphores of the loop's copies
  };
  Kind kind = Kind::kStreamedBlock;
  int ref_index = -1;          // kStreamedBlock: into KernelPlan::refs
  int iter_arg_index = -1;     // kCarried: into the loop's iter_args
  std::vector<int64_t> shape;  // per dim; -1: known only at trace time
  DType dtype = DType::kF32;
  int64_t copies = 1;  // 2: double-buffered blocks or two DMA slots
  // Bytes of one copy; 0 when a dim is known only at trace time.
  int64_t bytes() const;
};

// One inner tile loop as its launcher runs it: which refs it streams and
// what it keeps in VMEM. Launchers differ only in how they turn this into
// code; the legality checks and the cost model read the same description.
struct InnerLoopPlan {
  const Stmt* loop = nullptr;
  std::string tile;
  std::vector<int> streamed;  // into KernelPlan::refs, in param order
  std::vector<LoopBuffer> buffers;
};

struct KernelPlan {
  const Function* host = nullptr;
  const Function* device = nullptr;
  const Stmt* launch = nullptr;
  std::string kernel_name;
  Launcher launcher = Launcher::kEmitPipeline;
  // The hardware the plan is for (block rules, padding); never null.
  const PallasTarget* target = nullptr;
  // Blocks that break the TPU's tiling rules are kept as asked instead of
  // falling back to whole dims (the `check_legality = false` option: lets
  // the real compiler judge exactly the blocks a user chose).
  bool keep_illegal_blocks = false;
  std::map<std::string, TileInfo> tiles;
  std::vector<std::string> grid_tiles;  // IR order
  // Pallas grid order: indices into grid_tiles, parallel dims first.
  std::vector<int> grid_order;
  std::vector<bool> grid_arbitrary;  // by IR grid index
  std::vector<RefPlan> refs;         // device ref params, in param order
  std::map<std::string, int> ref_by_name;
  // Every name referenced in the device function (for dead-code pruning).
  std::map<std::string, int> use_counts;
  // Tensor values of the device function by name, with their definitions:
  // gather indices are evaluated row by row from them (gather_plan.h).
  std::map<std::string, const Expr*> tensor_defs;
  // The row blocks lane selects read, `x[tile(t), :]` (gather_plan.h), as
  // their accesses' index lists; shared so that copies of a plan keep them.
  std::vector<std::shared_ptr<const IndexList>> lane_select_blocks;
  // Filled by PlanInnerLoops: "parallel" / "arbitrary" per Pallas grid dim
  // (grid_order), and each inner tile loop in program order.
  std::vector<std::string> dimension_semantics;
  std::vector<InnerLoopPlan> inner_loops;
  // True when fori_loop copies use two slots (prefetch).
  bool prefetch = true;

  const RefPlan* FindRef(std::string_view name) const;
  const TileInfo* FindTile(std::string_view name) const;
  int PallasAxis(const std::string& grid_tile) const;
  // The grid tile at the root of a tile's parent chain, if any.
  const TileInfo* RootGrid(const TileInfo& tile) const;
  // The refs an inner loop streams, in param order.
  std::vector<const RefPlan*> StreamedBy(const Stmt* loop) const;
  const InnerLoopPlan* InnerLoop(const Stmt* loop) const;
};

// Builds the plan of one outlined kernel for `target`. User-facing problems
// (unsupported constructs) are reported to `diagnostics` with the
// statement's location.
absl::StatusOr<KernelPlan> PlanKernel(const Module& module,
                                      const Function& host, Launcher launcher,
                                      const PallasTarget& target,
                                      DiagnosticEngine& diagnostics,
                                      bool keep_illegal_blocks = false);

// Completes `plan` with what depends on the launcher: the dimension
// semantics of the grid and, per inner loop, the refs it streams and the
// VMEM buffers the launcher keeps for it (inner_loop_plan.cpp).
void PlanInnerLoops(KernelPlan& plan, bool prefetch);

// The outer block of a ref as the target's block rule reads it (a block as
// large as a static dim is the whole dim).
std::vector<BlockDim> RefBlockDims(const RefPlan& ref);

// The block shape an inner loop streams for `ref` (per ref dim: static size,
// or -1 for a full dim).
std::vector<int64_t> StreamBlockShape(const KernelPlan& plan,
                                      const RefPlan& ref);

}  // namespace tessera::pallas
