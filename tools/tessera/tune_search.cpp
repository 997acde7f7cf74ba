#include "tune_search.h"

#include <algorithm>

#include "compile_steps.h"
#include "driver/pass_manager.h"
#include "fmt/format.h"

namespace tessera::cli {
namespace {

// A block no dim reaches: the frontend clamps it to the dim it tiles.
constexpr int64_t kHugeBlock = int64_t{1} << 40;
// Slots probed past the last one found, before giving up.
constexpr int kMissesBeforeStop = 2;
constexpr int kMaxSlots = 12;

const Function* FindKernel(const Module& module, const std::string& name) {
  for (const Function& function : module.functions) {
    if (function.name == name) return &function;
  }
  return nullptr;
}

std::string FirstError(const DiagnosticEngine& diagnostics) {
  for (const Diagnostic& diagnostic : diagnostics.diagnostics()) {
    if (diagnostic.severity == Severity::kError) return diagnostic.message;
  }
  return "rejected";
}

}  // namespace

void KernelSearch::Configure(const std::vector<int64_t>& block_sizes,
                             const std::string& launcher) {
  pipeline_.info.kernels[kernel_].block_sizes = block_sizes;
  if (!launcher.empty()) {
    pipeline_.info.backend_options.Set("launcher", OptionValue(launcher));
  }
}

absl::StatusOr<Module> KernelSearch::Frontend(
    const std::vector<int64_t>& block_sizes, std::string* why) {
  Configure(block_sizes, "");
  DiagnosticEngine quiet;
  absl::StatusOr<Module> module =
      ParseInput(input_, pipeline_, text_, false, quiet);
  if (!module.ok() && why != nullptr) *why = FirstError(quiet);
  return module;
}

std::vector<KernelSearch::TileBlock> KernelSearch::TileBlocks(
    const Module& module) const {
  std::vector<TileBlock> tiles;
  const Function* kernel = FindKernel(module, kernel_);
  if (kernel == nullptr) return tiles;
  WalkStmts(kernel->body, [&](const Stmt& stmt) {
    if (stmt.kind != StmtKind::kTileLoop) return;
    for (size_t i = 0; i < stmt.vars.size(); ++i) {
      TileBlock tile;
      tile.tile = stmt.vars[i].name;
      const Shape& shape = stmt.vars[i].type.shape;
      tile.block = !shape.empty() && shape[0].is_static() ? shape[0].size : 0;
      if (i < stmt.dims.size() && stmt.dims[i].begin &&
          stmt.dims[i].begin->op == OpKind::kTileBegin &&
          !stmt.dims[i].begin->operands.empty() &&
          stmt.dims[i].begin->operands[0]->op == OpKind::kVar) {
        tile.parent = stmt.dims[i].begin->operands[0]->name;
      }
      tiles.push_back(std::move(tile));
    }
  });
  return tiles;
}

std::map<std::string, int64_t> KernelSearch::TileMultiples(
    const Module& module) const {
  std::map<std::string, int64_t> multiples;
  auto note = [&](const Type& ref, const IndexList& indices) {
    const int64_t rank = static_cast<int64_t>(ref.shape.size());
    const int64_t packing = std::max(1, 4 / DTypeBytes(ref.dtype));
    int64_t d = 0;
    for (const Index& index : indices) {
      if (index.kind == IndexKind::kNewAxis) continue;
      if (index.kind == IndexKind::kTile && index.expr &&
          index.expr->op == OpKind::kVar) {
        int64_t multiple = 1;
        if (d == rank - 1) multiple = 128;
        if (d == rank - 2) multiple = 8 * packing;
        int64_t& slot = multiples[index.expr->name];
        slot = std::max(slot, multiple);
      }
      ++d;
    }
  };
  const Function* kernel = FindKernel(module, kernel_);
  if (kernel == nullptr) return multiples;
  WalkStmts(kernel->body, [&](const Stmt& stmt) {
    if (stmt.target) note(stmt.target->type, stmt.indices);
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op == OpKind::kLoad && !expr.operands.empty()) {
          note(expr.operands[0]->type, expr.indices);
        }
      });
    });
  });
  return multiples;
}

