// Builders, attributes, dtypes, cloning, structural equality and walkers.
#include "tessera/ir/ir.h"

#include "gtest/gtest.h"
#include "ir_samples.h"

namespace tessera::testing {
namespace {

TEST(Types, DTypeNamesAndPromotion) {
  for (DType d : {DType::kBool, DType::kI8, DType::kI16, DType::kI32,
                  DType::kI64, DType::kF16, DType::kBF16, DType::kF32}) {
    EXPECT_EQ(ParseDType(DTypeName(d)), d);
  }
  EXPECT_FALSE(ParseDType("f64").has_value());
  EXPECT_EQ(DTypeBytes(DType::kBF16), 2);
  EXPECT_EQ(DTypeBytes(DType::kI64), 8);
  EXPECT_EQ(DTypeBytes(DType::kBool), 1);
  EXPECT_TRUE(IsFloat(DType::kBF16));
  EXPECT_FALSE(IsInteger(DType::kBool));
  EXPECT_EQ(PromoteDTypes(DType::kF16, DType::kBF16), DType::kF32);
  EXPECT_EQ(PromoteDTypes(DType::kI64, DType::kF16), DType::kF16);
  EXPECT_EQ(PromoteDTypes(DType::kI8, DType::kI32), DType::kI32);
  EXPECT_EQ(PromoteDTypes(DType::kBool, DType::kI8), DType::kI8);
  EXPECT_EQ(PromoteDTypes(DType::kBF16, DType::kF32), DType::kF32);
}

TEST(Types, ToStringAndEquality) {
  EXPECT_EQ(TypeToString(Type::None()), "none");
  EXPECT_EQ(TypeToString(Type::Scalar(DType::kI64)), "i64");
  EXPECT_EQ(TypeToString(F32({S(64), Sym("m")})), "f32[64, m]");
  EXPECT_EQ(TypeToString(F32({})), "f32[]");
  EXPECT_EQ(TypeToString(Type::Ref(DType::kBF16, {Sym("m"), Sym("n")})),
            "ref<bf16[m, n]>");
  EXPECT_EQ(TypeToString(Type::Tile(S(64))), "tile<64>");
  EXPECT_EQ(DimToString(Dim{}), "?");
  EXPECT_EQ(Type::Scalar(DType::kF32), Type::Scalar(DType::kF32));
  EXPECT_FALSE(Type::Scalar(DType::kF32) == F32({}));
  EXPECT_FALSE(F32({S(1)}) == F32({Sym("m")}));
  EXPECT_EQ(Type::Tile(S(64)).rank(), 0u);
}

TEST(Attrs, FindSetGetRemove) {
  AttrList attrs;
  SetAttr(attrs, "dim", int64_t{1});
  SetAttr(attrs, "keepdim", true);
  SetAttr(attrs, "dim", int64_t{2});  // replaces in place
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_EQ(attrs[0].name, "dim");
  EXPECT_EQ(*GetAttr<int64_t>(attrs, "dim"), 2);
  EXPECT_EQ(GetAttr<bool>(attrs, "dim"), nullptr);
  EXPECT_EQ(FindAttr(attrs, "nope"), nullptr);
  EXPECT_TRUE(RemoveAttr(attrs, "dim"));
  EXPECT_FALSE(RemoveAttr(attrs, "dim"));
  EXPECT_EQ(attrs.size(), 1u);
}

TEST(Ops, TableShape) {
  EXPECT_EQ(OpInfoOf(OpKind::kDot).min_operands, 2);
  EXPECT_EQ(OpInfoOf(OpKind::kDot).max_operands, 3);
  EXPECT_TRUE(OpInfoOf(OpKind::kLoad).has_indices);
  EXPECT_FALSE(OpInfoOf(OpKind::kAdd).has_indices);
  EXPECT_EQ(OpInfoOf(OpKind::kBroadcastTo).name, "broadcast_to");
  EXPECT_EQ(OpInfoOf(OpKind::kWhere).category, OpCategory::kSelect);
  EXPECT_EQ(FunctionKindName(FunctionKind::kDevice), "device");
}

TEST(Equality, DetectsEachKindOfDifference) {
  auto base = [] {
    std::vector<Stmt> stmts;
    stmts.push_back(MakeAssign({"y", F32({S(64), S(128)})},
                               Op(OpKind::kAdd, Exprs(P("a"), P("b"))),
                               SourceLoc{3, 1, 0}));
    return ModuleWith(std::move(stmts));
  };
  Module a = base();
  EXPECT_EQ(FirstDifference(a, base()), "");

  Module renamed = base();
  renamed.functions[0].body.stmts[0].results[0].name = "z";
  EXPECT_FALSE(StructurallyEqual(a, renamed));
  EXPECT_NE(FirstDifference(a, renamed).find("value 'y' vs 'z'"),
            std::string::npos)
      << FirstDifference(a, renamed);

  Module other_op = base();
  other_op.functions[0].body.stmts[0].value->op = OpKind::kSub;
  EXPECT_NE(FirstDifference(a, other_op).find("op add vs sub"),
            std::string::npos);

  Module retyped = base();
  retyped.functions[0].body.stmts[0].value->operands[1]->type = F32({S(1)});
  EXPECT_NE(FirstDifference(a, retyped).find("type"), std::string::npos);

  Module attributed = base();
  attributed.functions[0].body.stmts[0].attrs.push_back({"k", int64_t{1}});
  EXPECT_FALSE(StructurallyEqual(a, attributed));

  Module moved = base();
  moved.functions[0].body.stmts[0].loc = SourceLoc{4, 1, 0};
  EXPECT_TRUE(StructurallyEqual(a, moved));
  EXPECT_FALSE(StructurallyEqual(a, moved, /*compare_locations=*/true));

  Module nan_a = base();
  Module nan_b = base();
  nan_a.attrs.push_back({"x", std::nan("")});
  nan_b.attrs.push_back({"x", std::nan("")});
  EXPECT_TRUE(StructurallyEqual(nan_a, nan_b));
  Module zero = base();
  Module neg_zero = base();
  zero.attrs.push_back({"x", 0.0});
  neg_zero.attrs.push_back({"x", -0.0});
  EXPECT_FALSE(StructurallyEqual(zero, neg_zero));

  Module more = base();
  more.functions[0].body.stmts.push_back(MakeReturn({}));
  EXPECT_NE(FirstDifference(a, more).find("1 statements vs 2"),
            std::string::npos);
  Module props = base();
  props.properties.Insert(kSsaProperty);
  EXPECT_NE(FirstDifference(a, props).find("properties"), std::string::npos);
}

TEST(Walkers, VisitEveryRootAndStatement) {
  Stmt loop;
  loop.kind = StmtKind::kTileLoop;
  loop.vars.push_back({"t", Type::Tile(S(64))});
  loop.dims.push_back(LoopDim{MakeIntConst(0), P("m"), S(64)});
  loop.iter_args.push_back({"c", F32({S(64), S(128)})});
  loop.inits.push_back(P("a"));
  loop.regions.emplace_back();
  loop.regions[0].stmts.push_back(
      MakeYield(Exprs(Op(OpKind::kNeg, Exprs(P("b"))))));
  std::vector<Stmt> stmts;
  stmts.push_back(std::move(loop));
  IndexList indices;
  indices.emplace_back(IndexKind::kScalar, P("k"));
  stmts.push_back(MakeStore(P("x"), std::move(indices), P("s")));
  Module module = ModuleWith(std::move(stmts));
  Block& body = module.functions[0].body;

  int roots = 0;
  ForEachRootExpr(std::as_const(body.stmts[0]), [&](const Expr&) { ++roots; });
  EXPECT_EQ(roots, 3);  // begin, end, init
  roots = 0;
  ForEachRootExpr(body.stmts[1], [&](ExprPtr& e) {
    ++roots;
    if (e->op == OpKind::kVar && e->name == "s") e = MakeFloatConst(1.0);
  });
  EXPECT_EQ(roots, 3);  // value, target, index
  EXPECT_EQ(body.stmts[1].value->op, OpKind::kConst);

  std::vector<StmtKind> kinds;
  WalkStmts(std::as_const(body),
            [&](const Stmt& s) { kinds.push_back(s.kind); });
  EXPECT_EQ(kinds, (std::vector<StmtKind>{StmtKind::kTileLoop, StmtKind::kYield,
                                          StmtKind::kStore}));
  int renamed = 0;
  WalkStmts(body, [&](Stmt& s) {
    for (ExprPtr& operand : s.operands) {
      WalkExprMutable(*operand, [&](Expr& e) {
        if (e.op == OpKind::kVar) {
          e.name = "b2";
          ++renamed;
        }
      });
    }
  });
  EXPECT_EQ(renamed, 1);
  std::vector<std::string> seen;
  WalkExpr(*body.stmts[0].regions[0].stmts[0].operands[0], [&](const Expr& e) {
    seen.push_back(std::string(OpInfoOf(e.op).name) + e.name);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"neg", "varb2"}));

