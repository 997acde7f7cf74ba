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
  // A message quotes source text (a name, a value), which can be megabytes
  // in a generated file: keep its head.
  constexpr size_t kMaxMessage = 2000;
  if (diagnostic.message.size() <= kMaxMessage) {
    out += diagnostic.message;
  } else {
    size_t cut = kMaxMessage;
    while (cut > 0 &&
           (static_cast<unsigned char>(diagnostic.message[cut]) & 0xc0) == 0x80)
      --cut;
    out.append(diagnostic.message, 0, cut);
    out += fmt::format("... ({} more bytes)", diagnostic.message.size() - cut);
  }
  out += '\n';
  std::string_view line = LineOf(diagnostic.file, diagnostic.loc.line);
  // LineOf gives a null view when the file or line is unknown (an empty
  // line that exists is a non-null empty view).
  bool quotable = diagnostic.loc.known() && diagnostic.loc.col != 0 &&
                  line.data() != nullptr;
  if (quotable) {
    size_t caret_col = std::min<size_t>(diagnostic.loc.col - 1, line.size());
    // A generated or minified line can be megabytes long: quote a window
    // around the column, not the whole line.
    constexpr size_t kMaxQuoted = 160;
    constexpr size_t kBeforeCaret = 60;
    std::string_view prefix;
    std::string_view suffix;
    if (line.size() > kMaxQuoted) {
      const auto continuation = [&](size_t i) {
        return i < line.size() &&
               (static_cast<unsigned char>(line[i]) & 0xc0) == 0x80;
      };
      size_t begin = caret_col > kBeforeCaret ? caret_col - kBeforeCaret : 0;
      while (begin > 0 && continuation(begin)) --begin;
      size_t end = std::min(line.size(), begin + kMaxQuoted);
      while (end < line.size() && continuation(end)) ++end;
      if (begin > 0) prefix = "...";
      if (end < line.size()) suffix = "...";
      line = line.substr(begin, end - begin);
      caret_col = std::min(caret_col - begin, line.size());
    }
    out += "  ";
    out += prefix;
    out += line;
    out += suffix;
    out += '\n';
    // The caret line copies tabs from the source line so it stays aligned.
    out += "  ";
    out.append(prefix.size(), ' ');
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

// The optimal-string-alignment (Damerau-Levenshtein) distance of a and b
// when it is at most bound, otherwise bound + 1: a swap of two neighbours
// costs one edit, as a typist makes it (`hl.tiel`, `out.dtpye`). The search
// gives up on a candidate as soon as every entry of a row exceeds the bound
// (the fuzzers spent a tenth of their time here, on names that are nothing
// like any candidate). `rows` holds the previous two rows and the current.
size_t BoundedEditDistance(std::string_view a, std::string_view b, size_t bound,
                           std::vector<size_t>& rows) {
  const size_t length_gap =
      a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (length_gap > bound) return bound + 1;
  const size_t width = b.size() + 1;
  rows.assign(3 * width, 0);
  size_t* before = rows.data();
  size_t* previous = before + width;
  size_t* current = previous + width;
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    size_t row_minimum = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute =
          previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      size_t best = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, before[j - 2] + 1);
      }
      current[j] = best;
      row_minimum = std::min(row_minimum, best);
    }
    // A transposition reaches back two rows, so the bound holds for the
    // rest only when both the last two rows exceed it.
    if (row_minimum > bound && i > 1) {
      size_t previous_minimum = previous[0];
      for (size_t j = 1; j <= b.size(); ++j)
        previous_minimum = std::min(previous_minimum, previous[j]);
      if (previous_minimum > bound) return bound + 1;
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return std::min(previous[b.size()], bound + 1);
}

}  // namespace

std::string ClosestName(std::string_view name,
                        const std::vector<std::string>& candidates) {
  // A plausible typo changes at most about a third of the name (and at
  // least one character is always allowed).
  size_t limit = std::max<size_t>(1, (name.size() + 2) / 3);
  size_t best_distance = limit + 1;
  std::string best;
  std::vector<size_t> rows;
  for (const std::string& candidate : candidates) {
    // Only a strictly closer candidate replaces the best one, so the first
    // of equally close candidates wins.
    size_t distance =
        BoundedEditDistance(name, candidate, best_distance - 1, rows);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace tessera
