#include "work.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "fmt/format.h"

namespace tessera::pallas {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// XLU slot uses of one cross-lane reduce of a vreg: the static schedule's
// per-bundle utilization shows 4 per vmax.xlane / vadd.xlane (attention
// steps on v5e, v6e and tpu7x: 512 XLU uses for 128 reduces).
constexpr double kXluSlotsPerLaneReduce = 4;

// Vector registers the compiler keeps values in before it spills: the
// dump's attention steps spill the 64-vreg scores of 256-row blocks.
constexpr double kVregFile = 64;

// One trip of work whose dots feed lane reductions that feed dots again
// (online softmax: qk -> max / sum -> exp -> p @ v) has a dependency
// chain through the MXU, the XLU and the EUP that co-issue cannot hide.
void MarkChainedTrip(StepWork& trip, const TpuHardware& hw) {
  if (trip.mxu_cycles > 0 && trip.lane_reduces > 0 && trip.chained_trips == 0) {
    trip.chained_trips = 1;
    trip.chain_mxu_cycles = trip.mxu_cycles;
    trip.chain_vector_cycles = trip.VectorCycles(hw);
  }
}

struct Layout {
  int64_t leading = 1;  // product of the dims before the last two
  int64_t rows = 1;     // second-minor dim
  int64_t cols = 1;     // minor dim
  int64_t elements = 1;
};

Layout LayoutOf(const Type& type) {
  Layout layout;
  const Shape& shape = type.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t size = shape[d].is_static() ? shape[d].size : 1;
    layout.elements *= size;
    if (d + 2 < shape.size()) layout.leading *= size;
  }
  if (!shape.empty()) {
    const Dim& minor = shape[shape.size() - 1];
    layout.cols = minor.is_static() ? minor.size : 1;
  }
  if (shape.size() >= 2) {
    const Dim& second = shape[shape.size() - 2];
    layout.rows = second.is_static() ? second.size : 1;
  }
  return layout;
}

// Vector registers a value occupies: (sublanes x packing, lanes) tiles.
double Vregs(const Type& type, const TpuHardware& hw, bool packed) {
  if (type.shape.empty()) return 0;  // scalars run on the scalar unit
  Layout layout = LayoutOf(type);
  int64_t packing =
      packed ? std::max<int64_t>(1, 4 / DTypeBytes(type.dtype)) : 1;
  return static_cast<double>(layout.leading *
                             CeilDiv(layout.rows, hw.sublanes * packing) *
                             CeilDiv(layout.cols, hw.lanes));
}

// Elements of a block value (0 for scalars: they run on the scalar unit).
Count Elements(const Type& type, const CostPlan& plan) {
  if (type.shape.empty()) return 0;
  Count elements = 1;
  for (const Dim& dim : type.shape) elements *= plan.DimCount(dim);
  return elements;
}

// VALU operations and EUP pushes per vreg of an elementwise op (the EUP
// computes exp, log, reciprocal, rsqrt, tanh; erf is a VALU polynomial).
struct OpCost {
  double valu = 0;
  double eup = 0;
  bool transcendental = false;
};

OpCost ElementwiseCost(const Expr& expr) {
  switch (expr.op) {
    case OpKind::kExp:
    case OpKind::kExp2:
    case OpKind::kLog:
    case OpKind::kLog2:
    case OpKind::kSqrt:
    case OpKind::kRsqrt:
    case OpKind::kTanh:
      return {1, 1, true};
    case OpKind::kSigmoid:
    case OpKind::kSilu:
      return {3, 2, true};
    case OpKind::kErf:
      return {12, 1, true};
    case OpKind::kGelu: {
      const std::string* approximate =
          GetAttr<std::string>(expr.attrs, "approximate");
      return approximate && *approximate == "tanh" ? OpCost{7, 1, true}
                                                   : OpCost{16, 1, true};
    }
    case OpKind::kDiv:
      return {2, 1, false};
    case OpKind::kPow:
      return {3, 2, true};
    case OpKind::kFloorDiv:
    case OpKind::kMod:
      return {4, 1, false};
    default:
      return {1, 0, false};
  }
}

