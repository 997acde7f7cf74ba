#include "unicode_ident.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>

namespace tessera::helion_py {
namespace {

struct CodeRange {
  char32_t first;
  char32_t last;
};

#include "unicode_ident_table.inc"

template <size_t N>
bool InRanges(const CodeRange (&table)[N], char32_t code_point) {
  const CodeRange* it =
      std::upper_bound(std::begin(table), std::end(table), code_point,
                       [](char32_t value, const CodeRange& range) {
                         return value < range.first;
                       });
  return it != std::begin(table) && code_point <= std::prev(it)->last;
}

// CPython calls these "non-printable" in its message; showing them quoted
// would print nothing visible.
bool IsNonPrintable(char32_t c) {
  return c < 0x20 || (c >= 0x7f && c <= 0xa0) || c == 0xad || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
         (c >= 0x205f && c <= 0x206f) || c == 0x3000 || c == 0xfeff ||
         (c >= 0xfff9 && c <= 0xfffb) || (c >= 0xd800 && c <= 0xf8ff) ||
         c >= 0xf0000;
}

}  // namespace

size_t DecodeUtf8(std::string_view source, size_t pos, char32_t& code_point) {
  const auto byte = [&](size_t i) -> uint32_t {
    return pos + i < source.size() ? static_cast<unsigned char>(source[pos + i])
                                   : 0u;
  };
  const uint32_t lead = byte(0);
  size_t length = 0;
  char32_t minimum = 0;
  if (lead < 0x80) {
    code_point = lead;
    return pos < source.size() ? 1 : 0;
  } else if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code_point = lead & 0x1f;
    minimum = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code_point = lead & 0x0f;
    minimum = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code_point = lead & 0x07;
    minimum = 0x10000;
  } else {
    return 0;
  }
  for (size_t i = 1; i < length; ++i) {
    const uint32_t next = byte(i);
    if ((next & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (next & 0x3f);
  }
  if (code_point < minimum || code_point > 0x10ffff ||
      (code_point >= 0xd800 && code_point <= 0xdfff)) {
    return 0;
  }
  return length;
}

bool IsIdentifierStart(char32_t code_point) {
  return InRanges(kIdentStart, code_point);
}

bool IsIdentifierContinue(char32_t code_point) {
  return InRanges(kIdentContinue, code_point);
}

std::string InvalidCharacterMessage(char32_t code_point,
                                    std::string_view utf8) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "U+%04X", static_cast<unsigned>(code_point));
  if (IsNonPrintable(code_point)) {
    return "invalid non-printable character " + std::string(hex);
  }
  return "invalid character '" + std::string(utf8) + "' (" + hex + ")";
}

}  // namespace tessera::helion_py
