#include "tessera/ir/type_inference.h"

#include "gtest/gtest.h"
#include "ir_samples.h"

namespace tessera::testing {
namespace {

Type T(DType dtype, Shape shape) {
  return Type::Tensor(dtype, std::move(shape));
}
Type Sc(DType dtype) { return Type::Scalar(dtype); }

absl::StatusOr<Type> Infer(OpKind op, std::vector<Type> types,
                           AttrList attrs = {}) {
  return InferType(op, types, {}, attrs);
}

std::string ErrorOf(const absl::StatusOr<Type>& result) {
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : std::string(result.status().message());
}

TEST(TypeInference, Broadcasting) {
  EXPECT_EQ(*Infer(OpKind::kAdd, {F32({S(64), S(1)}), F32({S(128)})}),
            F32({S(64), S(128)}));
  EXPECT_EQ(
      *Infer(OpKind::kMul, {F32({S(4), S(1), Sym("m")}), F32({S(3), S(1)})}),
      F32({S(4), S(3), Sym("m")}));
  EXPECT_EQ(
      ErrorOf(Infer(OpKind::kAdd, {F32({S(64), S(128)}), F32({S(64), S(64)})})),
      "cannot broadcast [64, 128] with [64, 64]");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kAdd, {F32({Sym("m")}), F32({Sym("n")})})),
            "cannot broadcast [m] with [n]");
  auto shape = BroadcastShapes(Shape{S(1)}, Shape{});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, Shape{S(1)});
}

TEST(TypeInference, Promotion) {
  EXPECT_EQ(*Infer(OpKind::kAdd, {T(DType::kBF16, {S(8)}), F32({S(8)})}),
            F32({S(8)}));
  EXPECT_EQ(
      *Infer(OpKind::kAdd, {T(DType::kF16, {S(8)}), T(DType::kBF16, {S(8)})}),
      F32({S(8)}));
  // A scalar of the same category does not promote the tensor.
  EXPECT_EQ(*Infer(OpKind::kMul, {T(DType::kBF16, {S(8)}), Sc(DType::kF32)}),
            T(DType::kBF16, {S(8)}));
  EXPECT_EQ(*Infer(OpKind::kAdd, {T(DType::kI32, {S(8)}), Sc(DType::kI64)}),
            T(DType::kI32, {S(8)}));
  // A float scalar with an integer tensor does.
  EXPECT_EQ(*Infer(OpKind::kAdd, {T(DType::kI32, {S(8)}), Sc(DType::kF32)}),
            F32({S(8)}));
  EXPECT_EQ(*Infer(OpKind::kAdd, {Sc(DType::kI64), Sc(DType::kF32)}),
            Sc(DType::kF32));
  // A rank-0 tensor is a tensor.
  EXPECT_EQ(*Infer(OpKind::kAdd, {T(DType::kBF16, {S(8)}), F32({})}),
            F32({S(8)}));
  EXPECT_EQ(*Infer(OpKind::kDiv, {T(DType::kI32, {S(8)}), Sc(DType::kI64)}),
            F32({S(8)}));
  EXPECT_EQ(*Infer(OpKind::kExp, {T(DType::kI32, {S(2)})}), F32({S(2)}));
  EXPECT_EQ(*Infer(OpKind::kNeg, {T(DType::kI32, {S(2)})}),
            T(DType::kI32, {S(2)}));
  EXPECT_EQ(*Infer(OpKind::kLt, {F32({S(2)}), Sc(DType::kF32)}), Bool({S(2)}));
  EXPECT_EQ(*Infer(OpKind::kNot, {Bool({S(2)})}), Bool({S(2)}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kCdiv, {F32({}), Sc(DType::kI64)})),
            "'cdiv' needs integer operands, got f32[] and i64");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kAnd, {F32({S(2)}), F32({S(2)})})),
            "'and' needs bool or integer operands, got f32");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kAdd,
                          {Type::Ref(DType::kF32, {S(2)}), F32({S(2)})})),
            "'add' expects a scalar or tensor as operand 1, got ref<f32[2]>");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kAdd, {F32({S(2)})})),
            "'add' takes 2 operands, got 1");
}

