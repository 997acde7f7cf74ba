// Every property a pass can require, produce or invalidate, declared in one
// place (as PyPTO's pass_properties.h does). Each property has a verifier in
// the core (tessera/ir/verifier.h) that the pass manager runs after a pass that
// claims to produce it. Passes refer to properties, never to each other.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

enum class Property : uint8_t {
  // Every name is defined exactly once and its definition dominates each
  // use; loops carry state through iter_args / yield / results and `if`
  // merges through results.
  kSSA,
  // No kernel functions remain: each kernel is a host function that launches
  // a device function; device functions have no free variables and refer to
  // no value of another function.
  kOutlined,
  // Loop-carried row statistics that meet a wider operand are carried with a
  // trailing lane dim; `x[..., None]` on them has been removed.
  kPreBroadcast,
  // Every atomic in a device function targets a VMEM scratch accumulator,
  // with its load-on-first / write-back-on-last cells made explicit.
  kAtomicAccumulated,

  kNumProperties,
};

std::string_view PropertyName(Property property);  // "ssa", "outlined", ...
std::optional<Property> PropertyByName(std::string_view name);

// A small set of properties (a bit set; plain data, safe across plugins).
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
  constexpr uint32_t bits() const { return bits_; }
  std::vector<Property> ToVector() const;
  // "ssa, outlined" (declaration order); "" when empty.
  std::string ToString() const;

  friend constexpr bool operator==(PropertySet a, PropertySet b) {
    return a.bits_ == b.bits_;
  }

 private:
  static constexpr uint32_t Bit(Property p) {
    return uint32_t{1} << static_cast<uint32_t>(p);
  }
  static constexpr PropertySet FromBits(uint32_t bits) {
    PropertySet set;
    set.bits_ = bits;
    return set;
  }
  uint32_t bits_ = 0;
};

}  // namespace tessera
