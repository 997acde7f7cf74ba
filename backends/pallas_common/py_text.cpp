#include "py_text.h"

#include <algorithm>
#include <cctype>

#include "fmt/format.h"

namespace tessera::pallas {

bool IsNumber(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

// "a + b" with the obvious simplifications for literal zeros.
std::string AddText(const std::string& a, const std::string& b) {
  if (a.empty() || a == "0") return b.empty() ? "0" : b;
  if (b.empty() || b == "0") return a;
  if (IsNumber(a) && IsNumber(b)) {
    return fmt::format("{}", std::stoll(a) + std::stoll(b));
  }
  return fmt::format("{} + {}", a, b);
}

std::string MulText(const std::string& a, int64_t b) {
  if (a == "0" || b == 0) return "0";
  if (b == 1) return a;
  if (IsNumber(a)) return fmt::format("{}", std::stoll(a) * b);
  return fmt::format("{} * {}", a, b);
}

std::string Paren(const std::string& text) {
  // Names, attributes and subscripts with a plain index (`x.shape[2]`) bind
  // tighter than any operator.
  bool simple = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.' || c == '[' || c == ']';
  });
  return simple ? text : "(" + text + ")";
}

std::string ModuleImports(
    const std::string& code,
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::string imports;
  auto uses = [&](const std::string& module_name) {
    // `name.` preceded by no identifier character or dot; a plain search
    // (no std::regex: building one per module costs more than the rest of
    // the module's assembly).
    const std::string needle = module_name + ".";
    for (size_t at = code.find(needle); at != std::string::npos;
         at = code.find(needle, at + 1)) {
      const char before = at == 0 ? ' ' : code[at - 1];
      if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_' &&
          before != '.') {
        return true;
      }
    }
    return false;
  };
  if (uses("contextlib")) imports += "import contextlib\n";
  if (uses("functools")) imports += "import functools\n";
  if (uses("math")) imports += "import math\n";
  if (!imports.empty()) imports += "\n";
  if (uses("jax")) imports += "import jax\n";
  if (uses("jnp")) imports += "import jax.numpy as jnp\n";
  if (uses("pl")) imports += "from jax.experimental import pallas as pl\n";
  for (const auto& [alias, line] : extra) {
    if (uses(alias)) imports += line + "\n";
  }
  return imports;
}

}  // namespace tessera::pallas