  body.stmts[0].results.push_back({"r", F32({S(64), S(128)})});
  std::vector<std::string> defined;
  ForEachDefinedName(module.functions[0],
                     [&](const std::string& name) { defined.push_back(name); });
  const ValueList& params = module.functions[0].params;
  ASSERT_EQ(defined.size(), params.size() + 3);
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_EQ(defined[i], params[i].name);
  EXPECT_EQ(std::vector<std::string>(defined.end() - 3, defined.end()),
            (std::vector<std::string>{"r", "t", "c"}));
}

TEST(Builders, ConstantsAndClones) {
  auto i = MakeIntConst(5, DType::kI32, SourceLoc{2, 3, 1});
  EXPECT_EQ(i->type, Type::Scalar(DType::kI32));
  EXPECT_EQ(*GetAttr<int64_t>(i->attrs, "value"), 5);
  EXPECT_EQ(i->loc, (SourceLoc{2, 3, 0}));
  auto f = MakeFloatConst(0.5);
  EXPECT_EQ(*GetAttr<double>(f->attrs, "value"), 0.5);
  auto b = MakeBoolConst(true);
  EXPECT_EQ(b->type, Type::Scalar(DType::kBool));
  Index index(IndexKind::kRange, P("k"), S(8));
  Index copy = CloneIndex(index);
  EXPECT_EQ(copy.kind, IndexKind::kRange);
  EXPECT_TRUE(StructurallyEqual(*copy.expr, *index.expr));
  EXPECT_NE(copy.expr.get(), index.expr.get());
  LoopDim dim{nullptr, P("m"), S(4)};
  LoopDim dim_copy = CloneLoopDim(dim);
  EXPECT_EQ(dim_copy.begin, nullptr);
  EXPECT_EQ(dim_copy.end->name, "m");
  Module module = ModuleWith({});
  EXPECT_NE(module.FindFunction("samples"), nullptr);
  EXPECT_EQ(module.FindFunction("other"), nullptr);
  EXPECT_EQ(PrintFunction(CloneFunction(module.functions[0])),
            PrintFunction(module.functions[0]));
}

}  // namespace
}  // namespace tessera::testing
