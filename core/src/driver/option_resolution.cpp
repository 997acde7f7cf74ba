#include "driver/option_resolution.h"

#include "fmt/format.h"

namespace tessera {
namespace {

std::string FlagSuffix(const ConfigOption& option) {
  if (option.flag.empty()) return "";
  return fmt::format(" (from {})", option.flag);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  return joined;
}

// `value` converted to `type`, or nullopt when it does not fit. An integer
// is a valid float; nothing else converts.
std::optional<OptionValue> Convert(const OptionValue& value, OptionType type) {
  switch (type) {
    case OptionType::kBool:
      if (std::holds_alternative<bool>(value)) return value;
      break;
    case OptionType::kInt:
      if (std::holds_alternative<int64_t>(value)) return value;
      break;
    case OptionType::kFloat:
      if (std::holds_alternative<double>(value)) return value;
      if (const auto* integer = std::get_if<int64_t>(&value)) {
        return OptionValue(static_cast<double>(*integer));
      }
      break;
    case OptionType::kString:
      if (std::holds_alternative<std::string>(value)) return value;
      break;
    case OptionType::kStringList:
      if (std::holds_alternative<std::vector<std::string>>(value)) {
        return value;
      }
      break;
  }
  return std::nullopt;
}

std::string ArticleTypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "a boolean";
    case OptionType::kInt:
      return "an integer";
    case OptionType::kFloat:
      return "a float";
    case OptionType::kString:
      return "a string";
    case OptionType::kStringList:
      return "an array of strings";
  }
  return std::string(OptionTypeName(type));
}

}  // namespace

std::optional<OptionMap> ResolveOptions(const std::vector<OptionSpec>& specs,
                                        const std::vector<ConfigOption>& given,
                                        std::string_view owner,
                                        DiagnosticEngine& diagnostics) {
  OptionMap options = DefaultOptions(specs);
  bool ok = true;
  std::vector<std::string> known;
  for (const OptionSpec& spec : specs) known.push_back(spec.name);

  for (const ConfigOption& option : given) {
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& candidate : specs) {
      if (candidate.name == option.key) spec = &candidate;
    }
    if (spec == nullptr) {
      std::string message = fmt::format("unknown option '{}' for {}{}",
                                        option.key, owner, FlagSuffix(option));
      const std::string closest = ClosestName(option.key, known);
      if (!closest.empty()) {
        message += fmt::format("; did you mean '{}'?", closest);
      } else if (known.empty()) {
        message += fmt::format(" ({} has no options)", owner);
      } else {
        message += fmt::format(" (known options: {})", JoinNames(known));
      }
      diagnostics.Error(option.file, option.key_loc, std::move(message));
      ok = false;
      continue;
    }
    std::optional<OptionValue> value;
    if (option.value) value = Convert(*option.value, spec->type);
    if (!value) {
      diagnostics.Error(
          option.file, option.value_loc,
          fmt::format("option '{}' of {} must be {}, got {}{}", option.key,
                      owner, ArticleTypeName(spec->type), option.type_name,
                      FlagSuffix(option)));
      ok = false;
      continue;
    }
    if (!spec->choices.empty()) {
      const std::string& text = std::get<std::string>(*value);
      bool allowed = false;
      for (const std::string& choice : spec->choices) {
        if (choice == text) allowed = true;
      }
      if (!allowed) {
        std::string message = fmt::format(
            "invalid value '{}' for option '{}' of {}{} (expected one of: {})",
            text, option.key, owner, FlagSuffix(option),
            JoinNames(spec->choices));
        const std::string closest = ClosestName(text, spec->choices);
        if (!closest.empty()) {
          message += fmt::format("; did you mean '{}'?", closest);
        }
        diagnostics.Error(option.file, option.value_loc, std::move(message));
        ok = false;
        continue;
      }
    }
    options.Set(option.key, std::move(*value));
  }
  if (!ok) return std::nullopt;
  return options;
}

OptionMap UncheckedOptions(const std::vector<ConfigOption>& given) {
  OptionMap options;
  for (const ConfigOption& option : given) {
    if (option.value) options.Set(option.key, *option.value);
  }
  return options;
}

}  // namespace tessera
