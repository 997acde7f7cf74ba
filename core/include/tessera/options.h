// Options of frontends, passes and backends. A plugin declares its options
// (name, type, default, help, allowed choices); the core validates what the
// config file and the command line give against that declaration, reporting
// unknown keys and wrong types with file:line:col, and hands the plugin a
// resolved OptionMap in which every declared option has a value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera {

enum class OptionType : uint8_t { kBool, kInt, kFloat, kString, kStringList };
std::string_view OptionTypeName(OptionType type);  // "bool", "integer", ...

using OptionValue =
    std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::kString;
  OptionValue default_value;
  std::string help;
  // For kString: the allowed values (empty: any string).
  std::vector<std::string> choices;
};

// Resolved option values by name. Plugins read with the typed getters; a
// getter for an undeclared name or the wrong type returns the fallback.
class OptionMap {
 public:
  void Set(std::string name, OptionValue value) {
    values_[std::move(name)] = std::move(value);
  }
  bool Has(std::string_view name) const {
    return values_.find(std::string(name)) != values_.end();
  }
  const OptionValue* Find(std::string_view name) const {
    auto it = values_.find(std::string(name));
    return it == values_.end() ? nullptr : &it->second;
  }
  bool GetBool(std::string_view name, bool fallback = false) const {
    return Get<bool>(name, fallback);
  }
  int64_t GetInt(std::string_view name, int64_t fallback = 0) const {
    return Get<int64_t>(name, fallback);
  }
  double GetFloat(std::string_view name, double fallback = 0) const {
    return Get<double>(name, fallback);
  }
  std::string GetString(std::string_view name,
                        std::string fallback = {}) const {
    return Get<std::string>(name, std::move(fallback));
  }
  std::vector<std::string> GetStringList(std::string_view name) const {
    return Get<std::vector<std::string>>(name, {});
  }
  const std::map<std::string, OptionValue>& values() const { return values_; }

 private:
  template <typename T>
  T Get(std::string_view name, T fallback) const {
    const OptionValue* value = Find(name);
    if (value == nullptr) return fallback;
    if (const T* typed = std::get_if<T>(value)) return *typed;
    return fallback;
  }
  std::map<std::string, OptionValue> values_;
};

// A resolved map holding each spec's default.
OptionMap DefaultOptions(const std::vector<OptionSpec>& specs);
// "true", "42", "0.5", "\"v6e\"", "[\"a\", \"b\"]" (TOML spelling).
std::string OptionValueToString(const OptionValue& value);

}  // namespace tessera
