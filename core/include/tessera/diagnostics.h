// The one diagnostics type of Tessera: anything the user wrote (a kernel, a
// .tir file, a TOML config, a command-line flag) is reported through it with
// a source location, rendered as
//
//   file:line:col: error: message
//     <the source line>
//         ^~~~
//   file:line:col: note: ...
//
// Internal failures use absl::Status instead. Plugins receive a
// DiagnosticEngine& and report into it; they never throw across the boundary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// A position in a source file. line and col are 1-based; 0 means "unknown".
// `length` is the number of columns the caret underline covers (>= 1 when
// known), so a diagnostic can point at a whole sub-expression.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t length = 0;

  bool known() const { return line != 0; }
  friend bool operator==(const SourceLoc& a, const SourceLoc& b) {
    return a.line == b.line && a.col == b.col;
  }
};

enum class Severity { kError, kWarning, kNote, kRemark };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string file;  // empty: no file (e.g. a command-line problem)
  SourceLoc loc;
  std::string message;
  // Notes attached to this diagnostic (each may carry its own location).
  std::vector<Diagnostic> notes;
};

// The text of a source file, kept so diagnostics can quote the offending
// line. Registered once per file with the engine.
struct SourceBuffer {
  std::string path;
  std::string text;
};

class DiagnosticEngine {
 public:
  DiagnosticEngine() = default;
  DiagnosticEngine(const DiagnosticEngine&) = delete;
  DiagnosticEngine& operator=(const DiagnosticEngine&) = delete;

  // Makes `text` quotable in diagnostics about `path`. Re-adding a path
  // replaces its text.
  void AddSource(std::string path, std::string text);

  // Reports a diagnostic and returns a reference to it so notes can be added.
  Diagnostic& Report(Severity severity, std::string file, SourceLoc loc,
                     std::string message);
  Diagnostic& Error(std::string file, SourceLoc loc, std::string message) {
    return Report(Severity::kError, std::move(file), loc, std::move(message));
  }
  Diagnostic& Warning(std::string file, SourceLoc loc, std::string message) {
    return Report(Severity::kWarning, std::move(file), loc, std::move(message));
  }
  Diagnostic& Remark(std::string file, SourceLoc loc, std::string message) {
    return Report(Severity::kRemark, std::move(file), loc, std::move(message));
  }
  static void AddNote(Diagnostic& parent, std::string file, SourceLoc loc,
                      std::string message);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  size_t error_count() const { return error_count_; }
  bool has_errors() const { return error_count_ != 0; }
  void Clear();

  // Renders one diagnostic (and its notes) in the format above, quoting the
  // source line and a caret when the file text is known.
  std::string Render(const Diagnostic& diagnostic) const;
  // Renders every diagnostic reported so far, in order.
  std::string RenderAll() const;

 private:
  std::string_view LineOf(const std::string& file, uint32_t line) const;

  std::vector<SourceBuffer> sources_;
  std::vector<Diagnostic> diagnostics_;
  size_t error_count_ = 0;
};

// "error", "warning", "note" or "remark", as rendered diagnostics name it.
std::string_view SeverityName(Severity severity);

// "did you mean" helper: the candidate closest to `name` by edit distance,
// or empty when none is close enough to be a plausible typo.
std::string ClosestName(std::string_view name,
                        const std::vector<std::string>& candidates);

}  // namespace tessera
