// Each construct of the kernel language lowers to the expected IR. Kernels
// are written inline; the checks compare printed IR lines (without their
// trailing `@line:col`).
#include <gtest/gtest.h>

#include <sstream>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace {

// The IR text without statement locations, one trimmed line per entry.
std::string Normalize(const std::string& ir) {
  std::stringstream in(ir);
  std::string line, out;
  while (std::getline(in, line)) {
    size_t at = line.rfind(" @");
    if (at != std::string::npos && line.find(':', at) != std::string::npos &&
        line.find_first_not_of("0123456789:{ ", at + 2) == std::string::npos) {
      bool block = line.back() == '{';
      line = line.substr(0, at) + (block ? " {" : "");
    }
    size_t first = line.find_first_not_of(' ');
    out += (first == std::string::npos ? "" : line.substr(first)) + "\n";
  }
  return out;
}

std::string Kernel(const std::string& params, const std::string& body) {
  return "import torch\nimport helion\nimport helion.language as hl\n\n"
         "@helion.kernel()\ndef k(" +
         params + "):\n" + body;
}

#define EXPECT_IR(result, line)                                    \
  EXPECT_NE(Normalize((result).ir).find(std::string(line) + "\n"), \
            std::string::npos)                                     \
      << "missing: " << (line) << "\n--- IR ---\n"                 \
      << (result).ir << (result).diagnostics

