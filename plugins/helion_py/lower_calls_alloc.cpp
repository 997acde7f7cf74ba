// Allocations and dtype queries (torch.empty/zeros/full/*_like,
// torch.promote_types).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"
#include "tessera/ir/type_inference.h"

namespace tessera::helion_py {

std::optional<Val> KernelLowering::CallAllocation(const CallSite& site,
                                                  CallArgs& args) {
  const std::string& path = site.path;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& module = site.module;
  const std::string& name = site.name;
  auto first = [&]() -> const Val* { return c.Required(0, "input", name); };
  if (path == "torch.promote_types") {
    const Val* a = c.Required(0, "type1", name);
    const Val* b = c.Required(1, "type2", name);
    if (!a || !b) return Val::Poison();
    auto da = ToDType(*a, c.LocOf(0, "type1"));
    auto db = ToDType(*b, c.LocOf(1, "type2"));
    if (!da || !db) return Val::Poison();
    return Val::DTypeOf(PromoteDTypes(*da, *db));
  }
  // Allocations.
  if (path == "torch.empty" || path == "torch.zeros" || path == "torch.ones") {
    size_t count = args.positional.size();
    auto shape = c.ShapeArgs(count);
    if (!shape) return Val::Poison();
    auto dtype = c.DTypeArg(99, DType::kF32);
    if (!dtype) return Val::Poison();
    std::optional<Val> fill;
    if (name == "zeros") fill = Val::Int(0);
    if (name == "ones") fill = Val::Int(1);
    return c.Allocate(*shape, *dtype, std::move(fill), loc, false);
  }
  if (path == "torch.full" || path == "helion.language.full" ||
      path == "helion.language.zeros") {
    bool zeros = name == "zeros";
    const Val* shape_arg = c.Required(0, "shape", name);
    if (!shape_arg) return Val::Poison();
    const Val* fill = zeros ? nullptr : c.Required(1, "value", name);
    if (!zeros && !fill) fill = c.Arg(1, "fill_value");
    if (!zeros && !fill) return Val::Poison();
    auto shape = ToShape(*shape_arg, c.LocOf(0, "shape"));
    if (!shape) return Val::Poison();
    DType fallback = DType::kF32;
    if (path == "torch.full" && fill->kind == ValKind::kInt)
      fallback = DType::kI64;
    if (path == "torch.full" && fill->kind == ValKind::kBool)
      fallback = DType::kBool;
    auto dtype = c.DTypeArg(zeros ? 1 : 2, fallback);
    if (!dtype) return Val::Poison();
    return c.Allocate(*shape, *dtype, zeros ? Val::Int(0) : fill->Clone(), loc,
                      module == "helion.language");
  }
  if (path == "torch.empty_like" || path == "torch.zeros_like" ||
      path == "torch.ones_like" || path == "torch.full_like") {
    const Val* like = first();
    if (!like) return Val::Poison();
    if (!like->IsValue() || like->IsScalar()) {
      return Fail(
          c.LocOf(0, "input"),
          fmt::format("{}() needs a tensor, got {}", name, Describe(*like)));
    }
    std::optional<Val> fill;
    if (name == "zeros_like") fill = Val::Int(0);
    if (name == "ones_like") fill = Val::Int(1);
    if (name == "full_like") {
      const Val* value = c.Required(1, "fill_value", name);
      if (!value) return Val::Poison();
      fill = value->Clone();
    }
    auto dtype = c.DTypeArg(name == "full_like" ? 2 : 1, like->type().dtype);
    if (!dtype) return Val::Poison();
    return c.Allocate(like->type().shape, *dtype, std::move(fill), loc, false);
  }
  return std::nullopt;
}

}  // namespace tessera::helion_py