class Counter {
 public:
  Counter(const CostPlan& plan, const TpuHardware& hw) : plan_(plan), hw_(hw) {}

  // Mosaic keeps the result of a reduction over lanes with its rows on
  // sublanes, one row per sublane and the value replicated across lanes,
  // and values computed from such row statistics keep that layout: an op
  // on attention's m_i / l_i / alpha of shape [1, 512] is 64 vregs (the
  // dump: 704 vmul = 512 for qk * scale + 3 x 64 for the row statistics),
  // not the 4 its type's (8, 128) tiling would give.
  // Also counts the uses of every named value (for spills, below).
  void Survey(const Block& block) {
    WalkStmts(block, [&](const Stmt& stmt) {
      ForEachRootExpr(stmt, [&](const Expr& root) {
        WalkExpr(root, [&](const Expr& expr) {
          if (expr.op == OpKind::kVar) ++uses_[expr.name];
          if (OpInfoOf(expr.op).category == OpCategory::kContraction) {
            for (const ExprPtr& operand : expr.operands) {
              if (operand->op == OpKind::kVar)
                dot_operands_.insert(operand->name);
            }
          }
          if (OpInfoOf(expr.op).category != OpCategory::kReduction ||
              expr.operands.empty() || !ReducesLanes(expr)) {
            return;
          }
          const Shape& shape = expr.type.shape;
          if (!shape.empty() &&
              std::find(row_statistics_.begin(), row_statistics_.end(),
                        shape) == row_statistics_.end()) {
            row_statistics_.push_back(shape);
          }
        });
      });
    });
  }

  void CountBlock(const Block& block, const Count& times, StepWork& work) {
    for (const Stmt& stmt : block.stmts) {
      if (stmt.kind == StmtKind::kTileLoop && plan_.StageOf(&stmt) >= 0) {
        continue;
      }
      Count trips = 1;
      if (stmt.kind == StmtKind::kTileLoop) trips = plan_.PlainTrips(&stmt);
      StepWork own;
      ForEachRootExpr(stmt, [&](const Expr& root) {
        if (stmt.kind == StmtKind::kTileLoop ||
            stmt.kind == StmtKind::kLaunch) {
          return;  // loop bounds are scalar work
        }
        WalkExpr(root, [&](const Expr& expr) { CountExpr(expr, own); });
      });
      if ((stmt.kind == StmtKind::kStore || stmt.kind == StmtKind::kAtomic) &&
          stmt.value) {
        own.vst += Vregs(stmt.value->type, hw_, true);
        if (stmt.kind == StmtKind::kAtomic) {
          own.vld += Vregs(stmt.value->type, hw_, true);
          own.valu_ops += Vregs(stmt.value->type, hw_, false);
          own.flops += Elements(stmt.value->type, plan_);
        }
      }
      if (stmt.kind == StmtKind::kAssign && stmt.value &&
          !stmt.results.empty()) {
        CountSpill(stmt.results[0], own);
      }
      StepWork body;
      for (const Block& region : stmt.regions) CountBlock(region, 1, body);
      if (stmt.kind == StmtKind::kTileLoop) MarkChainedTrip(body, hw_);
      own.Add(body, trips);
      work.Add(own, times);
    }
  }

  // A value of more vregs than the register file that has several uses
  // or feeds a dot is stored to VMEM once and loaded back: the dump's
  // attention steps spill qk, p and the bf16 p (VSTORE:SPILL 1143 of 1175
  // stores for 512 x 1024 scores, 1280 by this count); values of one use
  // are fused into their consumer vreg by vreg.
  void CountSpill(const Value& value, StepWork& work) const {
    if (value.type.shape.empty()) return;
    const double vregs = Vregs(value.type, hw_, true);
    if (vregs <= kVregFile) return;
    auto it = uses_.find(value.name);
    const int uses = it == uses_.end() ? 0 : it->second;
    if (uses >= 2 || dot_operands_.count(value.name) != 0) {
      work.vst += vregs;
      work.vld += vregs;
    }
  }

