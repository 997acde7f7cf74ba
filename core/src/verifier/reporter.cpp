#include "tessera/ir/verifier.h"

#include "fmt/format.h"
#include "verifier/stmt_summary.h"

namespace tessera {

void VerificationReporter::StmtError(const Stmt& stmt, std::string_view what) {
  ++error_count_;
  diagnostics_.Error(
      module_.source_file, stmt.loc,
      fmt::format("{} in '{}'", what, verifier::SummarizeStmt(stmt)));
}

void VerificationReporter::FunctionError(const Function& function,
                                         std::string_view what) {
  ++error_count_;
  diagnostics_.Error(
      module_.source_file, function.loc,
      fmt::format("{} in '{}'", what, verifier::SummarizeFunction(function)));
}

absl::Status VerificationReporter::ToStatus() const {
  if (error_count_ == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("IR verification failed with {} error{}", error_count_,
                  error_count_ == 1 ? "" : "s"));
}

}  // namespace tessera