absl::StatusOr<std::vector<BlockSlot>> KernelSearch::DiscoverSlots(
    bool stop_when_covered) {
  std::string why;
  absl::StatusOr<Module> base = Frontend({}, &why);
  if (!base.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("kernel '{}' does not compile: {}", kernel_, why));
  }
  const std::vector<TileBlock> base_tiles = TileBlocks(*base);
  const std::map<std::string, int64_t> multiples = TileMultiples(*base);
  std::vector<BlockSlot> slots;
  std::vector<int64_t> prefix;
  int misses = 0;
  std::set<std::string> covered;
  for (int i = 0; i < kMaxSlots && misses < kMissesBeforeStop; ++i) {
    if (stop_when_covered && covered.size() >= base_tiles.size()) break;
    // A slot shows by the tiles it changes: set to 1 (unless that is its
    // default) or to a huge block (clamped to its dim, unless that is it).
    BlockSlot slot;
    std::map<std::string, int64_t> huge_blocks;
    for (const int64_t value : {int64_t{1}, kHugeBlock}) {
      std::vector<int64_t> probe = prefix;
      probe.push_back(value);
      absl::StatusOr<Module> probed = Frontend(probe, nullptr);
      if (!probed.ok()) continue;
      const std::vector<TileBlock> tiles = TileBlocks(*probed);
      for (size_t t = 0; t < tiles.size() && t < base_tiles.size(); ++t) {
        if (value == kHugeBlock) huge_blocks[tiles[t].tile] = tiles[t].block;
        if (tiles[t].block == base_tiles[t].block ||
            std::find(slot.tiles.begin(), slot.tiles.end(), tiles[t].tile) !=
                slot.tiles.end()) {
          continue;
        }
        slot.tiles.push_back(tiles[t].tile);
        if (slot.default_block == 0) slot.default_block = base_tiles[t].block;
      }
    }
    if (slot.tiles.empty()) {
      // No slot here, or one whose dim is 1: either way 1 is its block.
      ++misses;
      slot.default_block = slot.extent = 1;
      slot.values = {1};
      slots.push_back(slot);
      prefix.push_back(1);
      continue;
    }
    misses = 0;
    covered.insert(slot.tiles.begin(), slot.tiles.end());
    const int64_t huge = huge_blocks[slot.tiles[0]];
    slot.extent = huge >= kHugeBlock ? 0 : huge;
    for (const std::string& tile : slot.tiles) {
      auto it = multiples.find(tile);
      if (it != multiples.end())
        slot.multiple = std::max(slot.multiple, it->second);
    }
    slots.push_back(slot);
    prefix.push_back(slot.default_block);
  }
  while (!slots.empty() && slots.back().tiles.empty()) slots.pop_back();
  // A slot whose tiles only bound inner tiles takes their tile multiple.
  auto slot_of = [&](const std::string& tile) {
    for (size_t s = 0; s < slots.size(); ++s) {
      const std::vector<std::string>& tiles = slots[s].tiles;
      if (std::find(tiles.begin(), tiles.end(), tile) != tiles.end()) {
        return static_cast<int>(s);
      }
    }
    return -1;
  };
  for (const TileBlock& tile : base_tiles) {
    const int child = slot_of(tile.tile), parent = slot_of(tile.parent);
    if (tile.parent.empty() || child < 0 || parent < 0 || child == parent) {
      continue;
    }
    slots[child].parent_slot = parent;
    if (!multiples.count(tile.parent)) {
      slots[parent].multiple =
          std::max(slots[parent].multiple, slots[child].multiple);
    }
  }
  AssignCandidates(slots);
  return slots;
}

void KernelSearch::AssignCandidates(std::vector<BlockSlot>& slots) {
  int64_t largest = 1;
  for (const BlockSlot& slot : slots) largest = std::max(largest, slot.extent);
  for (BlockSlot& slot : slots) {
    if (slot.tiles.empty()) continue;
    const int64_t extent = slot.extent > 0 ? slot.extent : largest;
    std::set<int64_t> values = {std::min(slot.default_block, extent), extent};
    for (int64_t v = slot.multiple; v < extent; v *= 2) values.insert(v);
    slot.values.assign(values.begin(), values.end());
  }
}

absl::StatusOr<std::vector<BlockSlot>> KernelSearch::ResizeSlots(
    std::vector<BlockSlot> slots) {
  std::string why;
  absl::StatusOr<Module> base = Frontend({}, &why);
  if (!base.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("kernel '{}' does not compile: {}", kernel_, why));
  }
  std::vector<int64_t> huge;
  for (const BlockSlot& slot : slots) {
    huge.push_back(slot.tiles.empty() ? 1 : kHugeBlock);
  }
  absl::StatusOr<Module> probed = Frontend(huge, &why);
  if (!probed.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("kernel '{}' does not compile: {}", kernel_, why));
  }
  std::map<std::string, int64_t> defaults, extents;
  for (const TileBlock& tile : TileBlocks(*base))
    defaults[tile.tile] = tile.block;
  for (const TileBlock& tile : TileBlocks(*probed))
    extents[tile.tile] = tile.block;
  for (BlockSlot& slot : slots) {
    if (slot.tiles.empty()) continue;
    const std::string& tile = slot.tiles.front();
    if (!defaults.count(tile) || !extents.count(tile)) {
      return absl::InternalError("the kernel's tiles changed with its sizes");
    }
    slot.default_block = defaults[tile];
    slot.extent = extents[tile] >= kHugeBlock ? 0 : extents[tile];
  }
  AssignCandidates(slots);
  return slots;
}

