// hl.jagged_tile over a tile of rows (plugins/helion_py/lower_jagged_rows.cpp):
// the rows tile runs one row per grid step, the row's offsets are scalar
// reads that bound an absolute jagged loop, and the element gather through
// the flattened data becomes a block load; what cannot be lowered so is a
// located error.
#include <gtest/gtest.h>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace jagged_rows {

const char* kHeader =
    "import torch\n"                                              // 1
    "import helion\n"                                             // 2
    "import helion.language as hl\n"                              // 3
    "\n"                                                          // 4
    "@helion.kernel()\n"                                          // 5
    "def k(x_data, x_offsets, x_counts):\n"                       // 6
    "    m = x_data.size(1)\n"                                    // 7
    "    num_rows = x_offsets.size(0) - 1\n"                      // 8
    "    out = torch.zeros([num_rows, m], dtype=x_data.dtype)\n"  // 9
    "    x_flat = x_data.view(-1)\n"                              // 10
    ;                                                             // 11: loop

CompileResult CompileBody(const std::string& body) {
  return Compile(std::string(kHeader) + body + "    return out\n");
}

const char* kRowsLoop =
    "    for tile_b in hl.tile(num_rows):\n"                               // 11
    "        starts = x_offsets[tile_b]\n"                                 // 12
    "        lengths = x_offsets[tile_b.index + 1] - starts\n"             // 13
    "        for tile_m in hl.tile(m):\n"                                  // 14
    "            acc = hl.zeros([tile_b, tile_m], dtype=torch.float32)\n"  // 15
    "            for tile_k in hl.jagged_tile(lengths):\n";                // 16

void ExpectError(const CompileResult& r, unsigned line, unsigned col,
                 const std::string& message) {
  EXPECT_FALSE(r.module);
  ASSERT_FALSE(r.errors.empty()) << r.diagnostics;
  EXPECT_EQ(r.errors[0].loc.line, line) << r.diagnostics;
  EXPECT_EQ(r.errors[0].loc.col, col) << r.diagnostics;
  EXPECT_NE(r.errors[0].message.find(message), std::string::npos)
      << r.errors[0].message;
  EXPECT_FALSE(r.errors[0].notes.empty());
}

TEST(JaggedRows, OneRowPerStepAndAnAbsoluteJaggedLoop) {
  CompileResult r = CompileBody(
      std::string(kRowsLoop) +
      "                rows = starts[:, None] + tile_k.index[None, :]\n"
      "                flat = rows[:, :, None] * m + tile_m.index[None, None, "
      ":]\n"
      "                acc = acc + hl.load(x_flat, [flat]).sum(dim=1)\n"
      "            out[tile_b, tile_m] = acc\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(r, "tile_b: tile<1>");
  ExpectIrHas(r,
              "starts: i32[1] = broadcast_to(load(x_offsets)[scalar(tile_"
              "begin(tile_b))]) {shape = dims[1]}");
  ExpectIrHas(r, "tile_k_start: i32 = load(x_offsets)[scalar(tile_begin(");
  ExpectIrHas(r,
              "for tile_k: tile<128> in tile(cast(tile_k_start) {dtype = "
              "i64}:cast(load(x_offsets)[scalar(add(tile_begin(tile_b), 1))])");
  ExpectIrHas(r, "subscript(load(x_data)[tile_k, tile_m])[None, :, :]");
  // The flattened view is read by no load any more.
  EXPECT_EQ(r.ir.find("x_flat"), std::string::npos) << r.ir;
}

TEST(JaggedRows, LengthsReadDirectlyLoopFromZero) {
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows):\n"
      "        counts = x_counts[tile_b]\n"
      "        for tile_m in hl.jagged_tile(counts):\n"
      "            out[tile_b, tile_m] = hl.load(x_data, [tile_b, tile_m])\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(r,
              "for tile_m: tile<128> in tile(cast(0:i32) {dtype = i64}:"
              "cast(load(x_counts)[scalar(tile_begin(tile_b))])");
}

TEST(JaggedRows, ExplicitRowBlockIsALocatedError) {
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows, block_size=8):\n"
      "        counts = x_counts[tile_b]\n"
      "        for tile_m in hl.jagged_tile(counts):\n"
      "            out[tile_b, tile_m] = hl.load(x_data, [tile_b, tile_m])\n");
  ExpectError(r, 11, 27,
              "block_size 8 of a rows tile that bounds an hl.jagged_tile is "
              "not supported; it must be 1");
}

TEST(JaggedRows, LengthsOfATileOfColumnsAreALocatedError) {
  CompileResult r = CompileBody(
      "    for tile_b, tile_c in hl.tile([num_rows, m]):\n"
      "        counts = x_counts[tile_b]\n"
      "        for tile_k in hl.jagged_tile(counts):\n"
      "            out[tile_b, tile_c] = 0.0\n");
  ExpectError(r, 13, 38,
              "hl.jagged_tile's lengths must be indexed by the rows tile");
}

