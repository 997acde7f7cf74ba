// How a pallas-gpu kernel is launched when the config leaves it open:
// warps per program from the register footprint of its largest tile value,
// software-pipeline stages from the shared memory its dots need, and the
// located errors for kernels that fit neither (the GPU counterpart of the
// TPU's VMEM budget).
#pragma once

#include <cstdint>

#include <optional>
#include <string>
#include <vector>

#include "kernel_plan.h"

namespace tessera::pallas {

// H100 (sm_90): shared memory one program may use.
inline constexpr int64_t kGpuSharedMemoryBytes = 227 * 1024;
// Blocks a Mosaic GPU wgmma pipeline keeps in flight unless num_stages
// says otherwise (max_concurrent_steps; one wgmma in flight needs 2).
inline constexpr int64_t kMosaicDefaultStages = 2;
// Register budget of the policy: values of the largest tile per thread (a
// thread has at most 255 registers; operands and temporaries need the rest).
inline constexpr int64_t kGpuValuesPerThread = 64;
// Kernels with f32 dots (Triton FMA loops): values live per thread across
// an inner loop (measured on sm_90a, attention f32 at 8 warps: 97 per thread
// with 128x64 blocks compiles without spills, 129 with 128x128 spills).
inline constexpr int64_t kGpuLiveValuesPerThreadFma = 112;
// Dots whose operands are converted from loads of another dtype (f32 ->
// fp8): 32-bit registers per thread of the loaded values and the carried
// tiles (fp8_matmul_quant 128x128x128 at 8 warps: 128 from bf16 loads
// compiles, 192 from f32 loads spills with 1 or 2 stages).
inline constexpr int64_t kGpuLiveWordsPerThreadConverted = 128;
inline constexpr int64_t kGpuMinWarps = 4;
// Kernels with f32 dots start at 8 warps: next to the FMA loop's carried
// tile and operands, a thread of 4 warps runs out of registers well below
// the live-set rule (measured on sm_90a, grid_bmm f32 with 64x64 blocks and
// a 64x128 accumulator: 255 registers and 136 B of spills at 4 warps, 224
// registers and none at 8).
inline constexpr int64_t kGpuMinWarpsFma = 8;
inline constexpr int64_t kGpuMaxWarps = 16;
inline constexpr int64_t kGpuMaxWarpsWithDots = 8;
inline constexpr int64_t kGpuDefaultStages = 3;
// Triton's largest tensor (TRITON_MAX_TENSOR_NUMEL): past it the export
// fails in Triton's MLIR verifier.
inline constexpr int64_t kTritonMaxTensorElements = int64_t{1} << 20;

// What the config asks for: 0 leaves the choice to the policy.
struct GpuLaunchRequest {
  int64_t num_warps = 0;
  int64_t num_stages = 0;
};

// A tile whose size is known only when the host function is traced (a
// whole dim given at call time in a shape-generic module): the policy sizes
// it then (gpu_target.cpp emits the check, `_triton_num_warps`).
struct TracedTile {
  std::string label;           // "cur f32[128, 128, logits_d2]"
  const Type* type = nullptr;  // in the plan's device function
};

// A size that may depend on call-time dims: `fixed` plus the size of each
// type of `traced` (a value with such a dim), in `unit`.
enum class SizeUnit { kBytes, kElements, kWords };  // words: 32-bit registers
struct TracedSize {
  SizeUnit unit = SizeUnit::kBytes;
  int64_t fixed = 0;
  std::vector<const Type*> traced;
};
struct TracedSharedMemory {
  TracedSize streamed, converted;
  std::vector<TracedSize> resident, unpipelined;
  bool pipelined = false;
};

// One of the register rules of ChooseGpuLaunch for the warps chosen when
// traced: the largest of `alternatives` (elements or words) at most
// `per_thread` per thread. `what` names it in the error ("{}": the count).
struct TracedLiveSet {
  std::string what;
  std::vector<TracedSize> alternatives;
  int64_t per_thread = 0;
};

struct GpuLaunch {
  int64_t num_warps = kGpuMinWarps;
  int64_t num_stages = kGpuDefaultStages;
  // What the kernel's footprint was taken to be (for messages and docs).
  int64_t largest_tile_elements = 0;
  // Dot operands streamed by each software-pipeline stage.
  int64_t shared_bytes_per_stage = 0;
  // Set when no launch fits: the reason, for a located error.
  std::optional<std::string> problem;
  // Tiles with call-time dims (one per distinct shape, in kernel order),
  // which the static choice above does not count, and the most warps the
  // policy would give them (0: the config or kernel fixed num_warps).
  std::vector<TracedTile> traced_tiles;
  int64_t max_warps = 0;
  // The rest of the warps rule, for the check when traced: the warps of the
  // largest static tile, the fewest warps (the requested ones when
  // max_warps is 0), and the live sets in the order the policy weighs them
  // (the first that needs more warps than the tiles decides).
  int64_t tile_warps = 0;
  int64_t least_warps = 0;
  std::vector<TracedLiveSet> live_sets;
  // Set when a dot's shared memory depends on call-time dims.
  std::optional<TracedSharedMemory> traced_shared;
};

// Triton's tensors are powers of two in every dim: the block a tile or a
// whole dim of `n` elements takes.
int64_t PowerOfTwoAtLeast(int64_t n);

GpuLaunch ChooseGpuLaunch(const KernelPlan& plan,
                          const GpuLaunchRequest& request);

}  // namespace tessera::pallas
