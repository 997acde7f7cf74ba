// hl.rand: uniform random numbers in [0, 1), counter-based.
//
// Each element's value is a hash of (seed, its global index along every
// tile dim), built from ordinary int32 IR ops (xor, shifts, wrapping
// multiplies). So it is the same for any block size, launcher, interpret
// mode or TPU generation, and a forward and a backward kernel that draw
// with the same seed over the same tiles see the same numbers (Helion's
// low-memory dropout relies on that). The TPU's hardware PRNG
// (pltpu.prng_seed / prng_random_bits) is not used: JAX 0.10.2's interpret
// modes do not implement it (plain interpret mode has no CPU lowering, TPU
// interpret mode returns zeros), and its stream depends on the block.
//
// The hash is lowbias32 (Chris Wellons' integer hash), applied after each
// index is added with a golden-ratio multiplier; the top 24 bits become the
// float. tests/frontend/random_reference.py holds the same function in
// NumPy.
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"

namespace tessera::helion_py {
namespace {

// Int32 spellings of the hash's unsigned constants.
constexpr int64_t kSeedSalt = 0x2545F491;
constexpr int64_t kGolden = 0x9E3779B9 - (int64_t{1} << 32);
constexpr int64_t kMix1 = 0x7FEB352D;
constexpr int64_t kMix2 = 0x846CA68B - (int64_t{1} << 32);
constexpr double kTwoToMinus24 = 1.0 / 16777216.0;

}  // namespace

std::optional<Val> KernelLowering::CallRandom(const CallSite& site,
                                              CallArgs& args) {
  if (site.path != "helion.language.rand") return std::nullopt;
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const Val* shape = c.Required(0, "shape", "rand");
  const Val* seed = c.Required(1, "seed", "rand");
  if (!shape || !seed) return Val::Poison();
  if (!in_device()) return Fail(loc, "hl.rand must be inside an hl.tile loop");
  std::vector<const Val*> tiles;
  if (shape->kind == ValKind::kTuple) {
    for (const Val& dim : shape->elems) tiles.push_back(&dim);
  } else {
    tiles.push_back(shape);
  }
  for (const Val* dim : tiles) {
    if (dim->kind != ValKind::kTile)
      return Fail(c.LocOf(0, "shape"),
                  fmt::format("hl.rand's shape must list tiles of the "
                              "enclosing hl.tile loops, got {}",
                              Describe(*dim)));
  }
  Val h;
  if (seed->kind == ValKind::kInt) {
    h = Val::Value(
        MakeIntConst(static_cast<int32_t>(static_cast<uint32_t>(seed->i)),
                     DType::kI32, loc));
  } else if (seed->IsScalar() && IsInteger(seed->type().dtype)) {
    h = MakeTyped(OpKind::kCast, One(CloneExpr(*seed->expr)),
                  {Attr{"dtype", DType::kI32}}, loc);
  } else {
    return Fail(
        c.LocOf(1, "seed"),
        fmt::format("hl.rand's seed must be an int, got {}", Describe(*seed)));
  }
  auto op = [&](OpKind kind, Val a, Val b) {
    return MakeBinaryOp(kind, std::move(a), std::move(b), loc);
  };
  // Each step reads its input more than once: name it, so the generated
  // code stays linear in the number of steps.
  auto bind = [&](Val x) {
    if (!x.IsValue() || x.expr->op == OpKind::kVar) return x;
    std::string name = Fresh("rand_bits");
    Type type = x.type();
    Emit(MakeAssign(Value{name, type}, std::move(x.expr), loc));
    return Val::Value(MakeVar(name, type));
  };
  // h ^ (h >>> shift), with the logical shift spelled as an arithmetic
  // shift and a mask.
  auto fold = [&](Val x, int shift) {
    x = bind(std::move(x));
    Val high = op(OpKind::kAnd, op(OpKind::kShr, x.Clone(), Val::Int(shift)),
                  Val::Int((int64_t{1} << (32 - shift)) - 1));
    return op(OpKind::kXor, std::move(x), std::move(high));
  };
  auto mix = [&](Val x) {
    x = fold(std::move(x), 16);
    x = op(OpKind::kMul, std::move(x), Val::Int(kMix1));
    x = fold(std::move(x), 15);
    x = op(OpKind::kMul, std::move(x), Val::Int(kMix2));
    return fold(std::move(x), 16);
  };
  h = mix(op(OpKind::kXor, std::move(h), Val::Int(kSeedSalt)));
  const size_t rank = tiles.size();
  for (size_t d = 0; d < rank; ++d) {
    Val index = EvalAttribute(tiles[d]->Clone(), "index", loc);
    if (!index.IsValue()) return Val::Poison();
    if (rank > 1) {
      IndexList indices;
      for (size_t k = 0; k < rank; ++k)
        indices.push_back(
            Index(k == d ? IndexKind::kSlice : IndexKind::kNewAxis));
      index = MakeTyped(OpKind::kSubscript, One(std::move(index.expr)), {}, loc,
                        std::move(indices));
      if (!index.IsValue()) return Val::Poison();
    }
    h = mix(op(OpKind::kAdd, std::move(h),
               op(OpKind::kMul, std::move(index), Val::Int(kGolden))));
  }
  Val bits = op(OpKind::kAnd, op(OpKind::kShr, std::move(h), Val::Int(8)),
                Val::Int((1 << 24) - 1));
  if (!bits.IsValue()) return Val::Poison();
  Val as_float = MakeTyped(OpKind::kCast, One(std::move(bits.expr)),
                           {Attr{"dtype", DType::kF32}}, loc);
  return op(OpKind::kMul, std::move(as_float), Val::Float(kTwoToMinus24));
}

}  // namespace tessera::helion_py