TEST(JaggedRows, FloatLengthsAreALocatedError) {
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows):\n"
      "        lengths = x_counts[tile_b].to(torch.float32)\n"
      "        for tile_k in hl.jagged_tile(lengths):\n"
      "            out[tile_b, :] = 0.0\n");
  ExpectError(r, 13, 38,
              "hl.jagged_tile needs a rank-1 integer tensor of lengths");
}

TEST(JaggedRows, LengthsNotReadAtTheRowsTileAreALocatedError) {
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows):\n"
      "        lengths = x_counts[tile_b] * x_counts[tile_b]\n"
      "        for tile_k in hl.jagged_tile(lengths // 2):\n"
      "            out[tile_b, :] = 0.0\n");
  ExpectError(r, 13, 38,
              "hl.jagged_tile's lengths must be computed from kernel "
              "arguments read at the rows tile");
}

TEST(JaggedRows, RelativeTileAsAnIndexIsALocatedError) {
  CompileResult r = CompileBody(std::string(kRowsLoop) +
                                "                acc = acc + x_data[tile_k, "
                                "tile_m].sum(0, keepdim=True)\n"
                                "            out[tile_b, tile_m] = acc\n");
  ExpectError(r, 17, 36,
              "indexing with a tile of hl.jagged_tile(ends - starts) is not "
              "supported");
}

TEST(JaggedRows, OtherFlatGathersAreALocatedError) {
  // The row length 2 is not x_data's: no block of x_data is this gather.
  CompileResult r = CompileBody(
      std::string(kRowsLoop) +
      "                rows = starts[:, None] + tile_k.index[None, :]\n"
      "                flat = rows[:, :, None] * 2 + tile_m.index[None, None, "
      ":]\n"
      "                acc = acc + hl.load(x_flat, [flat]).sum(dim=1)\n"
      "            out[tile_b, tile_m] = acc\n");
  ExpectError(r, 19, 45,
              "an element gather through a flattened tensor with a rank-3 "
              "index is supported only as rows times the row length plus a "
              "lane tile");
}

TEST(JaggedRows, MaxOfLengthsBoundsALoopAndShiftsARank1Gather) {
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows):\n"
      "        starts = x_offsets[tile_b]\n"
      "        nnz = x_offsets[tile_b.index + 1] - starts\n"
      "        longest = nnz.amax()\n"
      "        for tile_n in hl.tile(0, longest):\n"
      "            v = hl.load(x_counts, [starts[:, None] + "
      "tile_n.index[None, :]])\n"
      "            out[tile_b, tile_n] = v.to(torch.float32)\n"
      "        for tile_n in hl.tile(longest, m):\n"
      "            out[tile_b, tile_n] = 0.0\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(r, "tile_b: tile<1>");
  ExpectIrHas(r,
              "for tile_n: tile<128> in tile(0:cast(sub(load(x_offsets)["
              "scalar(add(tile_begin(tile_b), 1))], load(x_offsets)[scalar("
              "tile_begin(tile_b))])) {dtype = i64}:128)");
  ExpectIrHas(r,
              "subscript(load(x_counts)[shifted(add(tile_index(tile_n), "
              "load(x_offsets)[scalar(tile_begin(tile_b))]))])[None, :]");
}

TEST(JaggedRows, MaxOfLengthsWrittenInTheLoopBoundsIsTheSameLoop) {
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows):\n"
      "        starts = x_offsets[tile_b]\n"
      "        nnz = x_offsets[tile_b.index + 1] - starts\n"
      "        for tile_n in hl.tile(0, nnz.amax()):\n"
      "            out[tile_b, tile_n] = 1.0\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(r, "tile_b: tile<1>");
  ExpectIrHas(r,
              "for tile_n: tile<128> in tile(0:cast(sub(load(x_offsets)["
              "scalar(add(tile_begin(tile_b), 1))], load(x_offsets)[scalar("
              "tile_begin(tile_b))])) {dtype = i64}:128)");
}

TEST(JaggedRows, AStoreAtAShiftedRank1IndexIsALocatedError) {
  // The load of the same index lowers (above); the store does not, and on
  // the TPU cannot (an unaligned lane offset).
  CompileResult r = CompileBody(
      "    for tile_b in hl.tile(num_rows):\n"                // 11
      "        starts = x_offsets[tile_b]\n"                  // 12
      "        nnz = x_offsets[tile_b.index + 1] - starts\n"  // 13
      "        longest = nnz.amax()\n"                        // 14
      "        for tile_n in hl.tile(0, longest):\n"          // 15
      "            hl.store(x_counts, [starts[:, None] + "
      "tile_n.index[None, :]], out[tile_b, tile_n])\n");  // 16
  ExpectError(r, 16, 32,
              "a store at 'starts + tile.index' (an offset read from memory) "
              "is not supported: only loads at such an index lower");
}