TEST(TypeInference, Where) {
  EXPECT_EQ(*Infer(OpKind::kWhere,
                   {Bool({S(4), S(1)}), F32({S(8)}), Sc(DType::kF32)}),
            F32({S(4), S(8)}));
  EXPECT_EQ(
      ErrorOf(Infer(OpKind::kWhere, {F32({S(4)}), F32({S(4)}), F32({S(4)})})),
      "'where' condition must be bool, got f32[4]");
}

TEST(TypeInference, ReductionsWithDimAndKeepdim) {
  Type x = F32({S(4), S(64), S(128)});
  EXPECT_EQ(*Infer(OpKind::kSum, {x}, {{"dim", int64_t{1}}}),
            F32({S(4), S(128)}));
  EXPECT_EQ(
      *Infer(OpKind::kAmax, {x}, {{"dim", int64_t{-1}}, {"keepdim", true}}),
      F32({S(4), S(64), S(1)}));
  EXPECT_EQ(*Infer(OpKind::kMean, {x}, {{"dim", std::vector<int64_t>{0, 2}}}),
            F32({S(64)}));
  EXPECT_EQ(*Infer(OpKind::kAmin, {x}), F32({}));
  EXPECT_EQ(*Infer(OpKind::kSum, {x}, {{"keepdim", true}}),
            F32({S(1), S(1), S(1)}));
  EXPECT_EQ(*Infer(OpKind::kSum, {T(DType::kI32, {S(4)})}), T(DType::kI64, {}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kSum, {x}, {{"dim", int64_t{3}}})),
            "'sum' dim 3 is out of range for rank 3");
  EXPECT_EQ(
      ErrorOf(Infer(OpKind::kSum, {x}, {{"dim", std::vector<int64_t>{1, -2}}})),
      "'sum' reduces dim -2 twice");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kMean, {T(DType::kI32, {S(4)})})),
            "'mean' needs a floating-point input, got i32[4]");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kSum, {Sc(DType::kF32)})),
            "'sum' expects a tensor, got f32");
}

TEST(TypeInference, Dot) {
  Type a = T(DType::kBF16, {S(64), S(32)});
  Type b = T(DType::kBF16, {S(32), S(128)});
  EXPECT_EQ(*Infer(OpKind::kDot, {a, b}), T(DType::kBF16, {S(64), S(128)}));
  EXPECT_EQ(*Infer(OpKind::kDot, {a, b}, {{"acc_dtype", DType::kF32}}),
            F32({S(64), S(128)}));
  EXPECT_EQ(*Infer(OpKind::kDot, {a, b, F32({S(64), S(128)})}),
            F32({S(64), S(128)}));
  EXPECT_EQ(*Infer(OpKind::kDot,
                   {T(DType::kBF16, {S(8), S(1), S(64), S(32)}),
                    T(DType::kBF16, {S(5), S(32), S(16)})},
                   {{"acc_dtype", DType::kF32}}),
            F32({S(8), S(5), S(64), S(16)}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kDot, {a, a})),
            "'dot' contraction dims differ: bf16[64, 32] has 32 columns, "
            "bf16[64, 32] has 64 rows");
  EXPECT_EQ(
      ErrorOf(Infer(OpKind::kDot, {a, b, F32({S(64)})})),
      "'dot' accumulator must be a tensor of shape [64, 128], got f32[64]");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kDot, {a, b, F32({S(64), S(128)})},
                          {{"acc_dtype", DType::kBF16}})),
            "'dot' accumulator is f32 but acc_dtype is bf16");
  EXPECT_EQ(ErrorOf(Infer(OpKind::kDot, {F32({S(4)}), b})),
            "'dot' needs two tensors of rank >= 2, got f32[4] and "
            "bf16[32, 128]");
}

