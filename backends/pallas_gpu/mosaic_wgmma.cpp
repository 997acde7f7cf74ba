// `mosaic` (Mosaic GPU): the launcher's device emitter. Inner tile loops
// are lowered only in the wgmma form (mosaic_wgmma.h); every other loop is
// a located error naming what the launcher does not do yet.
#include "mosaic_wgmma.h"

#include <map>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "gpu_policy.h"
#include "gpu_target.h"
#include "tessera/ir/types.h"

namespace tessera::pallas {
namespace {

const char kUseTriton[] = "use configs/pallas_gpu_triton.toml";
// A Hopper thread has 255 registers; the accumulator may take all but what
// the pipeline's addresses, barriers and wgmma descriptors need.
constexpr int64_t kWarpgroupThreads = 128;
constexpr int64_t kMaxAccRegisters = 224;

// The load `expr` of a ref that `loop` streams, or nullptr.
const RefPlan* StreamedLoad(const KernelPlan& plan, const Stmt& loop,
                            const Expr& expr) {
  if (expr.op != OpKind::kLoad || expr.operands.empty() ||
      expr.operands[0]->op != OpKind::kVar) {
    return nullptr;
  }
  const RefPlan* ref = plan.FindRef(expr.operands[0]->name);
  return ref != nullptr && ref->stream_loop == &loop ? ref : nullptr;
}

// The tile naming dim `d` of a load's (all-tile) indices, or "".
std::string TileAt(const Expr& load, size_t d) {
  if (d >= load.indices.size()) return "";
  const Index& index = load.indices[d];
  if (index.kind != IndexKind::kTile || index.expr == nullptr ||
      index.expr->op != OpKind::kVar) {
    return "";
  }
  return index.expr->name;
}

// The largest swizzle (bytes) both operands' minor dims are whole multiples
// of; 0 when none (wgmma reads shared memory only swizzled).
int64_t CommonSwizzle(int64_t lhs_minor_bytes, int64_t rhs_minor_bytes) {
  for (int64_t swizzle : {128, 64, 32}) {
    if (lhs_minor_bytes % swizzle == 0 && rhs_minor_bytes % swizzle == 0) {
      return swizzle;
    }
  }
  return 0;
}

}  // namespace

bool HoldsDot(const Block& block) {
  bool found = false;
  WalkStmts(block, [&](const Stmt& stmt) {
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& e) {
        if (e.op == OpKind::kDot) found = true;
      });
    });
  });
  return found;
}