TEST(JaggedRows, DataDependentHostSizeIsAHostRead) {
  // Helion's jagged_softmax sizes its output from the last offset: a host
  // scalar read (IR host_read) whose value sizes the allocation.
  CompileResult r = Compile(
      "import torch\n"
      "import helion\n"
      "import helion.language as hl\n"
      "\n"
      "@helion.kernel()\n"
      "def k(x_data, x_offsets):\n"
      "    n = int(x_offsets[-1].item())\n"
      "    t = x_offsets[0].item()\n"
      "    f = float(x_offsets[1])\n"
      "    out = torch.zeros(n * x_data.size(1), dtype=x_data.dtype)\n"
      "    for tile_b in hl.tile(x_offsets.size(0) - 1):\n"
      "        out[tile_b] = 0.0\n"
      "    return out.reshape(n, x_data.size(1))\n");
  ASSERT_TRUE(r.errors.empty()) << r.diagnostics;
  EXPECT_NE(r.ir.find("= cast(host_read(x_offsets)[scalar("), std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("= host_read(x_offsets)[scalar(0)]"), std::string::npos)
      << r.ir;
}

TEST(JaggedRows, ItemOfATensorIsALocatedError) {
  CompileResult r = Compile(
      "import torch\n"
      "import helion\n"
      "import helion.language as hl\n"
      "\n"
      "@helion.kernel()\n"
      "def k(x_data, x_offsets):\n"
      "    n = x_offsets[1:].item()\n"
      "    out = torch.zeros_like(x_data)\n"
      "    for tile_b in hl.tile(x_offsets.size(0) - 1):\n"
      "        out[tile_b, :] = 0.0\n"
      "    return out\n");
  ExpectError(r, 7, 9, "item() of ");
}

// Helion's jagged_softmax.py: a 1-D output of n * m elements, stored at
// `rows * m + lanes` and returned as out.reshape(n, m).
std::string FlatOutKernel(const std::string& size) {
  return std::string(
             "import torch\n"                                             // 1
             "import helion\n"                                            // 2
             "import helion.language as hl\n"                             // 3
             "\n"                                                         // 4
             "@helion.kernel()\n"                                         // 5
             "def k(x_data, x_offsets):\n"                                // 6
             "    n = int(x_offsets[-1].item())\n"                        // 7
             "    num_rows, m = x_offsets.size(0) - 1, x_data.size(1)\n"  // 8
             "    out = torch.zeros(") +
         size +
         ", dtype=x_data.dtype)\n"                                   // 9
         "    x_flat = x_data.view(-1)\n"                            // 10
         "    for tile_b in hl.tile(num_rows):\n"                    // 11
         "        starts = x_offsets[tile_b]\n"                      // 12
         "        lengths = x_offsets[tile_b.index + 1] - starts\n"  // 13
         "        for tile_m in hl.tile(m):\n"                       // 14
         "            for tile_k in hl.jagged_tile(lengths):\n"      // 15
         "                rows = starts[:, None] + tile_k.index[None, :]\n"  // 16
         "                flat = rows[:, :, None] * m + tile_m.index[None, "
         "None, :]\n"  // 17
         "                hl.store(out, [flat], hl.load(x_flat, [flat]))\n"  // 18
         "    return out.reshape(n, m)\n";
}

TEST(JaggedRows, AFlatAllocationOfRowsTimesRowLengthIsStoredAsRows) {
  CompileResult r = Compile(FlatOutKernel("n * m"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  ExpectIrHas(r,
              "out_2d: ref<f32[n, x_data_d1]> = alloc_full() {shape = "
              "dims[n, x_data_d1]");
  ExpectIrHas(r, "store out_2d[tile_k, tile_m] = ");
  ExpectIrHas(r, "= reshape(out_2d) {shape = dims[n, x_data_d1]}");
  // The row length may come first.
  CompileResult swapped = Compile(FlatOutKernel("m * n"));
  ASSERT_TRUE(swapped.module) << swapped.diagnostics;
  EXPECT_NE(swapped.ir.find("store out_2d[tile_k, tile_m] = "),
            std::string::npos)
      << swapped.ir;
}

TEST(JaggedRows, AFlatAllocationOfAnotherSizeIsALocatedError) {
  CompileResult r = Compile(FlatOutKernel("n * m + 1"));
  ExpectError(r, 18, 31,
              "an element gather through a flattened tensor with a rank-3 "
              "index is supported only as rows times the row length");
  ASSERT_FALSE(r.errors.empty());
  ASSERT_EQ(r.errors[0].notes.size(), 2u) << r.diagnostics;
  EXPECT_NE(r.errors[0].notes[1].message.find("rows * row_length"),
            std::string::npos)
      << r.diagnostics;
}

}  // namespace jagged_rows
}  // namespace tessera::helion_py::testing