TEST(TypeInference, GatherIndexTakesTheLengthOfItsIndexVector) {
  Type table = Type::Ref(DType::kF32, {Sym("v"), Sym("d")});
  IndexList rows;
  rows.emplace_back(IndexKind::kGather,
                    MakeVar("idx", Type::Tensor(DType::kI32, {S(128)})));
  rows.emplace_back(IndexKind::kSlice);
  EXPECT_EQ(*InferType(OpKind::kLoad, std::vector<Type>{table}, rows, {}),
            F32({S(128), Sym("d")}));
  IndexList matrix;
  matrix.emplace_back(IndexKind::kGather,
                      MakeVar("idx", Type::Tensor(DType::kI32, {S(8), S(16)})));
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{table}, matrix, {})),
      "gather index 0 must be a rank-1 integer tensor, got i32[8, 16]");
  IndexList floats;
  floats.emplace_back(IndexKind::kGather,
                      MakeVar("w", Type::Tensor(DType::kF32, {S(8)})));
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{table}, floats, {})),
      "gather index 0 must be a rank-1 integer tensor, got f32[8]");
  EXPECT_EQ(ErrorOf(InferType(OpKind::kSubscript,
                              std::vector<Type>{F32({S(64), S(4)})}, rows, {})),
            "'subscript' takes only ':', None and integer indices");
}

TEST(TypeInference, SideBySideGathersZip) {
  // x[rows, lanes] reads x[rows[i], lanes[i]]: one dim for both, as in
  // NumPy's advanced indexing (a lane select when rows is a tile's index).
  Type x = Type::Ref(DType::kF32, {Sym("n"), Sym("v")});
  IndexList zipped;
  zipped.emplace_back(IndexKind::kGather,
                      MakeVar("rows", Type::Tensor(DType::kI32, {S(128)})));
  zipped.emplace_back(IndexKind::kGather,
                      MakeVar("lanes", Type::Tensor(DType::kI64, {S(128)})));
  EXPECT_EQ(*InferType(OpKind::kLoad, std::vector<Type>{x}, zipped, {}),
            F32({S(128)}));
  IndexList uneven;
  uneven.emplace_back(IndexKind::kGather,
                      MakeVar("rows", Type::Tensor(DType::kI32, {S(128)})));
  uneven.emplace_back(IndexKind::kGather,
                      MakeVar("lanes", Type::Tensor(DType::kI32, {S(64)})));
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{x}, uneven, {})),
      "gather indices 0 and 1 must have the same length to be zipped, got "
      "i32[128] and i32[64]");
}

TEST(TypeInference, SliceViewIsARefOfTheLoadShape) {
  Type ref = Type::Ref(DType::kBF16, {Sym("b"), Sym("s"), S(256)});
  IndexList head;
  head.emplace_back(IndexKind::kSlice);
  head.emplace_back(IndexKind::kRange, MakeIntConst(1), Sym("t"));
  EXPECT_EQ(*InferType(OpKind::kSliceView, std::vector<Type>{ref}, head, {}),
            Type::Ref(DType::kBF16, {Sym("b"), Sym("t"), S(256)}));
  IndexList last;
  last.emplace_back(IndexKind::kSlice);
  last.emplace_back(IndexKind::kScalar, MakeIntConst(3));
  EXPECT_EQ(*InferType(OpKind::kSliceView, std::vector<Type>{ref}, last, {}),
            Type::Ref(DType::kBF16, {Sym("b"), S(256)}));
  IndexList tile;
  tile.emplace_back(IndexKind::kTile, MakeVar("t", Type::Tile(S(64))));
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kSliceView, std::vector<Type>{ref}, tile, {})),
      "'slice_view' takes only ':', None, integer and range indices");
  IndexList element;
  for (int i = 0; i < 3; ++i) {
    element.emplace_back(IndexKind::kScalar, MakeIntConst(0));
  }
  EXPECT_EQ(ErrorOf(InferType(OpKind::kSliceView, std::vector<Type>{ref},
                              element, {})),
            "'slice_view' must keep at least one dim");
  EXPECT_EQ(ErrorOf(InferType(OpKind::kSliceView,
                              std::vector<Type>{F32({S(2)})}, head, {})),
            "'slice_view' expects a ref, got f32[2]");
}

