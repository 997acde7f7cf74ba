// The textual IR format (.tir); see docs/ir.md for the grammar.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera {

std::string PrintModule(const Module& module);
std::string PrintFunction(const Function& function);
// One expression, fully typed where inference is not enough.
std::string PrintExpr(const Expr& expr);
std::string PrintType(const Type& type);

// Parses a whole module. Errors are reported to `diagnostics` as
// `filename:line:col: error: ...` (several when possible) and the result is
// a non-OK status; the parser never crashes on any input.
absl::StatusOr<Module> ParseModule(std::string_view text,
                                   std::string_view filename,
                                   DiagnosticEngine& diagnostics);

// Parses a type spelling: "bf16[1024, 512]", "f32[m, k]", "ref<f32[4]>",
// "i64". Used for `--arg name=TYPE` and config `[kernels.NAME.args]`.
absl::StatusOr<Type> ParseType(std::string_view text);

}  // namespace tessera
