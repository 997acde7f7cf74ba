// The names visible at a point of a function body, with O(1) lookup and
// scopes that are entered and left in O(names defined in them): one hash map
// from name to its current binding plus an undo log, instead of a stack of
// maps that every lookup would have to walk.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/name_hash.h"
#include "tessera/diagnostics.h"
#include "tessera/ir/types.h"

namespace tessera::verifier {

enum class DefKind : uint8_t {
  kParam,
  kAssign,   // an assignment's target
  kLoopVar,  // a loop induction variable (body-local)
  kIterArg,  // a loop-carried value as seen in the body (body-local)
  kResult,   // a result of a loop, if or launch
};

struct Binding {
  const Type* type = nullptr;
  SourceLoc loc;
  DefKind kind = DefKind::kAssign;
};

// Definitions that outlive the region they were made in (structured IR
// before the ssa pass follows Python scoping).
using Escapes = std::vector<std::pair<std::string_view, Binding>>;

class ScopedNames {
 public:
  // With `keep_out_of_scope` (SSA mode) a definition whose scope has ended
  // is kept, marked out of scope, instead of being erased: a later use of
  // it can then be explained ("not dominated by its definition at ...")
  // and a later definition of the same name is seen as a redefinition.
  explicit ScopedNames(bool keep_out_of_scope)
      : keep_out_of_scope_(keep_out_of_scope) {}

  size_t Mark() const { return log_.size(); }

  // Forgets every name but keeps the tables' capacity (absl's clear()
  // would free a large table).
  void Clear() {
    visible_.erase(visible_.begin(), visible_.end());
    log_.clear();
  }

  // Makes `name` visible. Returns the binding it had before (in scope or,
  // when kept, out of scope), if any.
  std::optional<Binding> Define(std::string_view name, Binding binding) {
    auto [it, inserted] = visible_.try_emplace(name, Entry{binding, true});
    std::optional<Binding> previous;
    if (!inserted) previous = it->second.binding;
    log_.push_back(
        UndoEntry{name, binding, !inserted, inserted ? Entry{} : it->second});
    if (!inserted) it->second = Entry{binding, true};
    return previous;
  }

  // The binding `name` has in scope, or null.
  const Binding* Lookup(std::string_view name) const {
    auto it = visible_.find(name);
    return it == visible_.end() || !it->second.in_scope ? nullptr
                                                        : &it->second.binding;
  }
  // A kept binding of `name` whose scope has ended, or null.
  const Binding* LookupOutOfScope(std::string_view name) const {
    auto it = visible_.find(name);
    return it == visible_.end() || it->second.in_scope ? nullptr
                                                       : &it->second.binding;
  }

  // Ends every definition made since `mark`. When `escapes` is given, the
  // assignments and results among them are appended to it in program order
  // (loop variables and iter_args never escape their loop).
  void PopTo(size_t mark, Escapes* escapes) {
    if (escapes != nullptr) {
      for (size_t i = mark; i < log_.size(); ++i) {
        DefKind kind = log_[i].defined.kind;
        if (kind == DefKind::kAssign || kind == DefKind::kResult) {
          escapes->emplace_back(log_[i].name, log_[i].defined);
        }
      }
    }
    while (log_.size() > mark) {
      UndoEntry& entry = log_.back();
      if (entry.had_previous) {
        visible_[entry.name] = entry.previous;
      } else if (keep_out_of_scope_) {
        visible_[entry.name].in_scope = false;
      } else {
        visible_.erase(entry.name);
      }
      log_.pop_back();
    }
  }

  // The names currently in scope, for "did you mean" suggestions.
  std::vector<std::string_view> VisibleNames() const {
    std::vector<std::string_view> names;
    names.reserve(visible_.size());
    for (const auto& [name, entry] : visible_) {
      if (entry.in_scope) names.push_back(name);
    }
    return names;
  }

 private:
  struct Entry {
    Binding binding;
    bool in_scope = false;
  };
  struct UndoEntry {
    std::string_view name;
    Binding defined;
    bool had_previous;
    Entry previous;
  };
  const bool keep_out_of_scope_;
  absl::flat_hash_map<std::string_view, Entry, text::NameHash> visible_;
  std::vector<UndoEntry> log_;
};

}  // namespace tessera::verifier