TEST(Constructs, AddWithSymbolicSpec) {
  CompileResult r =
      Compile(Kernel("x, y",
                     "    m, n = x.size()\n"
                     "    out = torch.empty([m, n], dtype=x.dtype)\n"
                     "    for tile_m, tile_n in hl.tile([m, n]):\n"
                     "        out[tile_m, tile_n] = x[tile_m, tile_n] + "
                     "y[tile_m, tile_n]\n"
                     "    return out\n"),
              {{"x", "f32[m, n]"}, {"y", "f32[m, n]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "func kernel @k(x: ref<f32[m, n]>, y: ref<f32[m, n]>) -> "
            "(ref<f32[m, n]>) {");
  EXPECT_IR(r, "m: i64 = size(x) {dim = 0}");
  EXPECT_IR(r, "n: i64 = size(x) {dim = 1}");
  EXPECT_IR(r,
            "out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32}");
  EXPECT_IR(r,
            "for tile_m: tile<128>, tile_n: tile<128> in tile(0:m:128, "
            "0:n:128) {grid = true} {");
  EXPECT_IR(r,
            "store out[tile_m, tile_n] = add(load(x)[tile_m, tile_n], "
            "load(y)[tile_m, tile_n])");
  EXPECT_IR(r, "return out");
}

TEST(Constructs, SymbolsDefaultToArgDims) {
  CompileResult r = Compile(Kernel("x: torch.Tensor",
                                   "    out = torch.empty_like(x)\n"
                                   "    for tile in hl.tile(x.size(0)):\n"
                                   "        out[tile, :] = x[tile, :]\n"
                                   "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(
      r, "func kernel @k(x: ref<f32[x_d0, x_d1]>) -> (ref<f32[x_d0, x_d1]>) {");
  EXPECT_IR(r, "for \"tile\": tile<128> in tile(0:x_d0:128) {grid = true} {");
  EXPECT_IR(r, "x_d0: i64 = size(x) {dim = 0}");
}

TEST(Constructs, StaticShapesClampBlocksAndBatchDimsGetOne) {
  CompileResult r =
      Compile(Kernel("x",
                     "    b, m, n = x.size()\n"
                     "    out = torch.zeros_like(x)\n"
                     "    for tb, tm in hl.tile([b, m]):\n"
                     "        out[tb, tm, :] = x[tb, tm, :] * 2.0\n"
                     "    return out\n"),
              {{"x", "bf16[4, 64, 256]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "out: ref<bf16[4, 64, 256]> = alloc_full() {shape = dims[4, 64, "
            "256], dtype = bf16, value = 0.0}");
  // tb indexes a leading dim: block 1; tm a minor dim: 128 clamped to 64.
  EXPECT_IR(
      r,
      "for tb: tile<1>, tm: tile<64> in tile(0:4:1, 0:64:64) {grid = true} {");
  // A Python float times a bf16 tensor stays bf16.
  EXPECT_IR(r, "store out[tb, tm, :] = mul(load(x)[tb, tm, :], 2.0)");
}

TEST(Constructs, ConfigBlockSizesInHelionOrder) {
  CompileResult r = Compile(
      Kernel("x, y",
             "    m, k = x.size()\n"
             "    k2, n = y.size()\n"
             "    out = torch.empty([m, n])\n"
             "    for tile_m, tile_n in hl.tile([m, n]):\n"
             "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
             "        for tile_k in hl.tile(k):\n"
             "            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, "
             "tile_n])\n"
             "        out[tile_m, tile_n] = acc\n"
             "    return out\n"),
      {{"x", "bf16[512, 1024]"}, {"y", "bf16[1024, 256]"}}, {32, 64, 256});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "for tile_m: tile<32>, tile_n: tile<64> in tile(0:512:32, "
            "0:256:64) {grid = true} {");
  EXPECT_IR(r,
            "acc: f32[32, 64] = full() {shape = dims[32, 64], dtype = f32, "
            "value = 0.0}");
  EXPECT_IR(r, "for tile_k: tile<256> in tile(0:1024:256) {");
  EXPECT_IR(r,
            "acc: f32[32, 64] = dot(load(x)[tile_m, tile_k], load(y)[tile_k, "
            "tile_n], acc)");
}

TEST(Constructs, InnerBlockWiderThanItsChunkIsClampedToIt) {
  // hl.tile(outer.begin, outer.end, block_size=256) in a 128-wide chunk:
  // one 128-wide step, not a 256-wide one reaching into the next chunk
  // (random kernel seeds 164 and 800053 gave doubled split-K sums).
  CompileResult r = Compile(
      Kernel("x, y",
             "    m, k = x.size()\n"
             "    k2, n = y.size()\n"
             "    out = torch.zeros([m, n], dtype=torch.float32)\n"
             "    for tm, tn, outer in hl.tile([m, n, k], block_size=[8, "
             "128, 128]):\n"
             "        acc = hl.zeros([tm, tn], dtype=torch.float32)\n"
             "        for inner in hl.tile(outer.begin, outer.end, "
             "block_size=256):\n"
             "            acc = torch.addmm(acc, x[tm, inner], y[inner, tn])\n"
             "        hl.atomic_add(out, [tm, tn], acc)\n"
             "    return out\n"),
      {{"x", "f32[8, 256]"}, {"y", "f32[256, 128]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "for inner: tile<128> in "
            "tile(tile_begin(outer):tile_end(outer):128) {");
}

TEST(Constructs, TileFormsAndAttributes) {
  CompileResult r = Compile(
      Kernel("x",
             "    m, n = x.size()\n"
             "    out = torch.empty_like(x)\n"
             "    for tile_m in hl.tile(m, block_size=16):\n"
             "        for tile_n in hl.tile(tile_m.begin, tile_m.end):\n"
             "            i = tile_n.index\n"
             "            s = tile_m.block_size\n"
             "            out[tile_m, tile_n] = x[tile_m, tile_n] + i[None, :] "
             "* s\n"
             "    return out\n"),
      {{"x", "f32[64, 64]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "for tile_m: tile<16> in tile(0:64:16) {grid = true} {");
  // The default block (128) is clamped to the 16-wide range of tile_m.
  EXPECT_IR(r,
            "for tile_n: tile<16> in "
            "tile(tile_begin(tile_m):tile_end(tile_m):16) {");
  EXPECT_IR(r, "i: i32[16] = tile_index(tile_n)");
}

// The index list of hl.atomic_add is an index position: segment_ids is an
// int32 index tensor without --arg (segment_reduction's atomic scatter).
TEST(Constructs, AtomicIndexListMakesAnIndexTensor) {
  CompileResult r = Compile(Kernel(
      "data, segment_ids",
      "    n, f = data.size()\n"
      "    out = torch.zeros([48, f], dtype=torch.float32, "
      "device=data.device)\n"
      "    for tile_n, tile_f in hl.tile([n, f]):\n"
      "        idxs = segment_ids[tile_n]\n"
      "        hl.atomic_add(out, [idxs, tile_f], data[tile_n, tile_f])\n"
      "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_NE(r.ir.find("idxs: i32["), std::string::npos) << r.ir;
}

TEST(Constructs, TupleOfTilesIndexesAllDims) {
  CompileResult r = Compile(Kernel("x",
                                   "    out = torch.empty_like(x)\n"
                                   "    for tile in hl.tile(out.size()):\n"
                                   "        out[tile] = torch.exp(x[tile])\n"
                                   "    return out\n"),
                            {{"x", "f32[256, 512]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "for tile_0: tile<128>, tile_1: tile<128> in tile(0:256:128, "
            "0:512:128) {grid = true} {");
  EXPECT_IR(r, "store out[tile_0, tile_1] = exp(load(x)[tile_0, tile_1])");
}

TEST(Constructs, IndexingForms) {
  CompileResult r = Compile(
      Kernel("x, y",
             "    m, n = x.size()\n"
             "    out = torch.empty([m])\n"
             "    for tile_m in hl.tile(m):\n"
             "        a = x[tile_m, :]\n"
             "        b = x[tile_m, 0]\n"
             "        c = y[tile_m.begin, :]\n"
             "        d = a[:, None]\n"
             "        e = x[tile_m, 0:16]\n"
             "        f = a[..., 0]\n"
             "        out[tile_m] = b + c[0] + d[:, 0, 1] + e[:, 0] + f\n"
             "    return out\n"),
      {{"x", "f32[256, 64]"}, {"y", "f32[256, 64]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "a: f32[128, 64] = load(x)[tile_m, :]");
  EXPECT_IR(r, "b: f32[128] = load(x)[tile_m, scalar(0)]");
  EXPECT_IR(r, "c: f32[64] = load(y)[scalar(tile_begin(tile_m)), :]");
  EXPECT_IR(r, "d: f32[128, 1, 64] = subscript(a)[:, None, :]");
  EXPECT_IR(r, "e: f32[128, 16] = load(x)[tile_m, range(0, 16)]");
  EXPECT_IR(r, "f: f32[128] = subscript(a)[:, scalar(0)]");
}

TEST(Constructs, AugmentedAssignmentAndLoopCarriedConstant) {
  CompileResult r =
      Compile(Kernel("x",
                     "    m, n = x.size()\n"
                     "    out = torch.empty([m])\n"
                     "    for tile_m in hl.tile(m):\n"
                     "        acc = hl.zeros([tile_m], dtype=torch.float32)\n"
                     "        for tile_n in hl.tile(n):\n"
                     "            acc += x[tile_m, tile_n].sum(dim=1)\n"
                     "            acc -= 1.0\n"
                     "            acc *= 0.5\n"
                     "        out[tile_m] = acc\n"
                     "    return out\n"),
              {{"x", "f32[256, 1024]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "acc: f32[128] = add(acc, sum(load(x)[tile_m, tile_n]) {dim = 1, "
            "keepdim = false})");
  EXPECT_IR(r, "acc: f32[128] = sub(acc, 1.0)");
  EXPECT_IR(r, "acc: f32[128] = mul(acc, 0.5)");
}

TEST(Constructs, MatmulFamily) {
  CompileResult r =
      Compile(Kernel("a, b, c",
                     "    bs, m, k = a.size()\n"
                     "    out = torch.empty([bs, m, m])\n"
                     "    for tb, tm in hl.tile([bs, m]):\n"
                     "        x = a[tb, tm, :]\n"
                     "        y = b[tb, :, :]\n"
                     "        p = torch.bmm(x, y)\n"
                     "        q = x @ y\n"
                     "        r = torch.matmul(x, y)\n"
                     "        s = torch.baddbmm(p, x, y)\n"
                     "        t = hl.dot(x, y, out_dtype=torch.float32)\n"
                     "        u = hl.dot(x, y, acc=t)\n"
                     "        x2 = c[tm, :]\n"
                     "        v = torch.addmm(x2, x2, c[:, :])\n"
                     "        out[tb, tm, :] = p + q + r + s + t + u + v\n"
                     "    return out\n"),
              {{"a", "bf16[2, 64, 32]"},
               {"b", "bf16[2, 32, 64]"},
               {"c", "f32[64, 64]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "p: bf16[1, 64, 64] = dot(x, y)");
  EXPECT_IR(r, "q: bf16[1, 64, 64] = dot(x, y)");
  EXPECT_IR(r, "r: bf16[1, 64, 64] = dot(x, y)");
  EXPECT_IR(r, "s: bf16[1, 64, 64] = dot(x, y, p)");
  EXPECT_IR(r, "t: f32[1, 64, 64] = dot(x, y) {acc_dtype = f32}");
  EXPECT_IR(r, "u: f32[1, 64, 64] = dot(x, y, t)");
  EXPECT_IR(r, "v: f32[64, 64] = dot(x2, load(c)[:, :], x2)");
}

TEST(Constructs, ElementwiseMathReductionsCastsActivations) {
  CompileResult r = Compile(
      "import torch\nimport helion\nimport helion.language as hl\n"
      "import torch.nn.functional as F\nimport math\n\n"
      "@helion.kernel\ndef k(x):\n"
      "    m, n = x.size()\n"
      "    out = torch.empty([m, n], dtype=torch.bfloat16)\n"
      "    for tile_m in hl.tile(m):\n"
      "        v = x[tile_m, :]\n"
      "        a = torch.exp(v) + torch.exp2(v) + torch.log(v) + "
      "torch.log2(v)\n"
      "        b = torch.sqrt(v) + torch.rsqrt(v) + torch.tanh(v) + "
      "torch.sigmoid(v)\n"
      "        c = torch.erf(v) + torch.abs(v) + torch.maximum(v, a) + "
      "torch.minimum(v, 0.0)\n"
      "        d = torch.where(v > 0, v, 0.0)\n"
      "        e = F.relu(v) + F.gelu(v) + F.silu(v) + "
      "torch.nn.functional.gelu(v, approximate='tanh')\n"
      "        s = torch.sum(v, dim=1, keepdim=True) + torch.amax(v, 1, True) "
      "+ v.amin(-1, keepdim=True)\n"
      "        mu = torch.mean(v, dim=-1)\n"
      "        w = (a + b + c + d + e + s) * math.sqrt(4.0) + mu[:, None]\n"
      "        out[tile_m, :] = w.to(torch.bfloat16)\n"
      "    return out\n",
      {{"x", "f32[256, 128]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "d: f32[128, 128] = where(gt(v, 0), v, 0.0)");
  EXPECT_IR(r, "mu: f32[128] = mean(v) {dim = 1, keepdim = false}");
  EXPECT_NE(r.ir.find("gelu(v) {approximate = \"tanh\"}"), std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("amax(v) {dim = 1, keepdim = true}"), std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("mul(add(add(add(add(add(a, b), c), d), e), s), 2.0)"),
            std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("cast(w) {dtype = bf16}"), std::string::npos) << r.ir;
}

TEST(Constructs, HostViewsSpecializeRegisterBlockSize) {
  CompileResult r =
      Compile(Kernel("x",
                     "    b, m, n = x.size()\n"
                     "    d = hl.specialize(n)\n"
                     "    flat = x.reshape([-1, d])\n"
                     "    xt = flat.transpose(0, 1)\n"
                     "    out = torch.empty([d, b * m])\n"
                     "    bs = hl.register_block_size(d)\n"
                     "    for tile_d in hl.tile(d, block_size=bs):\n"
                     "        out[tile_d, :] = xt[tile_d, :]\n"
                     "    return out.view(n, b, m)\n"),
              {{"x", "f32[2, 8, 64]"}}, {32});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "flat: ref<f32[16, 64]> = reshape(x) {shape = dims[16, 64]}");
  EXPECT_IR(r, "xt: ref<f32[64, 16]> = transpose(flat) {perm = [1, 0]}");
  EXPECT_IR(r, "for tile_d: tile<32> in tile(0:64:32) {grid = true} {");
  EXPECT_IR(
      r, "result: ref<f32[64, 2, 8]> = reshape(out) {shape = dims[64, 2, 8]}");
  EXPECT_IR(r, "return result");
}

TEST(Constructs, SymbolicReshapeCancelsSymbols) {
  CompileResult r =
      Compile(Kernel("q",
                     "    m = q.size(-2)\n"
                     "    d = q.size(-1)\n"
                     "    v = q.reshape([-1, m, d])\n"
                     "    out = torch.empty_like(v)\n"
                     "    for tb, tm in hl.tile([v.size(0), m]):\n"
                     "        out[tb, tm, :] = v[tb, tm, :]\n"
                     "    return out.view(q.size())\n"),
              {{"q", "f32[b, h, s, e]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "size: i64 = mul(b, h)");
  EXPECT_IR(r,
            "v: ref<f32[size, s, e]> = reshape(q) {shape = dims[size, s, e]}");
  EXPECT_IR(
      r,
      "result: ref<f32[b, h, s, e]> = reshape(out) {shape = dims[b, h, s, e]}");
}

TEST(Constructs, AtomicsAndTupleResults) {
  CompileResult r =
      Compile(Kernel("x",
                     "    m, n = x.size()\n"
                     "    total = torch.zeros([m], dtype=torch.float32)\n"
                     "    hi = torch.full([m], float('-inf'))\n"
                     "    lo = torch.full([m], float('inf'))\n"
                     "    for tile_m, tile_n in hl.tile([m, n]):\n"
                     "        v = x[tile_m, tile_n]\n"
                     "        hl.atomic_add(total, [tile_m], v.sum(-1))\n"
                     "        hl.atomic_max(hi, [tile_m], v.amax(-1))\n"
                     "        hl.atomic_min(lo, [tile_m], v.amin(-1))\n"
                     "    return total, hi, lo\n"),
              {{"x", "f32[256, 512]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "hi: ref<f32[256]> = alloc_full() {shape = dims[256], dtype = f32, "
            "value = -inf}");
  EXPECT_IR(r,
            "atomic {op = \"add\"} total[tile_m] = sum(v) {dim = 1, keepdim = "
            "false}");
  EXPECT_IR(
      r,
      "atomic {op = \"max\"} hi[tile_m] = amax(v) {dim = 1, keepdim = false}");
  EXPECT_IR(
      r,
      "atomic {op = \"min\"} lo[tile_m] = amin(v) {dim = 1, keepdim = false}");
  EXPECT_IR(r, "return total, hi, lo");
  ASSERT_EQ(r.module->functions[0].result_types.size(), 3u);
}

TEST(Constructs, ConstantsMathAndCompileTimeIf) {
  CompileResult r = Compile(
      "import math\nimport torch\nimport helion\nimport helion.language as hl\n"
      "USE_BIAS = True\n\n"
      "@helion.kernel\ndef k(x, eps: float = 1e-6):\n"
      "    m, n = x.size()\n"
      "    scale = 1.0 / math.sqrt(n)\n"
      "    half = n // 2\n"
      "    out = torch.empty_like(x)\n"
      "    for tile_m in hl.tile(m):\n"
      "        v = x[tile_m, :] * scale\n"
      "        if half > 100:\n"
      "            v = v + eps\n"
      "        else:\n"
      "            v = v - 1\n"
      "        if USE_BIAS:\n"
      "            v = v + SHIFT\n"
      "        out[tile_m, :] = v\n"
      "    return out\n"
      "SHIFT = -3\n",
      {{"x", "bf16[256, 512]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "func kernel @k(x: ref<bf16[256, 512]>, eps: f32) -> "
            "(ref<bf16[256, 512]>) {defaults = strs[\"\", \"1e-06\"]} {");
  EXPECT_IR(
      r, "v: bf16[128, 512] = mul(load(x)[tile_m, :], 0.044194173824159216)");
  EXPECT_IR(r, "v: bf16[128, 512] = add(v, eps)");
  EXPECT_IR(r, "v: bf16[128, 512] = add(v, -3)");
  EXPECT_EQ(r.ir.find("sub("), std::string::npos) << r.ir;
}

TEST(Constructs, AssertUnifiesShapeSymbols) {
  CompileResult r = Compile(
      Kernel("x, y",
             "    m, k = x.size()\n"
             "    k2, n = y.size()\n"
             "    assert k == k2, f'size mismatch {k} != {k2}'\n"
             "    out = torch.empty([m, n])\n"
             "    for tile_m, tile_n in hl.tile([m, n]):\n"
             "        out[tile_m, tile_n] = x[tile_m, :] @ y[:, tile_n]\n"
             "    return out\n"));
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r,
            "func kernel @k(x: ref<f32[x_d0, x_d1]>, y: ref<f32[x_d1, y_d1]>) "
            "-> (ref<f32[x_d0, y_d1]>) {shape_checks = strs[\"y.0==x.1:"
            "kernel.py:9: kernel 'k' needs y.size(0) == x.size(1) "
            "(assert)\"]} {");
}

TEST(Constructs, RuntimeIfAndRangeLoop) {
  CompileResult r = Compile(Kernel("x, flag: bool",
                                   "    m, n = x.size()\n"
                                   "    out = torch.empty_like(x)\n"
                                   "    for tile_m in hl.tile(m):\n"
                                   "        acc = x[tile_m, :]\n"
                                   "        for i in range(3):\n"
                                   "            acc = acc * 2\n"
                                   "        if flag:\n"
                                   "            acc = -acc\n"
                                   "        out[tile_m, :] = acc\n"
                                   "    return out\n"),
                            {{"x", "f32[64, 64]"}});
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_IR(r, "for i: i64 in range(0:3:1) {");
  EXPECT_IR(r, "if flag {");
  EXPECT_IR(r, "acc: f32[64, 64] = neg(acc)");
}

TEST(Constructs, NonKernelPythonIsSkipped) {
  std::string source = R"PY(#!/usr/bin/env python
"""A module docstring with 'quotes' and \"escapes\"."""
from __future__ import annotations
import os, sys
from dataclasses import dataclass
from typing import (
    Any,
    Callable,
)
import torch
import helion
from helion import kernel as helion_kernel_alias
import helion.language as hl

CONST = {"a": [1, 2, {3, 4}], 'b': (lambda x, *a, **kw: x)(1)}
values = [x ** 2 for x in range(10) if x % 2 == 0]
gen = {k: v for k, v in zip("ab", "cd")}
total = sum(
    v
    for v in values
)
long_line = 1 + \
    2 + \
    3
name = f"{CONST['a']!r:>10} and {values[0]:{total}} {'nested' + "quotes"}"
raw = rb'\d+' r"\w" B"bytes" U'unicode'
multi = """
def fake(x):
    return x
@helion.kernel
"""

@dataclass
class Config:
    hidden: int = 4
    def method(self) -> int:
        if (n := self.hidden) > 2:
            return n
        match self.hidden:
            case 1:
                return 0
        return -1

async def coroutine():
    async with lock:
        await thing()
    try:
        pass
    except (ValueError, TypeError) as e:
        raise RuntimeError from e
    finally:
        del x

@some.other.decorator(arg=lambda: 1)
def helper(*args, **kwargs):
    global CONST
    yield from args

def broken_indentation():
  if True:
        pass
  return 1

@helion.kernel(static_shapes=True, config=helion.Config(block_sizes=[64]))
def copy(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile, :] = x[tile, :]
    return out

@helion_kernel_alias
def second(x):
    m, n = x.size()
    out = torch.empty_like(x)
    for t in hl.tile(m):
        out[t, :] = x[t, :]
    return out

if __name__ == "__main__":
    print(f"{copy!r}")
)PY";
  CompileResult r = Compile(source);
  ASSERT_TRUE(r.module) << r.diagnostics;
  ASSERT_EQ(r.module->functions.size(), 2u);
  EXPECT_EQ(r.module->functions[0].name, "copy");
  EXPECT_EQ(r.module->functions[1].name, "second");
  EXPECT_TRUE(r.errors.empty()) << r.diagnostics;
}

}  // namespace
}  // namespace tessera::helion_py::testing
