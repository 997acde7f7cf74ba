// Helpers for verifier tests: parse a .tir snippet, verify it, and look for
// a diagnostic by location and message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"
#include "tessera/properties.h"

namespace tessera::testing {

// The file every test module names in its header.
inline constexpr std::string_view kTestFile = "kernels/test.py";

// The property sets the tests verify against.
inline constexpr PropertySet kSsa = {kSsaProperty};
inline constexpr PropertySet kSsaOutlined = {kSsaProperty, kOutlinedProperty};

// Parses `text`; on a parse error the test fails and the module is empty.
Module ParseTir(std::string_view text);

struct VerifyOutcome {
  absl::Status status;
  std::vector<Diagnostic> diagnostics;
  std::string rendered;  // every diagnostic, rendered

  // The first error at `line:col` whose message contains `needle`, or null.
  const Diagnostic* Find(uint32_t line, uint32_t col,
                         std::string_view needle) const;
};

VerifyOutcome RunVerify(const Module& module, PropertySet properties = {});
VerifyOutcome RunVerifyProperty(const Module& module, Property property);

// Expects an error at `line:col` of kTestFile containing `needle` (and the
// "in '<summary>'" suffix naming `summary_prefix` when given).
::testing::AssertionResult HasError(const VerifyOutcome& outcome, uint32_t line,
                                    uint32_t col, std::string_view needle,
                                    std::string_view summary_prefix = {});
// Expects a successful verification with no diagnostics at all.
::testing::AssertionResult IsClean(const VerifyOutcome& outcome);

// Navigation into a parsed module for tests that edit the IR directly.
Function& FunctionNamed(Module& module, std::string_view name);
// The statement at `line:col` (searched in every function, at any depth).
Stmt& StmtAt(Module& module, uint32_t line, uint32_t col);

}  // namespace tessera::testing
