// Gathers: loads that select rows of a ref by an index tensor
// (`table[idx, :]`, `hl.load(w, [rows, tile_k])`).
//
// The TPU has no vector gather across memory (Mosaic's dynamic_gather
// permutes within one vreg), so a gather is a loop over the rows of the
// block: row r of the result is a dynamic-slice load of row index[r] of the
// ref, kept whole in VMEM along the gathered dim. The index is evaluated per
// row as a scalar: its tensor definitions are followed back to tile indices,
// constants and loads from index refs, which then go to SMEM by scalar
// prefetch (docs/tpu_legality.md, "Gathers").
#pragma once

#include <functional>
#include <map>
#include <string>

#include "kernel_plan.h"

namespace tessera::pallas {

// The tensor-valued assignments of `device`, by result name.
std::map<std::string, const Expr*> TensorDefinitions(const Function& device);

// Walks a gather index as it is evaluated row by row: after a tensor value
// comes its definition. `fn` sees every node, with `expanded` true inside a
// definition (not in the index expression itself).
void WalkGatherIndex(const Expr& index,
                     const std::map<std::string, const Expr*>& defs,
                     const std::function<void(const Expr&, bool)>& fn);

// Calls fn(load, index) for every gather index of a load in `root`.
void ForEachGather(const Expr& root,
                   const std::function<void(const Expr&, const Index&)>& fn);

}  // namespace tessera::pallas
