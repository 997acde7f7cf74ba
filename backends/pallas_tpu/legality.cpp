#include "legality.h"

#include <algorithm>
#include <span>
#include <string>

#include "cost_model/hardware.h"
#include "fmt/format.h"
#include "gather_plan.h"

namespace tessera::pallas {
namespace {
constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kLanes = 128;
}  // namespace

std::optional<TpuGeneration> TpuGenerationByName(std::string_view name) {
  // One source of truth: cost_model/tpu_hardware.def (sources per number).
  const TpuHardware* hardware = TpuHardwareByName(name);
  if (hardware == nullptr) return std::nullopt;
  return TpuGeneration{hardware->name, hardware->vmem_capacity_bytes,
                       hardware->default_scoped_vmem_bytes};
}

int64_t SublaneMultiple(DType dtype) {
  switch (DTypeBytes(dtype)) {
    case 1:
      return 32;
    case 2:
      return 16;
    default:
      return 8;
  }
}

std::optional<std::string> CheckBlockShape(std::span<const BlockDim> block,
                                           DType dtype) {
  const size_t rank = block.size();
  if (rank == 0) return std::nullopt;
  const BlockDim& minor = block[rank - 1];
  if (rank == 1 && !minor.is_full) {
    // Rank-1 blocks (Pallas TPU lowering, jax/_src/pallas/mosaic/lowering.py
    // in JAX 0.10.2): a multiple of 8 * 128, or a power of two of at least
    // 128 * (32 / bitwidth).
    const int64_t bits = 8 * DTypeBytes(dtype);
    const int64_t min_tiling = kLanes * (bits >= 32 ? 1 : 32 / bits);
    const int64_t size = minor.size;
    const bool power_of_two = size > 0 && (size & (size - 1)) == 0;
    if (size % (8 * kLanes) != 0 && !(power_of_two && size >= min_tiling)) {
      return fmt::format(
          "the rank-1 block is {}, which is neither the full dim, a multiple "
          "of {}, nor a power of two of at least {} (for {})",
          size, 8 * kLanes, min_tiling, DTypeName(dtype));
    }
    return std::nullopt;
  }
  if (!minor.is_full && minor.size % kLanes != 0) {
    return fmt::format(
        "dim {} of the block is {}, which is neither the full dim nor a "
        "multiple of {} (lanes)",
        rank - 1, minor.size, kLanes);
  }
  if (rank >= 2) {
    const BlockDim& second = block[rank - 2];
    const int64_t sublanes = SublaneMultiple(dtype);
    if (!second.is_full && second.size % sublanes != 0) {
      return fmt::format(
          "dim {} of the block is {}, which is neither the full dim nor a "
          "multiple of {} (sublanes for {})",
          rank - 2, second.size, sublanes, DTypeName(dtype));
    }
  }
  return std::nullopt;
}

std::string FormatBytes(int64_t bytes) {
  if (bytes >= kMiB) return fmt::format("{:.2f} MiB", double(bytes) / kMiB);
  if (bytes >= 1024) return fmt::format("{:.2f} KiB", double(bytes) / 1024);
  return fmt::format("{} B", bytes);
}

VmemPlan PlanVmem(std::span<const VmemBuffer> buffers,
                  const TpuGeneration& tpu) {
  VmemPlan plan;
  for (const VmemBuffer& buffer : buffers) {
    plan.total_bytes += buffer.bytes * buffer.copies;
  }
  if (plan.total_bytes > tpu.vmem_capacity_bytes) {
    std::vector<const VmemBuffer*> sorted;
    for (const VmemBuffer& buffer : buffers) sorted.push_back(&buffer);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const VmemBuffer* a, const VmemBuffer* b) {
                       return a->bytes * a->copies > b->bytes * b->copies;
                     });
    std::string largest;
    for (size_t i = 0; i < sorted.size() && i < 3; ++i) {
      largest += fmt::format("{}{} x {} = {}", i ? "; " : "", sorted[i]->what,
                             sorted[i]->copies,
                             FormatBytes(sorted[i]->bytes * sorted[i]->copies));
    }
    plan.error = fmt::format(
        "the kernel needs {} of VMEM, more than the {} of a TPU {}; largest "
        "buffers: {}; use smaller block sizes",
        FormatBytes(plan.total_bytes), FormatBytes(tpu.vmem_capacity_bytes),
        tpu.name, largest);
    return plan;
  }
  if (plan.total_bytes > tpu.default_scoped_vmem_bytes) {
    // Headroom for the compiler's own temporaries, rounded to whole MiB.
    int64_t wanted = plan.total_bytes + plan.total_bytes / 4;
    wanted = (wanted + kMiB - 1) / kMiB * kMiB;
    plan.vmem_limit_bytes = std::min(wanted, tpu.vmem_capacity_bytes);
  }
  return plan;
}

