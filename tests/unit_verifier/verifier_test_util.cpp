#include "verifier_test_util.h"

#include "fmt/format.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"

namespace tessera::testing {

Module ParseTir(std::string_view text) {
  DiagnosticEngine diagnostics;
  diagnostics.AddSource(std::string(kTestFile), std::string(text));
  absl::StatusOr<Module> module = ParseModule(text, kTestFile, diagnostics);
  if (!module.ok()) {
    ADD_FAILURE() << "parse failed: " << module.status() << "\n"
                  << diagnostics.RenderAll();
    return Module{};
  }
  return *std::move(module);
}

namespace {

VerifyOutcome Collect(absl::Status status, const DiagnosticEngine& engine) {
  VerifyOutcome outcome;
  outcome.status = std::move(status);
  outcome.diagnostics = engine.diagnostics();
  outcome.rendered = engine.RenderAll();
  return outcome;
}

}  // namespace

VerifyOutcome RunVerify(const Module& module, PropertySet properties) {
  DiagnosticEngine diagnostics;
  absl::Status status = Verify(module, diagnostics, properties);
  return Collect(std::move(status), diagnostics);
}

VerifyOutcome RunVerifyProperty(const Module& module, Property property) {
  DiagnosticEngine diagnostics;
  absl::Status status = VerifyProperty(module, property, diagnostics);
  return Collect(std::move(status), diagnostics);
}

const Diagnostic* VerifyOutcome::Find(uint32_t line, uint32_t col,
                                      std::string_view needle) const {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity == Severity::kError &&
        diagnostic.loc.line == line && diagnostic.loc.col == col &&
        diagnostic.message.find(needle) != std::string::npos) {
      return &diagnostic;
    }
  }
  return nullptr;
}

::testing::AssertionResult HasError(const VerifyOutcome& outcome, uint32_t line,
                                    uint32_t col, std::string_view needle,
                                    std::string_view summary_prefix) {
  if (outcome.status.ok()) {
    return ::testing::AssertionFailure()
           << "verification succeeded; expected an error at " << line << ":"
           << col << " containing \"" << needle << "\"";
  }
  const Diagnostic* found = outcome.Find(line, col, needle);
  if (found == nullptr) {
    return ::testing::AssertionFailure()
           << "no error at " << line << ":" << col << " containing \"" << needle
           << "\"; got:\n"
           << outcome.rendered;
  }
  if (found->file != kTestFile) {
    return ::testing::AssertionFailure() << "error names file '" << found->file
                                         << "', expected '" << kTestFile << "'";
  }
  std::string suffix = fmt::format(" in '{}", summary_prefix);
  if (found->message.find(suffix) == std::string::npos ||
      found->message.back() != '\'') {
    return ::testing::AssertionFailure()
           << "message \"" << found->message
           << "\" does not end with a statement summary starting \""
           << summary_prefix << "\"";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsClean(const VerifyOutcome& outcome) {
  if (outcome.status.ok() && outcome.diagnostics.empty()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "status " << outcome.status << "\n"
                                       << outcome.rendered;
}

Function& FunctionNamed(Module& module, std::string_view name) {
  Function* function = module.FindFunction(name);
  if (function == nullptr) {
    ADD_FAILURE() << "no function @" << name;
    static Function empty;
    return empty;
  }
  return *function;
}

Stmt& StmtAt(Module& module, uint32_t line, uint32_t col) {
  Stmt* found = nullptr;
  for (Function& function : module.functions) {
    WalkStmts(function.body, [&](Stmt& stmt) {
      if (found == nullptr && stmt.loc.line == line && stmt.loc.col == col) {
        found = &stmt;
      }
    });
  }
  if (found == nullptr) {
    ADD_FAILURE() << "no statement at " << line << ":" << col;
    static Stmt empty;
    return empty;
  }
  return *found;
}

}  // namespace tessera::testing
