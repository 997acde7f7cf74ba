// libFuzzer target: the helion-py frontend (its IR must round-trip). Built a
// second time as helion_pipeline (TESSERA_FUZZ_PIPELINE): kernels it accepts
// then run the whole pallas-tpu pipeline of one launcher (chosen by the
// input's size), what `tessera compile fuzz.py --config
// configs/pallas_<launcher>.toml` runs, where exit 2 (a failure without a
// diagnostic) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tessera::fuzz::RunPipeline(text, /*is_tir=*/false,
                             static_cast<unsigned>(size),
                             /*frontend_only=*/!TESSERA_FUZZ_PIPELINE);
  return 0;
}