TEST(TypeInference, LoadAndSubscriptIndices) {
  Type ref = Type::Ref(DType::kF32, {Sym("m"), Sym("n"), S(16)});
  IndexList indices;
  indices.emplace_back(IndexKind::kTile, MakeVar("t", Type::Tile(S(64))));
  indices.emplace_back(IndexKind::kNewAxis);
  indices.emplace_back(IndexKind::kScalar, MakeIntConst(0));
  indices.emplace_back(IndexKind::kRange, MakeIntConst(0), S(8));
  EXPECT_EQ(*InferType(OpKind::kLoad, std::vector<Type>{ref}, indices, {}),
            F32({S(64), S(1), S(8)}));
  IndexList partial;
  partial.emplace_back(IndexKind::kSlice);
  EXPECT_EQ(*InferType(OpKind::kLoad, std::vector<Type>{ref}, partial, {}),
            F32({Sym("m"), Sym("n"), S(16)}));
  IndexList too_many;
  for (int i = 0; i < 4; ++i) too_many.emplace_back(IndexKind::kSlice);
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{ref}, too_many, {})),
      "too many indices for ref<f32[m, n, 16]>: 3 dims");
  IndexList bad_tile;
  bad_tile.emplace_back(IndexKind::kTile, MakeIntConst(0));
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{ref}, bad_tile, {})),
      "index 0 must be a tile, got i64");
  IndexList float_index;
  float_index.emplace_back(IndexKind::kScalar, MakeFloatConst(0.0));
  EXPECT_EQ(ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{ref},
                              float_index, {})),
            "index 0 must be an integer scalar, got f32");
  EXPECT_EQ(
      ErrorOf(InferType(OpKind::kLoad, std::vector<Type>{F32({S(2)})}, {}, {})),
      "'load' expects a ref, got f32[2]");
  IndexList sub;
  sub.emplace_back(IndexKind::kSlice);
  sub.emplace_back(IndexKind::kNewAxis);
  EXPECT_EQ(
      *InferType(OpKind::kSubscript, std::vector<Type>{F32({S(64)})}, sub, {}),
      F32({S(64), S(1)}));
  IndexList sub_tile;
  sub_tile.emplace_back(IndexKind::kTile, MakeVar("t", Type::Tile(S(64))));
  EXPECT_EQ(ErrorOf(InferType(OpKind::kSubscript,
                              std::vector<Type>{F32({S(64)})}, sub_tile, {})),
            "'subscript' takes only ':', None and integer indices");
}