 private:
  void CountExpr(const Expr& expr, StepWork& work) {
    if (expr.op == OpKind::kTranspose && !expr.operands.empty()) {
      // A dot operand is transposed by the MXU as it loads the weights
      // (the dump's vmatpush3.bf16.xpose); no XLU work.
      if (mxu_transposes_.count(&expr) != 0) return;
      // Other minor-dim transposes go through the XLU, about two ops a vreg.
      work.xlu_ops += 2 * Vregs(expr.operands[0]->type, hw_, false);
      return;
    }
    const OpCategory category = OpInfoOf(expr.op).category;
    switch (category) {
      case OpCategory::kMemory:
        if (expr.op == OpKind::kLoad) work.vld += Vregs(expr.type, hw_, true);
        return;
      case OpCategory::kContraction:
        CountDot(expr, work);
        return;
      case OpCategory::kUnary:
      case OpCategory::kBinary:
      case OpCategory::kCompare:
      case OpCategory::kSelect: {
        if (expr.type.shape.empty()) return;
        OpCost cost = ElementwiseCost(expr);
        double vregs = ValueVregs(expr.type, false);
        // An operand of another shape is broadcast first, one op per vreg
        // of the operand: the compiler reuses a broadcast vreg for every
        // result vreg it feeds (the dump's attention step has no op per
        // result vreg for `qk - m_ij[:, :, None]`, 512 vsub for 512 vregs).
        for (const ExprPtr& operand : expr.operands) {
          if (!operand->type.shape.empty() &&
              operand->type.shape != expr.type.shape) {
            work.valu_ops += ValueVregs(operand->type, false);
          }
        }
        work.valu_ops += cost.valu * vregs;
        work.eup_ops += cost.eup * vregs;
        const Count elements = Elements(expr.type, plan_);
        work.flops += elements;
        if (cost.transcendental) work.transcendentals += elements;
        return;
      }
      case OpCategory::kReduction: {
        if (expr.operands.empty()) return;
        const Type& input = expr.operands[0]->type;
        const double vregs = Vregs(input, hw_, false);
        work.flops += Elements(input, plan_);
        if (!ReducesLanes(expr)) {
          work.valu_ops += vregs;  // combine vregs elementwise
          return;
        }
        // The lane vregs of each group of `sublanes` rows are combined on
        // the VALU (one op per vreg after the first), then one cross-lane
        // reduce per group runs on the XLU and is popped back (the dump's
        // vmax.xlane / vadd.xlane and vpop.xlane: one per 8-row group).
        const Layout layout = LayoutOf(input);
        const double groups = static_cast<double>(
            layout.leading * CeilDiv(layout.rows, hw_.sublanes));
        work.valu_ops += std::max(0.0, vregs - groups);
        work.xlu_ops += kXluSlotsPerLaneReduce * groups;
        work.lane_reduces += groups;
        return;
      }
      case OpCategory::kConstruct:
        if (expr.op == OpKind::kCast && !expr.operands.empty() &&
            DTypeBytes(expr.type.dtype) <
                DTypeBytes(expr.operands[0]->type.dtype)) {
          // A narrowing cast packs: one op per packed result vreg (the
          // dump's vpack.c.bf16, 256 for 512 f32 vregs of p).
          work.valu_ops += ValueVregs(expr.type, true);
        } else if (expr.op == OpKind::kCast ||
                   expr.op == OpKind::kBroadcastTo ||
                   expr.op == OpKind::kRepeatLanes) {
          work.valu_ops += ValueVregs(expr.type, false);
        }
        return;
      case OpCategory::kScan:
        if (expr.op == OpKind::kScan) CountScan(expr, work);
        return;
      default:
        return;
    }
  }

