// Parser errors: message, line and column, several per run, rendering.
#include "gtest/gtest.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

struct Reported {
  uint32_t line;
  uint32_t col;
  std::string message;
};

std::vector<Reported> Errors(const std::string& text) {
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "bad.tir", diagnostics);
  EXPECT_FALSE(module.ok());
  std::vector<Reported> out;
  for (const Diagnostic& d : diagnostics.diagnostics()) {
    EXPECT_EQ(d.file, "bad.tir");
    out.push_back({d.loc.line, d.loc.col, d.message});
  }
  return out;
}

void ExpectOneError(const std::string& text, uint32_t line, uint32_t col,
                    const std::string& message) {
  std::vector<Reported> errors = Errors(text);
  ASSERT_EQ(errors.size(), 1u) << text;
  EXPECT_EQ(errors[0].line, line) << text;
  EXPECT_EQ(errors[0].col, col) << text;
  EXPECT_EQ(errors[0].message, message) << text;
}

const char* const kHead = "func kernel @f(a: f32[4], x: ref<f32[4]>) {\n";

TEST(ParserErrors, UndefinedName) {
  ExpectOneError(std::string(kHead) + "  b: f32[4] = add(a, zz)\n}\n", 2, 22,
                 "'zz' is not defined here; write 'zz: TYPE' to refer to it");
}

TEST(ParserErrors, UnknownOpWithSuggestion) {
  ExpectOneError(std::string(kHead) + "  b: f32[4] = ad(a, a)\n}\n", 2, 15,
                 "unknown op 'ad'; did you mean 'add'?");
  ExpectOneError(std::string(kHead) + "  b: f32[4] = qqqqqq(a)\n}\n", 2, 15,
                 "unknown op 'qqqqqq'");
}

TEST(ParserErrors, TypeInferenceFailureAtTheOp) {
  ExpectOneError(
      std::string(kHead) +
          "  b: f32[4] = mul(a, full() {shape = dims[3], dtype = f32, "
          "value = 0.0})\n}\n",
      2, 15, "cannot broadcast [4] with [3]");
  ExpectOneError(std::string(kHead) + "  b: f32 = sum(a) {dim = 2}\n}\n", 2, 12,
                 "'sum' dim 2 is out of range for rank 1");
}

TEST(ParserErrors, BadTypesAndTokens) {
  ExpectOneError(std::string(kHead) + "  b: f64 = a\n}\n", 2, 6,
                 "expected a type, found 'f64'");
  ExpectOneError(std::string(kHead) + "  b: ref<f32> = x\n}\n", 2, 13,
                 "expected '[' to start a shape, found '>'");
  ExpectOneError(std::string(kHead) + "  b: f32[4] = a $\n}\n", 2, 17,
                 "unexpected character");
  ExpectOneError(std::string(kHead) + "  b: f32[4] = \"open\n}\n", 2, 15,
                 "unterminated string");
  ExpectOneError(std::string(kHead) + "  b: i64 = 99999999999999999999\n}\n", 2,
                 12, "integer literal out of range");
  ExpectOneError(std::string(kHead) + "  b: i64 = 12abc\n}\n", 2, 12,
                 "malformed number");
}

TEST(ParserErrors, StatementShape) {
  ExpectOneError(std::string(kHead) + "  b: f32[4], c: f32[4] = a\n}\n", 2, 3,
                 "an assignment defines exactly one value");
  ExpectOneError(std::string(kHead) + "  store x = a\n}\n", 2, 11,
                 "expected '[' to start indices, found '='");
  ExpectOneError(
      std::string(kHead) + "  for t: tile<4> in tiles(0:4:4) {\n  }\n}\n", 2,
      21, "expected 'tile' or 'range', found 'tiles'");
  ExpectOneError(std::string(kHead) + "  b: f32[4] = load(x)[q]\n}\n", 2, 23,
                 "'q' is not defined here; write 'q: TYPE' to refer to it");
  ExpectOneError(std::string(kHead) + "  b: f32[4] = load(x)[1]\n}\n", 2, 23,
                 "expected an index (a tile name, ':', None, scalar(...), "
                 "range(...), gather(...) or shifted(...)), found '1'");
  ExpectOneError(std::string(kHead) + "  return a @3\n}\n", 3, 1,
                 "expected ':' in a location, found '}'");
}

