// Ragged tiles: where values come from, and masks of reductions and
// contractions over a partial last tile.
#include <algorithm>

#include "device_emitter.h"
#include "fmt/format.h"
#include "py_text.h"

namespace tessera::pallas {

// --- Ragged tiles ----------------------------------------------------------

void DeviceEmitter::SetOrigins(const std::string& name,
                               std::vector<std::string> origins) {
  origins_[name] = std::move(origins);
}

std::vector<std::string> DeviceEmitter::Origins(const Expr& expr) {
  const size_t rank = expr.type.is_tensor() ? expr.type.shape.size() : 0;
  std::vector<std::string> result;
  auto right_aligned = [&](const std::vector<const Expr*>& operands) {
    std::vector<std::string> out(rank);
    for (const Expr* operand : operands) {
      std::vector<std::string> sub = Origins(*operand);
      for (size_t i = 0; i < sub.size() && i < rank; ++i) {
        std::string& slot = out[rank - 1 - i];
        if (slot.empty()) slot = sub[sub.size() - 1 - i];
      }
    }
    return out;
  };
  switch (expr.op) {
    case OpKind::kVar: {
      auto it = origins_.find(expr.name);
      if (it != origins_.end()) result = it->second;
      break;
    }
    case OpKind::kLoad:
      for (const Index& index : expr.indices) {
        if (index.kind == IndexKind::kTile) {
          result.push_back(index.expr->name);
        } else if (index.kind != IndexKind::kScalar) {
          result.push_back("");
        }
      }
      break;
    case OpKind::kSubscript: {
      std::vector<std::string> base = Origins(*expr.operands[0]);
      size_t next = 0;
      for (const Index& index : expr.indices) {
        if (index.kind == IndexKind::kNewAxis) {
          result.push_back("");
        } else if (index.kind == IndexKind::kScalar) {
          ++next;
        } else {
          result.push_back(next < base.size() && index.kind == IndexKind::kSlice
                               ? base[next]
                               : "");
          ++next;
        }
      }
      for (; next < base.size(); ++next) result.push_back(base[next]);
      break;
    }
    case OpKind::kSum:
    case OpKind::kAmax:
    case OpKind::kAmin:
    case OpKind::kMean: {
      std::vector<std::string> base = Origins(*expr.operands[0]);
      const int64_t in_rank = static_cast<int64_t>(base.size());
      std::vector<bool> reduced(base.size(), expr.attr("dim") == nullptr);
      if (const Attr* dim = expr.attr("dim")) {
        std::vector<int64_t> dims;
        if (const int64_t* one = std::get_if<int64_t>(&dim->value)) {
          dims.push_back(*one);
        } else if (const auto* list =
                       std::get_if<std::vector<int64_t>>(&dim->value)) {
          dims = *list;
        }
        for (int64_t d : dims) {
          if (d < 0) d += in_rank;
          if (d >= 0 && d < in_rank) reduced[d] = true;
        }
      }
      const bool* keepdim = GetAttr<bool>(expr.attrs, "keepdim");
      for (size_t i = 0; i < base.size(); ++i) {
        if (!reduced[i]) {
          result.push_back(base[i]);
        } else if (keepdim && *keepdim) {
          result.push_back("");
        }
      }
      break;
    }
    case OpKind::kDot: {
      std::vector<std::string> a = Origins(*expr.operands[0]);
      std::vector<std::string> b = Origins(*expr.operands[1]);
      if (a.size() >= 2 && b.size() >= 2) {
        result.assign(a.begin(), a.end() - 2);
        result.push_back(a[a.size() - 2]);
        result.push_back(b[b.size() - 1]);
      }
      break;
    }
    case OpKind::kTileIndex:
      result.push_back(expr.operands[0]->name);
      break;
    case OpKind::kTranspose: {
      std::vector<std::string> base = Origins(*expr.operands[0]);
      const auto* perm = GetAttr<std::vector<int64_t>>(expr.attrs, "perm");
      if (perm != nullptr && perm->size() == base.size()) {
        for (int64_t p : *perm) {
          result.push_back(
              p >= 0 && p < static_cast<int64_t>(base.size()) ? base[p] : "");
        }
      }
      break;
    }
    case OpKind::kReshape:
      break;
    case OpKind::kFull:
    case OpKind::kConst:
      break;
    default: {
      std::vector<const Expr*> operands;
      for (const ExprPtr& operand : expr.operands) {
        if (operand->type.is_tensor()) operands.push_back(operand.get());
      }
      return right_aligned(operands);
    }
  }
  result.resize(rank);
  return result;
}

std::vector<std::string> DeviceEmitter::LoopResultOrigins(const Stmt& loop,
                                                          const Expr& yielded) {
  std::vector<std::string> origins = Origins(yielded);
  for (std::string& origin : origins) {
    for (const Value& var : loop.vars) {
      if (origin == var.name) origin.clear();
    }
  }
  return origins;
}

int64_t DeviceEmitter::EmittedDimSize(int64_t size) const {
  return plan_.target->KernelBlockSize(size);
}

std::string DeviceEmitter::EmittedDimSymbol(const std::string& symbol) {
  const std::string size = DimSymbol(symbol);
  auto host = host_.symbol_values.find(symbol);
  if (host == host_.symbol_values.end() ||
      plan_.target->KernelBlockSizeText(host->second) == host->second) {
    return size;
  }
  return Kwarg(size + "_block",
               plan_.target->KernelBlockSizeText(host->second));
}

std::optional<std::string> DeviceEmitter::PaddedDimSize(const Expr& value,
                                                        int64_t axis) {
  if (!value.type.is_tensor() || axis < 0 ||
      axis >= static_cast<int64_t>(value.type.shape.size())) {
    return std::nullopt;
  }
  const Dim& dim = value.type.shape[axis];
  const std::string size =
      dim.is_static() ? fmt::format("{}", dim.size) : DimSymbol(dim.symbol);
  bool padded = false;
  if (dim.is_static()) {
    padded = EmittedDimSize(dim.size) != dim.size;
  } else if (auto host = host_.symbol_values.find(dim.symbol);
             host != host_.symbol_values.end()) {
    padded = plan_.target->KernelBlockSizeText(host->second) != host->second;
  }
  if (!padded) return std::nullopt;
  // A tile's dim is masked by the tile's own bounds (MaskIfRagged).
  std::vector<std::string> origins = Origins(value);
  if (axis < static_cast<int64_t>(origins.size()) &&
      plan_.FindTile(origins[axis]) != nullptr) {
    return std::nullopt;
  }
  return size;
}

std::optional<DeviceEmitter::RaggedBounds> DeviceEmitter::RaggedBoundsOf(
    const Expr& value, int64_t axis) {
  if (std::optional<std::string> size = PaddedDimSize(value, axis)) {
    return RaggedBounds{"0", *size};
  }
  std::vector<std::string> origins = Origins(value);
  if (axis < 0 || axis >= static_cast<int64_t>(origins.size())) {
    return std::nullopt;
  }
  const TileInfo* tile = plan_.FindTile(origins[axis]);
  bool active =
      tile != nullptr && (tile->is_grid || runtime_.count(tile->name) != 0);
  if (!active || !tile->maybe_partial) return std::nullopt;
  if (tile->jagged) return RaggedBounds{"", "", tile};
  return RaggedBounds{TileBegin(tile->name), TileLimit(tile->name)};
}

std::string DeviceEmitter::MaskIfRagged(const Expr& value, int64_t axis,
                                        std::string_view fill) {
  std::optional<RaggedBounds> bounds = RaggedBoundsOf(value, axis);
  if (!bounds) return Emit(value);
  if (bounds->jagged != nullptr) {
    return MaskJagged(Emit(value), axis, *bounds->jagged, std::string(fill));
  }
  return fmt::format("{}({}, {}, {}, {}, {})", state_.Mask(), Emit(value), axis,
                     bounds->begin, bounds->limit, fill);
}

std::string DeviceEmitter::ReductionInput(const Expr& input, int64_t axis,
                                          std::string_view fill) {
  return MaskIfRagged(input, axis, fill);
}

std::string DeviceEmitter::DotOperand(const Expr& operand, int64_t axis) {
  // Loads read zero-padded data, except along a grid tile (Pallas's edge
  // block is not padded: a contraction over the grid dim itself reads its
  // tail); computed operands may hold anything in a ragged tile's tail
  // (exp(0 - m) in attention), so they are masked.
  const Expr* base = &operand;
  // A jagged tile's loads read the neighbouring segments' rows: masked.
  for (const std::string& origin : Origins(operand)) {
    const TileInfo* tile = plan_.FindTile(origin);
    if (tile != nullptr && tile->jagged)
      return MaskIfRagged(operand, axis, "0");
  }
  while (base->op == OpKind::kCast || base->op == OpKind::kTranspose) {
    base = base->operands[0].get();
  }
  if (base->op == OpKind::kLoad ||
      (base->op == OpKind::kVar && loaded_values_.count(base->name))) {
    std::vector<std::string> origins = Origins(operand);
    const TileInfo* tile =
        axis >= 0 && axis < static_cast<int64_t>(origins.size())
            ? plan_.FindTile(origins[axis])
            : nullptr;
    if (tile == nullptr || !tile->is_grid) return Emit(operand);
  }
  return MaskIfRagged(operand, axis, "0");
}

}  // namespace tessera::pallas
