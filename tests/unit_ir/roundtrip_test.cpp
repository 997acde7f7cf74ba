// print -> parse -> print is a fixed point and parse(print(ir)) is
// structurally equal to ir, for every op, statement, type, attribute and
// index kind.
#include <cmath>
#include <set>

#include "gtest/gtest.h"
#include "ir_samples.h"
#include "tessera/ir/text.h"
#include "tessera/ir/type_inference.h"

namespace tessera::testing {
namespace {

// A property registered by the test, as a plugin would register its own.
Property RoundTripTestProperty(const std::string& name) {
  absl::StatusOr<Property> property =
      RegisterProperty({name, "registered by roundtrip_test", nullptr});
  EXPECT_TRUE(property.ok()) << property.status();
  return property.value_or(Property());
}

Stmt AssignTo(std::string name, ExprPtr value, uint32_t line = 0) {
  Type type = value->type;
  return MakeAssign(Value{std::move(name), std::move(type)}, std::move(value),
                    SourceLoc{line, line == 0 ? 0u : 3u, 0});
}

TEST(RoundTrip, EveryOpKind) {
  std::set<OpKind> covered;
  for (int i = 0; i < static_cast<int>(OpKind::kNumOps); ++i) {
    OpKind op = static_cast<OpKind>(i);
    if (op == OpKind::kVar) continue;
    ExprList samples = SampleExprs(op);
    ASSERT_FALSE(samples.empty()) << OpInfoOf(op).name;
    covered.insert(op);
    std::vector<Stmt> stmts;
    int n = 0;
    for (ExprPtr& sample : samples) {
      stmts.push_back(
          AssignTo("r" + std::to_string(n), std::move(sample), 11 + n));
      ++n;
    }
    SCOPED_TRACE(OpInfoOf(op).name);
    ExpectRoundTrip(ModuleWith(std::move(stmts)));
  }
  EXPECT_EQ(covered.size(), static_cast<size_t>(OpKind::kNumOps) - 1);
}

TEST(RoundTrip, OpTextNamesAreUniqueAndFound) {
  for (int i = 0; i < static_cast<int>(OpKind::kNumOps); ++i) {
    OpKind op = static_cast<OpKind>(i);
    auto found = OpKindByName(OpInfoOf(op).name);
    ASSERT_TRUE(found.has_value()) << OpInfoOf(op).name;
    EXPECT_EQ(*found, op);
  }
  EXPECT_FALSE(OpKindByName("no_such_op").has_value());
}

TEST(RoundTrip, VarTypesPrintOnlyWhenTheyDifferFromTheDefinition) {
  std::vector<Stmt> stmts;
  stmts.push_back(AssignTo("y", Op(OpKind::kAdd, Exprs(P("a"), P("b")))));
  // `a` referred to with a type other than its definition's.
  auto retyped = MakeVar("a", F32({S(8)}));
  stmts.push_back(AssignTo("z", Op(OpKind::kNeg, Exprs(std::move(retyped)))));
  // A name with no definition at all.
  stmts.push_back(AssignTo("u", MakeVar("free", Type::Scalar(DType::kI32))));
  Module module = ModuleWith(std::move(stmts));
  std::string text = PrintModule(module);
  EXPECT_NE(text.find("y: f32[64, 128] = add(a, b)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("z: f32[8] = neg(a: f32[8])"), std::string::npos) << text;
  EXPECT_NE(text.find("u: i32 = free: i32"), std::string::npos) << text;
  ExpectRoundTrip(module);
}

TEST(RoundTrip, OpTypesPrintOnlyWhenInferenceDiffers) {
  std::vector<Stmt> stmts;
  auto odd = Op(OpKind::kAdd, Exprs(P("a"), P("b")));
  odd->type = Type::Tensor(DType::kBF16, {S(64), S(128)});
  stmts.push_back(AssignTo("y", std::move(odd)));
  // An op whose inference fails keeps its stored type.
  auto bad = MakeOp(OpKind::kAdd, F32({S(3)}), {});
  bad->operands.push_back(P("a"));
  bad->operands.push_back(P("w"));
  stmts.push_back(AssignTo("z", std::move(bad)));
  Module module = ModuleWith(std::move(stmts));
  std::string text = PrintModule(module);
  EXPECT_NE(text.find("add(a, b): bf16[64, 128]"), std::string::npos) << text;
  EXPECT_NE(text.find("add(a, w): f32[3]"), std::string::npos) << text;
  ExpectRoundTrip(module);
}

TEST(RoundTrip, EveryTypeKind) {
  ValueList params = {
      {"n0", Type::None()},
      {"s0", Type::Scalar(DType::kBool)},
      {"s1", Type::Scalar(DType::kI8)},
      {"s2", Type::Scalar(DType::kI16)},
      {"s3", Type::Scalar(DType::kI32)},
      {"s4", Type::Scalar(DType::kI64)},
      {"s5", Type::Scalar(DType::kF16)},
      {"s6", Type::Scalar(DType::kBF16)},
      {"s7", Type::Scalar(DType::kF32)},
      {"r0", Type::Tensor(DType::kF32, {})},
      {"t1", Type::Tensor(DType::kBF16, {S(0), Sym("m"), Dim{}})},
      {"ref0", Type::Ref(DType::kI32, {})},
      {"ref1", Type::Ref(DType::kF16, {Sym("m"), S(128)})},
      {"tile0", Type::Tile(S(64))},
      {"tile1", Type::Tile(Sym("block_m"))},
      {"tile2", Type::Tile(Dim{})},
  };
  Module module;
  Function function;
  function.name = "types";
  function.params = params;
  for (const Value& param : params) function.result_types.push_back(param.type);
  ExprList values;
  for (const Value& param : params) {
    values.push_back(MakeVar(param.name, param.type));
  }
  function.body.stmts.push_back(MakeReturn(std::move(values)));
  module.functions.push_back(std::move(function));
  ExpectRoundTrip(module);
  for (const Value& param : params) {
    auto parsed = ParseType(PrintType(param.type));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, param.type) << PrintType(param.type);
  }
}

TEST(RoundTrip, EveryAttributeKind) {
  AttrList attrs = {
      {"flag", true},
      {"off", false},
      {"count", int64_t{-42}},
      {"big", INT64_MAX},
      {"ratio", 0.30000000000000004},
      {"tiny", 1e-310},
      {"whole", 3.0},
      {"neg_zero", -0.0},
      {"pos_inf", INFINITY},
      {"neg_inf", -INFINITY},
      {"not_a_number", NAN},
      {"text", std::string("quote \" backslash \\ newline \n tab \t bell \a")},
      {"empty_text", std::string()},
      {"dtype", DType::kBF16},
      {"ints", std::vector<int64_t>{1, -2, 3}},
      {"no_ints", std::vector<int64_t>{}},
      {"dims", Shape{Sym("m"), S(64), Dim{}}},
      {"no_dims", Shape{}},
      {"names", std::vector<std::string>{"a", "b c", ""}},
      {"no_names", std::vector<std::string>{}},
      {"weird name!", int64_t{1}},
      {"if", int64_t{2}},
  };
  Module module = ModuleWith({});
  module.attrs = attrs;
  module.properties = PropertySet{kSsaProperty, kOutlinedProperty,
                                  RoundTripTestProperty("rt_first"),
                                  RoundTripTestProperty("rt_second")};
  module.functions[0].attrs = attrs;
  auto expr = Op(OpKind::kAdd, Exprs(P("a"), P("b")));
  expr->attrs = attrs;
  Stmt assign = AssignTo("y", std::move(expr), 4);
  assign.attrs = attrs;
  module.functions[0].body.stmts.push_back(std::move(assign));
  ExpectRoundTrip(module);
}

TEST(RoundTrip, EveryIndexKind) {
  std::vector<Stmt> stmts;
  IndexList indices;
  indices.emplace_back(IndexKind::kTile, P("t"));
  indices.emplace_back(IndexKind::kNewAxis);
  indices.emplace_back(IndexKind::kSlice);
  stmts.push_back(AssignTo("l0", Load(P("x"), std::move(indices))));
  IndexList other;
  other.emplace_back(IndexKind::kScalar, Op(OpKind::kTileBegin, Exprs(P("t"))));
  other.emplace_back(IndexKind::kRange, P("k"), S(16));
  stmts.push_back(AssignTo("l1", Load(P("x"), std::move(other))));
  // Store and atomic with every index kind.
  IndexList store_indices;
  store_indices.emplace_back(IndexKind::kTile, P("t"));
  store_indices.emplace_back(IndexKind::kRange, P("k"), Sym("block_n"));
  stmts.push_back(MakeStore(P("x"), std::move(store_indices),
                            MakeFloatConst(1.0), SourceLoc{7, 5, 0}));
  Stmt atomic;
  atomic.kind = StmtKind::kAtomic;
  atomic.target = P("x");
  atomic.indices.emplace_back(IndexKind::kScalar, MakeIntConst(0));
  atomic.indices.emplace_back(IndexKind::kSlice);
  atomic.indices.emplace_back(IndexKind::kNewAxis);
  atomic.value = P("v");
  atomic.attrs.push_back(Attr{"op", std::string("add")});
  stmts.push_back(std::move(atomic));
  ExpectRoundTrip(ModuleWith(std::move(stmts)));
}

// A pre-SSA kernel: tile loop (grid), inner range loop, if/else, store,
// atomic, reassignment of a name.
TEST(RoundTrip, StructuredKernel) {
  const std::string text = R"(module "examples/add.py"

func kernel @add(x: ref<f32[m, n]>, y: ref<f32[m, n]>) -> (ref<f32[m, n]>) @4:1 {
  m: i64 = size(x) {dim = 0} @5:5
  n: i64 = size(x) {dim = 1} @5:5
  out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32} @6:5
  for tile_m: tile<64>, tile_n: tile<128> in tile(0:m:64, 0:n:128) {grid = true} @7:5 {
    s: f32[64, 128] = add(load(x)[tile_m, tile_n], load(y)[tile_m, tile_n]) @8:9
    acc: f32[64, 128] = full() {shape = dims[64, 128], dtype = f32, value = 0.0}
    for i: i64 in range(0:4:1) @10:9 {
      acc: f32[64, 128] = add(acc, s) @11:13
    }
    if gt(tile_begin(tile_m), 0) @12:9 {
      store out[tile_m, tile_n] = acc @13:13
    } else {
      atomic {op = "add"} out[tile_m, tile_n] = s @15:13
    }
  }
  return out @17:5
}
)";
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "add.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  EXPECT_EQ(PrintModule(*module), text);
  ExpectRoundTrip(*module);
  const Function& function = module->functions[0];
  ASSERT_EQ(function.body.stmts.size(), 5u);
  const Stmt& loop = function.body.stmts[3];
  EXPECT_EQ(loop.kind, StmtKind::kTileLoop);
  EXPECT_EQ(loop.loc, (SourceLoc{7, 5, 0}));
  ASSERT_EQ(loop.regions.size(), 1u);
  const Stmt& body0 = loop.regions[0].stmts[0];
  EXPECT_EQ(body0.value->type, F32({S(64), S(128)}));
  EXPECT_EQ(body0.value->operands[0]->operands[0]->type,
            Type::Ref(DType::kF32, {Sym("m"), Sym("n")}));
}

// SSA forms: loops with iter_args / results, if with results, yields.
TEST(RoundTrip, SsaForms) {
  const std::string text = R"(module "attn.py" properties [ssa]

func kernel @attn(q: ref<f32[m, 64]>, m: i64) -> (f32[64]) @1:1 {
  m_i0: f32[64] = full() {shape = dims[64], dtype = f32, value = -inf}
  l_i0: f32[64] = full() {shape = dims[64], dtype = f32, value = 1.0}
  m_i2: f32[64], l_i2: f32[64] = for j: tile<128> in tile(0:m:128) iter(m_i1: f32[64] = m_i0, l_i1: f32[64] = l_i0) @5:5 {
    qk: f32[64] = sum(load(q)[j, :]) {dim = 0}
    m_new: f32[64] = maximum(m_i1, qk)
    yield m_new, add(l_i1, 1.0) @8:9
  }
  r: f32[64] = if gt(m, 0) @10:5 {
    yield m_i2
  } else {
    yield l_i2
  }
  c: i64 = for i: i64 in range(0:10:2) iter(c0: i64 = 0) {
    yield add(c0, i)
  }
  return r
}
)";
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "attn.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  EXPECT_EQ(PrintModule(*module), text);
  ExpectRoundTrip(*module);
  const Stmt& loop = module->functions[0].body.stmts[2];
  EXPECT_EQ(loop.results.size(), 2u);
  EXPECT_EQ(loop.iter_args.size(), 2u);
  EXPECT_EQ(loop.inits.size(), 2u);
  EXPECT_TRUE(module->properties.Contains(kSsaProperty));
}

