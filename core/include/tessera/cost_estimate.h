// Plain-data performance estimates a backend may report for the kernels it
// would emit (`tessera compile --emit=report`, the benchmark matrix, the
// tuner). Only standard-library types: these structs cross the plugin
// boundary. Times are seconds, sizes bytes; a backend documents its model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// One pipelined stage of a kernel: the launch grid, or an inner loop that
// the backend pipelines on its own (its numbers summed over every run).
struct StageEstimate {
  std::string name;   // e.g. "grid", "loop tile_k (line 29)"
  std::string kind;   // "grid" | "loop"
  int64_t steps = 0;  // steps of one run
  int64_t runs = 1;   // runs of the stage in one kernel call
  double bytes = 0;   // off-chip <-> on-chip memory traffic, all runs
  double flops = 0;   // useful arithmetic (dots, elementwise), all runs
  double transcendentals = 0;
  double compute_s = 0;         // busiest compute unit, all runs
  double memory_s = 0;          // memory transfer time, all runs
  double overhead_s = 0;        // fixed per-step costs, all runs
  double exposed_memory_s = 0;  // transfer time not hidden by compute
  double time_s = 0;            // modeled time, all runs
  std::string bound;            // what limits the stage ("MXU", "HBM", ...)
  // Ideal time (max of compute and memory at peak rates, no overheads)
  // divided by the modeled time: 1 means at the roofline.
  double roofline_fraction = 0;
};

struct KernelEstimate {
  std::string kernel;
  std::string target;  // e.g. "v6e"
  // How reports name the target and its on-chip memory, in the backend's
  // own words (the core knows none).
  std::string target_description;
  std::string memory_name;
  std::string launcher;
  std::vector<StageEstimate> stages;
  double time_s = 0;  // modeled time of one call, stages overlapped as run
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
  int64_t vmem_peak_bytes = 0;
  int64_t vmem_limit_bytes = 0;     // the scoped limit the kernel runs with
  int64_t vmem_capacity_bytes = 0;  // physical capacity
  // Caveats of the estimate ("the on-chip peak exceeds the capacity", "the host
  // pads x: 0.2 us outside the kernel", ...).
  std::vector<std::string> notes;
};

}  // namespace tessera
