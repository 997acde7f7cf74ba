// The matmul family under the `mosaic` launcher (Mosaic GPU, Hopper): an
// inner tile loop over the contraction whose body only accumulates
// `acc = dot(x[.., tile_k], y[tile_k, ..], acc)` becomes plgpu.emit_pipeline
// over the GMEM refs (TMA copies into swizzled shared memory) and one
// plgpu.wgmma per step into an f32 plgpu.ACC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernel_plan.h"
#include "tessera/ir/ir.h"

namespace tessera::pallas {

struct WgmmaLoop {
  const Stmt* accumulate = nullptr;  // `acc = dot(lhs, rhs, acc)`
  const Expr* lhs = nullptr;         // load of the streamed lhs ref
  const Expr* rhs = nullptr;         // load of the streamed rhs ref
  const RefPlan* lhs_ref = nullptr;
  const RefPlan* rhs_ref = nullptr;
  bool batched = false;  // rank-3 operands with a batch block of 1
  int64_t bm = 0, bn = 0, bk = 0;
  // The shared-memory layout wgmma reads both operands in: tiles of
  // (8, swizzle_bytes / itemsize) elements, swizzled by swizzle_bytes.
  int64_t swizzle_bytes = 0;
  int64_t tile_elems = 0;
  std::string row_tile, col_tile;  // the tiles indexing acc's two dims
};

// The wgmma form of `loop` (an inner tile loop of `plan`), or nullopt with
// `why` naming what the launcher does not lower in it.
std::optional<WgmmaLoop> MatchWgmmaLoop(const KernelPlan& plan,
                                        const Stmt& loop, std::string& why);

// True when `block` (a device-function block) holds a dot anywhere.
bool HoldsDot(const Block& block);

}  // namespace tessera::pallas
