// Helpers to write Python source: identifier hygiene (IR names become
// Python identifiers; generated names never collide with them) and an
// indented line buffer.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::pallas {

// Turns an IR name into a valid Python identifier: characters outside
// [A-Za-z0-9_] become '_', a leading digit gets a '_' prefix, and Python
// keywords and the names the generated module itself uses (jnp, pl, range,
// ...) get a trailing '_'.
std::string SanitizeIdentifier(std::string_view name);

// The identifiers taken in one Python module. IR names are registered first
// (AddSourceName) so that every generated helper name (Fresh) avoids them.
class NameTable {
 public:
  // Registers the sanitized form of an IR name; returns it.
  std::string AddSourceName(std::string_view ir_name);
  // A new identifier starting with `base` that no other name uses.
  std::string Fresh(std::string_view base);
  bool Contains(std::string_view name) const;

 private:
  std::set<std::string, std::less<>> taken_;
};

// Lines of Python with indentation managed by Indent()/Dedent().
class PyLines {
 public:
  void Line(std::string_view text);
  void Blank();
  // Drops blank lines at the end (a block that ends with a nested def).
  void TrimTrailingBlanks();
  void Indent() { ++depth_; }
  void Dedent() {
    if (depth_ > 0) --depth_;
  }
  int depth() const { return depth_; }
  // Appends `other` with its lines indented by the current depth.
  void Append(const PyLines& other);
  bool empty() const { return lines_.empty(); }
  std::string Text() const;
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
  int depth_ = 0;
};

// True when `text` names the identifier `name` (not as part of a longer one).
bool MentionsIdentifier(std::string_view text, std::string_view name);

// `lines` (unindented `name = value` assignments, in order) without the
// assignments whose name neither `code` nor a kept later line mentions: a
// value computed for text that was later simplified away.
PyLines DropUnusedAssignments(const PyLines& lines, std::string_view code);

// `lines` (a whole function) without its `name = ref.shape[d]` reads of
// sizes nothing else mentions (pyflakes flags an unused local), and without
// a `# src:` comment left with no statement under it.
PyLines DropUnusedShapeReads(const PyLines& lines);

// `code` (a whole module) with `pass` in every block that has no statement
// left, only comments or nothing (a `def` whose body was an `if` with no
// effect, its statements dropped as unused): Python rejects such a block
// (IndentationError), so the module would not even import.
std::string FillEmptyBlocks(std::string_view code);

// A Python string literal for `text` (double-quoted, escaped).
std::string PyStringLiteral(std::string_view text);

}  // namespace tessera::pallas
