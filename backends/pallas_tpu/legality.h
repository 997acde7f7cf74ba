// TPU legality of the generated kernel, checked at compile time because
// interpret mode checks neither: block shapes follow the (8, 128) rule and
// the VMEM footprint fits the chosen TPU generation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "buffers.h"
#include "tessera/ir/ir.h"
#include "tessera/ir/types.h"

namespace tessera::pallas {

struct TpuGeneration {
  std::string name;                   // "v5e", "v6e", "v7x"
  int64_t vmem_capacity_bytes;        // physical VMEM per TensorCore
  int64_t default_scoped_vmem_bytes;  // Mosaic's limit without vmem_limit_bytes
};

// Known generations; nullopt for an unknown name.
std::optional<TpuGeneration> TpuGenerationByName(std::string_view name);

// Sublane multiple of the second-minor block dim: 8 for 32/64-bit types, 16
// for 16-bit, 32 for 8-bit (bool and i8).
int64_t SublaneMultiple(DType dtype);

// nullopt when `block` is TPU-legal for `dtype`; otherwise why not, e.g.
// "dim 0 of the block is 12, which is neither the full dim nor a multiple of
// 16 (sublanes for bf16)".
std::optional<std::string> CheckBlockShape(std::span<const BlockDim> block,
                                           DType dtype);

struct VmemPlan {
  int64_t total_bytes = 0;
  // Set when the footprint exceeds the default scoped limit but fits.
  std::optional<int64_t> vmem_limit_bytes;
  // Non-empty when the footprint exceeds the generation's capacity: the
  // error text naming the largest buffers.
  std::string error;
};

// Mosaic keeps kernel values that do not fit the vector registers (a block's
// accumulator, a dot's result) in VMEM it allocates itself, next to the
// blocks and scratch. Modeled as twice the largest such value plus 1 MiB:
// against libtpu, a 1024^2 bf16 matmul needed 18.4 MiB (emit_pipeline) and
// 26.0 MiB (unroll) where blocks and scratch came to 16 and 20 MiB, with a
// 4 MiB f32 accumulator; raising vmem_limit_bytes a little too far costs
// nothing, too little fails to compile.
// (The one formula: legality's VMEM plan and the cost model's VMEM peak
// both add it.)
VmemBuffer CompilerScratch(const Function& device);

// When some of `buffers` are sized by the call's shapes (call_time_bytes),
// the Python expression, in the host function, of the bytes the kernel
// needs: the static buffers, each call-time block times its copies, and the
// compiler scratch with the call-time blocks among the values it is sized by
// (a kernel value is at most about a block). Empty when every buffer is
// static: PlanVmem decides at compile time then.
std::string CallTimeVmemNeed(std::span<const VmemBuffer> buffers,
                             const Function& device);

// The module-level Python helper `name(need)` that turns the call-time
// need into the pallas_call's vmem_limit_bytes for `tpu`, PlanVmem's rule:
// None within the default scoped limit, else the need plus a quarter in
// whole MiB, at most the capacity. Past the capacity it does not refuse, as
// PlanVmem does: its compiler scratch (twice the largest block) is a bound,
// and at trace time the real compiler is there to judge (random kernel seed
// 301593: an estimated 193 MiB compiled within 100 MiB).
std::string VmemLimitHelper(const std::string& name, const TpuGeneration& tpu);

VmemPlan PlanVmem(std::span<const VmemBuffer> buffers,
                  const TpuGeneration& tpu);

// "1.50 MiB", "512 KiB", "96 B".
std::string FormatBytes(int64_t bytes);

}  // namespace tessera::pallas
