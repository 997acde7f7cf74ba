// Per-generation TPU facts, read from the one table tpu_hardware.def (each
// number there names its source).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::pallas {

struct TpuHardware {
  std::string name;  // "v5e", "v6e", "v7x"
  double clock_hz = 0;
  double bf16_flops = 0;  // peak MXU rate, flops per second
  double f32_flops = 0;
  double int8_ops = 0;
  double hbm_bytes_per_s = 0;
  int64_t vmem_capacity_bytes = 0;
  int64_t default_scoped_vmem_bytes = 0;
  int64_t mxu_size = 0;  // the MXU is mxu_size x mxu_size
  int64_t mxu_count = 0;
  int64_t lanes = 0;
  int64_t sublanes = 0;
  int64_t valu_slots = 0;  // VLIW slots per bundle
  int64_t eup_slots = 0;
  int64_t vld_slots = 0;
  int64_t vst_slots = 0;
  int64_t xlu_slots = 0;  // cross-lane unit: lane reductions, transposes
  int64_t step_overhead_cycles = 0;
  double dma_latency_s = 0;
  // Steps with dot -> reduce -> dot trips (online softmax): the share of
  // the shorter of a trip's MXU and vector work not co-issued, the least
  // a trip costs, and the chain's fill and drain per step.
  double chain_exposed_share = 0;
  int64_t chain_trip_min_cycles = 0;
  int64_t chain_fill_cycles = 0;
};

// nullptr for an unknown name.
const TpuHardware* TpuHardwareByName(std::string_view name);
const std::vector<TpuHardware>& AllTpuHardware();

}  // namespace tessera::pallas