TEST(ParserErrors, Locations) {
  // `@line:col` is one token when well formed; each malformed or too large
  // piece is reported where it stands.
  ExpectOneError(std::string(kHead) + "  return a @4294967296:1\n}\n", 2, 13,
                 "location out of range");
  ExpectOneError(std::string(kHead) + "  return a @3:99999999999\n}\n", 2, 15,
                 "location out of range");
  ExpectOneError(std::string(kHead) + "  return a @3:x\n}\n", 2, 15,
                 "expected an integer, found 'x'");
  ExpectOneError(std::string(kHead) + "  return a @3:4x\n}\n", 2, 15,
                 "malformed number");
  ExpectOneError(std::string(kHead) + "  return a @-3:4\n}\n", 2, 13,
                 "location out of range");
  // Spaces inside a location are allowed, as before.
  DiagnosticEngine diagnostics;
  auto module = ParseModule(std::string(kHead) + "  return a @ 7 : 9\n}\n",
                            "ok.tir", diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.RenderAll();
  const Stmt& ret = module->functions[0].body.stmts[0];
  EXPECT_EQ(ret.loc.line, 7u);
  EXPECT_EQ(ret.loc.col, 9u);
}

TEST(ParserErrors, ModuleAndFunctionHeaders) {
  ExpectOneError("module \"m.py\" properties [sa]\n", 1, 27,
                 "unknown property 'sa'; did you mean 'ssa'?");
  ExpectOneError("module m.py\n", 1, 8,
                 "expected the source file as a string, found 'm'");
  ExpectOneError("func kernal @f() {\n}\n", 1, 6,
                 "expected 'kernel', 'host' or 'device', found 'kernal'");
  ExpectOneError("func kernel @f() {\n", 2, 1,
                 "expected '}' to close the block, found end of input");
  ExpectOneError(
      "func kernel @f(x: ref<f32[4]>) {\n"
      "  b: i64 = size(x) {dim = 0, dim = 0}\n}\n",
      2, 30, "duplicate attribute 'dim'");
}

TEST(ParserErrors, SeveralErrorsOneRunWithRecovery) {
  std::vector<Reported> errors = Errors(std::string(kHead) +
                                        "  b: f32[4] = neg(nope)\n"
                                        "  c: f32[4] = neg(a)\n"
                                        "  for t: tile<4> in tile(0:4:zz:1) {\n"
                                        "    d: f32[4] = neg(alsonope)\n"
                                        "  }\n"
                                        "  e: f32[4] = mul(a, c)\n"
                                        "  f: f32[4] = exp(b)\n"
                                        "}\n"
                                        "func kernel @g() {\n"
                                        "  q: i64 = ?\n"
                                        "}\n");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].line, 2u);
  EXPECT_EQ(errors[1].line, 4u);
  EXPECT_EQ(errors[1].col, 32u);
  EXPECT_EQ(errors[1].message, "expected ',' or ')' in loop dims, found ':'");
  // `b` was defined by the failed statement's target? No: a failed
  // assignment defines nothing, so its later use is reported too.
  EXPECT_EQ(errors[2].line, 8u);
  EXPECT_EQ(errors[2].message,
            "'b' is not defined here; write 'b: TYPE' to refer to it");
  EXPECT_EQ(errors[3].line, 11u);
  EXPECT_EQ(errors[3].message, "expected an expression, found '?'");
}

TEST(ParserErrors, BothBranchesOfAnIfReportErrors) {
  std::vector<Reported> errors = Errors(std::string(kHead) +
                                        "  if true {\n"
                                        "    b: f32[4] = neg(nope)\n"
                                        "  } else {\n"
                                        "    c: f32[4] = neg(alsonope)\n"
                                        "  }\n"
                                        "  d: f32[4] = neg(a)\n"
                                        "  e: f32[4] = neg(zz)\n"
                                        "}\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].line, 3u);
  EXPECT_EQ(errors[1].line, 5u);
  EXPECT_EQ(errors[2].line, 8u);
}

TEST(ParserErrors, RenderedWithCaretAndStatusCarriesTheFirst) {
  DiagnosticEngine diagnostics;
  auto module =
      ParseModule("func kernel @f(a: f32) {\n  b: f32 = frobnicate(a)\n}\n",
                  "x.tir", diagnostics);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().message(), "x.tir:2:12: unknown op 'frobnicate'");
  EXPECT_EQ(diagnostics.RenderAll(),
            "x.tir:2:12: error: unknown op 'frobnicate'\n"
            "    b: f32 = frobnicate(a)\n"
            "             ^~~~~~~~~~\n");
}

TEST(ParserErrors, TooManyErrorsStops) {
  std::string text = kHead;
  for (int i = 0; i < 100; ++i) text += "  b: f32[4] = neg(nope)\n";
  text += "}\n";
  std::vector<Reported> errors = Errors(text);
  ASSERT_EQ(errors.size(), 21u);
  EXPECT_EQ(errors.back().message, "too many errors; giving up");
}

TEST(ParserErrors, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(kHead) + "  b: f32[4] = ";
  for (int i = 0; i < 100000; ++i) deep += "neg(";
  deep += "a\n}\n";
  std::vector<Reported> errors = Errors(deep);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "nesting deeper than 200 levels");
  std::string blocks = "func kernel @f() {\n";
  for (int i = 0; i < 100000; ++i) blocks += "if true {\n";
  errors = Errors(blocks);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "nesting deeper than 200 levels");
}

TEST(ParseTypeApi, ParsesAndRejects) {
  auto type = ParseType("bf16[1024, 512]");
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(*type,
            Type::Tensor(DType::kBF16, {Dim::Static(1024), Dim::Static(512)}));
  EXPECT_EQ(*ParseType("ref<f32[m, k]>"),
            Type::Ref(DType::kF32, {Dim::Symbol("m"), Dim::Symbol("k")}));
  EXPECT_EQ(*ParseType("i64"), Type::Scalar(DType::kI64));
  EXPECT_EQ(*ParseType(" tile<64> "), Type::Tile(Dim::Static(64)));
  auto bad = ParseType("f32[4] x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "invalid type 'f32[4] x': unexpected 'x' after the type (at "
            "column 8)");
  EXPECT_FALSE(ParseType("").ok());
  EXPECT_FALSE(ParseType("f32[-1]").ok());
  EXPECT_FALSE(ParseType("ref<f32[4]").ok());
}

}  // namespace
}  // namespace tessera
