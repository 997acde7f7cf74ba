// Helpers for the helion-py frontend tests: compile Python text in-process
// and inspect the IR text and the diagnostics.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/pipeline_info.h"

namespace tessera::helion_py::testing {

struct CompileResult {
  std::optional<Module> module;
  std::string ir;           // PrintModule of the module (empty on failure)
  std::string diagnostics;  // RenderAll of the diagnostics
  std::vector<Diagnostic> errors;
};

// Compiles `text` as file `path` with optional per-kernel argument types and
// block sizes (applied to every kernel, as the "*" config entry does).
CompileResult Compile(const std::string& text,
                      const std::map<std::string, std::string>& args = {},
                      const std::vector<int64_t>& block_sizes = {},
                      const std::string& path = "kernel.py");

std::string ReadSource(const std::string& relative_path);

// Expects `part` in the printed IR (a prefix of a statement is enough);
// on failure prints the IR and the diagnostics.
void ExpectIrHas(const CompileResult& r, const std::string& part);

// The example kernels and the argument types of examples/references.py.
struct ExampleSpec {
  std::string name;
  std::map<std::string, std::string> args;
};
const std::vector<ExampleSpec>& Examples();

}  // namespace tessera::helion_py::testing
