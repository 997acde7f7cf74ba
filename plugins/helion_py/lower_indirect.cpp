// Index tensors: which kernel arguments hold offsets or indices.
//
// Helion specializes on the tensors a kernel is called with, so an offsets
// argument is an integer tensor there. Tessera compiles without them: an
// argument without `--arg` is a float tensor unless the kernel uses its
// elements as indices -- loop bounds (`hl.tile(start, end)` with
// `start = offsets[b]`), subscripts (`table[indices[i], :]`) or the index
// lists of hl.load, hl.store and hl.atomic_*. Those arguments are int32 (the
// host narrows int64 ones, checking that they fit; SMEM holds 32-bit scalars).
#include <set>
#include <string>

#include "lower_internal.h"

namespace tessera::helion_py {
namespace {

// Attributes that read metadata, not elements.
bool IsMetadata(const std::string& attribute) {
  return attribute == "size" || attribute == "shape" || attribute == "dtype" ||
         attribute == "device" || attribute == "ndim" || attribute == "numel";
}

// Names whose elements flow into `node`'s value: plain names, and the bases
// of subscripts (`offsets` in `offsets[b]`), but not tensors only asked for
// their sizes.
void ElementSources(const Node& node, std::set<std::string>& out) {
  switch (node.kind) {
    case NodeKind::kName:
      out.insert(node.text);
      return;
    case NodeKind::kAttribute:
      if (!IsMetadata(node.text)) ElementSources(*node.children[0], out);
      return;
    case NodeKind::kCall:
      // The callee is a function or a method (`x.size`, `t.to`): its object
      // is a source unless the method reads metadata.
      ElementSources(*node.children[0], out);
      for (size_t i = 1; i < node.children.size(); ++i) {
        if (node.children[i]) ElementSources(*node.children[i], out);
      }
      return;
    case NodeKind::kLambda:
      return;
    default:
      for (const NodePtr& child : node.children) {
        if (child) ElementSources(*child, out);
      }
  }
}

bool IsLoopOrLoadCall(const Node& call) {
  const Node& callee = *call.children[0];
  std::string name = callee.kind == NodeKind::kAttribute ? callee.text
                     : callee.kind == NodeKind::kName    ? callee.text
                                                         : "";
  return name == "tile" || name == "jagged_tile" || name == "grid" ||
         name == "range" || name == "static_range";
}

// Expressions in index positions: subscript indices, loop bounds, the index
// list of hl.load, hl.store and hl.atomic_* (segment_reduction's
// `hl.atomic_add(out, [idxs, tile_f], v)`, a scatter at idxs).
void IndexPositions(const Node& node, std::set<std::string>& out) {
  if (node.kind == NodeKind::kSubscript) {
    for (size_t i = 1; i < node.children.size(); ++i) {
      if (node.children[i]) ElementSources(*node.children[i], out);
    }
  }
  if (node.kind == NodeKind::kCall) {
    const Node& callee = *node.children[0];
    if (IsLoopOrLoadCall(node)) {
      for (size_t i = 1; i < node.children.size(); ++i) {
        ElementSources(*node.children[i], out);
      }
    } else if (callee.kind == NodeKind::kAttribute &&
               (callee.text == "load" || callee.text == "store" ||
                callee.text.starts_with("atomic_")) &&
               node.children.size() > 2) {
      ElementSources(*node.children[2], out);
    }
  }
  for (const NodePtr& child : node.children) {
    if (child) IndexPositions(*child, out);
  }
}

void VisitStatements(const std::vector<PyStmt>& body,
                     const std::function<void(const PyStmt&)>& fn) {
  for (const PyStmt& stmt : body) {
    fn(stmt);
    VisitStatements(stmt.body, fn);
    VisitStatements(stmt.orelse, fn);
  }
}

}  // namespace

std::set<std::string> IndexTensorParams(const KernelDef& kernel) {
  std::set<std::string> names;
  VisitStatements(kernel.body, [&](const PyStmt& stmt) {
    for (const Node* node : {stmt.value.get(), stmt.test.get(), stmt.iter.get(),
                             stmt.target.get()}) {
      if (node) IndexPositions(*node, names);
    }
    for (const NodePtr& target : stmt.targets) IndexPositions(*target, names);
  });
  // Backwards through assignments: `start = offsets[b]` makes offsets an
  // index tensor when start is an index.
  for (bool changed = true; changed;) {
    changed = false;
    VisitStatements(kernel.body, [&](const PyStmt& stmt) {
      if (!stmt.value) return;
      bool feeds_index = false;
      for (const NodePtr& target : stmt.targets) {
        if (target->kind == NodeKind::kName && names.count(target->text)) {
          feeds_index = true;
        }
      }
      if (!feeds_index) return;
      const size_t before = names.size();
      ElementSources(*stmt.value, names);
      changed = changed || names.size() != before;
    });
  }
  std::set<std::string> params;
  for (const Param& param : kernel.params) {
    if (names.count(param.name)) params.insert(param.name);
  }
  return params;
}

}  // namespace tessera::helion_py