// Outlined form: a host function launching a device function.
TEST(RoundTrip, HostDeviceAndLaunch) {
  const std::string text = R"(module "k.py" properties [ssa, outlined]

func host @k(x: ref<f32[m, n]>, m: i64, n: i64) -> (ref<f32[m, n]>) {
  out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32}
  done: i64 = launch @k_device grid(0:cdiv(m, 64):1, 0:n:128) (x, out, m) {dimension_semantics = strs["parallel", "arbitrary"]} @3:3
  launch grid(?:?:1) ()
  return out
}

func device @k_device(x: ref<f32[64, 128]>, out: ref<f32[64, 128]>, m: i64) -> (i64) {
  i: i32 = program_id() {axis = 0}
  g: i32 = num_programs() {axis = 1}
  acc: ref<f32[64, 128]> = scratch() {shape = dims[64, 128], dtype = f32}
  store out[:, :] = load(x)[:, :]
  return m
}
)";
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "k.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  EXPECT_EQ(PrintModule(*module), text);
  ExpectRoundTrip(*module);
  const Stmt& launch = module->functions[0].body.stmts[1];
  EXPECT_EQ(launch.kind, StmtKind::kLaunch);
  ASSERT_NE(launch.attr("callee"), nullptr);
  EXPECT_EQ(std::get<std::string>(launch.attr("callee")->value), "k_device");
  EXPECT_EQ(launch.dims.size(), 2u);
  EXPECT_EQ(launch.operands.size(), 3u);
  EXPECT_EQ(module->functions[1].kind, FunctionKind::kDevice);
  // A null grid dim round-trips as '?'.
  EXPECT_EQ(module->functions[0].body.stmts[2].dims[0].begin, nullptr);
}

