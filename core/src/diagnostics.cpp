#include "tessera/diagnostics.h"

#include <algorithm>
#include <string>
#include <utility>

#include "fmt/format.h"

namespace tessera {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
    case Severity::kRemark:
      return "remark";
  }
  return "error";
}

void DiagnosticEngine::AddSource(std::string path, std::string text) {
  for (SourceBuffer& buffer : sources_) {
    if (buffer.path == path) {
      buffer.text = std::move(text);
      return;
    }
  }
  sources_.push_back(SourceBuffer{std::move(path), std::move(text)});
}

Diagnostic& DiagnosticEngine::Report(Severity severity, std::string file,
                                     SourceLoc loc, std::string message) {
  if (severity == Severity::kError) ++error_count_;
  diagnostics_.push_back(
      Diagnostic{severity, std::move(file), loc, std::move(message), {}});
  return diagnostics_.back();
}

void DiagnosticEngine::AddNote(Diagnostic& parent, std::string file,
                               SourceLoc loc, std::string message) {
  parent.notes.push_back(Diagnostic{
      Severity::kNote, std::move(file), loc, std::move(message), {}});
}

void DiagnosticEngine::Clear() {
  diagnostics_.clear();
  error_count_ = 0;
}

std::string_view DiagnosticEngine::LineOf(const std::string& file,
                                          uint32_t line) const {
  if (line == 0) return {};
  for (const SourceBuffer& buffer : sources_) {
    if (buffer.path != file) continue;
    std::string_view text = buffer.text;
    size_t start = 0;
    for (uint32_t current = 1; current < line; ++current) {
      size_t newline = text.find('\n', start);
      if (newline == std::string_view::npos) return {};
      start = newline + 1;
    }
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view result = text.substr(start, end - start);
    if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
    return result;
  }
  return {};
}

std::string DiagnosticEngine::Render(const Diagnostic& diagnostic) const {
  std::string out = diagnostic.file;
  if (diagnostic.loc.known()) {
    if (!out.empty()) out += ':';
    out += fmt::format("{}:{}", diagnostic.loc.line, diagnostic.loc.col);
  }
  if (!out.empty()) out += ": ";
  out += SeverityName(diagnostic.severity);
  out += ": ";
  out += diagnostic.message;
  out += '\n';
  std::string_view line = LineOf(diagnostic.file, diagnostic.loc.line);
  // LineOf gives a null view when the file or line is unknown (an empty
  // line that exists is a non-null empty view).
  bool quotable = diagnostic.loc.known() && diagnostic.loc.col != 0 &&
                  line.data() != nullptr;
  if (quotable) {
    out += "  ";
    out += line;
    out += '\n';
    // The caret line copies tabs from the source line so it stays aligned.
    size_t caret_col = std::min<size_t>(diagnostic.loc.col - 1, line.size());
    out += "  ";
    for (size_t i = 0; i < caret_col; ++i) out += line[i] == '\t' ? '\t' : ' ';
    out += '^';
    size_t available = line.size() > caret_col ? line.size() - caret_col : 1;
    size_t length = std::clamp<size_t>(diagnostic.loc.length, 1, available);
    out.append(length - 1, '~');
    out += '\n';
  }
  for (const Diagnostic& note : diagnostic.notes) out += Render(note);
  return out;
}

std::string DiagnosticEngine::RenderAll() const {
  std::string out;
  for (const Diagnostic& diagnostic : diagnostics_) out += Render(diagnostic);
  return out;
}

namespace {

// The Levenshtein distance of a and b when it is at most bound, otherwise
// bound + 1: the search gives up on a candidate as soon as every entry of a
// row exceeds the bound (the fuzzers spent a tenth of their time here, on
// names that are nothing like any candidate).
size_t BoundedEditDistance(std::string_view a, std::string_view b, size_t bound,
                           std::vector<size_t>& row) {
  const size_t length_gap =
      a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (length_gap > bound) return bound + 1;
  row.resize(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    size_t row_minimum = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      row_minimum = std::min(row_minimum, row[j]);
      diagonal = above;
    }
    if (row_minimum > bound) return bound + 1;
  }
  return std::min(row[b.size()], bound + 1);
}

}  // namespace

std::string ClosestName(std::string_view name,
                        const std::vector<std::string>& candidates) {
  // A plausible typo changes at most about a third of the name (and at
  // least one character is always allowed).
  size_t limit = std::max<size_t>(1, (name.size() + 2) / 3);
  size_t best_distance = limit + 1;
  std::string best;
  std::vector<size_t> row;
  for (const std::string& candidate : candidates) {
    // Only a strictly closer candidate replaces the best one, so the first
    // of equally close candidates wins.
    size_t distance =
        BoundedEditDistance(name, candidate, best_distance - 1, row);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace tessera
