// Shape symbols the kernel's operations force equal (asserts, broadcasts,
// contractions, stores): aliases for the next lowering pass and the host
// checks the generated module makes at trace time.
#include <algorithm>
#include <functional>
#include <span>

#include "fmt/format.h"
#include "lower_internal.h"
#include "python_literal.h"
#include "tessera/ir/text.h"

namespace tessera::helion_py {

void KernelLowering::Unify(const Val& a, const Val& b, SourceLoc loc) {
  if (a.kind == ValKind::kTuple && b.kind == ValKind::kTuple) {
    if (a.elems.size() != b.elems.size()) return;
    for (size_t i = 0; i < a.elems.size(); ++i)
      Unify(a.elems[i], b.elems[i], loc);
    return;
  }
  auto as_dim = [](const Val& v) -> std::optional<Dim> {
    if (v.kind == ValKind::kInt) return Dim::Static(v.i);
    if (v.IsValue() && v.is_dim && v.expr->op == OpKind::kVar) {
      return Dim::Symbol(v.expr->name);
    }
    return std::nullopt;
  };
  std::optional<Dim> da = as_dim(a);
  std::optional<Dim> db = as_dim(b);
  if (!da || !db) return;
  if (Substitute(*da, aliases_).is_static() &&
      Substitute(*db, aliases_).is_static() &&
      !(Substitute(*da, aliases_) == Substitute(*db, aliases_))) {
    Fail(loc, fmt::format("assertion is always false: {} != {}",
                          Substitute(*da, aliases_).size,
                          Substitute(*db, aliases_).size));
    return;
  }
  UnifyDims(*da, *db, loc, "assert");
}

bool KernelLowering::UnifyDims(Dim a, Dim b, SourceLoc loc,
                               std::string_view why) {
  std::optional<Dim> da = Substitute(a, aliases_);
  std::optional<Dim> db = Substitute(b, aliases_);
  if (*da == *db || (da->is_static() && db->is_static())) return false;
  // Replace a parameter's symbol by what it is asserted to equal: a static
  // size, or the symbol of the earlier parameter dim.
  auto order = [&](const Dim& d) {
    auto it = symbol_order_.find(d.symbol);
    return it == symbol_order_.end() ? -1 : it->second;
  };
  if (da->is_static() || (!db->is_static() && order(*db) > order(*da))) {
    std::swap(da, db);
  }
  // A size computed in the kernel body (`n - n1` of a slice) is defined
  // only where it is computed and versioned there by the ssa pass: it
  // becomes the parameter's dim it equals, never the other way round.
  for (int flip = 0; flip < 2; ++flip) {
    const std::string& local = flip ? db->symbol : da->symbol;
    const std::string& param = flip ? da->symbol : db->symbol;
    if (device_symbols_.count(local) && param_symbols_.count(param)) {
      aliases_[local] = Dim::Symbol(param);
      return true;
    }
  }
  // Now da is the symbol to replace (the later one, or the symbolic one).
  if (da->is_static() || !param_symbols_.count(da->symbol)) return false;
  aliases_[da->symbol] = *db;
  // The generated host function checks at trace time what was assumed
  // here: `x.1==w.0:<message>` or `x.1==128:<message>`.
  auto origin = [&](const Dim& d) -> std::optional<std::string> {
    if (d.is_static()) return std::to_string(d.size);
    auto it = symbol_origin_.find(d.symbol);
    if (it == symbol_origin_.end()) return std::nullopt;
    return fmt::format("{}.{}", it->second.first, it->second.second);
  };
  auto spelled = [&](const Dim& d) {
    if (d.is_static()) return std::to_string(d.size);
    const auto& [param, dim] = symbol_origin_.at(d.symbol);
    if (rank_generic_params_.count(param)) {
      // The source indexes such a parameter from the end.
      for (const Value& value : function_.params) {
        if (value.name == param) {
          return fmt::format("{}.size({})", param,
                             dim - static_cast<int>(value.type.rank()));
        }
      }
    }
    return fmt::format("{}.size({})", param, dim);
  };
  std::optional<std::string> lhs = origin(*da);
  std::optional<std::string> rhs = origin(*db);
  if (lhs && rhs) {
    std::string file = path_.substr(path_.find_last_of('/') + 1);
    shape_checks_[da->symbol] = fmt::format(
        "{}=={}:{}:{}: kernel '{}' needs {} == {} ({})", *lhs, *rhs, file,
        loc.line, kernel_.name, spelled(*da), spelled(*db), why);
  }
  return true;
}

bool KernelLowering::UnifyOperandShapes(OpKind op,
                                        const std::vector<Type>& types,
                                        SourceLoc loc, const char* why) {
  auto unify_right_aligned = [&](std::span<const Dim> x, std::span<const Dim> y,
                                 const char* why) {
    bool changed = false;
    size_t n = std::min(x.size(), y.size());
    for (size_t i = 1; i <= n; ++i) {
      const Dim& dx = x[x.size() - i];
      const Dim& dy = y[y.size() - i];
      if (dx.is_static() || dy.is_static()) continue;  // 1 broadcasts
      changed |= UnifyDims(dx, dy, loc, why);
    }
    return changed;
  };
  if (op == OpKind::kDot) {
    if (types.size() < 2) return false;
    const Shape& x = types[0].shape;
    const Shape& y = types[1].shape;
    if (x.empty() || y.empty()) return false;
    const Dim& k_x = x.back();
    const Dim& k_y = y.size() >= 2 ? y[y.size() - 2] : y.back();
    bool changed = !k_x.is_static() && !k_y.is_static() &&
                   UnifyDims(k_x, k_y, loc, "matmul contraction");
    if (x.size() > 2 && y.size() > 2) {
      changed |=
          unify_right_aligned(std::span(x).first(x.size() - 2),
                              std::span(y).first(y.size() - 2), "matmul batch");
    }
    return changed;
  }
  bool changed = false;
  for (size_t i = 0; i < types.size(); ++i) {
    for (size_t j = i + 1; j < types.size(); ++j) {
      if (!types[i].is_tensor() || !types[j].is_tensor()) continue;
      changed |= unify_right_aligned(types[i].shape, types[j].shape, why);
    }
  }
  return changed;
}

void KernelLowering::LowerAssert(const PyStmt& stmt) {
  // Asserts are host checks; those that equate sizes specialize the shape
  // symbols (`assert k == k2` makes both one symbol). Others are ignored.
  Block scratch;
  blocks_.push_back(&scratch);
  bool was_quiet = quiet_;
  quiet_ = true;
  in_assert_ = true;
  std::function<void(const Node&)> visit = [&](const Node& test) {
    if (test.kind == NodeKind::kBoolOp && test.op == 0) {
      for (const NodePtr& child : test.children) visit(*child);
      return;
    }
    if (test.kind != NodeKind::kCompare) return;
    std::vector<Val> operands;
    for (const NodePtr& child : test.children) operands.push_back(Eval(*child));
    for (size_t i = 0; i < test.compare_ops.size(); ++i) {
      if (test.compare_ops[i] != CompareOp::kEq) continue;
      quiet_ = was_quiet;
      in_assert_ = false;
      Unify(operands[i], operands[i + 1], test.loc);
      in_assert_ = true;
      quiet_ = true;
    }
  };
  visit(*stmt.test);
  quiet_ = was_quiet;
  in_assert_ = false;
  blocks_.pop_back();
}

}  // namespace tessera::helion_py