TEST(RoundTrip, BuiltLaunchWithCalleeNotFirst) {
  Stmt launch;
  launch.kind = StmtKind::kLaunch;
  launch.attrs.push_back(Attr{"x", int64_t{1}});
  launch.attrs.push_back(Attr{"callee", std::string("f")});
  launch.operands.push_back(P("a"));
  ExpectRoundTrip(ModuleWith([&] {
    std::vector<Stmt> stmts;
    stmts.push_back(std::move(launch));
    return stmts;
  }()));
}

TEST(RoundTrip, NamesThatNeedQuoting) {
  std::vector<Stmt> stmts;
  for (std::string name : {"for", "if", "f32", "tile", "None", "inf", "true",
                           "has space", "", "x.1", "launch", "range"}) {
    stmts.push_back(AssignTo(name, MakeIntConst(1)));
    stmts.push_back(AssignTo(
        "use", Op(OpKind::kAdd, Exprs(MakeVar(name, Type::Scalar(DType::kI64)),
                                      MakeIntConst(2)))));
  }
  Module module = ModuleWith(std::move(stmts));
  module.functions[0].name = "weird name";
  module.source_file = "dir/with \"quotes\".py";
  ExpectRoundTrip(module);
}

TEST(RoundTrip, AttributesOnEveryStatementKind) {
  const std::string text = R"(module "s.py"

func kernel @s(x: ref<f32[8]>, c: bool) {
  y: f32[8] {note = "assign"} = load(x)[:] @2:3
  store {note = "store"} x[:] = y
  atomic {op = "max", sem = "relaxed"} x[:] = y
  for {grid = true} i: tile<8> in tile(0:8:8) {
    yield {note = "yield"}
  }
  for j: i64 in range(0:8:1) {tag = 1} @6:3 {
  }
  if {likely = true} c {
  } else {
  }
  return {note = "return"}
}
)";
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "s.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  // Loop attributes are printed after the header, wherever they were read.
  std::string printed = PrintModule(*module);
  EXPECT_NE(printed.find("for i: tile<8> in tile(0:8:8) {grid = true} {"),
            std::string::npos)
      << printed;
  ExpectRoundTrip(*module);
}

