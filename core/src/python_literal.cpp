#include "tessera/python_literal.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace tessera {

std::string PythonFloatLiteral(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value))
    return value < 0 ? "float(\"-inf\")" : "float(\"inf\")";
  char buffer[64];
  // Shortest round-trip digits, as d.ddde[+-]XX.
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                    std::chars_format::scientific);
  if (error != std::errc()) return std::to_string(value);
  std::string text(buffer, end);
  std::string sign;
  if (!text.empty() && text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  size_t e_pos = text.find('e');
  std::string mantissa = text.substr(0, e_pos);
  int exponent = std::stoi(text.substr(e_pos + 1));
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  if (exponent >= -4 && exponent < 16) {
    const int point = exponent + 1;  // digits before the decimal point
    const int count = static_cast<int>(digits.size());
    if (point <= 0) {
      return sign + "0." + std::string(-point, '0') + digits;
    }
    if (point >= count) {
      return sign + digits + std::string(point - count, '0') + ".0";
    }
    return sign + digits.substr(0, point) + "." + digits.substr(point);
  }
  std::string result = sign + digits.substr(0, 1);
  if (digits.size() > 1) result += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  result += exponent < 0 ? "e-" : "e+";
  if (magnitude < 10) result += "0";
  result += std::to_string(magnitude);
  return result;
}

}  // namespace tessera
