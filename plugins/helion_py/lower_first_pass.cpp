// Where the first full lowering of a kernel starts. Run() lowers a kernel
// quietly until one pass learns nothing that would change what it used
// (sizes proven equal, how each tile dim indexes refs, hence the default
// blocks). Started from nothing, that takes two passes for almost every
// kernel; started from what the kernel's leading asserts prove and from a
// reading of its subscripts, the first pass is usually the last. These are
// only starting points: Run() checks every value a pass consulted against
// what the pass found, so a wrong guess costs one pass, never a wrong
// block or a missed alias.
#include <algorithm>
#include <functional>

#include "lower_internal.h"

namespace tessera::helion_py {
namespace {

// The number of dims in a type spelling such as "bf16[4, 8, 128]" (0 for a
// scalar or an unreadable spelling).
int RankOfSpelling(const std::string& spelling) {
  size_t open = spelling.find('[');
  size_t close = spelling.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return 0;
  std::string_view dims(spelling.data() + open + 1, close - open - 1);
  if (dims.find_first_not_of(' ') == std::string_view::npos) return 0;
  return static_cast<int>(std::count(dims.begin(), dims.end(), ',')) + 1;
}

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The index items of a subscript node: `x[a, b]` parses either as two
// children after the base or as one tuple.
std::vector<const Node*> SubscriptItems(const Node& subscript) {
  std::vector<const Node*> items;
  for (size_t i = 1; i < subscript.children.size(); ++i) {
    const Node* item = subscript.children[i].get();
    if (item == nullptr) continue;
    if (subscript.children.size() == 2 && item->kind == NodeKind::kTuple) {
      for (const NodePtr& element : item->children)
        items.push_back(element.get());
    } else {
      items.push_back(item);
    }
  }
  return items;
}

}  // namespace

size_t KernelLowering::AssertPrefixLength() const {
  size_t length = 0;
  for (size_t i = 0; i < kernel_.body.size(); ++i) {
    const PyStmt& stmt = kernel_.body[i];
    if (stmt.kind == PyStmtKind::kAssert) length = i + 1;
    if (stmt.kind != PyStmtKind::kAssign && stmt.kind != PyStmtKind::kExpr &&
        stmt.kind != PyStmtKind::kAssert && stmt.kind != PyStmtKind::kPass) {
      break;
    }
  }
  return length;
}

std::vector<int> KernelLowering::GuessTileUsage() const {
  std::vector<int> usage;
  std::map<std::string, int> tile_ordinals;  // loop target -> ordinal
  std::map<std::string, int> ranks;          // names of a known rank
  for (const Param& param : kernel_.params) {
    auto arg = spec_.args.find(param.name);
    int rank = arg != spec_.args.end() ? RankOfSpelling(arg->second)
                                       : InferRank(param.name);
    if (rank > 0) ranks[param.name] = rank;
  }
  std::function<int(const Node&)> rank_of = [&](const Node& node) -> int {
    if (node.kind == NodeKind::kName) {
      auto it = ranks.find(node.text);
      return it == ranks.end() ? 0 : it->second;
    }
    if (node.kind != NodeKind::kCall) return 0;
    const Node& callee = *node.children[0];
    const std::string name = DottedName(callee);
    // x.reshape([a, b]) / x.view(a, b): the new rank.
    if (callee.kind == NodeKind::kAttribute &&
        (callee.text == "reshape" || callee.text == "view")) {
      if (node.children.size() == 2 &&
          (node.children[1]->kind == NodeKind::kList ||
           node.children[1]->kind == NodeKind::kTuple)) {
        return static_cast<int>(node.children[1]->children.size());
      }
      return static_cast<int>(node.children.size()) - 1;
    }
    // torch.empty_like(x) and friends keep x's rank.
    if (EndsWith(name, "_like") && node.children.size() >= 2) {
      return rank_of(*node.children[1]);
    }
    return 0;
  };
  auto tile_ordinal = [&](const Node* item) -> int {
    if (item->kind == NodeKind::kAttribute && item->text == "index") {
      item = item->children[0].get();
    }
    if (item->kind != NodeKind::kName) return -1;
    auto it = tile_ordinals.find(item->text);
    return it == tile_ordinals.end() ? -1 : it->second;
  };
  // What NoteTileUse records when the lowering meets the subscript.
  auto note_subscripts = [&](const Node& root) {
    WalkNodes(root, [&](const Node& node) {
      if (node.kind != NodeKind::kSubscript) return;
      std::vector<const Node*> items = SubscriptItems(node);
      int consumed = 0;
      for (const Node* item : items) {
        if (item->kind == NodeKind::kEllipsis) return;
        if (item->kind != NodeKind::kNone) ++consumed;
      }
      int rank = rank_of(*node.children[0]);
      if (rank == 0) rank = consumed;
      int dim = 0;
      for (const Node* item : items) {
        if (item->kind == NodeKind::kNone) continue;
        int ordinal = tile_ordinal(item);
        if (ordinal >= 0 && dim < rank) {
          usage[ordinal] |=
              (dim + 2 >= rank ? 1 : 2) | (dim + 1 == rank ? 4 : 0);
        }
        ++dim;
      }
    });
  };
  auto note_stmt_nodes = [&](const PyStmt& stmt) {
    for (const NodePtr& target : stmt.targets) note_subscripts(*target);
    for (const Node* node : {stmt.target.get(), stmt.value.get(),
                             stmt.test.get(), stmt.iter.get()}) {
      if (node) note_subscripts(*node);
    }
  };
  std::function<void(const std::vector<PyStmt>&, int)> walk =
      [&](const std::vector<PyStmt>& body, int depth) {
        for (const PyStmt& stmt : body) {
          const Node* iter = stmt.iter.get();
          const std::string callee =
              stmt.kind == PyStmtKind::kFor && iter->kind == NodeKind::kCall
                  ? DottedName(*iter->children[0])
                  : "";
          const bool tile_loop = EndsWith(callee, "tile") ||
                                 (depth == 0 && EndsWith(callee, "grid"));
          if (!tile_loop) {
            note_stmt_nodes(stmt);
            if (stmt.kind == PyStmtKind::kAssign && stmt.targets.size() == 1 &&
                stmt.targets[0]->kind == NodeKind::kName) {
              int rank = rank_of(*stmt.value);
              if (rank > 0) ranks[stmt.targets[0]->text] = rank;
            }
            walk(stmt.body, depth);
            walk(stmt.orelse, depth);
            continue;
          }
          note_subscripts(*iter);
          // hl.tile([a, b]) binds one tile per listed extent.
          size_t dims = 1;
          if (iter->children.size() >= 2 &&
              (iter->children[1]->kind == NodeKind::kList ||
               iter->children[1]->kind == NodeKind::kTuple)) {
            dims = iter->children[1]->children.size();
          }
          const Node& target = *stmt.target;
          for (size_t d = 0; d < dims; ++d) {
            const Node* name =
                target.kind == NodeKind::kTuple && d < target.children.size()
                    ? target.children[d].get()
                    : (dims == 1 ? &target : nullptr);
            if (name != nullptr && name->kind == NodeKind::kName) {
              tile_ordinals[name->text] = static_cast<int>(usage.size());
            }
            usage.push_back(0);
          }
          walk(stmt.body, depth + 1);
          walk(stmt.orelse, depth + 1);
        }
      };
  walk(kernel_.body, 0);
  return usage;
}

int64_t DefaultBlockFor(int usage) {
  const bool minor = (usage & 1) != 0 || usage == 0;
  return minor ? kMinorBlock : kMajorBlock;
}

std::vector<int64_t> DefaultBlocksFor(const std::vector<int>& usage) {
  std::vector<int64_t> blocks;
  blocks.reserve(usage.size());
  for (int bits : usage) blocks.push_back(DefaultBlockFor(bits));
  return blocks;
}

}  // namespace tessera::helion_py
