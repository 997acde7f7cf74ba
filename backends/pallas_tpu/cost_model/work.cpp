#include "work.h"

#include <algorithm>
#include <cmath>

namespace tessera::pallas {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

  void CountBlock(const Block& block, const Count& times, StepWork& work) {
    for (const Stmt& stmt : block.stmts) {
      if (stmt.kind == StmtKind::kTileLoop && plan_.StageOf(&stmt) >= 0) {
        continue;
      }
      Count inner = times;
      if (stmt.kind == StmtKind::kTileLoop) inner *= plan_.PlainTrips(&stmt);
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
      work.Add(own, times);
      for (const Block& region : stmt.regions) CountBlock(region, inner, work);
    }
  }

 private:
  void CountExpr(const Expr& expr, StepWork& work) {
    if (expr.op == OpKind::kTranspose && !expr.operands.empty()) {
      // Minor-dim transposes go through the XLU, about two ops a vreg.
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
        double vregs = Vregs(expr.type, hw_, false);
        // An operand of another shape is broadcast first (lane / sublane
        // broadcasts, one op per result vreg).
        for (const ExprPtr& operand : expr.operands) {
          if (!operand->type.shape.empty() &&
              operand->type.shape != expr.type.shape) {
            work.valu_ops += vregs;
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
        work.valu_ops += vregs;  // accumulate the vregs of a row group
        work.flops += Elements(input, plan_);
        const int64_t* dim = GetAttr<int64_t>(expr.attrs, "dim");
        const int64_t rank = static_cast<int64_t>(input.shape.size());
        const bool over_lanes =
            dim != nullptr && rank > 0 && (*dim == rank - 1 || *dim == -1);
        if (over_lanes) {
          // Then a rotate-and-combine tree across the 128 lanes (log2
          // steps) per group of `sublanes` rows: the static schedule's XLU
          // count for attention's amax and sum.
          const Layout layout = LayoutOf(input);
          const double groups = static_cast<double>(
              layout.leading * CeilDiv(layout.rows, hw_.sublanes));
          const double steps = std::log2(static_cast<double>(hw_.lanes));
          work.xlu_ops += steps * groups;
          work.valu_ops += steps * groups;
        }
        return;
      }
      case OpCategory::kConstruct:
        if (expr.op == OpKind::kCast || expr.op == OpKind::kBroadcastTo ||
            expr.op == OpKind::kRepeatLanes) {
          work.valu_ops += Vregs(expr.type, hw_, false);
        }
        return;
      default:
        return;
    }
  }

  void CountDot(const Expr& expr, StepWork& work) {
    if (expr.operands.size() < 2) return;
    const Shape& lhs = expr.operands[0]->type.shape;
    const Type& result = expr.type;
    if (lhs.empty() || result.shape.size() < 2) return;
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

  const CostPlan& plan_;
  const TpuHardware& hw_;
};

}  // namespace

void StepWork::Add(const StepWork& other, const Count& times) {
  const double scale = times.StaticOr(1);
  mxu_cycles += other.mxu_cycles * scale;
  valu_ops += other.valu_ops * scale;
  eup_ops += other.eup_ops * scale;
  xlu_ops += other.xlu_ops * scale;
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
  // The MXU is fed and drained by vector loads, pushes and pops that share
  // bundles with the rest: the static schedule shows them adding up rather
  // than overlapping for blocks of a few hundred rows.
  return mxu_cycles + VectorCycles(hw);
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
  counter.CountBlock(*view.body, 1, work);
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
