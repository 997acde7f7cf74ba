// Shifted tile indices: `tile.index + s`, `s + tile.index`, `tile.index - s`
// and tile arithmetic (`tile + s`) index loads and stores as
// IndexKind::kShiftedTile; other tensor indices are a located error.
#include <gtest/gtest.h>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace shifted_index {

const char* kHeader =
    "import torch\n"                                // 1
    "import helion\n"                               // 2
    "import helion.language as hl\n"                // 3
    "\n"                                            // 4
    "@helion.kernel()\n"                            // 5
    "def k(x, y):\n"                                // 6
    "    m, n, _ = x.size()\n"                      // 7
    "    out = torch.zeros([2 * m, n])\n"           // 8
    "    for tile_m, tile_n in hl.tile([m, n]):\n"  // 9 -> body at 10

    ;

CompileResult CompileBody(const std::string& body) {
  return Compile(std::string(kHeader) + body + "    return out\n",
                 {{"x", "f32[256, 64, 32]"}, {"y", "f32[8, 4]"}});
}

TEST(ShiftedIndex, LoadsAndStoresOfEveryForm) {
  CompileResult r = CompileBody(
      "        a = x[tile_m.index + 3, tile_n.begin, :]\n"
      "        b = x[m + tile_m.index, tile_n.begin, :]\n"
      "        c = x[tile_m.index - tile_n.begin, tile_n.begin, :]\n"
      "        d = x[tile_m + tile_n.id * 2, tile_n.begin, :]\n"
      "        out[tile_m.index + m, tile_n.begin] = (a + b + c + "
      "d).sum(-1)\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(r,
              "a: f32[128, 32] = load(x)[shifted(add(tile_index(tile_m), 3)), "
              "scalar(tile_begin(tile_n)), :]");
  ExpectIrHas(r, "load(x)[shifted(add(256, tile_index(tile_m))),");
  ExpectIrHas(r,
              "load(x)[shifted(sub(tile_index(tile_m), tile_begin(tile_n))),");
  ExpectIrHas(r, "load(x)[shifted(add(tile_index(tile_m), mul(floordiv(");
  ExpectIrHas(r,
              "store out[shifted(add(tile_index(tile_m), 256)), "
              "scalar(tile_begin(tile_n))] =");
}

TEST(ShiftedIndex, ShiftInAnInnerLoop) {
  CompileResult r = CompileBody(
      "        acc = hl.zeros([tile_m], dtype=torch.float32)\n"
      "        for tile_k in hl.tile(8):\n"
      "            acc += x[tile_k.index + tile_m.begin * 8, tile_n.begin, "
      "0].sum()\n"
      "        out[tile_m, tile_n.begin] = acc\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(
      r,
      "load(x)[shifted(add(tile_index(tile_k), mul(tile_begin(tile_m), 8))), ");
}

TEST(ShiftedIndex, OtherTensorIndicesAreLocatedErrors) {
  CompileResult r =
      CompileBody("        a = x[tile_m.index * 0.5, tile_n.begin, :]\n");
  EXPECT_FALSE(r.module);
  ASSERT_FALSE(r.errors.empty()) << r.diagnostics;
  EXPECT_EQ(r.errors[0].loc.line, 10u);
  EXPECT_EQ(r.errors[0].loc.col, 15u);
  EXPECT_NE(r.errors[0].message.find("indexing with f32[128] is not supported"),
            std::string::npos)
      << r.errors[0].message;
  ASSERT_FALSE(r.errors[0].notes.empty());
  EXPECT_NE(r.errors[0].notes[0].message.find("tile.index + offset"),
            std::string::npos);
}

TEST(ShiftedIndex, AShiftedIndexOnAValueIsAnError) {
  CompileResult r = CompileBody(
      "        a = x[tile_m, tile_n.begin, :]\n"
      "        b = a[tile_m.index + 1, :]\n");
  EXPECT_FALSE(r.module);
  ASSERT_FALSE(r.errors.empty()) << r.diagnostics;
  EXPECT_EQ(r.errors[0].loc.line, 11u);
  EXPECT_NE(r.errors[0].message.find("index the kernel argument instead"),
            std::string::npos)
      << r.errors[0].message;
}

TEST(ShiftedIndex, TileTimesAScalarIsStillNotAValue) {
  CompileResult r = CompileBody("        a = x[tile_m * 2, tile_n.begin, :]\n");
  EXPECT_FALSE(r.module);
  ASSERT_FALSE(r.errors.empty()) << r.diagnostics;
  EXPECT_NE(r.errors[0].message.find("a tile is not a value"),
            std::string::npos)
      << r.errors[0].message;
}

}  // namespace shifted_index
}  // namespace tessera::helion_py::testing
