#include "gpu_policy.h"

#include <algorithm>
#include <map>
#include <set>

#include "fmt/format.h"

namespace tessera::pallas {

int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t power = 1;
  while (power < n) power *= 2;
  return power;
}

namespace {

// Elements of a tensor type with static dims as the kernel holds it (each
// dim rounded up to a power of two); 0 for anything else.
int64_t StaticElements(const Type& type) {
  if (!type.is_tensor()) return 0;
  int64_t elements = 1;
  for (const Dim& dim : type.shape) {
    if (!dim.is_static()) return 0;
    elements *= PowerOfTwoAtLeast(dim.size);
  }
  return elements;
}

int64_t StaticBytes(const Type& type) {
  return StaticElements(type) * DTypeBytes(type.dtype);
}

// 32-bit registers that hold a value (bf16 packs two per register).
int64_t RegisterWords(const Type& type) { return (StaticBytes(type) + 3) / 4; }

struct Footprint {
  int64_t largest_tile_elements = 0;
  // Registers of kernels with f32 dots (Pallas lowers them to Triton's IEEE
  // FMA dot, not tensor cores): per inner loop, the carried tiles plus the
  // largest other value of the body, which are live together.
  bool fma_dot = false;
  int64_t fma_live_elements = 0;
  // Shared memory. Dot operands loaded inside an inner loop are
  // software-pipelined: one copy per stage.
  int64_t streamed_bytes = 0;
  // Next to those copies, the other resident buffers: every dot operand
  // loaded before the loop or computed in it (attention's q and p, together:
  // XLA's Triton asked an H200 for 288 KiB at bf16 128x128 blocks and 3
  // stages, 3 x (k + v) + q + p and more), or, if larger, the layout
  // conversion of a dot result stored in the loop (an atomic or store takes
  // the result out of the MMA layout through shared memory).
  int64_t resident_bytes = 0;
  TracedSize resident_operands;
  // With one stage (or no dot in a loop) buffers are reused: both operands
  // of the largest dot, or that conversion.
  int64_t unpipelined_bytes = 0;
  bool pipelined_dot = false;
  // Dot operands converted from a load of another dtype in an inner loop:
  // their loads' bytes (pipelined in the loaded dtype) and register words.
  int64_t converted_bytes = 0;
  int64_t converted_words = 0;
  // 32-bit registers of the carried tiles of the inner loops.
  int64_t carried_words = 0;
  bool any_dot = false;
  std::vector<TracedTile> traced_tiles;
  // The terms above with call-time dims kept (used only when some term has
  // one): shared memory, the f32-dot loops' live values (one alternative per
  // loop and temporary) and the converted operands' and carried tiles' words.
  TracedSharedMemory shared;
  std::vector<TracedSize> fma_live;
  TracedSize converted_live{SizeUnit::kWords, 0, {}};
  TracedSize carried_live{SizeUnit::kWords, 0, {}};
  bool traced_shared = false;
};

bool HasCallTimeDim(const Type& type) {
  return type.is_tensor() &&
         std::any_of(type.shape.begin(), type.shape.end(),
                     [](const Dim& dim) { return !dim.is_static(); });
}

// What the policy knows of a value defined in the device body.
struct Definition {
  // The ref read it comes from (through casts and views), if any.
  const Expr* load = nullptr;
  int depth = 0;  // inner-loop depth of its definition
  bool from_dot = false;
};

const Expr& StripViews(const Expr& expr) {
  const Expr* base = &expr;
  while ((base->op == OpKind::kCast || base->op == OpKind::kTranspose ||
          base->op == OpKind::kReshape) &&
         !base->operands.empty()) {
    base = base->operands[0].get();
  }
  return *base;
}

class FootprintWalk {
 public:
  explicit FootprintWalk(Footprint& footprint) : footprint_(footprint) {}

