// hl.load and hl.store: a subscript written as a function, with an index
// list (the same indices `x[...]` takes, so tiles, ranges, scalars and
// gathers behave alike) and an `extra_mask` ANDed into the automatic bounds
// mask. A masked load reads 0 where the mask is false (jnp.where); a masked
// store keeps what the target held there (a read-modify-write of the
// region, which every backend lowers like any other load and store).
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {
namespace {

bool IsNoneArg(const Val* value) {
  return value == nullptr || value->kind == ValKind::kNone;
}

}  // namespace

bool KernelLowering::IndexListArg(const Val& ref, const Val& index,
                                  SourceLoc index_loc, IndexList& out) {
  std::vector<Val> items;
  std::vector<SourceLoc> locs;
  if (index.kind == ValKind::kTuple) {
    for (const Val& v : index.elems) {
      items.push_back(v.Clone());
      locs.push_back(index_loc);
    }
  } else {
    items.push_back(index.Clone());
    locs.push_back(index_loc);
  }
  return BuildIndices(ref.type(), std::move(items), std::move(locs), true,
                      index_loc, out);
}

Val KernelLowering::ApplyExtraMask(Val loaded, const Val& mask,
                                   SourceLoc mask_loc) {
  if (loaded.kind == ValKind::kPoison) return loaded;
  if (mask.IsNumber()) {
    if (mask.AsDouble() != 0) return loaded;
  } else if (!mask.IsValue() || mask.IsRef() ||
             mask.type().dtype != DType::kBool) {
    return Fail(mask_loc, fmt::format("extra_mask must be a bool tensor or "
                                      "scalar, got {}",
                                      Describe(mask)));
  }
  CallArgs none;
  Calls c(*this, none);
  const Type loaded_type = loaded.type();
  ExprPtr condition = c.Operand(mask, nullptr, mask_loc);
  ExprPtr zero =
      c.Operand(IsFloat(loaded_type.dtype) ? Val::Float(0) : Val::Int(0),
                &loaded_type, mask_loc);
  if (!condition || !zero) return Val::Poison();
  ExprList operands;
  operands.push_back(std::move(condition));
  operands.push_back(std::move(loaded.expr));
  operands.push_back(std::move(zero));
  Val masked = MakeTyped(OpKind::kWhere, std::move(operands), {}, mask_loc);
  if (masked.kind == ValKind::kPoison) return masked;
  if (masked.type().shape != loaded_type.shape) {
    return Fail(
        mask_loc,
        fmt::format("extra_mask does not broadcast to the indexed "
                    "region {}: the masked value would be {}",
                    TypeToString(loaded_type), TypeToString(masked.type())));
  }
  return masked;
}

Val KernelLowering::LoadCall(CallArgs& args) {
  Calls c(*this, args);
  const Val* tensor = c.Required(0, "tensor", "hl.load");
  const Val* index = c.Required(1, "index", "hl.load");
  if (!tensor || !index) return Val::Poison();
  // eviction_policy is a cache hint for GPUs; Pallas TPU has no such knob.
  const Val* mask = c.Arg(2, "extra_mask");
  if (!tensor->IsRef()) {
    return Fail(c.LocOf(0, "tensor"),
                fmt::format("hl.load reads a tensor argument or allocation, "
                            "got {}",
                            Describe(*tensor)));
  }
  if (!in_device()) {
    return Fail(args.loc, "hl.load must be inside an hl.tile loop");
  }
  if (std::optional<Val> gathered =
          JaggedRowsGather(*tensor, *index, c.LocOf(1, "index"))) {
    if (IsNoneArg(mask) || gathered->kind == ValKind::kPoison) {
      return std::move(*gathered);
    }
    return ApplyExtraMask(std::move(*gathered), *mask,
                          c.LocOf(2, "extra_mask"));
  }
  Val base = MaterializeRef(tensor->Clone(), "view");
  IndexList indices;
  if (!base.IsValue() ||
      !IndexListArg(base, *index, c.LocOf(1, "index"), indices)) {
    return Val::Poison();
  }
  ExprList operands;
  operands.push_back(std::move(base.expr));
  Val loaded = MakeTyped(OpKind::kLoad, std::move(operands), {}, args.loc,
                         std::move(indices));
  if (IsNoneArg(mask)) return loaded;
  return ApplyExtraMask(std::move(loaded), *mask, c.LocOf(2, "extra_mask"));
}

void KernelLowering::StoreCall(CallArgs& args) {
  Calls c(*this, args);
  const Val* tensor = c.Required(0, "tensor", "hl.store");
  const Val* index = c.Required(1, "index", "hl.store");
  const Val* value = c.Required(2, "value", "hl.store");
  if (!tensor || !index || !value) return;
  const Val* mask = c.Arg(3, "extra_mask");
  if (!tensor->IsRef()) {
    Fail(c.LocOf(0, "tensor"),
         fmt::format("hl.store writes a tensor argument or allocation, got {}",
                     Describe(*tensor)));
    return;
  }
  if (!in_device()) {
    Fail(args.loc, "hl.store must be inside an hl.tile loop");
    return;
  }
  Val base;
  IndexList indices;
  ExprPtr stored;
  if (!PrepareWrite(*tensor, *index, *value, c.LocOf(1, "index"),
                    c.LocOf(2, "value"), "hl.store", base, indices, stored)) {
    return;
  }
  if (!IsNoneArg(mask) && mask->IsNumber()) {
    if (mask->AsDouble() == 0) return;  // nothing is written
    mask = nullptr;
  }
  if (!IsNoneArg(mask)) {
    // Where the mask is false the region keeps its contents: read them and
    // select.
    IndexList old_indices;
    for (const Index& i : indices) old_indices.push_back(CloneIndex(i));
    ExprList load_operands;
    load_operands.push_back(CloneExpr(*base.expr));
    Val old = MakeTyped(OpKind::kLoad, std::move(load_operands), {}, args.loc,
                        std::move(old_indices));
    Val kept = ApplyExtraMask(std::move(old), *mask, c.LocOf(3, "extra_mask"));
    if (kept.kind == ValKind::kPoison) return;
    if (kept.expr->op != OpKind::kWhere || kept.expr->operands.size() != 3) {
      Fail(c.LocOf(3, "extra_mask"), "extra_mask could not be applied");
      return;
    }
    // kept = where(mask, old, 0); the stored value is where(mask, new, old).
    ExprList select;
    select.push_back(std::move(kept.expr->operands[0]));
    select.push_back(std::move(stored));
    select.push_back(std::move(kept.expr->operands[1]));
    Val merged = MakeTyped(OpKind::kWhere, std::move(select), {},
                           c.LocOf(3, "extra_mask"));
    if (merged.kind == ValKind::kPoison) return;
    stored = std::move(merged.expr);
  }
  Emit(MakeStore(std::move(base.expr), std::move(indices), std::move(stored),
                 args.loc));
}

bool KernelLowering::PrepareWrite(const Val& target, const Val& index,
                                  const Val& value, SourceLoc index_loc,
                                  SourceLoc value_loc, std::string_view what,
                                  Val& base, IndexList& indices,
                                  ExprPtr& stored) {
  if (std::optional<bool> written = JaggedRowsWrite(
          target, index, value, index_loc, value_loc, base, indices, stored)) {
    return *written;
  }
  base = MaterializeRef(target.Clone(), "view");
  if (!base.IsValue() || !IndexListArg(base, index, index_loc, indices) ||
      !CheckScatter(indices, index_loc, what)) {
    return false;
  }
  std::vector<Type> types = {base.type()};
  absl::StatusOr<Type> region = InferType(OpKind::kLoad, types, indices, {});
  if (!region.ok()) {
    Fail(index_loc, std::string(region.status().message()));
    return false;
  }
  stored = CoerceForStore(value.Clone(), *region, value_loc);
  return stored != nullptr;
}

}  // namespace tessera::helion_py