TEST(RoundTrip, EmptyModuleAndEmptyFunction) {
  Module empty;
  ExpectRoundTrip(empty);
  EXPECT_EQ(PrintModule(empty), "module \"\"\n");
  Module one;
  Function function;
  function.name = "f";
  function.kind = FunctionKind::kDevice;
  one.functions.push_back(std::move(function));
  ExpectRoundTrip(one);
}

TEST(RoundTrip, HeaderlessFileLocatesStatementsInTheTirFile) {
  const std::string text =
      "func kernel @f(a: f32) {\n"
      "  b: f32 = neg(a)\n"
      "  return b @9:9\n"
      "}\n";
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "hand.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  EXPECT_EQ(module->source_file, "hand.tir");
  EXPECT_EQ(module->functions[0].loc, (SourceLoc{1, 1, 0}));
  EXPECT_EQ(module->functions[0].body.stmts[0].loc, (SourceLoc{2, 3, 0}));
  EXPECT_EQ(module->functions[0].body.stmts[1].loc, (SourceLoc{9, 9, 0}));
  ExpectRoundTrip(*module);
}

TEST(RoundTrip, CloneIsStructurallyEqualAndPrintsTheSame) {
  std::vector<Stmt> stmts;
  int n = 0;
  for (int i = 1; i < static_cast<int>(OpKind::kNumOps); ++i) {
    for (ExprPtr& sample : SampleExprs(static_cast<OpKind>(i))) {
      stmts.push_back(AssignTo("r" + std::to_string(n++), std::move(sample)));
    }
  }
  Module module = ModuleWith(std::move(stmts));
  Module copy = CloneModule(module);
  EXPECT_TRUE(StructurallyEqual(copy, module, /*compare_locations=*/true));
  EXPECT_EQ(PrintModule(copy), PrintModule(module));
  ExpectRoundTrip(module);
}

}  // namespace
}  // namespace tessera::testing
