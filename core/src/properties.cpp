#include "tessera/properties.h"

#include <algorithm>

#include "fmt/format.h"
#include "verifier/core_properties.h"

namespace tessera {
namespace {

// Properties live at stable addresses (the vector never grows past the
// capacity it reserves), so names and infos can be handed out by reference.
class PropertyRegistry {
 public:
  PropertyRegistry() {
    infos_.reserve(Property::kMaxProperties);
    infos_.push_back(verifier::SsaPropertyInfo());
    infos_.push_back(verifier::OutlinedPropertyInfo());
    core_count_ = infos_.size();
  }

  absl::StatusOr<Property> Register(PropertyInfo info) {
    if (!IsWellFormedName(info.name)) {
      return absl::InvalidArgumentError(fmt::format(
          "property name '{}' is not lower_snake_case ([a-z][a-z0-9_]*)",
          info.name));
    }
    if (std::optional<Property> existing = Find(info.name)) {
      if (infos_[existing->index()].description == info.description) {
        return *existing;
      }
      return absl::AlreadyExistsError(fmt::format(
          "property '{}' is already registered with another description",
          info.name));
    }
    if (infos_.size() == Property::kMaxProperties) {
      return absl::ResourceExhaustedError(
          fmt::format("cannot register property '{}': the registry holds at "
                      "most {} properties",
                      info.name, Property::kMaxProperties));
    }
    infos_.push_back(std::move(info));
    return Property::FromIndex(static_cast<uint32_t>(infos_.size() - 1));
  }

  std::optional<Property> Find(std::string_view name) const {
    for (size_t i = 0; i < infos_.size(); ++i) {
      if (infos_[i].name == name) {
        return Property::FromIndex(static_cast<uint32_t>(i));
      }
    }
    return std::nullopt;
  }

  const PropertyInfo* Get(Property property) const {
    return property.index() < infos_.size() ? &infos_[property.index()]
                                            : nullptr;
  }
  size_t size() const { return infos_.size(); }
  bool IsCore(Property property) const {
    return property.index() < core_count_;
  }

 private:
  static bool IsWellFormedName(std::string_view name) {
    if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
  }

  std::vector<PropertyInfo> infos_;
  size_t core_count_ = 0;
};

PropertyRegistry& Registry() {
  static PropertyRegistry registry;
  return registry;
}

}  // namespace

std::string_view Property::name() const {
  const PropertyInfo* info = Registry().Get(*this);
  return info != nullptr ? std::string_view(info->name) : "<invalid>";
}

const PropertyInfo& Property::info() const { return *Registry().Get(*this); }

absl::StatusOr<Property> RegisterProperty(PropertyInfo info) {
  return Registry().Register(std::move(info));
}

std::optional<Property> FindProperty(std::string_view name) {
  return Registry().Find(name);
}

std::vector<Property> RegisteredProperties() {
  std::vector<Property> result;
  for (size_t i = 0; i < Registry().size(); ++i) {
    result.push_back(Property::FromIndex(static_cast<uint32_t>(i)));
  }
  return result;
}

std::vector<std::string> RegisteredPropertyNames() {
  std::vector<std::string> names;
  for (Property property : RegisteredProperties()) {
    names.emplace_back(property.name());
  }
  return names;
}

std::vector<Property> PropertySet::ToVector() const {
  std::vector<Property> result;
  for (Property property : RegisteredProperties()) {
    if (Contains(property)) result.push_back(property);
  }
  const PropertyRegistry& registry = Registry();
  std::stable_sort(result.begin(), result.end(), [&](Property a, Property b) {
    const bool a_core = registry.IsCore(a);
    const bool b_core = registry.IsCore(b);
    if (a_core != b_core) return a_core;
    if (a_core) return a.index() < b.index();
    return a.name() < b.name();
  });
  return result;
}

std::string PropertySet::ToString() const {
  std::string result;
  for (Property property : ToVector()) {
    if (!result.empty()) result += ", ";
    result += property.name();
  }
  return result;
}

PropertySet ResolveProperties(const PropertyRefs& refs,
                              std::vector<std::string>* unknown) {
  PropertySet set;
  for (const PropertyRef& ref : refs) {
    if (std::optional<Property> property = FindProperty(ref.name())) {
      set.Insert(*property);
    } else if (unknown != nullptr) {
      unknown->push_back(ref.name());
    }
  }
  return set;
}

}  // namespace tessera