  void Block(const tessera::Block& body, int depth) {
    for (const Stmt& stmt : body.stmts) Statement(stmt, depth);
  }

 private:
  // The ref read `expr` comes from, and the loop depth of that read (-1:
  // at the use); nullptr when it is computed.
  const Expr* Loaded(const Expr& expr, int* depth) const {
    const Expr& base = StripViews(expr);
    if (base.op == OpKind::kLoad || base.op == OpKind::kSubscript) {
      *depth = -1;
      return &base;
    }
    if (base.op != OpKind::kVar) return nullptr;
    auto it = defs_.find(base.name);
    if (it == defs_.end() || it->second.load == nullptr) return nullptr;
    *depth = it->second.depth;
    return it->second.load;
  }
  bool FromDot(const Expr& root) const {
    bool found = false;
    WalkExpr(root, [&](const Expr& expr) {
      if (expr.op == OpKind::kDot) found = true;
      if (expr.op == OpKind::kVar) {
        auto it = defs_.find(expr.name);
        if (it != defs_.end() && it->second.from_dot) found = true;
      }
    });
    return found;
  }

  static std::string BaseKey(const Expr& base) {
    return base.op == OpKind::kVar ? base.name
                                   : fmt::format("{}", fmt::ptr(&base));
  }

  void Dots(const Expr& root, int depth) {
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
      if (!staged.count(&expr)) Tile(expr.type);
      if (expr.op != OpKind::kDot || expr.operands.size() < 2) return;
      footprint_.any_dot = true;
      int64_t pair = 0;
      TracedSize traced_pair;
      for (size_t i = 0; i < 2; ++i) {
        const Expr& operand = *expr.operands[i];
        const int64_t bytes = StaticBytes(operand.type);
        pair += bytes;
        AddShared(traced_pair, operand.type);
        if (operand.type.dtype == DType::kF32) footprint_.fma_dot = true;
        if (depth == 0) continue;
        int loaded_at = 0;
        const Expr* load = Loaded(operand, &loaded_at);
        // Loaded at the dot itself (-1) or by an assignment in the loop.
        const bool streamed = load != nullptr && loaded_at != 0;
        const std::string key = BaseKey(StripViews(operand));
        if (streamed && load->type.dtype != operand.type.dtype) {
          // Converted on the way (f32 -> fp8): the loads are pipelined in
          // their own dtype, one copy fewer than the stages (measured,
          // fp8_matmul_quant f32 128x128x128: 128 KiB per copy, 256 KiB at
          // 3 stages), and the converted values pass through registers.
          if (counted_.insert(key).second) {
            footprint_.converted_bytes += StaticBytes(load->type);
            footprint_.converted_words += RegisterWords(load->type);
            AddShared(footprint_.shared.converted, load->type);
            Add(footprint_.converted_live, load->type);
          }
          continue;
        }
        if (streamed && counted_.insert(key).second) {
          footprint_.streamed_bytes += bytes;
          AddShared(footprint_.shared.streamed, operand.type);
        } else if (!streamed && resident_.insert(key).second) {
          AddShared(footprint_.resident_operands, operand.type);
        }
      }
      footprint_.unpipelined_bytes =
          std::max(footprint_.unpipelined_bytes, pair);
      footprint_.shared.unpipelined.push_back(traced_pair);
      footprint_.pipelined_dot = footprint_.pipelined_dot || depth > 0;
    });
  }

  // `type`'s size into `sum`: static, or kept for the traced check.
  static bool Add(TracedSize& sum, const Type& type) {
    if (!HasCallTimeDim(type)) {
      sum.fixed += sum.unit == SizeUnit::kBytes      ? StaticBytes(type)
                   : sum.unit == SizeUnit::kElements ? StaticElements(type)
                                                     : RegisterWords(type);
      return false;
    }
    sum.traced.push_back(&type);
    return true;
  }
  void AddShared(TracedSize& bytes, const Type& type) {
    if (Add(bytes, type)) footprint_.traced_shared = true;
  }
  TracedSize Bytes(const Type& type) {
    TracedSize bytes;
    AddShared(bytes, type);
    return bytes;
  }

  void Tile(const Type& type, const std::string& name = "") {
    footprint_.largest_tile_elements =
        std::max(footprint_.largest_tile_elements, StaticElements(type));
    if (!HasCallTimeDim(type)) return;
    // One per shape: the values of a row kernel share theirs.
    std::string dims;
    for (const Dim& dim : type.shape) dims += DimToString(dim) + ",";
    if (!traced_shapes_.insert(dims).second) return;
    const std::string typed = TypeToString(type);
    footprint_.traced_tiles.push_back(
        TracedTile{name.empty() ? typed : name + " " + typed, &type});
  }

  void Statement(const Stmt& stmt, int depth) {
    for (const Value& result : stmt.results) Tile(result.type, result.name);
    ForEachRootExpr(stmt, [&](const Expr& root) { Dots(root, depth); });
    if (stmt.kind == StmtKind::kAssign && stmt.value && !stmt.results.empty()) {
      Definition def;
      int loaded_at = 0;
      def.load = Loaded(*stmt.value, &loaded_at);
      def.depth = def.load != nullptr && loaded_at >= 0 ? loaded_at : depth;
      def.from_dot = FromDot(*stmt.value);
      defs_[stmt.results[0].name] = def;
    }
    if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
        depth > 0 && stmt.value && FromDot(*stmt.value)) {
      const int64_t bytes = StaticBytes(stmt.value->type);
      footprint_.resident_bytes = std::max(footprint_.resident_bytes, bytes);
      footprint_.unpipelined_bytes =
          std::max(footprint_.unpipelined_bytes, bytes);
      footprint_.shared.resident.push_back(Bytes(stmt.value->type));
      footprint_.shared.unpipelined.push_back(Bytes(stmt.value->type));
    }
    if (stmt.kind == StmtKind::kTileLoop && !stmt.regions.empty()) {
      LoopLiveSet(stmt);
    }
    const int inner = depth + (stmt.kind == StmtKind::kTileLoop ? 1 : 0);
    for (const tessera::Block& region : stmt.regions) Block(region, inner);
  }

  // The carried tiles plus the largest value of the body that neither is
  // loaded (staged) nor replaces a carried value (`acc = acc * alpha`
  // reuses acc's registers), directly or through such a replacement.
  void LoopLiveSet(const Stmt& loop) {
    std::set<std::string> carried;
    int64_t live = 0;
    TracedSize carried_elements{SizeUnit::kElements, 0, {}};
    std::vector<const Type*> temporaries;
    for (const Value& arg : loop.iter_args) {
      carried.insert(arg.name);
      live += StaticElements(arg.type);
      footprint_.carried_words += RegisterWords(arg.type);
      Add(carried_elements, arg.type);
      Add(footprint_.carried_live, arg.type);
    }
    int64_t largest_temporary = 0;
    for (const Stmt& stmt : loop.regions[0].stmts) {
      if (stmt.kind != StmtKind::kAssign || !stmt.value || stmt.results.empty())
        continue;
      const Expr& base = StripViews(*stmt.value);
      if (base.op == OpKind::kLoad || base.op == OpKind::kSubscript) continue;
      bool updates_carried = false;
      WalkExpr(*stmt.value, [&](const Expr& expr) {
        if (expr.op == OpKind::kVar && carried.count(expr.name))
          updates_carried = true;
      });
      if (updates_carried) {
        // Its result replaces the carried value (acc_2 = acc_1 * alpha,
        // then acc_3 = acc_2 + p @ v).
        carried.insert(stmt.results[0].name);
        continue;
      }
      largest_temporary =
          std::max(largest_temporary, StaticElements(stmt.results[0].type));
      temporaries.push_back(&stmt.results[0].type);
    }
    footprint_.fma_live_elements =
        std::max(footprint_.fma_live_elements, live + largest_temporary);
    footprint_.fma_live.push_back(carried_elements);
    for (const Type* temporary : temporaries) {
      footprint_.fma_live.push_back(carried_elements);
      Add(footprint_.fma_live.back(), *temporary);
    }
  }

  Footprint& footprint_;
  std::map<std::string, Definition> defs_;
  std::set<std::string> counted_;
  std::set<std::string> resident_;
  std::set<std::string> traced_shapes_;
};