std::optional<WgmmaLoop> MatchWgmmaLoop(const KernelPlan& plan,
                                        const Stmt& loop, std::string& why) {
  const std::string form =
      "the mosaic launcher of pallas-gpu lowers an inner tile loop with a "
      "dot only as the accumulation `acc = dot(x[tile_m, tile_k], "
      "y[tile_k, tile_n], acc)` (or `acc + x[...] @ y[...]`) on its own "
      "(plgpu.wgmma into an f32 plgpu.ACC over blocks plgpu.emit_pipeline "
      "streams)";
  const Block& body = loop.regions[0];
  if (loop.iter_args.size() != 1 || body.stmts.size() != 2 ||
      body.stmts[0].kind != StmtKind::kAssign ||
      body.stmts[1].kind != StmtKind::kYield ||
      body.stmts[1].operands.size() != 1) {
    why = form +
          "; this loop does more (other statements or carried "
          "values are not supported yet); " +
          kUseTriton;
    return std::nullopt;
  }
  const Stmt& assign = body.stmts[0];
  const Expr& yielded = *body.stmts[1].operands[0];
  const Value& acc = loop.iter_args[0];
  const Expr& value = *assign.value;
  // dot(a, b, acc), or acc + dot(a, b) in either order.
  const Expr* dot = nullptr;
  auto is_acc = [&](const Expr& e) {
    return e.op == OpKind::kVar && e.name == acc.name;
  };
  if (value.op == OpKind::kDot && value.operands.size() == 3 &&
      is_acc(*value.operands[2])) {
    dot = &value;
  } else if (value.op == OpKind::kAdd && value.operands.size() == 2) {
    for (int i = 0; i < 2; ++i) {
      const Expr& d = *value.operands[i];
      if (d.op == OpKind::kDot && d.operands.size() == 2 &&
          is_acc(*value.operands[1 - i])) {
        dot = &d;
      }
    }
  }
  if (dot == nullptr || yielded.op != OpKind::kVar || assign.results.empty() ||
      yielded.name != assign.results[0].name) {
    why = form + "; this loop computes something else; " + kUseTriton;
    return std::nullopt;
  }
  WgmmaLoop match;
  match.accumulate = &assign;
  match.lhs = dot->operands[0].get();
  match.rhs = dot->operands[1].get();
  match.lhs_ref = StreamedLoad(plan, loop, *match.lhs);
  match.rhs_ref = StreamedLoad(plan, loop, *match.rhs);
  if (match.lhs_ref == nullptr || match.rhs_ref == nullptr) {
    why = form +
          "; here an operand is not a block of a ref the loop streams "
          "(a computed or transposed operand, or a ref read elsewhere "
          "too); " +
          kUseTriton;
    return std::nullopt;
  }
  const size_t rank = match.lhs->type.shape.size();
  const std::string tile = loop.vars[0].name;
  if (rank < 2 || rank > 3 || match.rhs->type.shape.size() != rank ||
      acc.type.dtype != DType::kF32 || acc.type.shape.size() != rank ||
      match.lhs->indices.size() != rank || match.rhs->indices.size() != rank ||
      TileAt(*match.lhs, rank - 1) != tile ||
      TileAt(*match.rhs, rank - 2) != tile) {
    why = form +
          "; this dot's operands or accumulator have another shape (the "
          "accumulator must be f32, the operands 2-D or batched 3-D, "
          "contracted over the loop's tile); " +
          kUseTriton;
    return std::nullopt;
  }
  const DType dtype = match.lhs->type.dtype;
  if (match.rhs->type.dtype != dtype ||
      (dtype != DType::kBF16 && dtype != DType::kF16)) {
    why = fmt::format(
        "the mosaic launcher of pallas-gpu lowers dots of bf16 or f16 "
        "operands only (plgpu.wgmma); these are {} x {}: Mosaic GPU's "
        "wgmma takes 32-bit (tf32) operands only K-major, and the rhs "
        "blocks y[tile_k, tile_n] are N-major (\"Only f16 WGMMA supports "
        "transposes\"); cast the operands to bf16 in the kernel, or {}",
        DTypeName(match.lhs->type.dtype), DTypeName(match.rhs->type.dtype),
        kUseTriton);
    return std::nullopt;
  }
  const std::vector<int64_t> lhs_block = StreamBlockShape(plan, *match.lhs_ref);
  const std::vector<int64_t> rhs_block = StreamBlockShape(plan, *match.rhs_ref);
  match.batched = rank == 3;
  if (match.batched && (lhs_block[0] != 1 || rhs_block[0] != 1 ||
                        TileAt(*match.lhs, 0).empty() ||
                        TileAt(*match.lhs, 0) != TileAt(*match.rhs, 0))) {
    why =
        "the mosaic launcher of pallas-gpu lowers a batched dot only with "
        "a batch block of 1 (wgmma is 2-D); " +
        std::string(kUseTriton);
    return std::nullopt;
  }
  match.bm = lhs_block[rank - 2];
  match.bk = lhs_block[rank - 1];
  match.bn = rhs_block[rank - 1];
  match.row_tile = TileAt(*match.lhs, rank - 2);
  match.col_tile = TileAt(*match.rhs, rank - 1);
  const int64_t itemsize = DTypeBytes(dtype);
  match.swizzle_bytes = CommonSwizzle(match.bk * itemsize, match.bn * itemsize);
  match.tile_elems = match.swizzle_bytes / itemsize;
  // wgmma: m in multiples of 64 (one warpgroup instruction's rows), n a
  // multiple of 8 up to 256; both operands tiled (8, swizzle) in shared
  // memory, so k and n whole swizzle rows and m and k whole 8-row tiles.
  std::string problem;
  if (match.bm <= 0 || match.bn <= 0 || match.bk <= 0 ||
      match.row_tile.empty() || match.col_tile.empty()) {
    problem = "the blocks are not static";
  } else if (match.bm % 64 != 0) {
    problem =
        fmt::format("its row block is {}, not a multiple of 64", match.bm);
  } else if (match.bn % 8 != 0 || match.bn > 256) {
    problem = fmt::format(
        "its column block is {}, not a multiple of 8 up to 256", match.bn);
  } else if (match.swizzle_bytes == 0 || match.bk % 8 != 0) {
    problem = fmt::format(
        "its contraction block ({}) and column block ({}) are not whole "
        "rows of a 32-, 64- or 128-byte swizzle",
        match.bk, match.bn);
  } else if (match.bm * match.bn / kWarpgroupThreads > kMaxAccRegisters) {
    // One warpgroup holds the whole f32 accumulator in registers; at 128 x
    // 256 (256 a thread, past the 255 a thread has) it spilled and ran at
    // 107 TFLOP/s on an H200, against 594 at 128 x 128.
    problem = fmt::format(
        "its f32 accumulator needs {} registers a thread of the one "
        "warpgroup that holds it, more than {}",
        match.bm * match.bn / kWarpgroupThreads, kMaxAccRegisters);
  }
  if (!problem.empty()) {
    why = fmt::format(
        "this dot's blocks ({}x{}x{}) do not fit plgpu.wgmma: {}; choose "
        "blocks such as 128x128x64 ([kernels.<name>] block_sizes)",
        match.bm, match.bn, match.bk, problem);
    return std::nullopt;
  }
  return match;
}

