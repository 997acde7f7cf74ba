// Scans of a block (IR `scan`): the members, the combine function as a
// lambda and the valid extent of a reverse scan's dim, handed to the
// target's ScanExpr (pallas-tpu: rotations, pallas-gpu: jnp.cumsum).
#include <string>

#include "device_emitter.h"
#include "fmt/format.h"
#include "target.h"

namespace tessera::pallas {
namespace {

// add(scan_arg 0, scan_arg 1) of a one-member scan, in either order.
bool IsSum(const Expr& scan) {
  if (scan.operands.size() != 2) return false;
  const Expr& combine = *scan.operands[1];
  if (combine.op != OpKind::kAdd) return false;
  int64_t seen = 0;
  for (const ExprPtr& operand : combine.operands) {
    if (operand->op != OpKind::kScanArg) return false;
    const int64_t* index = GetAttr<int64_t>(operand->attrs, "index");
    if (index == nullptr) return false;
    seen |= int64_t{1} << *index;
  }
  return seen == 3;
}

}  // namespace

std::string DeviceEmitter::Scan(const Expr& expr) {
  const size_t k = expr.operands.size() / 2;
  PallasTarget::ScanCall call;
  for (size_t j = 0; j < k; ++j) {
    call.inputs.push_back(Emit(*expr.operands[j]));
    call.dtypes.push_back(expr.operands[j]->type.dtype);
  }
  call.rank = expr.type.shape.size();
  call.combine = CombineLambda(expr);
  const int64_t* axis = GetAttr<int64_t>(expr.attrs, "dim");
  const bool* reverse = GetAttr<bool>(expr.attrs, "reverse");
  const int64_t* result = GetAttr<int64_t>(expr.attrs, "result");
  call.axis = axis ? *axis : 0;
  call.reverse = reverse != nullptr && *reverse;
  call.result = result ? *result : 0;
  call.is_sum = IsSum(expr);
  // A forward scan never carries the padding after the valid elements
  // into them; a reverse one would, so it stops at the valid extent.
  if (call.reverse) {
    if (std::optional<RaggedBounds> bounds =
            RaggedBoundsOf(*expr.operands[0], call.axis)) {
      if (bounds->jagged != nullptr) {
        Fail("a reverse scan along a jagged tile is not supported");
        return "None";
      }
      call.valid = bounds->begin == "0"
                       ? bounds->limit
                       : fmt::format("{} - {}", bounds->limit, bounds->begin);
    }
  }
  std::string error;
  std::string text = plan_.target->ScanExpr(state_, call, error);
  if (!error.empty()) {
    Fail(error);
    return "None";
  }
  return text;
}

}  // namespace tessera::pallas