bool AnyTraced(const std::vector<TracedSize>& sizes) {
  return std::any_of(sizes.begin(), sizes.end(), [](const TracedSize& size) {
    return !size.traced.empty();
  });
}

// The register rules past the largest tile, for the warps chosen when
// traced (ChooseGpuLaunch weighs them in this order); empty when none has a
// call-time dim.
std::vector<TracedLiveSet> TracedLiveSets(Footprint& footprint) {
  std::vector<TracedLiveSet> sets;
  bool traced = false;
  if (footprint.fma_dot) {
    traced = AnyTraced(footprint.fma_live);
    sets.push_back(TracedLiveSet{
        "an inner loop with f32 dots keeps {} values live (its carried "
        "tiles and its largest temporary)",
        std::move(footprint.fma_live), kGpuLiveValuesPerThreadFma});
  }
  TracedSize& words = footprint.carried_live;
  const TracedSize& converted = footprint.converted_live;
  if (converted.fixed > 0 || !converted.traced.empty()) {
    traced = traced || !words.traced.empty() || !converted.traced.empty();
    words.fixed += converted.fixed;
    words.traced.insert(words.traced.end(), converted.traced.begin(),
                        converted.traced.end());
    sets.push_back(TracedLiveSet{
        "an inner loop converting dot operands keeps {} registers of "
        "loaded values and carried tiles",
        {std::move(words)},
        kGpuLiveWordsPerThreadConverted});
  }
  if (!traced) sets.clear();
  return sets;
}