  // A scan's Hillis-Steele steps (pallas_tpu/scan_lowering.cpp): log2(n)
  // of them, each a rotation of every member (XLU), the combine's ops and
  // one select per member (VALU).
  void CountScan(const Expr& expr, StepWork& work) {
    const size_t k = expr.operands.size() / 2;
    if (k == 0) return;
    const Type& input = expr.operands[0]->type;
    const int64_t* dim = GetAttr<int64_t>(expr.attrs, "dim");
    if (dim == nullptr || *dim < 0 ||
        *dim >= static_cast<int64_t>(input.shape.size())) {
      return;
    }
    // ceil(log2(n)) steps; for a size known when the host function is
    // traced, the same as Python's (n - 1).bit_length().
    const Count n = plan_.DimCount(input.shape[*dim]);
    int64_t steps = 0;
    for (int64_t span = 1; span < n.StaticOr(0); span *= 2) ++steps;
    const Count step_count =
        n.is_constant()
            ? Count(steps)
            : Count::Python(fmt::format("({} - 1).bit_length()", n.ToPython()));
    int64_t combine_ops = 0;
    for (size_t j = k; j < expr.operands.size(); ++j) {
      WalkExpr(*expr.operands[j], [&](const Expr& e) {
        if (e.op != OpKind::kScanArg && e.op != OpKind::kConst) ++combine_ops;
      });
    }
    const double vregs = ValueVregs(input, false);
    const double rotations = static_cast<double>(steps) * k;
    work.xlu_ops += rotations * vregs;
    work.valu_ops +=
        static_cast<double>(steps * combine_ops) * vregs + rotations * vregs;
    work.flops += step_count * Count(combine_ops) * Elements(input, plan_);
  }

  void CountDot(const Expr& expr, StepWork& work) {
    if (expr.operands.size() < 2) return;
    const Shape& lhs = expr.operands[0]->type.shape;
    const Type& result = expr.type;
    if (lhs.empty() || result.shape.size() < 2) return;
    for (const ExprPtr& operand : expr.operands) {
      if (operand->op == OpKind::kTranspose)
        mxu_transposes_.insert(operand.get());
    }
    Layout out = LayoutOf(result);
    const Dim& k_dim = lhs[lhs.size() - 1];
    const int64_t k = k_dim.is_static() ? k_dim.size : 1;
    const int64_t m = out.rows, n = out.cols;
    // The MXU multiplies whole (mxu x mxu) weight tiles of k x n and
    // streams LHS rows in groups of `sublanes`: pad k and n to the MXU
    // shape, m to sublanes, and run at the peak rate.
    const double padded =
        2.0 * static_cast<double>(out.leading * CeilDiv(m, hw_.sublanes) *
                                  hw_.sublanes * CeilDiv(k, hw_.mxu_size) *
                                  hw_.mxu_size * CeilDiv(n, hw_.mxu_size) *
                                  hw_.mxu_size);
    double rate = hw_.bf16_flops;
    const DType lhs_dtype = expr.operands[0]->type.dtype;
    if (lhs_dtype == DType::kF32 ||
        expr.operands[1]->type.dtype == DType::kF32) {
      rate = hw_.f32_flops;
    } else if (lhs_dtype == DType::kI8) {
      rate = hw_.int8_ops;
    }
    const double cycles = padded / rate * hw_.clock_hz;
    work.mxu_cycles += cycles;
    work.mxu_flops += 2.0 * static_cast<double>(out.leading * m * n * k);
    // 2 * (result elements) * k, exactly (symbolic dims included).
    work.flops += Count(2) * Elements(result, plan_) * plan_.DimCount(k_dim);
    if (expr.operands.size() >= 3) {  // dot(a, b, acc): acc + a @ b
      work.valu_ops += Vregs(result, hw_, false);
      work.flops += Elements(result, plan_);
    }
  }

  static bool ReducesLanes(const Expr& reduction) {
    const int64_t* dim = GetAttr<int64_t>(reduction.attrs, "dim");
    const int64_t rank =
        static_cast<int64_t>(reduction.operands[0]->type.shape.size());
    return dim != nullptr && rank > 0 && (*dim == rank - 1 || *dim == -1);
  }

  // Vregs of an elementwise value, in its row-statistic layout if it has
  // the shape of a lane reduction's result.
  double ValueVregs(const Type& type, bool packed) const {
    if (std::find(row_statistics_.begin(), row_statistics_.end(), type.shape) ==
        row_statistics_.end()) {
      return Vregs(type, hw_, packed);
    }
    const Layout layout = LayoutOf(type);
    return static_cast<double>(layout.leading * layout.rows *
                               CeilDiv(layout.cols, hw_.sublanes));
  }

