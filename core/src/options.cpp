#include "tessera/options.h"

#include <charconv>
#include <cmath>

#include "fmt/format.h"
#include "ir/text_common.h"

namespace tessera {
namespace {

std::string QuoteTomlString(const std::string& text) {
  std::string out;
  text::AppendQuoted(out, text, text::ControlEscape::kUnicode);
  return out;
}

std::string TomlFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, ec == std::errc() ? end : buffer);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "bool";
    case OptionType::kInt:
      return "integer";
    case OptionType::kFloat:
      return "float";
    case OptionType::kString:
      return "string";
    case OptionType::kStringList:
      return "string list";
  }
  return "unknown";
}

OptionMap DefaultOptions(const std::vector<OptionSpec>& specs) {
  OptionMap map;
  for (const OptionSpec& spec : specs) map.Set(spec.name, spec.default_value);
  return map;
}

std::string OptionValueToString(const OptionValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&value)) {
    return std::to_string(*i);
  }
  if (const double* d = std::get_if<double>(&value)) return TomlFloat(*d);
  if (const std::string* s = std::get_if<std::string>(&value)) {
    return QuoteTomlString(*s);
  }
  const auto& list = std::get<std::vector<std::string>>(value);
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i != 0) out += ", ";
    out += QuoteTomlString(list[i]);
  }
  out += ']';
  return out;
}

}  // namespace tessera