namespace {

struct LargestValue {
  int64_t bytes = 0;
  std::string what = "none";
};

LargestValue LargestStaticKernelValue(const Function& device) {
  int64_t largest = 0;
  std::string what = "none";
  auto consider = [&](const Value& value) {
    if (!value.type.is_tensor()) return;
    int64_t bytes = DTypeBytes(value.type.dtype);
    for (const Dim& dim : value.type.shape) {
      if (!dim.is_static()) return;
      bytes *= dim.size;
    }
    if (bytes > largest) {
      largest = bytes;
      what = fmt::format("{} {}", value.name, TypeToString(value.type));
    }
  };
  // A lane select (x[tile.index, lanes]) compares and sums its whole row
  // block in 32-bit (_select_lanes): a value no statement names.
  auto consider_lane_select = [&](const Expr& load) {
    const Type& ref = load.operands[0]->type;
    if (ref.rank() != 2 || load.type.rank() != 1) return;
    const Dim& rows = load.type.shape[0];
    const Dim& lanes = ref.shape[1];
    if (!rows.is_static() || !lanes.is_static()) return;
    consider(Value{fmt::format("the lane select of {}", load.operands[0]->name),
                   Type::Tensor(DType::kF32, {rows, lanes})});
  };
  WalkStmts(device.body, [&](const Stmt& stmt) {
    for (const Value& value : stmt.results) consider(value);
    for (const Value& value : stmt.iter_args) consider(value);
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& e) {
        if (HasZippedGather(e)) consider_lane_select(e);
      });
    });
  });
  return LargestValue{largest, what};
}

}  // namespace

VmemBuffer CompilerScratch(const Function& device) {
  const LargestValue largest = LargestStaticKernelValue(device);
  return VmemBuffer{
      fmt::format("compiler scratch for kernel values (largest: {})",
                  largest.what),
      2 * largest.bytes + kMiB, 1};
}

std::string CallTimeVmemNeed(std::span<const VmemBuffer> buffers,
                             const Function& device) {
  if (std::none_of(buffers.begin(), buffers.end(),
                   [](const VmemBuffer& buffer) {
                     return !buffer.call_time_bytes.empty();
                   })) {
    return "";
  }
  int64_t static_bytes = kMiB;
  std::string call_time;
  std::string scratch_sizes =
      fmt::format("{}", LargestStaticKernelValue(device).bytes);
  for (const VmemBuffer& buffer : buffers) {
    static_bytes += buffer.bytes * buffer.copies;
    if (buffer.call_time_bytes.empty()) continue;
    call_time +=
        fmt::format(" + {} * ({})", buffer.copies, buffer.call_time_bytes);
    scratch_sizes += ", " + buffer.call_time_bytes;
  }
  return fmt::format("{}{} + 2 * max({})", static_bytes, call_time,
                     scratch_sizes);
}

std::string VmemLimitHelper(const std::string& name, const TpuGeneration& tpu) {
  std::string text;
  text += fmt::format("\n\ndef {}(need):\n", name);
  text +=
      "    # Some blocks take a whole dim whose size the call decides, so the "
      "VMEM\n"
      "    # the kernel needs is known only now: tessera's compile-time rule "
      "for\n"
      "    # static shapes, except that a need past the chip's VMEM asks for "
      "all of\n"
      "    # it and leaves the verdict to the TPU compiler.\n";
  text += fmt::format("    if need <= {}:\n", tpu.default_scoped_vmem_bytes);
  text += "        return None\n";
  text += "    wanted = -(-(need + need // 4) // 2**20) * 2**20\n";
  text += fmt::format("    return min(wanted, {})\n", tpu.vmem_capacity_bytes);
  return text;
}

}  // namespace tessera::pallas