namespace {

class MosaicGpuEmitter : public DeviceEmitter {
 public:
  MosaicGpuEmitter(const Module& module, const KernelPlan& plan,
                   ModuleState& state, const HostBindings& host,
                   const EmitOptions& options, DiagnosticEngine& diagnostics)
      : DeviceEmitter(module, plan, state, host, options, diagnostics) {
    // The accumulators' tiles, for the layouts of the epilogue's loads.
    for (const InnerLoopPlan& inner : plan.inner_loops) {
      std::string why;
      if (std::optional<WgmmaLoop> match =
              MatchWgmmaLoop(plan, *inner.loop, why)) {
        acc_tiles_[{match->row_tile, match->col_tile}] = {match->bm, match->bn};
      }
    }
    if (acc_tiles_.empty()) return;
    WalkStmts(plan.device->body, [&](const Stmt& stmt) {
      ForEachRootExpr(stmt, [&](const Expr& root) {
        WalkExpr(root, [&](const Expr& e) {
          for (const ExprPtr& operand : e.operands)
            parents_[operand.get()] = &e;
        });
      });
    });
  }

 protected:
  // Under pl.kernel over a Mosaic GPU mesh, pl.program_id is not the
  // program's index (Mosaic GPU's interpreter gives 0 on every axis): the
  // mesh's named axes are (mosaic_launch.h).
  std::string ProgramIndex(int, const std::string& grid_tile) const override {
    return fmt::format("jax.lax.axis_index(\"{}\")",
                       SanitizeIdentifier(grid_tile));
  }
  bool EmitInnerLoop(const Stmt& loop, PyLines& out) override {
    if (!HoldsDot(loop.regions[0])) {
      return Error(loop.loc,
                   "the mosaic launcher of pallas-gpu does not lower inner "
                   "tile loops without a dot yet (they need "
                   "plgpu.emit_pipeline over TMA copies); " +
                       std::string(kUseTriton));
    }
    std::string why;
    std::optional<WgmmaLoop> match = MatchWgmmaLoop(plan_, loop, why);
    if (!match) return Error(loop.loc, why);
    return EmitWgmmaLoop(loop, *match, out);
  }

