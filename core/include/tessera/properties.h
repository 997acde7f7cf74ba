// Properties of a module -- what passes require, produce and invalidate --
// are registered, not enumerated: a property is a name, a description and an
// optional verifier, registered by whoever defines it. The core registers
// its own two (`ssa`, `outlined`) before anything else; a plugin registers
// its own from its entry point (PluginRegistrar::AddProperty), so a pass
// built with the SDK declares and verifies properties without touching the
// core. The core owns the mechanism, never the instances (as MLIR's open
// registration of dialects and analyses).
//
// The registry is process-wide because the text format names properties
// (`module "k.py" properties [ssa, outlined]`) wherever a module is printed
// or parsed. Properties are never unregistered, like plugins are never
// unloaded.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera {

struct Module;
class VerificationReporter;

// Checks that `module` has a property, reporting each violation through
// `reporter` (tessera/ir/verifier.h). A plain function pointer: it crosses
// the plugin boundary and lives as long as the plugin, i.e. forever.
using PropertyVerifierFn = void (*)(const Module& module,
                                    VerificationReporter& reporter);

struct PropertyInfo {
  // As written in .tir headers and contracts: lower_snake_case.
  std::string name;
  std::string description;
  // Run by verify-each whenever a module claims the property; null when
  // the property has no checkable invariant.
  PropertyVerifierFn verifier = nullptr;
  // An analysis-like property that holds only for the exact IR it was
  // computed on: a pass that changes the IR drops it unless the pass
  // produces it again. Other properties stay until a pass invalidates them.
  bool dropped_by_any_change = false;
};

// A handle to a registered property: its index in the registry.
class Property {
 public:
  static constexpr uint32_t kMaxProperties = 64;

  constexpr Property() = default;
  static constexpr Property FromIndex(uint32_t index) {
    Property property;
    property.index_ = static_cast<uint8_t>(index);
    return property;
  }
  constexpr bool valid() const { return index_ < kMaxProperties; }
  constexpr uint32_t index() const { return index_; }
  // The registered name ("ssa"); "<invalid>" for an invalid handle.
  std::string_view name() const;
  const PropertyInfo& info() const;  // valid handles only

  friend constexpr bool operator==(Property a, Property b) {
    return a.index_ == b.index_;
  }

 private:
  uint8_t index_ = 0xff;
};

// The core's own properties, registered before any plugin loads.
//  ssa:      every name is defined exactly once and its definition
//            dominates each use; loops carry state through iter_args /
//            yield / results and `if` merges through results.
//  outlined: no kernel functions remain: each kernel is a host function
//            that launches a device function; device functions have no
//            free variables and refer to no value of another function.
inline constexpr Property kSsaProperty = Property::FromIndex(0);
inline constexpr Property kOutlinedProperty = Property::FromIndex(1);

// Registers a property and returns its handle. Registering the same name
// again with the same description returns the first handle (a plugin may
// be loaded into several registries, or its implementation linked into a
// test as well); the same name with another description, an empty or
// malformed name, or a full registry is an error saying so.
absl::StatusOr<Property> RegisterProperty(PropertyInfo info);
std::optional<Property> FindProperty(std::string_view name);
// Every registered property, in registration order (the core's first).
std::vector<Property> RegisteredProperties();
std::vector<std::string> RegisteredPropertyNames();

// A set of properties (a bit set over handles; plain data, safe across
// plugins).
class PropertySet {
 public:
  constexpr PropertySet() = default;
  constexpr PropertySet(std::initializer_list<Property> properties) {
    for (Property p : properties) Insert(p);
  }
  constexpr void Insert(Property p) { bits_ |= Bit(p); }
  constexpr void Erase(Property p) { bits_ &= ~Bit(p); }
  constexpr bool Contains(Property p) const { return (bits_ & Bit(p)) != 0; }
  constexpr bool ContainsAll(PropertySet other) const {
    return (bits_ & other.bits_) == other.bits_;
  }
  constexpr PropertySet Union(PropertySet other) const {
    return FromBits(bits_ | other.bits_);
  }
  constexpr PropertySet Minus(PropertySet other) const {
    return FromBits(bits_ & ~other.bits_);
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint64_t bits() const { return bits_; }
  // The core's properties first (ssa, outlined), then the others by name,
  // so that printed IR does not depend on the order plugins loaded in.
  std::vector<Property> ToVector() const;
  // "ssa, outlined" (ToVector's order); "" when empty.
  std::string ToString() const;

  friend constexpr bool operator==(PropertySet a, PropertySet b) {
    return a.bits_ == b.bits_;
  }

 private:
  static constexpr uint64_t Bit(Property p) {
    return p.valid() ? uint64_t{1} << p.index() : 0;
  }
  static constexpr PropertySet FromBits(uint64_t bits) {
    PropertySet set;
    set.bits_ = bits;
    return set;
  }
  uint64_t bits_ = 0;
};

// How a pass or backend names a property in its contract: by the handle
// its own registration returned, or by name for a property another plugin
// registers. Names are resolved against the registry when the pipeline is
// resolved; an unknown one is reported at the config line naming the pass.
class PropertyRef {
 public:
  PropertyRef(Property property) : name_(property.name()) {}  // NOLINT
  PropertyRef(std::string name) : name_(std::move(name)) {}   // NOLINT
  PropertyRef(const char* name) : name_(name) {}              // NOLINT
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};
using PropertyRefs = std::vector<PropertyRef>;

// The handles of `refs`; the names no property is registered under go to
// `unknown` (when given) and are left out.
PropertySet ResolveProperties(const PropertyRefs& refs,
                              std::vector<std::string>* unknown = nullptr);

}  // namespace tessera
