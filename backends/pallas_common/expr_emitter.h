// IR expressions -> Python (jnp / lax / pl) expressions. Shared by the host
// function (scalar math, sizes) and the device kernel (tensor math); the
// context-dependent parts (names, loads, tiles) are hooks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/ir.h"

namespace tessera::pallas {

// "jnp.float32", "jnp.bfloat16", ... (i64 maps to int32: JAX runs without
// x64 by default).
std::string JnpDType(DType dtype);

class ExprEmitter {
 public:
  virtual ~ExprEmitter() = default;

  // The expression as Python, without redundant outer parentheses.
  std::string Emit(const Expr& expr);
  // A Python tuple literal of dims ("(64, n)", "(128,)").
  std::string ShapeTuple(const Shape& dims);
  // Problems found while emitting (unsupported ops); empty when fine.
  const std::vector<std::string>& errors() const { return errors_; }

 protected:
  // Parenthesized where it could bind wrongly inside a larger expression.
  std::string Sub(const Expr& expr);
  virtual std::string Var(const Expr& expr);
  virtual std::string DimSymbol(const std::string& symbol) { return symbol; }
  virtual std::string Load(const Expr& expr);
  virtual std::string TileOp(const Expr& expr);
  virtual std::string DeviceOp(const Expr& expr);
  virtual std::string Size(const Expr& expr);
  // The size a static dim of a value takes in the emitted code
  // (PallasTarget::KernelBlockSize on the device; unchanged on the host).
  virtual int64_t EmittedDimSize(int64_t size) const { return size; }
  virtual std::string EmittedDimSymbol(const std::string& symbol) {
    return DimSymbol(symbol);
  }
  // The true size of dim `axis` of `value` (a number or a kernel kwarg)
  // when the emitted value is larger (a whole dim rounded up to the
  // kernel's block): its tail is padding.
  virtual std::optional<std::string> PaddedDimSize(const Expr&, int64_t) {
    return std::nullopt;
  }
  // Reduction input, masked when it reduces over a ragged tile dim.
  virtual std::string ReductionInput(const Expr& input, int64_t axis,
                                     std::string_view fill);
  // Dot operand, masked along the contraction dim when it is ragged.
  virtual std::string DotOperand(const Expr& operand, int64_t axis);
  // Keyword arguments a dot of `operands`-typed operands takes after
  // preferred_element_type (", precision=..."); none by default.
  virtual std::string DotKeywords(DType /*operands*/) const { return ""; }
  // The function an elementwise op calls (`jnp.sqrt`); the host emitter
  // uses Python's `math` for scalars known when the function is traced.
  virtual std::string MathFunction(std::string_view jnp_name, const Expr&) {
    return std::string(jnp_name);
  }
  // True: divisions and sums of bf16/f16 tensors are computed in f32 and
  // the result cast back (Pallas's Triton lowering divides only f32/f64,
  // and a half-precision sum would accumulate in half precision).
  virtual bool HalfFloatMathInF32() const { return false; }
  // True: dots are 2-D only (Pallas's Triton lowering has no batch dims);
  // a batched dot's batch block must be 1.
  virtual bool TwoDimDotsOnly() const { return false; }
  // A `scan` (docs/ir.md, "Scans"): only device code has one.
  virtual std::string Scan(const Expr& expr);
  // A scan's combine function as a Python lambda of its 2k parameters
  // (left members, then right) returning a k-tuple.
  std::string CombineLambda(const Expr& scan);
  void Fail(std::string message) { errors_.push_back(std::move(message)); }

 private:
  bool IsHalfFloatTensor(const Expr& expr) const;
  // The operand as an f32 tensor when it is a half-precision one.
  std::string F32Operand(const Expr& operand);
  std::string Reduction(const Expr& expr);
  std::string Dot(const Expr& expr);
  std::string Subscript(const Expr& expr);

  std::string ScanArg(const Expr& expr);

  std::vector<std::string> errors_;
  // The lambda parameters scan_arg leaves read, while CombineLambda runs.
  std::vector<std::string> scan_params_;
};

}  // namespace tessera::pallas