  // The accumulator comes out of wgmma in its register layout (WGMMA);
  // Mosaic GPU combines values of one layout only, so a block the
  // epilogue combines with it is loaded in that layout: a whole
  // 2-D [row, col] block as WGMMA, a row vector [col] in WGMMA reduced over
  // the rows, broadcast explicitly to the accumulator's shape (an implicit
  // broadcast reshapes it to (1, n) first, which that layout cannot tile).
  // The row is broadcast only where its value (through casts) meets the
  // accumulator's shape in an elementwise op, which broadcasts it anyway.
  std::string Load(const Expr& expr) override {
    std::string text = DeviceEmitter::Load(expr);
    const size_t open = text.find('[');
    if (acc_tiles_.empty() || open == std::string::npos || text.back() != ']' ||
        text.find_first_of("[]().", 0) != open) {
      return text;
    }
    const std::string ref = text.substr(0, open);
    const std::string index = text.substr(open + 1, text.size() - open - 2);
    if (index.find_first_of("[(") != std::string::npos) return text;
    std::vector<std::string> tiles;
    for (size_t d = 0; d < expr.indices.size(); ++d) {
      // Whole dims and single rows (a rank-1 ref kept as a (1, n) row).
      if (expr.indices[d].kind == IndexKind::kSlice ||
          expr.indices[d].kind == IndexKind::kScalar) {
        continue;
      }
      tiles.push_back(TileAt(expr, d));
      if (tiles.back().empty()) return text;
    }
    const std::string source =
        index == "..." ? ref : fmt::format("{}.at[{}]", ref, index);
    for (const auto& [row_col, shape] : acc_tiles_) {
      const auto& [row, col] = row_col;
      if (tiles == std::vector<std::string>{row, col} &&
          expr.type.shape.size() == 2) {
        // The block sits in shared memory untiled and unswizzled: reading
        // it in the WGMMA layout has bank conflicts, which Mosaic GPU
        // accepts only when told (optimized=False); the epilogue reads it
        // once.
        return fmt::format(
            "plgpu.load({}, (), layout=plgpu.Layout.WGMMA, optimized=False)",
            source);
      }
      if (tiles == std::vector<std::string>{col} &&
          expr.type.shape.size() == 1 && MeetsAccumulator(expr, shape)) {
        return fmt::format(
            "jax.lax.broadcast_in_dim(plgpu.load({}, (), "
            "layout=plgpu.Layout.WGMMA.reduce(0)), ({}, {}), (1,))",
            source, shape.first, shape.second);
      }
    }
    return text;
  }

