#include "gpu_policy.h"

#include <algorithm>
#include <set>

#include "fmt/format.h"

namespace tessera::pallas {
namespace {

// Elements of a tensor type with static dims; 0 for anything else.
int64_t StaticElements(const Type& type) {
  if (!type.is_tensor()) return 0;
  int64_t elements = 1;
  for (const Dim& dim : type.shape) {
    if (!dim.is_static()) return 0;
    elements *= dim.size;
  }
  return elements;
}

int64_t StaticBytes(const Type& type) {
  return StaticElements(type) * DTypeBytes(type.dtype);
}

int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t power = 1;
  while (power < n) power *= 2;
  return power;
}

struct Footprint {
  int64_t largest_tile_elements = 0;
  // Shared memory of one stage: the operand blocks of the largest dot
  // (Triton stages both operands through shared memory for the MMA).
  int64_t dot_operand_bytes = 0;
  // A dot inside an inner loop: its operand loads are software-pipelined,
  // one copy of the operands per stage.
  bool pipelined_dot = false;
};

void Measure(const Block& body, int loop_depth, Footprint& footprint) {
  for (const Stmt& stmt : body.stmts) {
    const auto tile = [&](const Type& type) {
      footprint.largest_tile_elements =
          std::max(footprint.largest_tile_elements, StaticElements(type));
    };
    for (const Value& result : stmt.results) tile(result.type);
    ForEachRootExpr(stmt, [&](const Expr& root) {
      // A dot's operands loaded from refs go through shared memory (Triton
      // stages them there for the MMA), not registers: the sweep's bf16
      // 128x128x256 matmul compiles at 8 warps, though its 128x256 operand
      // alone would ask for 16.
      std::set<const Expr*> staged;
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op != OpKind::kDot) return;
        for (size_t i = 0; i < expr.operands.size() && i < 2; ++i) {
          const Expr& operand = *expr.operands[i];
          if (operand.op == OpKind::kSubscript || operand.op == OpKind::kLoad) {
            staged.insert(&operand);
          }
        }
      });
      WalkExpr(root, [&](const Expr& expr) {
        if (!staged.count(&expr)) tile(expr.type);
        if (expr.op != OpKind::kDot || expr.operands.size() < 2) return;
        const int64_t bytes = StaticBytes(expr.operands[0]->type) +
                              StaticBytes(expr.operands[1]->type);
        footprint.dot_operand_bytes =
            std::max(footprint.dot_operand_bytes, bytes);
        footprint.pipelined_dot = footprint.pipelined_dot || loop_depth > 0;
      });
    });
    const int depth = loop_depth + (stmt.kind == StmtKind::kTileLoop ? 1 : 0);
    for (const Block& region : stmt.regions) Measure(region, depth, footprint);
  }
}

std::string KiB(int64_t bytes) {
  return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
}

}  // namespace

GpuLaunch ChooseGpuLaunch(const KernelPlan& plan,
                          const GpuLaunchRequest& request) {
  Footprint footprint;
  Measure(plan.device->body, 0, footprint);
  GpuLaunch launch;
  launch.largest_tile_elements = footprint.largest_tile_elements;
  launch.shared_bytes_per_stage = footprint.dot_operand_bytes;

  // Warps: enough threads that the largest tile is at most
  // kGpuValuesPerThread values per thread (measured on sm_90a: a 128x128
  // f32 matmul spills with 4 warps, not with 8; a 128x256 f32 softmax
  // spills with 4, not with 8 or 16). With 16 warps a thread has only 128
  // registers, too few next to the MMA fragments of a dot (attention
  // spills), so kernels with dots stop at 8.
  const int64_t per_warp = 32 * kGpuValuesPerThread;
  const int64_t needed = PowerOfTwoAtLeast(
      (footprint.largest_tile_elements + per_warp - 1) / per_warp);
  const int64_t max_warps =
      footprint.dot_operand_bytes > 0 ? kGpuMaxWarpsWithDots : kGpuMaxWarps;
  if (request.num_warps > 0) {
    launch.num_warps = request.num_warps;
  } else if (needed > max_warps) {
    // Emitted with the most warps when legality is not checked (the sweep
    // compiles it so to see that the compiler agrees).
    launch.num_warps = max_warps;
    launch.problem = fmt::format(
        "a tile of {} elements needs {} warps to stay within {} values per "
        "thread (at most {} warps per program{}); choose smaller blocks",
        footprint.largest_tile_elements, needed, kGpuValuesPerThread, max_warps,
        max_warps == kGpuMaxWarps ? "" : " with a dot");
  } else {
    launch.num_warps = std::max(kGpuMinWarps, needed);
  }

  // Stages: one copy of the dot operands per stage when the dot is in a
  // pipelined inner loop (measured: 128x128 bf16 operands, 3 stages =
  // 192 KiB); the default is lowered until the copies fit.
  const int64_t per_stage = footprint.dot_operand_bytes;
  const auto shared_bytes = [&](int64_t stages) {
    return footprint.pipelined_dot ? per_stage * std::max<int64_t>(stages, 1)
                                   : per_stage;
  };
  launch.num_stages =
      request.num_stages > 0 ? request.num_stages : kGpuDefaultStages;
  if (request.num_stages == 0) {
    while (launch.num_stages > 1 &&
           shared_bytes(launch.num_stages) > kGpuSharedMemoryBytes) {
      --launch.num_stages;
    }
  }
  if (!launch.problem &&
      shared_bytes(launch.num_stages) > kGpuSharedMemoryBytes) {
    launch.problem = fmt::format(
        "the dot operands need {} of shared memory per stage, {} with "
        "num_stages {}: more than the GPU's {} per program; choose smaller "
        "blocks{}",
        KiB(per_stage), KiB(shared_bytes(launch.num_stages)), launch.num_stages,
        KiB(kGpuSharedMemoryBytes),
        request.num_stages > 1 ? " or fewer stages" : "");
  }
  return launch;
}

}  // namespace tessera::pallas