std::string KiB(int64_t bytes) {
  return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
}

}  // namespace

GpuLaunch ChooseGpuLaunch(const KernelPlan& plan,
                          const GpuLaunchRequest& request) {
  Footprint footprint;
  FootprintWalk(footprint).Block(plan.device->body, 0);
  footprint.resident_bytes =
      std::max(footprint.resident_bytes, footprint.resident_operands.fixed);
  footprint.shared.resident.push_back(footprint.resident_operands);
  GpuLaunch launch;
  launch.largest_tile_elements = footprint.largest_tile_elements;
  launch.traced_tiles = std::move(footprint.traced_tiles);
  if (footprint.traced_shared) {
    footprint.shared.pipelined = footprint.pipelined_dot;
    launch.traced_shared = std::move(footprint.shared);
  }
  launch.shared_bytes_per_stage =
      footprint.streamed_bytes + footprint.converted_bytes;

  // Warps: enough threads that the largest tile is at most
  // kGpuValuesPerThread values per thread (measured on sm_90a: a 128x128
  // f32 matmul spills with 4 warps, not with 8; a 128x256 f32 softmax
  // spills with 4, not with 8 or 16). With 16 warps a thread has only 128
  // registers, too few next to the MMA fragments of a dot (attention
  // spills), so kernels with dots stop at 8. Kernels with f32 (FMA) dots
  // also keep their loops' live set within kGpuLiveValuesPerThreadFma.
  const auto warps_for = [](int64_t elements, int64_t per_thread) {
    const int64_t per_warp = 32 * per_thread;
    return PowerOfTwoAtLeast((elements + per_warp - 1) / per_warp);
  };
  int64_t needed =
      warps_for(footprint.largest_tile_elements, kGpuValuesPerThread);
  const bool live_bound =
      footprint.fma_dot && warps_for(footprint.fma_live_elements,
                                     kGpuLiveValuesPerThreadFma) > needed;
  if (live_bound) {
    needed = warps_for(footprint.fma_live_elements, kGpuLiveValuesPerThreadFma);
  }
  // Converted dot operands: the loaded values and the carried tiles share
  // the registers.
  const int64_t converted_live =
      footprint.converted_words > 0
          ? footprint.carried_words + footprint.converted_words
          : 0;
  const bool conversion_bound =
      !live_bound &&
      warps_for(converted_live, kGpuLiveWordsPerThreadConverted) > needed;
  if (conversion_bound) {
    needed = warps_for(converted_live, kGpuLiveWordsPerThreadConverted);
  }
  const bool has_dot = footprint.any_dot;
  const int64_t max_warps = has_dot ? kGpuMaxWarpsWithDots : kGpuMaxWarps;
  launch.max_warps = request.num_warps > 0 ? 0 : max_warps;
  if (request.num_warps > 0) {
    launch.num_warps = request.num_warps;
  } else if (needed > max_warps) {
    // Emitted with the most warps when legality is not checked (the sweep
    // compiles it so to see that the compiler agrees).
    launch.num_warps = max_warps;
    launch.problem =
        conversion_bound
            ? fmt::format(
                  "an inner loop converting dot operands keeps {} registers "
                  "of loaded values and carried tiles, which needs {} warps "
                  "to stay within {} per thread (at most {} warps per program "
                  "with a dot); choose smaller blocks",
                  converted_live, needed, kGpuLiveWordsPerThreadConverted,
                  max_warps)
        : live_bound
            ? fmt::format(
                  "an inner loop with f32 dots keeps {} values live (its "
                  "carried tiles and its largest temporary), which needs {} "
                  "warps to stay within {} values per thread (at most {} "
                  "warps per program with a dot; f32 dots are FMA loops on "
                  "Triton); choose smaller blocks",
                  footprint.fma_live_elements, needed,
                  kGpuLiveValuesPerThreadFma, max_warps)
            : fmt::format(
                  "a tile of {} elements needs {} warps to stay within {} "
                  "values per thread (at most {} warps per program{}); choose "
                  "smaller blocks",
                  footprint.largest_tile_elements, needed, kGpuValuesPerThread,
                  max_warps, max_warps == kGpuMaxWarps ? "" : " with a dot");
  } else {
    launch.num_warps =
        std::max(footprint.fma_dot ? kGpuMinWarpsFma : kGpuMinWarps, needed);
  }
  launch.tile_warps =
      warps_for(footprint.largest_tile_elements, kGpuValuesPerThread);
  launch.least_warps =
      request.num_warps > 0
          ? request.num_warps
          : (footprint.fma_dot ? kGpuMinWarpsFma : kGpuMinWarps);
  launch.live_sets = TracedLiveSets(footprint);

  // Stages: one copy of the streamed dot operands per stage, next to the
  // resident buffers (measured, attention f32 with 64x128 blocks and 2
  // stages: 2 x (k + v) + q = 288 KiB); one stage reuses every buffer. The
  // default is lowered until the copies fit.
  const auto shared_bytes = [&](int64_t stages) {
    if (!footprint.pipelined_dot || stages <= 1) {
      return footprint.unpipelined_bytes;
    }
    return footprint.streamed_bytes * stages +
           footprint.converted_bytes * (stages - 1) + footprint.resident_bytes;
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
        "the dots need {} of shared memory with num_stages {} ({} of "
        "operands per stage): more than the GPU's {} per program; choose "
        "smaller blocks{}",
        KiB(shared_bytes(launch.num_stages)), launch.num_stages,
        KiB(footprint.streamed_bytes), KiB(kGpuSharedMemoryBytes),
        request.num_stages > 1 ? " or fewer stages" : "");
  }
  return launch;
}

}  // namespace tessera::pallas
