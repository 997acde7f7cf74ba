// libFuzzer target: the IR text parser (core), the round trip and the
// verifier. Built a second time as ir_pipeline (TESSERA_FUZZ_PIPELINE):
// modules that verify then run the pallas-tpu pipeline of one launcher
// (chosen by the input's size) with verify-each and the round-trip check
// after every pass; deeper, and about a hundred times slower per input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // Types are parsed on their own for --arg and config [kernels.*.args].
  const std::string_view first_line = text.substr(0, text.find('\n'));
  absl::StatusOr<Type> type = ParseType(first_line);
  if (type.ok()) {
    absl::StatusOr<Type> reparsed = ParseType(PrintType(*type));
    if (!reparsed.ok() || PrintType(*reparsed) != PrintType(*type)) {
      fuzz::InternalError("a printed type does not parse back to itself",
                          DiagnosticEngine{});
    }
  }

  DiagnosticEngine diagnostics;
  diagnostics.AddSource("fuzz.tir", std::string(text));
  absl::StatusOr<Module> module = ParseModule(text, "fuzz.tir", diagnostics);
  fuzz::CheckStatusMatchesDiagnostics(module.status(), 0, diagnostics,
                                      "the .tir parser");
  if (!module.ok()) {
    (void)diagnostics.RenderAll();  // quoting lines and carets must not crash
    return 0;
  }
  fuzz::CheckRoundTrip(*module, "the parsed module");
  const size_t errors_before = diagnostics.error_count();
  const absl::Status verified =
      Verify(*module, diagnostics, module->properties);
  fuzz::CheckStatusMatchesDiagnostics(verified, errors_before, diagnostics,
                                      "the verifier");
  (void)diagnostics.RenderAll();
  if (TESSERA_FUZZ_PIPELINE && verified.ok()) {
    fuzz::RunPipeline(text, /*is_tir=*/true, static_cast<unsigned>(size));
  }
  return 0;
}
