// A structural check of a generated Python module before the driver calls a
// compile a success: a backend bug that writes a module Python cannot parse
// must be an internal error, not an exit 0 that fails at import time.
//
// It checks what a code generator can get wrong without knowing it (block
// structure, indentation, brackets, strings), not Python's whole grammar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "tessera/backend.h"
#include "tessera/ir/ir.h"

namespace tessera::cli {

struct PythonStructureProblem {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based
  std::string message;
  // The line whose code is at fault: the header of a block without a
  // body, else `line`.
  uint32_t fault_line = 0;
};

// The first structural problem of `text` as Python source, or nullopt:
// inconsistent or tab/space-mixed indentation, a block opener (a logical
// line ending in ':') without a more-indented body, an unexpected indent,
// unbalanced or mismatched brackets, unterminated strings.
std::optional<PythonStructureProblem> CheckPythonStructure(
    std::string_view text);

// The source kernels of a module: its whole kernels, or after outlining
// their host functions (which keep the kernel's name).
std::vector<std::string> SourceKernelNames(const Module& module);

// Checks every emitted `.py` file; a problem is an internal error naming the
// file, the line, the enclosing top-level function and the kernels of
// `kernel_names` it belongs to.
absl::Status CheckEmittedModules(const std::vector<EmittedFile>& files,
                                 const std::vector<std::string>& kernel_names);

}  // namespace tessera::cli
