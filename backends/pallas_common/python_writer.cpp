#include "python_writer.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace tessera::pallas {
namespace {

// Python keywords, builtins the generated code calls, and the module-level
// names every generated module imports.
bool IsReservedName(std::string_view name) {
  // A hash set: this runs for every name the module writes, and a tree of
  // strings cost ~2% of a whole compile in string compares.
  static const auto* const kReserved =
      new absl::flat_hash_set<std::string_view>{
          "False",    "None",    "True",      "and",   "as",
          "assert",   "async",   "await",     "break", "class",
          "continue", "def",     "del",       "elif",  "else",
          "except",   "finally", "for",       "from",  "global",
          "if",       "import",  "in",        "is",    "lambda",
          "nonlocal", "not",     "or",        "pass",  "raise",
          "return",   "try",     "while",     "with",  "yield",
          "match",    "case",    "range",     "min",   "max",
          "len",      "int",     "float",     "tuple", "list",
          "zip",      "print",   "abs",       "sum",   "bool",
          "jax",      "jnp",     "lax",       "pl",    "pltpu",
          "pltriton", "plgpu",   "functools", "math",  "interpret",
          "self",     "type",    "object",    "slice", "isinstance",
          "dict",     "set",     "map"};
  return kReserved->contains(name);
}

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

int CountMentions(std::string_view text, std::string_view name) {
  int count = 0;
  for (size_t at = text.find(name); at != std::string_view::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at == 0 || !IsIdentifierChar(text[at - 1])) &&
        (end == text.size() || !IsIdentifierChar(text[end]))) {
      ++count;
    }
  }
  return count;
}

std::string_view Trimmed(std::string_view line) {
  size_t first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? "" : line.substr(first);
}

// The bound name when `line` is `name = ref.shape[d]`, else "".
std::string_view ShapeReadTarget(std::string_view line) {
  line = Trimmed(line);
  size_t equals = line.find(" = ");
  if (equals == std::string_view::npos || equals == 0) return "";
  std::string_view name = line.substr(0, equals);
  std::string_view value = line.substr(equals + 3);
  size_t dot = value.find(".shape[");
  if (!std::all_of(name.begin(), name.end(), IsIdentifierChar) ||
      dot == std::string_view::npos || dot == 0 || value.back() != ']' ||
      !std::all_of(value.begin(), value.begin() + dot, IsIdentifierChar)) {
    return "";
  }
  std::string_view index = value.substr(dot + 7, value.size() - dot - 8);
  if (!index.empty() && index.front() == '-') index.remove_prefix(1);
  const bool digits = !index.empty() &&
                      std::all_of(index.begin(), index.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  return digits ? name : "";
}

bool IsSourceComment(std::string_view line) {
  return Trimmed(line).substr(0, 7) == "# src: ";
}

}  // namespace

bool MentionsIdentifier(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos;
       at = text.find(name, at + 1)) {
    bool starts = at == 0 || !IsIdentifierChar(text[at - 1]);
    size_t end = at + name.size();
    bool ends = end == text.size() || !IsIdentifierChar(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

PyLines DropUnusedShapeReads(const PyLines& lines) {
  const std::vector<std::string>& all = lines.lines();
  const std::string text = lines.Text();
  std::vector<bool> keep(all.size(), true);
  for (size_t i = 0; i < all.size(); ++i) {
    std::string_view name = ShapeReadTarget(all[i]);
    if (!name.empty() && CountMentions(text, name) == 1) keep[i] = false;
  }
  // A source comment whose statements all went: the next kept line is
  // another comment at the same depth, or the block ends.
  for (size_t i = 0; i < all.size(); ++i) {
    if (!keep[i] || !IsSourceComment(all[i])) continue;
    size_t next = i + 1;
    while (next < all.size() && !keep[next]) ++next;
    const size_t depth = all[i].size() - Trimmed(all[i]).size();
    const bool orphan = next == all.size() ||
                        all[next].size() - Trimmed(all[next]).size() < depth ||
                        (IsSourceComment(all[next]) &&
                         all[next].size() - Trimmed(all[next]).size() == depth);
    if (orphan && next != i + 1) keep[i] = false;
  }
  PyLines kept;
  for (size_t i = 0; i < all.size(); ++i) {
    if (keep[i]) kept.Line(all[i]);
  }
  return kept;
}

PyLines DropUnusedAssignments(const PyLines& lines, std::string_view code) {
  const std::vector<std::string>& all = lines.lines();
  std::vector<bool> keep(all.size(), true);
  std::string kept_text;
  for (size_t i = all.size(); i-- > 0;) {
    const std::string& line = all[i];
    size_t equals = line.find(" = ");
    std::string_view name = std::string_view(line).substr(
        0, equals == std::string::npos ? 0 : equals);
    bool assignment = !name.empty() &&
                      std::all_of(name.begin(), name.end(), IsIdentifierChar);
    if (assignment && !MentionsIdentifier(code, name) &&
        !MentionsIdentifier(kept_text, name)) {
      keep[i] = false;
      continue;
    }
    kept_text += line;
    kept_text += '\n';
  }
  PyLines kept;
  for (size_t i = 0; i < all.size(); ++i) {
    if (keep[i]) kept.Line(all[i]);
  }
  return kept;
}

std::string SanitizeIdentifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  if (out.empty()) out = "_";
  if (out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), '_');
  if (IsReservedName(out)) out.push_back('_');
  return out;
}