TEST(TypeInference, TileHostConstructAndDeviceOps) {
  Type tile = Type::Tile(Sym("block_m"));
  EXPECT_EQ(*Infer(OpKind::kTileIndex, {tile}),
            T(DType::kI32, {Sym("block_m")}));
  EXPECT_EQ(*Infer(OpKind::kTileBegin, {tile}), Sc(DType::kI64));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kTileEnd, {Sc(DType::kI64)})),
            "'tile_end' expects a tile, got i64");
  Type ref = Type::Ref(DType::kF32, {Sym("m"), S(6)});
  EXPECT_EQ(*Infer(OpKind::kSize, {ref}, {{"dim", int64_t{-1}}}),
            Sc(DType::kI64));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kSize, {ref})),
            "'size' needs attribute 'dim'");
  EXPECT_EQ(
      *Infer(OpKind::kTranspose, {ref}, {{"perm", std::vector<int64_t>{1, 0}}}),
      Type::Ref(DType::kF32, {S(6), Sym("m")}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kTranspose, {ref},
                          {{"perm", std::vector<int64_t>{0, 0}}})),
            "'transpose' perm is not a permutation");
  EXPECT_EQ(*Infer(OpKind::kReshape, {Type::Ref(DType::kF32, {S(2), S(6)})},
                   {{"shape", Shape{S(3), S(4)}}}),
            Type::Ref(DType::kF32, {S(3), S(4)}));
  EXPECT_EQ(
      ErrorOf(Infer(OpKind::kReshape, {Type::Ref(DType::kF32, {S(2), S(6)})},
                    {{"shape", Shape{S(5)}}})),
      "cannot reshape ref<f32[2, 6]> (12 elements) to [5]");
  AttrList alloc = {{"shape", Shape{Sym("m")}}, {"dtype", DType::kBF16}};
  EXPECT_EQ(*Infer(OpKind::kEmpty, {}, alloc),
            Type::Ref(DType::kBF16, {Sym("m")}));
  EXPECT_EQ(*Infer(OpKind::kScratch, {}, alloc),
            Type::Ref(DType::kBF16, {Sym("m")}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kFull, {}, alloc)),
            "'full' needs a scalar attribute 'value'");
  alloc.push_back({"value", 0.0});
  EXPECT_EQ(*Infer(OpKind::kFull, {}, alloc), T(DType::kBF16, {Sym("m")}));
  EXPECT_EQ(*Infer(OpKind::kAllocFull, {}, alloc),
            Type::Ref(DType::kBF16, {Sym("m")}));
  EXPECT_EQ(*Infer(OpKind::kCast, {F32({S(3)})}, {{"dtype", DType::kI32}}),
            T(DType::kI32, {S(3)}));
  EXPECT_EQ(*Infer(OpKind::kCast, {Sc(DType::kI64)}, {{"dtype", DType::kF32}}),
            Sc(DType::kF32));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kCast, {F32({S(3)})})),
            "'cast' needs attribute 'dtype'");
  EXPECT_EQ(*Infer(OpKind::kBroadcastTo, {F32({S(64), S(1)})},
                   {{"shape", Shape{S(64), S(128)}}}),
            F32({S(64), S(128)}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kBroadcastTo, {F32({S(64), S(2)})},
                          {{"shape", Shape{S(64), S(128)}}})),
            "cannot broadcast f32[64, 2] to [64, 128]");
  EXPECT_EQ(*Infer(OpKind::kRepeatLanes, {F32({S(8), S(128)})},
                   {{"reps", int64_t{2}}}),
            F32({S(8), S(256)}));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kRepeatLanes, {F32({S(8), Sym("d")})},
                          {{"reps", int64_t{2}}})),
            "'repeat_lanes' needs a static last dim, got f32[8, d]");
  EXPECT_EQ(*Infer(OpKind::kProgramId, {}, {{"axis", int64_t{0}}}),
            Sc(DType::kI32));
  EXPECT_EQ(ErrorOf(Infer(OpKind::kNumPrograms, {}, {{"axis", int64_t{-1}}})),
            "'num_programs' axis must be >= 0");
  EXPECT_EQ(*Infer(OpKind::kConst, {}, {{"value", 1.5}}), Sc(DType::kF32));
  EXPECT_EQ(*Infer(OpKind::kConst, {}, {{"value", int64_t{1}}}),
            Sc(DType::kI64));
}

TEST(TypeInference, EverySampleInfersItsStoredType) {
  for (int i = 1; i < static_cast<int>(OpKind::kNumOps); ++i) {
    OpKind op = static_cast<OpKind>(i);
    for (const ExprPtr& sample : SampleExprs(op)) {
      if (op == OpKind::kConst) continue;  // samples include odd dtypes
      auto type = InferType(*sample);
      ASSERT_TRUE(type.ok()) << OpInfoOf(op).name << ": " << type.status();
      EXPECT_EQ(*type, sample->type) << OpInfoOf(op).name;
    }
  }
}

}  // namespace
}  // namespace tessera::testing
