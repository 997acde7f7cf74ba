module "add.py"

func kernel @add(x: ref<f32[m, n]>, y: ref<f32[m, n]>) -> (ref<f32[m, n]>) @4:1 {
  m: i64 = size(x) {dim = 0} @5:5
  n: i64 = size(x) {dim = 1} @5:5
  out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32} @6:5
  for tile_m: tile<64>, tile_n: tile<128> in tile(0:m:64, 0:n:128) {grid = true} @7:5 {
    s: f32[64, 128] = add(load(x)[tile_m, tile_n], load(y)[tile_m, tile_n]) @8:9
    store out[tile_m, tile_n] = s @9:9
  }
  return out @10:5
}

func kernel @copy(x: ref<f32[m]>) -> (ref<f32[m]>) @12:1 {
  m: i64 = size(x) {dim = 0} @13:5
  out: ref<f32[m]> = empty() {shape = dims[m], dtype = f32} @14:5
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @15:5 {
    store out[tile_m] = load(x)[tile_m] @16:9
  }
  return out @17:5
}
