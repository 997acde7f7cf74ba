// What every plugin may know about the pipeline it runs in: which frontend,
// passes and backend were chosen and with which options. Passes use it to
// adapt to the backend (e.g. a pass that is a no-op under one of the
// backend's launchers) without knowing any other plugin by name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/options.h"

namespace tessera {

struct KernelSpecialization {
  // Argument name -> type spelling as written by the user, e.g.
  // "bf16[1024, 512]" or "f32[m, k]". The frontend parses it (ParseType).
  std::map<std::string, std::string> args;
  // Block sizes in the kernel's order: one per tile-loop dim, outer before
  // inner.
  std::vector<int64_t> block_sizes;
};

struct PipelineInfo {
  std::string frontend;
  std::vector<std::string> passes;
  std::string backend;
  // The chosen backend's lowering passes (BackendInfo::lowering_passes),
  // which run after `passes`.
  std::vector<std::string> lowering_passes;
  // Resolved options of the chosen backend (as the backend declares them).
  OptionMap backend_options;
  // Per-kernel specialization by kernel name; "*" applies to every kernel.
  std::map<std::string, KernelSpecialization> kernels;
  // The kernels to compile, by name; empty: every kernel of the input. The
  // runtime compiles the one kernel a call names, so that a sibling kernel
  // of the file that does not compile stays that kernel's own problem.
  std::vector<std::string> selected_kernels;
  bool verbose = false;
};

}  // namespace tessera
