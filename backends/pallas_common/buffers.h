// Block and on-chip buffer descriptions every Pallas target checks: a
// block's dims (for the target's tiling rule) and one on-chip allocation
// (VMEM on a TPU, shared memory on a GPU).
#pragma once

#include <cstdint>
#include <string>

namespace tessera::pallas {

// One dim of a block: its static size, or is_full when the block covers the
// whole array dim (then size is the dim's static size, 0 when symbolic).
struct BlockDim {
  int64_t size = 0;
  bool is_full = false;
};

// One VMEM allocation of the kernel.
struct VmemBuffer {
  std::string what;    // e.g. "input x, block (64, 512) f32"
  int64_t bytes = 0;   // one copy
  int64_t copies = 1;  // buffer count (2 for double-buffered pipelines)
};

}  // namespace tessera::pallas
