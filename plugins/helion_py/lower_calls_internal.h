// Shared by the translation units that lower calls: lower_calls.cpp (the
// catalogue, dispatch, builtins, helion.language calls),
// lower_calls_math.cpp (elementwise math), lower_calls_reduce.cpp
// (reductions, softmax, matmul), lower_calls_alloc.cpp (allocations) and
// lower_methods.cpp (tensor methods).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lower_internal.h"

namespace tessera::helion_py {

struct UnaryInfo {
  OpKind op;
  double (*fold)(double);
};

// Constant folding of the elementwise functions.
double Exp(double x);
double Abs(double x);

// torch / math / F function or tensor method name -> op and constant fold.
const std::map<std::string, UnaryInfo, std::less<>>& UnaryFunctions();

ExprList One(ExprPtr a);
ExprList Two(ExprPtr a, ExprPtr b);

// "torch.nn.functional.relu" -> "relu" and "torch.nn.functional".
std::string LastComponent(const std::string& path);
std::string ModuleOf(const std::string& path);

// Helpers that need the lowering's state.
class Calls {
 public:
  Calls(KernelLowering& lowering, CallArgs& args) : L(lowering), args_(args) {}

  // An operand of a computation: refs must be indexed first.
  ExprPtr Operand(const Val& value, const Type* peer, SourceLoc loc);

  const Val* Arg(size_t index, std::string_view name);
  SourceLoc LocOf(size_t index, std::string_view name);

  const Val* Required(size_t index, std::string_view name, std::string_view fn);

  Val Unary(OpKind op, double (*fold)(double), const Val& x, SourceLoc loc,
            AttrList attrs = {});

  Val BinaryFn(OpKind op, const Val& a, const Val& b, SourceLoc loc);

  Val Reduce(OpKind op, const Val& x, const Val* dim, const Val* keepdim,
             SourceLoc loc);

  // dot(a, b[, acc]) with an optional result dtype.
  Val Dot(const Val& a, const Val& b, const Val* acc,
          std::optional<DType> out_dtype, SourceLoc loc);

  // Fill value as an attribute of the dtype's kind.
  std::optional<AttrValue> FillValue(const Val& value, DType dtype,
                                     SourceLoc loc);

  // torch.empty / zeros / ones / full and hl.zeros / hl.full: a host
  // allocation outside the tile loops, a tensor value inside.
  Val Allocate(Shape shape, DType dtype, std::optional<Val> fill, SourceLoc loc,
               bool device_only);

  std::optional<DType> DTypeArg(size_t index, std::optional<DType> fallback);

  // Shape from `(shape)` or `(*ints)` starting at positional 0.
  std::optional<Shape> ShapeArgs(size_t count);

  Val Reshape(const Val& self, size_t first, SourceLoc loc);

  Val Transpose(const Val& self, std::vector<int64_t> perm, SourceLoc loc);

  std::optional<int64_t> IntArg(size_t index, std::string_view name,
                                SourceLoc loc);

  KernelLowering& L;
  CallArgs& args_;
};

}  // namespace tessera::helion_py
