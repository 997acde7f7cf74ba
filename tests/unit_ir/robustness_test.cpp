// The parser never crashes or hangs: thousands of deterministic mutations
// and truncations of valid text each return a status.
#include <random>

#include "gtest/gtest.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

const char kValid[] =
    R"(module "attn.py" properties [ssa] {tag = "x", l = [1, 2]}

func kernel @attn(q: ref<bf16[m, 64]>, m: i64, "odd name": f32) -> (f32[64]) @1:1 {
  m_i0: f32[64] = full() {shape = dims[64], dtype = f32, value = -inf}
  l_i0: f32[64] = full() {shape = dims[64], dtype = f32, value = 1.0e-3}
  m_i2: f32[64], l_i2: f32[64] = for j: tile<128> in tile(0:m:128) iter(m_i1: f32[64] = m_i0, l_i1: f32[64] = l_i0) {grid = false} @5:5 {
    qk: f32[64] = sum(cast(load(q)[j, :]) {dtype = f32}) {dim = 0, keepdim = false}
    m_new: f32[64] = maximum(m_i1, qk)
    yield m_new, add(l_i1, 1:f32) @8:9
  }
  r: f32[64] = if gt(m, 0) @10:5 {
    yield m_i2
  } else {
    yield where(lt(l_i2, nan), l_i2, subscript(l_i2)[:]: f32[64])
  }
  atomic {op = "add"} q[range(0, 64), scalar(tile_begin(t: tile<8>))] = 0.5
  done: i64 = launch @dev grid(0:cdiv(m, 64):1, ?:?:1) (q, m) {s = strs["a"]} @3:3
  return r
}
)";

TEST(Robustness, MutationsAndTruncationsNeverCrash) {
  {
    DiagnosticEngine diagnostics;
    auto valid = ParseModule(kValid, "valid.tir", diagnostics);
    ASSERT_TRUE(valid.ok()) << diagnostics.RenderAll();
  }
  const std::string base = kValid;
  const std::string alphabet = "(){}[]<>,:=@?\"#-.0123456789abcdefxyz_ \n\t\\";
  std::mt19937 rng(12345);
  int failures = 0;
  int successes = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 5) {
        case 0:  // delete a run
          text.erase(pos, 1 + rng() % 8);
          break;
        case 1:  // insert a character
          text.insert(text.begin() + pos, alphabet[rng() % alphabet.size()]);
          break;
        case 2:  // replace a character
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 3:  // truncate
          text.resize(pos);
          break;
        default: {  // duplicate a slice somewhere else
          size_t len = rng() % 40;
          std::string slice = text.substr(pos, len);
          text.insert(rng() % (text.size() + 1), slice);
          break;
        }
      }
    }
    DiagnosticEngine diagnostics;
    auto module = ParseModule(text, "fuzz.tir", diagnostics);
    if (module.ok()) {
      ++successes;
      // Whatever parsed must print and re-parse to the same text.
      std::string printed = PrintModule(*module);
      DiagnosticEngine again;
      auto reparsed = ParseModule(printed, "fuzz2.tir", again);
      ASSERT_TRUE(reparsed.ok()) << again.RenderAll() << "\n" << printed;
      EXPECT_EQ(PrintModule(*reparsed), printed);
    } else {
      ++failures;
      EXPECT_TRUE(diagnostics.has_errors()) << text;
      EXPECT_FALSE(diagnostics.RenderAll().empty());
    }
  }
  EXPECT_GT(failures, 1000);
  EXPECT_GT(successes, 10);
}

TEST(Robustness, ArbitraryBytes) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string text(rng() % 200, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 256);
    DiagnosticEngine diagnostics;
    auto module = ParseModule(text, "bytes.tir", diagnostics);
    if (!module.ok()) {
      EXPECT_TRUE(diagnostics.has_errors());
    }
    (void)ParseType(text);
  }
  for (size_t n = 0; n <= sizeof(kValid); ++n) {
    DiagnosticEngine diagnostics;
    auto module =
        ParseModule(std::string_view(kValid, n), "prefix.tir", diagnostics);
    if (!module.ok()) {
      EXPECT_TRUE(diagnostics.has_errors());
    }
  }
}

}  // namespace
}  // namespace tessera
