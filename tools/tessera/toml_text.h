// TOML spellings of what `tessera pipeline` and `tessera tune` write.
#pragma once

#include <string>
#include <vector>

#include "tessera/options.h"

namespace tessera::cli {

// A TOML key: bare when it may be, quoted otherwise.
std::string TomlKey(const std::string& name);

inline std::string TomlString(const std::string& value) {
  return OptionValueToString(OptionValue(value));
}

inline std::string TomlStrings(const std::vector<std::string>& values) {
  return OptionValueToString(OptionValue(values));
}

}  // namespace tessera::cli