  const CostPlan& plan_;
  const TpuHardware& hw_;
  std::map<std::string, int> uses_;
  std::set<std::string> dot_operands_;
  std::set<const Expr*> mxu_transposes_;
  std::vector<Shape> row_statistics_;
};

}  // namespace

void StepWork::Add(const StepWork& other, const Count& times) {
  const double scale = times.StaticOr(1);
  mxu_cycles += other.mxu_cycles * scale;
  valu_ops += other.valu_ops * scale;
  eup_ops += other.eup_ops * scale;
  xlu_ops += other.xlu_ops * scale;
  lane_reduces += other.lane_reduces * scale;
  chained_trips += other.chained_trips * scale;
  chain_mxu_cycles += other.chain_mxu_cycles * scale;
  chain_vector_cycles += other.chain_vector_cycles * scale;
  vld += other.vld * scale;
  vst += other.vst * scale;
  flops += other.flops * times;
  mxu_flops += other.mxu_flops * scale;
  transcendentals += other.transcendentals * times;
}

double StepWork::VectorCycles(const TpuHardware& hw) const {
  return std::max({valu_ops / static_cast<double>(hw.valu_slots),
                   eup_ops / static_cast<double>(hw.eup_slots),
                   xlu_ops / static_cast<double>(hw.xlu_slots),
                   vld / static_cast<double>(hw.vld_slots),
                   vst / static_cast<double>(hw.vst_slots)});
}

double StepWork::ComputeCycles(const TpuHardware& hw) const {
  // Outside chained trips the vector work feeds and drains the MXU (loads,
  // pushes, pops, accumulator adds): the static schedule shows them adding
  // up (matmul and layer_norm steps, docs/cost_model.md).
  const double rest = (mxu_cycles - chain_mxu_cycles) +
                      std::max(0.0, VectorCycles(hw) - chain_vector_cycles);
  if (chained_trips <= 0) return rest;
  // Chained trips (online softmax) are software-pipelined: a trip's vector
  // work co-issues with the next trip's dots, so a trip costs the longer of
  // its MXU and vector work plus an exposed share of the shorter, and at
  // least the chain's latency; the step pays once for filling and draining
  // the chain ("Co-issue" in docs/cost_model.md).
  const double mxu = chain_mxu_cycles / chained_trips;
  const double vector = chain_vector_cycles / chained_trips;
  const double trip = std::max(
      static_cast<double>(hw.chain_trip_min_cycles),
      std::max(mxu, vector) + hw.chain_exposed_share * std::min(mxu, vector));
  return rest + static_cast<double>(hw.chain_fill_cycles) +
         chained_trips * trip;
}

const char* StepWork::BusiestUnit(const TpuHardware& hw) const {
  const double valu = valu_ops / static_cast<double>(hw.valu_slots);
  const double eup = eup_ops / static_cast<double>(hw.eup_slots);
  const double xlu = xlu_ops / static_cast<double>(hw.xlu_slots);
  const double ldst = std::max(vld / static_cast<double>(hw.vld_slots),
                               vst / static_cast<double>(hw.vst_slots));
  const double top = std::max({mxu_cycles, valu, eup, xlu, ldst});
  if (top == mxu_cycles) return "MXU";
  if (top == valu) return "VPU";
  if (top == xlu) return "XLU";
  if (top == eup) return "EUP";
  return "VMEM ld/st";
}

StepWork CountStepWork(const CostPlan& plan, int stage, const TpuHardware& hw) {
  StepWork work;
  Counter counter(plan, hw);
  const StageView& view = plan.stages[stage];
  counter.Survey(*view.body);
  counter.CountBlock(*view.body, 1, work);
  MarkChainedTrip(work, hw);
  if (view.loop != nullptr) {
    // Loop-carried values live in VMEM scratch between pipelined steps.
    for (const Value& carried : view.loop->iter_args) {
      work.vld += Vregs(carried.type, hw, true);
      work.vst += Vregs(carried.type, hw, true);
    }
  }
  return work;
}

}  // namespace tessera::pallas
