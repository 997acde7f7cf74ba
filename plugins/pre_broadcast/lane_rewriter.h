// The rewrite behind `pre-broadcast`: given which loop-carried values of a
// device function are carried with a trailing lane dim ("wide"), rewrites
// every statement so the function computes the same results, and records
// where a wide value meets a wider operand (a "consumer"), which is what
// decides whether carrying it wide pays off.
//
// Each rewritten expression has a layout relative to the value the original
// expression computed (original shape S):
//   original  shape S, unchanged;
//   unit      shape S + [1]: `x[..., None]`, e.g. a reduction kept with
//             keepdim;
//   wide      shape S + [lanes], every lane holding the original value;
//   spread    S ends in 1 (the result of `x[..., None]`) and that 1 became
//             `lanes`, every lane holding the original value.
// Elementwise ops keep wide / unit / spread layouts (bringing their other
// operands to match); `x[..., None]` of a wide value is the value itself
// (spread); a spread value that meets an operand whose last dim is
// k * lanes becomes that operand's width with `repeat_lanes` (identity for
// k = 1) and the result is original again. Any other use takes the
// original value back (`x[..., 0]`), so the rewrite is correct for every
// consumer, not only the ones it optimises.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::pre_broadcast {

// One bit per candidate (a loop-carried value that may be carried wide).
using CandidateMask = uint64_t;
inline constexpr int kMaxCandidates = 64;

// A spread value meeting an operand of another width, or (conflict) a wide
// value meeting the spread form of another.
struct Consumer {
  CandidateMask candidates = 0;  // the wide values it derives from
  std::optional<int64_t> width;  // the operand's last dim; nullopt: symbolic
  bool fits = false;             // width is a multiple of lanes
  bool conflict = false;
  SourceLoc loc;
};

class LaneRewriter {
 public:
  // `wide_iter_args`: the iter_args (by name) to carry wide, each with its
  // candidate bit.
  LaneRewriter(int64_t lanes,
               std::map<std::string, CandidateMask> wide_iter_args)
      : lanes_(lanes), wide_iter_args_(std::move(wide_iter_args)) {}

  // Rewrites `function` in place. A non-OK status is an internal error (a
  // rewritten expression failed type inference).
  absl::Status Run(Function& function);

  const std::vector<Consumer>& consumers() const { return consumers_; }
  // The candidates some `x[..., None]` was applied to (directly or through
  // elementwise ops).
  CandidateMask unsqueezed() const { return unsqueezed_; }

 private:
  enum class Layout : uint8_t { kOriginal, kUnit, kWide, kSpread };
  struct Shaped {
    ExprPtr expr;
    Layout layout = Layout::kOriginal;
    CandidateMask mask = 0;
  };
  struct ValueLayout {
    Layout layout = Layout::kOriginal;
    CandidateMask mask = 0;
    Type type;  // the rewritten definition's type
  };
  // What the yields of the innermost enclosing loop / if must produce: one
  // flag per yielded value, true when it is carried wide.
  using YieldContext = std::vector<bool>;

  void RewriteBlock(Block& block);
  void RewriteStmt(Stmt& stmt);
  void RewriteLoop(Stmt& loop);

  Shaped Rewrite(ExprPtr expr);
  Shaped RewriteUnary(ExprPtr expr);
  Shaped RewriteElementwise(ExprPtr expr);
  Shaped RewriteSubscript(ExprPtr expr);
  Shaped RewriteReduction(ExprPtr expr);
  // Rewrites operands and index expressions to original layouts.
  Shaped RewriteOpaque(ExprPtr expr);
  ExprPtr RewriteOriginal(ExprPtr expr);

  // Conversions between layouts.
  ExprPtr ToOriginal(Shaped value);
  ExprPtr ToUnit(ExprPtr original);
  ExprPtr ToWide(Shaped value);

  ExprPtr Subscript(ExprPtr base, IndexList indices);
  void Retype(Expr& expr);
  SourceLoc LocOf(const Expr& expr) const;

  int64_t lanes_;
  std::map<std::string, CandidateMask> wide_iter_args_;
  std::map<std::string, ValueLayout> values_;
  std::vector<YieldContext> yield_contexts_;
  std::vector<Consumer> consumers_;
  CandidateMask unsqueezed_ = 0;
  SourceLoc stmt_loc_;
  absl::Status status_;
};

// Tidies what the rewrite leaves behind so the generated code reads like
// hand-written Pallas: a reduction whose every use is `r[..., None]` keeps
// its dim instead (keepdim), and a `full` whose only use is broadcast to
// the lanes is created wide.
void FoldUnsqueezes(Function& function, int64_t lanes);

}  // namespace tessera::pre_broadcast
