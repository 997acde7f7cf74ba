// Block and on-chip buffer descriptions every Pallas target checks: a
// block's dims (for the target's tiling rule) and one on-chip allocation
// (VMEM on a TPU, shared memory on a GPU).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace tessera::pallas {

// One dim of a block: its static size, or is_full when the block covers the
// whole array dim (then size is the dim's static size, 0 when symbolic).
struct BlockDim {
  int64_t size = 0;
  bool is_full = false;
};

// One VMEM allocation of the kernel.
struct VmemBuffer {
  VmemBuffer() = default;
  VmemBuffer(std::string what, int64_t bytes, int64_t copies = 1,
             std::string call_time_bytes = "")
      : what(std::move(what)),
        bytes(bytes),
        copies(copies),
        call_time_bytes(std::move(call_time_bytes)) {}

  std::string what;    // e.g. "input x, block (64, 512) f32"
  int64_t bytes = 0;   // one copy
  int64_t copies = 1;  // buffer count (2 for double-buffered pipelines)
  // A block whose size the call's shapes decide (a whole dim of symbolic
  // size): one copy's bytes as a Python expression of the host function,
  // e.g. "65536 * x.shape[2]"; `bytes` is 0 then.
  std::string call_time_bytes;
};

}  // namespace tessera::pallas
