// Valid modules the tests start from; each test breaks one rule in a copy.
// Statement locations (@line:col) are what the diagnostics must point at.
#pragma once

#include <string_view>

namespace tessera::testing {

// Structured IR (before the ssa pass): `acc` is reassigned in the inner
// loop, as in the Python source.
inline constexpr std::string_view kStructuredMatmul = R"(
module "kernels/test.py"

func kernel @matmul(x: ref<f32[m, k]>, y: ref<f32[k, n]>) -> (ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  k: i64 = size(x) {dim = 1} @3:3
  n: i64 = size(y) {dim = 1} @4:3
  out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32} @5:3
  for tm: tile<64>, tn: tile<128> in tile(0:m:64, 0:n:128) {grid = true} @6:3 {
    acc: f32[64, 128] = full() {shape = dims[64, 128], dtype = f32, value = 0.0} @7:5
    for tk: tile<128> in tile(0:k:128) @8:5 {
      a: f32[64, 128] = load(x)[tm, tk] @9:7
      acc: f32[64, 128] = dot(a, load(y)[tk, tn], acc) @10:7
    }
    store out[tm, tn] = acc @11:5
  }
  return out @12:3
}
)";

// The same kernel in SSA form: the inner loop carries `acc` through an
// iter_arg, and an if merges two values through its result.
inline constexpr std::string_view kSsaMatmul = R"(
module "kernels/test.py" properties [ssa]

func kernel @matmul(x: ref<f32[m, k]>, y: ref<f32[k, n]>) -> (ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  k: i64 = size(x) {dim = 1} @3:3
  n: i64 = size(y) {dim = 1} @4:3
  out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32} @5:3
  for tm: tile<64>, tn: tile<128> in tile(0:m:64, 0:n:128) {grid = true} @6:3 {
    acc0: f32[64, 128] = full() {shape = dims[64, 128], dtype = f32, value = 0.0} @7:5
    acc2: f32[64, 128] = for tk: tile<128> in tile(0:k:128) iter(acc1: f32[64, 128] = acc0) @8:5 {
      a: f32[64, 128] = load(x)[tm, tk] @9:7
      acc3: f32[64, 128] = dot(a, load(y)[tk, tn], acc1) @10:7
      yield acc3 @10:7
    }
    flag: bool = gt(k, 0) @13:5
    res: f32[64, 128] = if flag @14:5 {
      r1: f32[64, 128] = relu(acc2) @15:7
      yield r1 @16:7
    } else {
      yield acc2 @18:7
    }
    store out[tm, tn] = res @19:5
  }
  return out @20:3
}
)";

// An outlined, SSA kernel: the host sizes and allocates and launches the
// device function, whose parameters are the grid tiles then the live-ins.
inline constexpr std::string_view kOutlinedAdd = R"(
module "kernels/test.py" properties [ssa, outlined]

func host @add(x: ref<f32[m, n]>, y: ref<f32[m, n]>) -> (ref<f32[m, n]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  n: i64 = size(x) {dim = 1} @3:3
  out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32} @4:3
  launch @add_device grid(0:m:64, 0:n:128) (x, y, out, m, n) @5:3
  return out @6:3
}

func device @add_device(tile_m: tile<64>, tile_n: tile<128>, x: ref<f32[dm, dn]>, y: ref<f32[dm, dn]>, out: ref<f32[dm, dn]>, dm: i64, dn: i64) @5:3 {
  s: f32[64, 128] = add(load(x)[tile_m, tile_n], load(y)[tile_m, tile_n]) @8:5
  store out[tile_m, tile_n] = s @9:5
}
)";

}  // namespace tessera::testing
