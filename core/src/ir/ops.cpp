// The op table and attribute helpers.
#include <array>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "ir/name_hash.h"
#include "tessera/ir/ir.h"

namespace tessera {
namespace {

using C = OpCategory;

// Indexed by OpKind; the static_assert below keeps it in step with the enum.
constexpr std::array<OpInfo, static_cast<size_t>(OpKind::kNumOps)> kOpTable = {{
    {"var", C::kLeaf, 0, 0, false},
    {"const", C::kLeaf, 0, 0, false},
    {"size", C::kHost, 1, 1, false},
    {"empty", C::kHost, 0, 0, false},
    {"alloc_full", C::kHost, 0, 0, false},
    {"reshape", C::kHost, 1, 1, false},
    {"transpose", C::kHost, 1, 1, false},
    {"load", C::kMemory, 1, 1, true},
    {"subscript", C::kMemory, 1, 1, true},
    {"slice_view", C::kMemory, 1, 1, true},
    {"host_read", C::kMemory, 1, 1, true},
    {"tile_begin", C::kTile, 1, 1, false},
    {"tile_end", C::kTile, 1, 1, false},
    {"tile_index", C::kTile, 1, 1, false},
    {"tile_size", C::kTile, 1, 1, false},
    {"neg", C::kUnary, 1, 1, false},
    {"exp", C::kUnary, 1, 1, false},
    {"exp2", C::kUnary, 1, 1, false},
    {"log", C::kUnary, 1, 1, false},
    {"log2", C::kUnary, 1, 1, false},
    {"sqrt", C::kUnary, 1, 1, false},
    {"rsqrt", C::kUnary, 1, 1, false},
    {"tanh", C::kUnary, 1, 1, false},
    {"sigmoid", C::kUnary, 1, 1, false},
    {"erf", C::kUnary, 1, 1, false},
    {"abs", C::kUnary, 1, 1, false},
    {"relu", C::kUnary, 1, 1, false},
    {"gelu", C::kUnary, 1, 1, false},
    {"silu", C::kUnary, 1, 1, false},
    {"not", C::kUnary, 1, 1, false},
    {"add", C::kBinary, 2, 2, false},
    {"sub", C::kBinary, 2, 2, false},
    {"mul", C::kBinary, 2, 2, false},
    {"div", C::kBinary, 2, 2, false},
    {"floordiv", C::kBinary, 2, 2, false},
    {"mod", C::kBinary, 2, 2, false},
    {"pow", C::kBinary, 2, 2, false},
    {"maximum", C::kBinary, 2, 2, false},
    {"minimum", C::kBinary, 2, 2, false},
    {"and", C::kBinary, 2, 2, false},
    {"or", C::kBinary, 2, 2, false},
    {"cdiv", C::kBinary, 2, 2, false},
    {"xor", C::kBinary, 2, 2, false},
    {"shl", C::kBinary, 2, 2, false},
    {"shr", C::kBinary, 2, 2, false},
    {"eq", C::kCompare, 2, 2, false},
    {"ne", C::kCompare, 2, 2, false},
    {"lt", C::kCompare, 2, 2, false},
    {"le", C::kCompare, 2, 2, false},
    {"gt", C::kCompare, 2, 2, false},
    {"ge", C::kCompare, 2, 2, false},
    {"where", C::kSelect, 3, 3, false},
    {"sum", C::kReduction, 1, 1, false},
    {"amax", C::kReduction, 1, 1, false},
    {"amin", C::kReduction, 1, 1, false},
    {"mean", C::kReduction, 1, 1, false},
    {"dot", C::kContraction, 2, 3, false},
    {"full", C::kConstruct, 0, 0, false},
    {"cast", C::kConstruct, 1, 1, false},
    {"broadcast_to", C::kConstruct, 1, 1, false},
    {"repeat_lanes", C::kConstruct, 1, 1, false},
    {"arange", C::kConstruct, 0, 0, false},
    {"program_id", C::kDevice, 0, 0, false},
    {"num_programs", C::kDevice, 0, 0, false},
    {"scratch", C::kDevice, 0, 0, false},
    {"scan", C::kScan, 2, 8, false},
    {"scan_arg", C::kScan, 0, 0, false},
}};
static_assert(kOpTable.back().name == "scan_arg" &&
              static_cast<size_t>(OpKind::kScanArg) + 1 == kOpTable.size());

const absl::flat_hash_map<std::string_view, OpKind, text::NameHash>&
OpsByName() {
  static const auto* const ops = [] {
    auto* map =
        new absl::flat_hash_map<std::string_view, OpKind, text::NameHash>();
    for (size_t i = 0; i < kOpTable.size(); ++i) {
      map->emplace(kOpTable[i].name, static_cast<OpKind>(i));
    }
    return map;
  }();
  return *ops;
}

}  // namespace

const OpInfo& OpInfoOf(OpKind op) {
  size_t index = static_cast<size_t>(op);
  return index < kOpTable.size() ? kOpTable[index] : kOpTable[0];
}

std::optional<OpKind> OpKindByName(std::string_view name) {
  const auto& ops = OpsByName();
  auto it = ops.find(name);
  if (it == ops.end()) return std::nullopt;
  return it->second;
}

const Attr* FindAttr(std::span<const Attr> attrs, std::string_view name) {
  for (const Attr& attr : attrs) {
    if (attr.name == name) return &attr;
  }
  return nullptr;
}

void SetAttr(AttrList& attrs, std::string name, AttrValue value) {
  for (Attr& attr : attrs) {
    if (attr.name == name) {
      attr.value = std::move(value);
      return;
    }
  }
  attrs.push_back(Attr{std::move(name), std::move(value)});
}

bool RemoveAttr(AttrList& attrs, std::string_view name) {
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    if (it->name == name) {
      attrs.erase(it);
      return true;
    }
  }
  return false;
}

std::string_view FunctionKindName(FunctionKind kind) {
  switch (kind) {
    case FunctionKind::kKernel:
      return "kernel";
    case FunctionKind::kHost:
      return "host";
    case FunctionKind::kDevice:
      return "device";
  }
  return "kernel";
}

Function* Module::FindFunction(std::string_view name) {
  for (Function& function : functions) {
    if (function.name == name) return &function;
  }
  return nullptr;
}

const Function* Module::FindFunction(std::string_view name) const {
  for (const Function& function : functions) {
    if (function.name == name) return &function;
  }
  return nullptr;
}

}  // namespace tessera
