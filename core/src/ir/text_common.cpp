#include "ir/text_common.h"

#include <charconv>
#include <cmath>

#include "fmt/format.h"

namespace tessera::text {

// The printer asks for every name it writes, so the words are grouped by
// length (one switch, then at most a dozen short compares) instead of
// hashing the name. The dtype names are reserved too.
bool IsReservedWord(std::string_view word) {
  auto any_of = [word](std::initializer_list<std::string_view> words) {
    for (std::string_view candidate : words) {
      if (candidate == word) return true;
    }
    return false;
  };
  switch (word.size()) {
    case 2:
      return any_of({"if", "in", "i8"});
    case 3:
      return any_of(
          {"inf", "nan", "ref", "for", "i16", "i32", "i64", "f16", "f32"});
    case 4:
      return any_of({"true", "None", "tile", "none", "else", "iter", "func",
                     "dims", "strs", "grid", "bool", "bf16"});
    case 5:
      return any_of({"false", "store", "yield", "range"});
    case 6:
      return any_of({"launch", "atomic", "return", "module", "scalar"});
    case 10:
      return word == "properties";
    default:
      return false;
  }
}

bool IsIdentifier(std::string_view text) {
  if (text.empty()) return false;
  auto is_start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!is_start(text[0])) return false;
  for (char c : text) {
    if (!is_start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsTypeStart(std::string_view word) {
  return word == "ref" || word == "tile" || word == "none" ||
         ParseDType(word).has_value();
}

void AppendQuoted(std::string& out, std::string_view text,
                  ControlEscape control) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 ||
            static_cast<unsigned char>(c) == 0x7f) {
          out += fmt::format(
              fmt::runtime(control == ControlEscape::kHexByte ? "\\x{:02x}"
                                                              : "\\u{:04x}"),
              static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool IsBareName(std::string_view name) {
  return IsIdentifier(name) && !IsReservedWord(name);
}

void AppendName(std::string& out, std::string_view name) {
  if (IsBareName(name)) {
    out += name;
  } else {
    AppendQuoted(out, name);
  }
}

void AppendDouble(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string_view text(buffer, ec == std::errc() ? end - buffer : 0);
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void AppendInt(std::string& out, int64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

void AppendDim(std::string& out, const Dim& dim) {
  if (dim.is_static()) {
    AppendInt(out, dim.size);
  } else if (dim.symbol.empty()) {
    out += '?';
  } else {
    AppendName(out, dim.symbol);
  }
}

namespace {
void AppendShape(std::string& out, const Shape& shape) {
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ", ";
    AppendDim(out, shape[i]);
  }
  out += ']';
}
}  // namespace

void AppendType(std::string& out, const Type& type) {
  switch (type.kind) {
    case TypeKind::kNone:
      out += "none";
      return;
    case TypeKind::kScalar:
      out += DTypeName(type.dtype);
      return;
    case TypeKind::kTensor:
      out += DTypeName(type.dtype);
      AppendShape(out, type.shape);
      return;
    case TypeKind::kRef:
      out += "ref<";
      out += DTypeName(type.dtype);
      AppendShape(out, type.shape);
      out += '>';
      return;
    case TypeKind::kTile:
      out += "tile<";
      if (type.shape.empty()) {
        out += '?';
      } else {
        AppendDim(out, type.shape[0]);
      }
      out += '>';
      return;
  }
}

}  // namespace tessera::text
