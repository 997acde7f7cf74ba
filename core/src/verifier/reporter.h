// Collects the verifier's problems as diagnostics of the form
//   file:line:col: error: <what> in '<statement summary>'
// and turns the count into a status at the end.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/ir.h"

namespace tessera::verifier {

class Reporter {
 public:
  Reporter(const Module& module, DiagnosticEngine& diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  // A problem with a statement (or an expression inside it); located at the
  // statement.
  void StmtError(const Stmt& stmt, std::string_view what);
  // A problem with a function's signature or its body as a whole; located
  // at the function.
  void FunctionError(const Function& function, std::string_view what);

  size_t error_count() const { return error_count_; }
  absl::Status ToStatus() const;

 private:
  const Module& module_;
  DiagnosticEngine& diagnostics_;
  size_t error_count_ = 0;
};

}  // namespace tessera::verifier
