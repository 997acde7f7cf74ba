// Tensor methods (x.size(), x.to(...), x.sum(...), ...).
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

Val KernelLowering::CallMethod(Val self, const std::string& name,
                               CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const Type type = self.type();
  if (name == "size") {
    const Val* dim = c.Arg(0, "dim");
    if (dim == nullptr || dim->kind == ValKind::kNone) {
      std::vector<Val> dims;
      for (const Dim& d : type.shape) dims.push_back(DimVal(d));
      return Val::Tuple(std::move(dims));
    }
    if (dim->kind != ValKind::kInt)
      return Fail(c.LocOf(0, "dim"), "size(dim) needs an integer constant");
    int64_t rank = static_cast<int64_t>(type.rank());
    int64_t d = dim->i < 0 ? dim->i + rank : dim->i;
    if (d < 0 || d >= rank) {
      return Fail(c.LocOf(0, "dim"),
                  fmt::format("dim {} is out of range for {}", dim->i,
                              TypeToString(type)));
    }
    return DimVal(type.shape[d]);
  }
  if (name == "dim") return Val::Int(static_cast<int64_t>(type.rank()));
  if (name == "numel") {
    Val product = Val::Int(1);
    for (const Dim& d : type.shape)
      product = Binary(BinaryOp::kMul, std::move(product), DimVal(d), loc);
    return product;
  }
  if (name == "contiguous") return self;
  if (name == "view" || name == "reshape") return c.Reshape(self, 0, loc);
  if (name == "view_as" || name == "reshape_as") {
    const Val* other = c.Required(0, "other", name);
    if (!other) return Val::Poison();
    if (!other->IsValue() || other->IsScalar())
      return Fail(loc, fmt::format("{} needs a tensor, got {}", name,
                                   Describe(*other)));
    std::vector<Val> dims;
    for (const Dim& d : other->type().shape) dims.push_back(DimVal(d));
    Val shape = Val::Tuple(std::move(dims));
    args.positional.clear();
    args.positional.push_back(std::move(shape));
    return c.Reshape(self, 0, loc);
  }
  if (name == "t" || name == "transpose" || name == "permute") {
    std::vector<int64_t> perm(type.rank());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    if (name == "t") {
      if (type.rank() > 2) return Fail(loc, "t() needs a tensor of rank <= 2");
      std::reverse(perm.begin(), perm.end());
    } else if (name == "transpose") {
      auto a = c.IntArg(0, "dim0", loc);
      auto b = c.IntArg(1, "dim1", loc);
      if (!a || !b) return Val::Poison();
      int64_t rank = static_cast<int64_t>(type.rank());
      int64_t x = *a < 0 ? *a + rank : *a, y = *b < 0 ? *b + rank : *b;
      if (x < 0 || x >= rank || y < 0 || y >= rank)
        return Fail(loc, "transpose dims out of range");
      std::swap(perm[x], perm[y]);
    } else {
      std::vector<Val> dims;
      if (args.positional.size() == 1 &&
          args.positional[0].kind == ValKind::kTuple) {
        for (const Val& v : args.positional[0].elems) dims.push_back(v.Clone());
      } else {
        for (const Val& v : args.positional) dims.push_back(v.Clone());
      }
      perm.clear();
      for (const Val& v : dims) {
        if (v.kind != ValKind::kInt)
          return Fail(loc, "permute dims must be integer constants");
        perm.push_back(v.i);
      }
    }
    return c.Transpose(self, std::move(perm), loc);
  }
  if (name == "squeeze" || name == "unsqueeze") {
    auto d = c.IntArg(0, "dim", loc);
    if (!d) return Val::Poison();
    int64_t rank =
        static_cast<int64_t>(type.rank()) + (name == "unsqueeze" ? 1 : 0);
    int64_t axis = *d < 0 ? *d + rank : *d;
    if (axis < 0 || axis >= rank)
      return Fail(loc, fmt::format("dim {} is out of range", *d));
    Shape shape = type.shape;
    if (name == "squeeze") {
      if (!(shape[axis] == Dim::Static(1))) return self;  // PyTorch: no-op
      shape.erase(shape.begin() + axis);
    } else {
      shape.insert(shape.begin() + axis, Dim::Static(1));
    }
    if (type.is_ref()) {
      return MakeTyped(OpKind::kReshape, One(CloneExpr(*self.expr)),
                       {Attr{"shape", std::move(shape)}}, loc);
    }
    IndexList indices;
    for (int64_t i = 0;
         i < static_cast<int64_t>(type.rank()) + (name == "unsqueeze"); ++i) {
      if (i == axis) {
        indices.push_back(
            name == "squeeze"
                ? Index(IndexKind::kScalar, MakeIntConst(0, DType::kI64, loc))
                : Index(IndexKind::kNewAxis));
        if (name == "unsqueeze") continue;
      } else {
        indices.push_back(Index(IndexKind::kSlice));
      }
    }
    return MakeTyped(OpKind::kSubscript, One(CloneExpr(*self.expr)), {}, loc,
                     std::move(indices));
  }
  if (name == "new_empty" || name == "new_zeros" || name == "new_ones" ||
      name == "new_full") {
    // Tensor.new_*: an allocation with self's dtype unless `dtype=` says.
    bool full = name == "new_full";
    std::optional<Val> fill;
    if (name == "new_zeros") fill = Val::Int(0);
    if (name == "new_ones") fill = Val::Int(1);
    if (full) {
      const Val* value = c.Required(1, "fill_value", name);
      if (!value) return Val::Poison();
      fill = value->Clone();
    }
    const Val* size = c.Required(0, "size", name);
    if (!size) return Val::Poison();
    auto shape = full ? ToShape(*size, c.LocOf(0, "size"))
                      : c.ShapeArgs(args.positional.size());
    auto dtype = c.DTypeArg(99, type.dtype);
    if (!shape || !dtype) return Val::Poison();
    return c.Allocate(*shape, *dtype, std::move(fill), loc, false);
  }
  if (self.IsRef() && name == "to") {
    // On the host a cast to the argument's own dtype (or a device move) is
    // the argument itself; a real cast belongs inside the tile loop.
    std::optional<DType> dtype;
    for (size_t i = 0; i < args.positional.size(); ++i) {
      if (args.positional[i].kind == ValKind::kDType)
        dtype = args.positional[i].dtype;
    }
    if (const Val* kw = c.Arg(99, "dtype")) {
      dtype = ToDType(*kw, c.LocOf(99, "dtype"));
      if (!dtype) return Val::Poison();
    }
    if (!dtype || *dtype == type.dtype) return self;
    Diagnostic* d =
        Report(loc, fmt::format("casting {} to {} on the host is not supported",
                                Describe(self), DTypeName(*dtype)));
    Note(d, "cast the loaded tile instead, e.g. x[tile].to(dtype)");
    return Val::Poison();
  }
  if (name == "item") {
    // A scalar already (one element read on the host, `x[-1].item()`, or
    // a scalar in the kernel): PyTorch's Python number of it.
    if (self.IsValue() && self.IsScalar()) return self;
    Diagnostic* d = Report(
        loc, fmt::format("item() of {} is not supported", Describe(self)));
    Note(d,
         "item() reads one element: index every dim with an integer first "
         "(x[-1].item())");
    return Val::Poison();
  }
  // Everything below computes on values; on the host a ref is read whole.
  if (self.IsRef() && !in_device()) {
    self = LoadWhole(self, loc);
    if (!self.IsValue()) return Val::Poison();
  }
  if (self.IsRef()) {
    Diagnostic* d = Report(loc, fmt::format("cannot call '{}' on {} directly",
                                            name, Describe(self)));
    Note(d, "index the tensor with tiles first, e.g. x[tile_m, :]." + name +
                "(...)");
    return Val::Poison();
  }
  if (name == "to" || name == "float" || name == "half" || name == "bfloat16" ||
      name == "type_as") {
    std::optional<DType> dtype;
    if (name == "float") dtype = DType::kF32;
    if (name == "half") dtype = DType::kF16;
    if (name == "bfloat16") dtype = DType::kBF16;
    if (name == "type_as") {
      const Val* other = c.Required(0, "other", name);
      if (!other) return Val::Poison();
      if (!other->IsValue()) return Fail(loc, "type_as needs a tensor");
      dtype = other->type().dtype;
    }
    if (name == "to") {
      for (size_t i = 0; i < args.positional.size() && !dtype; ++i) {
        const Val& v = args.positional[i];
        if (v.kind == ValKind::kDType)
          dtype = v.dtype;
        else if (v.IsValue() && !v.IsScalar())
          dtype = v.type().dtype;
        else if (v.kind != ValKind::kNone && v.kind != ValKind::kString) {
          dtype = ToDType(v, args.positional_locs[i]);
          if (!dtype) return Val::Poison();
        }
      }
      if (const Val* kw = c.Arg(99, "dtype")) {
        dtype = ToDType(*kw, c.LocOf(99, "dtype"));
        if (!dtype) return Val::Poison();
      }
      if (!dtype) return self;  // device moves are no-ops
    }
    if (type.dtype == *dtype) return self;
    return MakeTyped(OpKind::kCast, One(std::move(self.expr)),
                     {Attr{"dtype", *dtype}}, loc);
  }
  static const std::map<std::string, OpKind, std::less<>> kReductions = {
      {"sum", OpKind::kSum},
      {"amax", OpKind::kAmax},
      {"amin", OpKind::kAmin},
      {"mean", OpKind::kMean}};
  if (auto it = kReductions.find(name); it != kReductions.end()) {
    return c.Reduce(it->second, self, c.Arg(0, "dim"), c.Arg(1, "keepdim"),
                    loc);
  }
  if (auto it = UnaryFunctions().find(name); it != UnaryFunctions().end()) {
    return c.Unary(it->second.op, it->second.fold, self, loc);
  }
  if (name == "maximum" || name == "minimum") {
    const Val* other = c.Required(0, "other", name);
    if (!other) return Val::Poison();
    return c.BinaryFn(name == "maximum" ? OpKind::kMaximum : OpKind::kMinimum,
                      self, *other, loc);
  }
  if (name == "expand_as") {
    // x.expand_as(other) is x.expand(other.size()): PyTorch's broadcast of
    // x to other's shape (segment_reduction's `idxs[:, None].expand_as(v)`).
    const Val* other = c.Required(0, "other", name);
    if (!other) return Val::Poison();
    if (!other->IsValue() || other->IsScalar())
      return Fail(loc, fmt::format("expand_as needs a tensor, got {}",
                                   Describe(*other)));
    Shape shape = other->type().shape;
    auto broadcast = BroadcastShapes(type.shape, shape);
    if (!broadcast.ok() || *broadcast != shape) {
      return Fail(loc,
                  fmt::format("cannot expand {} to the shape of {}",
                              TypeToString(type), TypeToString(other->type())));
    }
    return MakeTyped(OpKind::kBroadcastTo, One(std::move(self.expr)),
                     {Attr{"shape", std::move(shape)}}, loc);
  }
  if (name == "expand" || name == "broadcast_to") {
    std::vector<Val> sizes;
    if (args.positional.size() == 1 &&
        args.positional[0].kind == ValKind::kTuple) {
      for (const Val& v : args.positional[0].elems) sizes.push_back(v.Clone());
    } else {
      for (const Val& v : args.positional) sizes.push_back(v.Clone());
    }
    Shape shape;
    size_t offset = sizes.size() - std::min(sizes.size(), type.rank());
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i].kind == ValKind::kInt && sizes[i].i == -1 && i >= offset) {
        shape.push_back(type.shape[i - offset]);
        continue;
      }
      std::optional<Dim> dim = ToDim(sizes[i], loc);
      if (!dim) return Val::Poison();
      shape.push_back(*dim);
    }
    return MakeTyped(OpKind::kBroadcastTo, One(std::move(self.expr)),
                     {Attr{"shape", std::move(shape)}}, loc);
  }
  return Fail(loc, fmt::format("method '{}' is not supported on {}", name,
                               Describe(self)));
}

}  // namespace tessera::helion_py