std::optional<Candidate> KernelSearch::Evaluate(
    const std::vector<int64_t>& block_sizes, const std::string& launcher,
    std::string* why) {
  Configure(block_sizes, launcher);
  DiagnosticEngine quiet;
  absl::StatusOr<Module> module =
      ParseInput(input_, pipeline_, text_, false, quiet);
  if (!module.ok()) {
    if (why) *why = FirstError(quiet);
    return std::nullopt;
  }
  if (!block_sizes.empty()) {
    // Same blocks after the frontend's clamping: already evaluated.
    const std::vector<TileBlock> tiles = TileBlocks(*module);
    std::map<std::string, int64_t> blocks;
    std::string key = launcher;
    for (const TileBlock& tile : tiles) {
      blocks[tile.tile] = tile.block;
      key += fmt::format(" {}", tile.block);
    }
    if (!seen_.insert(key).second) {
      if (why) *why = "duplicate";
      return std::nullopt;
    }
    for (const TileBlock& tile : tiles) {
      if (tile.parent.empty() || !blocks.count(tile.parent)) continue;
      const int64_t parent = blocks[tile.parent];
      if (tile.block > parent || parent % tile.block != 0) {
        if (why) *why = "nested";
        return std::nullopt;
      }
    }
  }
  PassManagerOptions options;
  options.verify_each = false;  // verified once for the winner by compile
  PassManager passes(options);
  for (const ResolvedPass& pass : pipeline_.passes) passes.AddPass(pass);
  if (!passes.Run(*module, pipeline_.info, quiet).ok()) {
    if (why) *why = FirstError(quiet);
    return std::nullopt;
  }
  absl::StatusOr<std::vector<KernelEstimate>> estimates =
      RunEstimate(*module, pipeline_, quiet);
  if (!estimates.ok()) {
    if (why) *why = FirstError(quiet);
    return std::nullopt;
  }
  for (KernelEstimate& estimate : *estimates) {
    if (estimate.kernel != kernel_) continue;
    Candidate candidate;
    candidate.launcher = launcher;
    candidate.block_sizes = block_sizes;
    candidate.estimate = std::move(estimate);
    return candidate;
  }
  if (why) *why = "no estimate for the kernel";
  return std::nullopt;
}

std::vector<Candidate> KernelSearch::Rank(
    const std::vector<BlockSlot>& slots,
    const std::vector<std::string>& launchers, SearchStats& stats) {
  std::vector<Candidate> ranked;
  for (const std::string& launcher : launchers) {
    std::vector<size_t> at(slots.size(), 0);
    while (true) {
      std::vector<int64_t> blocks;
      bool nested_ok = true;
      for (size_t s = 0; s < slots.size(); ++s) {
        blocks.push_back(slots[s].values[at[s]]);
      }
      for (size_t s = 0; s < slots.size(); ++s) {
        const int parent = slots[s].parent_slot;
        if (parent >= 0 &&
            (blocks[s] > blocks[parent] || blocks[parent] % blocks[s] != 0)) {
          nested_ok = false;
        }
      }
      ++stats.enumerated;
      std::string why;
      if (!nested_ok) {
        ++stats.nested;
      } else if (std::optional<Candidate> candidate =
                     Evaluate(blocks, launcher, &why)) {
        ranked.push_back(*std::move(candidate));
      } else if (why == "duplicate") {
        ++stats.duplicates;
      } else if (why == "nested") {
        ++stats.nested;
      } else {
        ++stats.rejected;
        if (stats.first_rejection.empty()) stats.first_rejection = why;
      }
      size_t s = 0;
      for (; s < slots.size(); ++s) {
        if (++at[s] < slots[s].values.size()) break;
        at[s] = 0;
      }
      if (s == slots.size()) break;
    }
  }
  std::stable_sort(
      ranked.begin(), ranked.end(), [](const Candidate& a, const Candidate& b) {
        // Ties (a block size the model cannot tell apart):
        // the smaller VMEM footprint.
        if (a.estimate.time_s != b.estimate.time_s) {
          return a.estimate.time_s < b.estimate.time_s;
        }
        return a.estimate.vmem_peak_bytes < b.estimate.vmem_peak_bytes;
      });
  return ranked;
}

