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
#include <optional>
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

// True when `load` zips two index tensors side by side (`x[rows, lanes]`,
// one element per index pair).
bool HasZippedGather(const Expr& load);

// A lane select: the zipped gather `x[gather(t.index), gather(lanes)]` of a
// rank-2 ref reads one element per row of t's block, at a lane from data.
// Mosaic gathers lanes only within one vreg, so it is lowered as a compare
// of the row block, whole along its lanes, with a lane iota, and a row sum.
struct LaneSelect {
  const Expr* tile = nullptr;   // the tile var t
  const Expr* lanes = nullptr;  // the lane index vector, as written
};
// nullopt when a zipped gather is not of that form; `why` says which part.
std::optional<LaneSelect> MatchLaneSelect(
    const Expr& load, const std::map<std::string, const Expr*>& defs,
    std::string* why);

// Calls fn(load, index) for every gather index of a load in `root` that is
// read row by row (zipped gathers are lane selects, not included).
void ForEachGather(const Expr& root,
                   const std::function<void(const Expr&, const Index&)>& fn);

}  // namespace tessera::pallas
