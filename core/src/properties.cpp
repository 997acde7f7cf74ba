#include "tessera/properties.h"

#include <array>

namespace tessera {
namespace {

constexpr std::array<std::string_view,
                     static_cast<size_t>(Property::kNumProperties)>
    kPropertyNames = {"ssa", "outlined", "pre_broadcast", "atomic_accumulated"};

}  // namespace

std::string_view PropertyName(Property property) {
  size_t index = static_cast<size_t>(property);
  return index < kPropertyNames.size() ? kPropertyNames[index] : "unknown";
}

std::optional<Property> PropertyByName(std::string_view name) {
  for (size_t i = 0; i < kPropertyNames.size(); ++i) {
    if (kPropertyNames[i] == name) return static_cast<Property>(i);
  }
  return std::nullopt;
}

std::vector<Property> PropertySet::ToVector() const {
  std::vector<Property> result;
  for (size_t i = 0; i < static_cast<size_t>(Property::kNumProperties); ++i) {
    if (Contains(static_cast<Property>(i))) {
      result.push_back(static_cast<Property>(i));
    }
  }
  return result;
}

std::string PropertySet::ToString() const {
  std::string result;
  for (Property property : ToVector()) {
    if (!result.empty()) result += ", ";
    result += PropertyName(property);
  }
  return result;
}

}  // namespace tessera