std::string NameTable::AddSourceName(std::string_view ir_name) {
  std::string name = SanitizeIdentifier(ir_name);
  taken_.insert(name);
  return name;
}

std::string NameTable::Fresh(std::string_view base) {
  std::string candidate = SanitizeIdentifier(base);
  if (!taken_.count(candidate)) {
    taken_.insert(candidate);
    return candidate;
  }
  for (int i = 1;; ++i) {
    std::string numbered = fmt::format("{}_{}", candidate, i);
    if (!taken_.count(numbered)) {
      taken_.insert(numbered);
      return numbered;
    }
  }
}

bool NameTable::Contains(std::string_view name) const {
  return taken_.count(name) != 0;
}

void PyLines::Line(std::string_view text) {
  lines_.push_back(std::string(static_cast<size_t>(depth_) * 4, ' ') +
                   std::string(text));
}

void PyLines::Blank() { lines_.emplace_back(); }

void PyLines::TrimTrailingBlanks() {
  while (!lines_.empty() && lines_.back().empty()) lines_.pop_back();
}

void PyLines::Append(const PyLines& other) {
  std::string pad(static_cast<size_t>(depth_) * 4, ' ');
  for (const std::string& line : other.lines_) {
    lines_.push_back(line.empty() ? line : pad + line);
  }
}

std::string PyLines::Text() const {
  std::string text;
  for (const std::string& line : lines_) {
    text += line;
    text += '\n';
  }
  return text;
}

namespace {

size_t IndentOf(std::string_view line) {
  return line.find_first_not_of(' ') == std::string_view::npos
             ? line.size()
             : line.find_first_not_of(' ');
}

// A compound statement's header: a keyword that opens a block, ending in
// ':' (the emitter writes every header on one line).
bool OpensBlock(std::string_view line) {
  const size_t start = IndentOf(line);
  if (start >= line.size() || line.back() != ':') return false;
  const std::string_view text = line.substr(start);
  for (std::string_view keyword :
       {"def ", "if ", "elif ", "else:", "for ", "while ", "with ",
        "try:", "except", "finally:", "class "}) {
    if (text.starts_with(keyword)) return true;
  }
  return false;
}

bool IsStatement(std::string_view line) {
  const size_t start = IndentOf(line);
  return start < line.size() && line[start] != '#';
}

}  // namespace

std::string FillEmptyBlocks(std::string_view code) {
  std::vector<std::string_view> lines;
  for (size_t begin = 0; begin < code.size();) {
    const size_t end = code.find('\n', begin);
    lines.push_back(code.substr(begin, end == std::string_view::npos
                                           ? std::string_view::npos
                                           : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  std::string out;
  out.reserve(code.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    out += '\n';
    if (!OpensBlock(lines[i])) continue;
    size_t next = i + 1;
    while (next < lines.size() && !IsStatement(lines[next])) ++next;
    if (next < lines.size() && IndentOf(lines[next]) > IndentOf(lines[i])) {
      continue;
    }
    // The block's comments stay; `pass` follows them.
    size_t last_comment = i;
    for (size_t c = i + 1; c < next; ++c) {
      if (!lines[c].empty() && IndentOf(lines[c]) > IndentOf(lines[i])) {
        last_comment = c;
      }
    }
    for (size_t c = i + 1; c <= last_comment; ++c) {
      out += lines[c];
      out += '\n';
    }
    out += std::string(IndentOf(lines[i]) + 4, ' ');
    out += "pass\n";
    i = last_comment;
  }
  if (!code.ends_with('\n') && !out.empty()) out.pop_back();
  return out;
}

std::string PyStringLiteral(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace tessera::pallas