 private:
  bool EmitWgmmaLoop(const Stmt& loop, const WgmmaLoop& match, PyLines& out) {
    const std::string tile = loop.vars[0].name;
    const std::string index = SanitizeIdentifier(tile);
    const LoopBounds bounds = Bounds(loop);
    const LoopCarry carry = EmitLoopInits(loop);
    const std::string acc_shape = fmt::format("({}, {})", match.bm, match.bn);
    std::string init = carry.inits[0];
    if (match.batched) {
      init = fmt::format("jnp.reshape({}, {})", init, acc_shape);
    }
    const std::string scope_fn = Fresh("_" + tile + "_wgmma");
    const std::string body_fn = Fresh("_" + tile + "_body");
    const std::string acc_ref = Fresh("acc_ref");
    const std::string transforms = Fresh("smem_transforms");
    const std::string lhs = SanitizeIdentifier(match.lhs_ref->name);
    const std::string rhs = SanitizeIdentifier(match.rhs_ref->name);
    const std::string lhs_block = Fresh(match.lhs_ref->name + "_block");
    const std::string rhs_block = Fresh(match.rhs_ref->name + "_block");

    out.Line(fmt::format("def {}({}):", scope_fn, acc_ref));
    out.Indent();
    out.Line(fmt::format("{}[...] = plgpu.layout_cast({}, plgpu.Layout.WGMMA)",
                         acc_ref, init));
    // wgmma reads shared memory in (8, swizzle) tiles, swizzled.
    out.Line(fmt::format(
        "{} = (plgpu.TilingTransform((8, {})), plgpu.SwizzleTransform({}))",
        transforms, match.tile_elems, match.swizzle_bytes));
    out.Blank();
    out.Line(fmt::format("def {}(_, {}, {}):", body_fn, lhs_block, rhs_block));
    out.Indent();
    if (match.accumulate->loc.known()) {
      out.Line(fmt::format("# src: line {}", match.accumulate->loc.line));
    }
    out.Line(
        fmt::format("plgpu.wgmma({}, {}, {})", acc_ref, lhs_block, rhs_block));
    // One wgmma stays in flight while the next step's copies land; its
    // operands' buffers are released a step late (delay_release=1).
    out.Line("plgpu.wgmma_wait(1)");
    out.Dedent();
    out.Blank();
    out.Line("plgpu.emit_pipeline(");
    out.Indent();
    out.Line(body_fn + ",");
    out.Line(fmt::format("grid=({},),", bounds.trip));
    out.Line("in_specs=[");
    out.Indent();
    for (const RefPlan* ref : {match.lhs_ref, match.rhs_ref}) {
      std::vector<int64_t> block = StreamBlockShape(plan_, *ref);
      std::string shape;
      for (size_t d = 0; d < block.size(); ++d) {
        // A batch block of 1 is squeezed: wgmma takes 2-D blocks.
        shape += (d ? ", " : "") + (match.batched && d == 0
                                        ? std::string("None")
                                        : fmt::format("{}", block[d]));
      }
      std::string map;
      for (const std::string& part : StreamIndexMap(*ref, tile, index)) {
        map += (map.empty() ? "" : ", ") + part;
      }
      out.Line("plgpu.BlockSpec(");
      out.Indent();
      out.Line(fmt::format("({}), lambda {}: ({}),", shape, index, map));
      out.Line(fmt::format("transforms={}, delay_release=1),", transforms));
      out.Dedent();
    }
    out.Dedent();
    out.Line("],");
    out.Line(fmt::format("max_concurrent_steps={},",
                         options_.pipeline_stages > 0 ? options_.pipeline_stages
                                                      : kMosaicDefaultStages));
    out.Dedent();
    out.Line(fmt::format(")({}, {})", lhs, rhs));
    out.Line(fmt::format("return {}[...]", acc_ref));
    out.Dedent();
    out.Blank();

    std::string call = fmt::format(
        "pl.run_scoped({}, plgpu.ACC({}, jnp.float32))", scope_fn, acc_shape);
    if (match.batched) {
      call = fmt::format("jnp.reshape({}, {})", call,
                         ShapeTuple(loop.results[0].type.shape));
    }
    SetOrigins(loop.results[0].name,
               LoopResultOrigins(loop, *match.accumulate->value));
    const std::string result = SanitizeIdentifier(loop.results[0].name);
    out.Line(Used(loop.results[0].name) ? fmt::format("{} = {}", result, call)
                                        : call);
    return true;
  }

  // True when `value`, through casts, is an operand of an elementwise op
  // whose result has the accumulator's 2-D shape.
  bool MeetsAccumulator(const Expr& value,
                        const std::pair<int64_t, int64_t>& shape) const {
    const Expr* at = &value;
    for (auto it = parents_.find(at); it != parents_.end();
         it = parents_.find(at)) {
      const Expr& parent = *it->second;
      if (parent.op == OpKind::kCast) {
        at = &parent;
        continue;
      }
      const bool elementwise =
          parent.op == OpKind::kAdd || parent.op == OpKind::kSub ||
          parent.op == OpKind::kMul || parent.op == OpKind::kDiv ||
          parent.op == OpKind::kMaximum || parent.op == OpKind::kMinimum;
      return elementwise && parent.type.shape.size() == 2 &&
             parent.type.shape[0] == Dim::Static(shape.first) &&
             parent.type.shape[1] == Dim::Static(shape.second);
    }
    return false;
  }

  // (row tile, column tile) of each wgmma accumulator -> its (bm, bn).
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>
      acc_tiles_;
  std::map<const Expr*, const Expr*> parents_;
};

}  // namespace

std::unique_ptr<DeviceEmitter> MakeMosaicGpuEmitter(
    const Module& module, const KernelPlan& plan, ModuleState& state,
    const HostBindings& host, const EmitOptions& options,
    DiagnosticEngine& diagnostics) {
  return std::make_unique<MosaicGpuEmitter>(module, plan, state, host, options,
                                            diagnostics);
}

}  // namespace tessera::pallas
