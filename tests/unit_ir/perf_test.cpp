// Parsing and printing stay linear: a 10,000-statement module parses and
// prints quickly, and twice the statements cost about twice the time. The
// bounds are loose (sanitizer builds run these too); bench/ measures.
#include <chrono>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

std::string SyntheticModule(int statements) {
  std::string text =
      "module \"big.py\"\n\nfunc kernel @big(x: ref<f32[m, n]>, "
      "m: i64, n: i64) {\n";
  text +=
      "  for t: tile<64>, u: tile<128> in tile(0:m:64, 0:n:128) "
      "{grid = true} @2:3 {\n";
  text += "    v0: f32[64, 128] = load(x)[t, u] @3:5\n";
  for (int i = 1; i < statements; ++i) {
    text += fmt::format(
        "    v{}: f32[64, 128] = add(mul(v{}, 0.5), exp(v{})) @{}:5\n", i,
        i - 1, i / 2, i + 3);
  }
  text += "    store x[t, u] = v0\n  }\n}\n";
  return text;
}

double ParsePrintSeconds(const std::string& text) {
  auto start = std::chrono::steady_clock::now();
  DiagnosticEngine diagnostics;
  auto module = ParseModule(text, "big.tir", diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  std::string printed = module.ok() ? PrintModule(*module) : "";
  auto end = std::chrono::steady_clock::now();
  EXPECT_EQ(printed, text);
  return std::chrono::duration<double>(end - start).count();
}

TEST(Perf, TenThousandStatementsParseAndPrintQuickly) {
  std::string small = SyntheticModule(10000);
  std::string large = SyntheticModule(20000);
  double best_small = 1e9;
  double best_large = 1e9;
  for (int i = 0; i < 3; ++i) {
    best_small = std::min(best_small, ParsePrintSeconds(small));
    best_large = std::min(best_large, ParsePrintSeconds(large));
  }
  std::printf("parse+print: 10k statements %.2f ms, 20k statements %.2f ms\n",
              best_small * 1e3, best_large * 1e3);
  EXPECT_LT(best_small, 1.0);
  EXPECT_LT(best_large / best_small, 3.5);
}

}  // namespace
}  // namespace tessera
