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
  bool simple = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
  return simple ? text : "(" + text + ")";
}

}  // namespace tessera::pallas
