#include "ir_samples.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tessera/ir/type_inference.h"

namespace tessera::testing {

Dim S(int64_t n) { return Dim::Static(n); }
Dim Sym(std::string name) { return Dim::Symbol(std::move(name)); }
Type F32(Shape shape) { return Type::Tensor(DType::kF32, std::move(shape)); }
Type Bool(Shape shape) { return Type::Tensor(DType::kBool, std::move(shape)); }

ValueList SampleParams() {
  return {
      {"x", Type::Ref(DType::kF32, {Sym("m"), Sym("n")})},
      {"m", Type::Scalar(DType::kI64)},
      {"n", Type::Scalar(DType::kI64)},
      {"k", Type::Scalar(DType::kI64)},
      {"s", Type::Scalar(DType::kF32)},
      {"a", F32({S(64), S(128)})},
      {"b", F32({S(64), S(128)})},
      {"col", F32({S(64), S(1)})},
      {"v", F32({S(64)})},
      {"w", F32({S(128), S(32)})},
      {"acc", F32({S(64), S(32)})},
      {"c", Bool({S(64), S(128)})},
      {"ia", Type::Tensor(DType::kI32, {S(64), S(128)})},
      {"a3", Type::Tensor(DType::kBF16, {S(4), S(64), S(32)})},
      {"b3", Type::Tensor(DType::kBF16, {S(4), S(32), S(16)})},
      {"t", Type::Tile(S(64))},
      {"t2", Type::Tile(Sym("block_n"))},
      {"block_n", Type::Scalar(DType::kI64)},
      {"nothing", Type::None()},
  };
}

ExprPtr P(const std::string& name) {
  for (const Value& param : SampleParams()) {
    if (param.name == name) return MakeVar(name, param.type);
  }
  ADD_FAILURE() << "no sample param " << name;
  return MakeVar(name, Type::None());
}

ExprPtr Op(OpKind op, ExprList operands, AttrList attrs) {
  auto expr = MakeOp(op, Type::None(), std::move(operands), std::move(attrs));
  auto type = InferType(*expr);
  EXPECT_TRUE(type.ok()) << OpInfoOf(op).name << ": " << type.status();
  if (type.ok()) expr->type = *type;
  return expr;
}

ExprPtr Load(ExprPtr ref, IndexList indices) {
  auto expr = MakeOp(OpKind::kLoad, Type::None(), {});
  expr->operands.push_back(std::move(ref));
  expr->indices = std::move(indices);
  auto type = InferType(*expr);
  EXPECT_TRUE(type.ok()) << type.status();
  if (type.ok()) expr->type = *type;
  return expr;
}

namespace {
ExprList List(ExprPtr a, ExprPtr b = nullptr, ExprPtr c = nullptr) {
  ExprList list;
  list.push_back(std::move(a));
  if (b) list.push_back(std::move(b));
  if (c) list.push_back(std::move(c));
  return list;
}
ExprPtr Subscript(ExprPtr base, IndexList indices,
                  OpKind op = OpKind::kSubscript) {
  auto expr = MakeOp(op, Type::None(), List(std::move(base)));
  expr->indices = std::move(indices);
  auto type = InferType(*expr);
  EXPECT_TRUE(type.ok()) << type.status();
  if (type.ok()) expr->type = *type;
  return expr;
}
}  // namespace

ExprList SampleExprs(OpKind op) {
  ExprList out;
  const OpInfo& info = OpInfoOf(op);
  switch (info.category) {
    case OpCategory::kLeaf:
      if (op == OpKind::kConst) {
        out.push_back(MakeIntConst(3));
        out.push_back(MakeIntConst(-7, DType::kI32));
        out.push_back(MakeIntConst(INT64_MIN));
        out.push_back(MakeFloatConst(0.1));
        out.push_back(MakeFloatConst(-0.0));
        out.push_back(MakeFloatConst(1e300));
        out.push_back(MakeFloatConst(5e-324));
        out.push_back(MakeFloatConst(2.0, DType::kBF16));
        out.push_back(MakeFloatConst(INFINITY));
        out.push_back(MakeFloatConst(-INFINITY, DType::kF16));
        out.push_back(MakeFloatConst(NAN));
        out.push_back(MakeBoolConst(true));
        out.push_back(MakeBoolConst(false));
        // Literal values whose dtype differs from the literal's kind.
        out.push_back(MakeIntConst(2, DType::kF32));
        auto odd = MakeFloatConst(1.5, DType::kI32);
        out.push_back(std::move(odd));
        // Not a literal: a const with extra attrs or a tensor type.
        auto tensor_const = MakeFloatConst(1.0);
        tensor_const->type = F32({});
        out.push_back(std::move(tensor_const));
        auto tagged = MakeIntConst(4);
        tagged->attrs.push_back(Attr{"note", std::string("x")});
        out.push_back(std::move(tagged));
      }
      break;
    case OpCategory::kHost:
      if (op == OpKind::kSize) {
        out.push_back(Op(op, List(P("x")), {{"dim", int64_t{0}}}));
        out.push_back(Op(op, List(P("x")), {{"dim", int64_t{-1}}}));
      } else if (op == OpKind::kEmpty) {
        out.push_back(
            Op(op, {},
               {{"shape", Shape{Sym("m"), S(8)}}, {"dtype", DType::kBF16}}));
      } else if (op == OpKind::kAllocFull) {
        out.push_back(Op(op, {},
                         {{"shape", Shape{Sym("m")}},
                          {"dtype", DType::kF32},
                          {"value", 0.0}}));
      } else if (op == OpKind::kReshape) {
        out.push_back(
            Op(op, List(P("x")), {{"shape", Shape{Sym("n"), Sym("m")}}}));
      } else if (op == OpKind::kTranspose) {
        out.push_back(
            Op(op, List(P("x")), {{"perm", std::vector<int64_t>{1, 0}}}));
      }
      break;
    case OpCategory::kMemory:
      if (op == OpKind::kLoad) {
        IndexList tiles;
        tiles.emplace_back(IndexKind::kTile, P("t"));
        tiles.emplace_back(IndexKind::kTile, P("t2"));
        out.push_back(Load(P("x"), std::move(tiles)));
        IndexList mixed;
        mixed.emplace_back(IndexKind::kSlice);
        mixed.emplace_back(IndexKind::kNewAxis);
        mixed.emplace_back(IndexKind::kScalar, P("k"));
        out.push_back(Load(P("x"), std::move(mixed)));
        IndexList ranged;
        ranged.emplace_back(IndexKind::kRange,
                            Op(OpKind::kTileBegin, List(P("t"))), S(64));
        ranged.emplace_back(IndexKind::kRange, P("k"), Sym("block_n"));
        out.push_back(Load(P("x"), std::move(ranged)));
        IndexList shifted;
        shifted.emplace_back(
            IndexKind::kShiftedTile,
            Op(OpKind::kAdd,
               List(Op(OpKind::kTileIndex, List(P("t"))), P("k"))));
        shifted.emplace_back(
            IndexKind::kShiftedTile,
            Op(OpKind::kSub,
               List(Op(OpKind::kTileIndex, List(P("t2"))), MakeIntConst(3))));
        out.push_back(Load(P("x"), std::move(shifted)));
        out.push_back(Load(P("x"), {}));
      } else if (op == OpKind::kSliceView) {
        // A host view: ranges, integers, None and `:` on a ref.
        IndexList ranged;
        ranged.emplace_back(IndexKind::kRange, MakeIntConst(1), S(64));
        ranged.emplace_back(IndexKind::kNewAxis);
        out.push_back(Subscript(P("x"), std::move(ranged), op));
        IndexList picked;
        picked.emplace_back(IndexKind::kScalar, P("k"));
        picked.emplace_back(IndexKind::kRange, P("k"), Sym("block_n"));
        out.push_back(Subscript(P("x"), std::move(picked), op));
      } else if (op == OpKind::kHostRead) {
        // One element read by the host: a scalar index per dim.
        IndexList element;
        element.emplace_back(IndexKind::kScalar, P("k"));
        element.emplace_back(IndexKind::kScalar,
                             Op(OpKind::kSub, List(P("n"), MakeIntConst(1))));
        out.push_back(Subscript(P("x"), std::move(element), op));
      } else {
        IndexList indices;
        indices.emplace_back(IndexKind::kSlice);
        indices.emplace_back(IndexKind::kNewAxis);
        out.push_back(Subscript(P("a"), std::move(indices)));
        IndexList scalar;
        scalar.emplace_back(IndexKind::kScalar, MakeIntConst(0));
        out.push_back(Subscript(P("v"), std::move(scalar)));
      }
      break;
    case OpCategory::kTile:
      out.push_back(Op(op, List(P("t"))));
      out.push_back(Op(op, List(P("t2"))));
      break;
    case OpCategory::kUnary:
      if (op == OpKind::kNot) {
        out.push_back(Op(op, List(P("c"))));
      } else {
        out.push_back(Op(op, List(P("a"))));
        out.push_back(Op(op, List(P("s"))));
        if (op == OpKind::kGelu) {
          out.push_back(
              Op(op, List(P("a")), {{"approximate", std::string("tanh")}}));
        }
      }
      break;
    case OpCategory::kBinary:
      if (op == OpKind::kAnd || op == OpKind::kOr || op == OpKind::kXor) {
        out.push_back(Op(op, List(P("c"), P("c"))));
        out.push_back(Op(op, List(P("ia"), MakeIntConst(1))));
      } else if (op == OpKind::kShl || op == OpKind::kShr) {
        out.push_back(Op(op, List(P("ia"), MakeIntConst(3))));
      } else if (op == OpKind::kCdiv) {
        out.push_back(Op(op, List(P("m"), MakeIntConst(64))));
      } else {
        out.push_back(Op(op, List(P("a"), P("b"))));
        out.push_back(Op(op, List(P("a"), P("col"))));
        out.push_back(Op(op, List(P("a"), MakeFloatConst(2.0))));
        out.push_back(Op(op, List(P("ia"), MakeFloatConst(0.5))));
      }
      break;
    case OpCategory::kCompare:
      out.push_back(Op(op, List(P("a"), P("b"))));
      out.push_back(Op(op, List(P("k"), MakeIntConst(0))));
      break;
    case OpCategory::kSelect:
      out.push_back(Op(op, List(P("c"), P("a"), MakeFloatConst(0.0))));
      break;
    case OpCategory::kReduction:
      out.push_back(Op(op, List(P("a")), {{"dim", int64_t{-1}}}));
      out.push_back(
          Op(op, List(P("a")),
             {{"dim", std::vector<int64_t>{0, 1}}, {"keepdim", true}}));
      out.push_back(Op(op, List(P("a"))));
      break;
    case OpCategory::kContraction:
      out.push_back(Op(op, List(P("a"), P("w"))));
      out.push_back(
          Op(op, List(P("a"), P("w"), P("acc")), {{"acc_dtype", DType::kF32}}));
      out.push_back(
          Op(op, List(P("a3"), P("b3")), {{"acc_dtype", DType::kF32}}));
      break;
    case OpCategory::kConstruct:
      if (op == OpKind::kFull) {
        out.push_back(Op(op, {},
                         {{"shape", Shape{S(64), S(128)}},
                          {"dtype", DType::kF32},
                          {"value", -INFINITY}}));
      } else if (op == OpKind::kCast) {
        out.push_back(Op(op, List(P("a")), {{"dtype", DType::kBF16}}));
      } else if (op == OpKind::kBroadcastTo) {
        out.push_back(
            Op(op, List(P("col")), {{"shape", Shape{S(64), S(128)}}}));
      } else if (op == OpKind::kArange) {
        out.push_back(Op(op, {}, {{"size", int64_t{64}}}));
      } else {
        out.push_back(Op(op, List(P("col")), {{"reps", int64_t{128}}}));
      }
      break;
    case OpCategory::kDevice:
      if (op == OpKind::kScratch) {
        out.push_back(Op(
            op, {}, {{"shape", Shape{S(64), S(128)}}, {"dtype", DType::kF32}}));
      } else {
        out.push_back(Op(op, {}, {{"axis", int64_t{1}}}));
      }
      break;
    case OpCategory::kScan: {
      auto arg = [](int64_t index, DType dtype = DType::kF32) {
        return Op(OpKind::kScanArg, {}, {{"index", index}, {"dtype", dtype}});
      };
      if (op == OpKind::kScanArg) {
        out.push_back(arg(3, DType::kI32));
        break;
      }
      // A cumsum along the lanes, and a segmented sum of a pair scanned
      // backwards: the second member is the segment id.
      out.push_back(Op(
          op, List(P("a"), Op(OpKind::kAdd, List(arg(0), arg(1)))),
          {{"dim", int64_t{1}}, {"reverse", false}, {"result", int64_t{0}}}));
      ExprList pair;
      pair.push_back(P("a"));
      pair.push_back(P("b"));
      pair.push_back(Op(OpKind::kWhere,
                        List(Op(OpKind::kEq, List(arg(1), arg(3))),
                             Op(OpKind::kAdd, List(arg(0), arg(2))), arg(2))));
      pair.push_back(arg(3));
      out.push_back(
          Op(op, std::move(pair),
             {{"dim", int64_t{0}}, {"reverse", true}, {"result", int64_t{1}}}));
      break;
    }
  }
  return out;
}

Module ModuleWith(std::vector<Stmt> stmts) {
  Module module;
  module.source_file = "samples.py";
  Function function;
  function.name = "samples";
  function.kind = FunctionKind::kKernel;
  function.loc = SourceLoc{1, 1, 0};
  function.params = SampleParams();
  function.body.stmts = std::move(stmts);
  module.functions.push_back(std::move(function));
  return module;
}

void ExpectRoundTrip(const Module& module) {
  std::string text = PrintModule(module);
  DiagnosticEngine diagnostics;
  auto parsed = ParseModule(text, "roundtrip.tir", diagnostics);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n"
                           << diagnostics.RenderAll() << "\n"
                           << text;
  EXPECT_EQ(FirstDifference(*parsed, module), "") << text;
  EXPECT_TRUE(StructurallyEqual(*parsed, module)) << text;
  EXPECT_EQ(PrintModule(*parsed), text);
}

}  // namespace tessera::testing