std::optional<Candidate> KernelSearch::Descend(
    const std::vector<BlockSlot>& slots,
    const std::vector<std::string>& launchers, int64_t max_estimates,
    SearchStats& stats) {
  if (launchers.empty()) return std::nullopt;
  auto budget_left = [&] { return stats.enumerated < max_estimates; };
  auto blocks_at = [&](const std::vector<size_t>& position) {
    std::vector<int64_t> blocks;
    for (size_t s = 0; s < slots.size(); ++s) {
      blocks.push_back(slots[s].values[position[s]]);
    }
    return blocks;
  };
  auto nested_ok = [&](const std::vector<int64_t>& blocks) {
    for (size_t s = 0; s < slots.size(); ++s) {
      const int parent = slots[s].parent_slot;
      if (parent >= 0 &&
          (blocks[s] > blocks[parent] || blocks[parent] % blocks[s] != 0)) {
        return false;
      }
    }
    return true;
  };
  auto evaluate = [&](const std::vector<size_t>& position,
                      const std::string& launcher) -> std::optional<Candidate> {
    const std::vector<int64_t> blocks = blocks_at(position);
    if (!nested_ok(blocks)) return std::nullopt;
    ++stats.enumerated;
    std::string why;
    std::optional<Candidate> candidate = Evaluate(blocks, launcher, &why);
    if (!candidate && why != "duplicate") {
      ++stats.rejected;
      if (stats.first_rejection.empty()) stats.first_rejection = why;
    }
    return candidate;
  };
  auto faster = [](const std::optional<Candidate>& a,
                   const std::optional<Candidate>& b) {
    return a && (!b || a->estimate.time_s < b->estimate.time_s);
  };
  // Two starting points: the kernel's own blocks, and each slot's middle
  // value (in the log scale of its candidates), which is nearer the
  // optimum of large shapes; the launcher is chosen at the better one.
  std::vector<size_t> own(slots.size(), 0), middle(slots.size(), 0);
  for (size_t s = 0; s < slots.size(); ++s) {
    const std::vector<int64_t>& values = slots[s].values;
    auto found =
        std::find(values.begin(), values.end(), slots[s].default_block);
    own[s] = found == values.end() ? 0 : found - values.begin();
    middle[s] = values.size() / 2;
  }
  std::optional<Candidate> best = evaluate(own, launchers[0]);
  if (!best) return std::nullopt;  // no model, or the kernel's own fails
  stats.start_time_s = best->estimate.time_s;
  std::vector<size_t> at = own;
  if (std::optional<Candidate> mid = evaluate(middle, launchers[0]);
      faster(mid, best)) {
    best = std::move(mid);
    at = middle;
  }
  std::string launcher = launchers[0];
  for (size_t l = 1; l < launchers.size() && budget_left(); ++l) {
    if (std::optional<Candidate> other = evaluate(at, launchers[l]);
        faster(other, best)) {
      best = std::move(other);
      launcher = launchers[l];
    }
  }
  // Coordinate descent: a move that helps is repeated in its direction
  // (a line search) before the next slot is tried.
  bool improved = true;
  while (improved && budget_left()) {
    improved = false;
    for (size_t s = 0; s < slots.size() && budget_left(); ++s) {
      for (const int step : {1, -1}) {
        while (budget_left()) {
          std::vector<size_t> moved = at;
          if ((step < 0 && moved[s] == 0) ||
              (step > 0 && moved[s] + 1 >= slots[s].values.size())) {
            break;
          }
          moved[s] += step;
          std::optional<Candidate> candidate = evaluate(moved, launcher);
          if (!faster(candidate, best)) break;
          best = std::move(candidate);
          at = moved;
          improved = true;
        }
      }
    }
  }
  for (const std::string& other_launcher : launchers) {
    if (other_launcher == launcher || !budget_left()) continue;
    if (std::optional<Candidate> other = evaluate(at, other_launcher);
        faster(other, best)) {
      best = std::move(other);
    }
  }
  return best;
}

absl::StatusOr<std::string> KernelSearch::Code(const Candidate& candidate) {
  Configure(candidate.block_sizes, candidate.launcher);
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module =
      ParseInput(input_, pipeline_, text_, false, diagnostics);
  if (!module.ok()) return module.status();
  PassManager passes{PassManagerOptions{}};
  for (const ResolvedPass& pass : pipeline_.passes) passes.AddPass(pass);
  absl::Status status = passes.Run(*module, pipeline_.info, diagnostics);
  if (!status.ok()) return status;
  absl::StatusOr<std::vector<EmittedFile>> files =
      RunBackend(*module, pipeline_, diagnostics);
  if (!files.ok()) return files.status();
  for (const EmittedFile& file : *files) {
    if (file.name == kernel_ + "_pallas.py") return file.contents;
  }
  return absl::NotFoundError("no module for the kernel");
}

}  // namespace tessera::cli
