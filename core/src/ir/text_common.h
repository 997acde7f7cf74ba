// Spelling rules shared by the IR printer and parser (docs/ir.md): which
// names print bare, how strings, floats and dims are written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tessera/ir/types.h"

// Internal to the core library: hidden, so calls are direct rather than
// through the PLT.
#pragma GCC visibility push(hidden)

namespace tessera::text {

// Words that would be read as something else where a name can stand; names
// spelled like them (or not identifiers at all) print as quoted strings.
bool IsReservedWord(std::string_view word);
bool IsIdentifier(std::string_view text);
// True for the words a type can start with (dtype names, ref, tile, none).
bool IsTypeStart(std::string_view word);

// A plain identifier that is not a reserved word: it prints bare.
bool IsBareName(std::string_view name);
// Appends `name` bare when IsBareName, else quoted.
void AppendName(std::string& out, std::string_view name);
// How a quoted string spells other control characters: `\x1f` (the IR
// text) or `\u001f` (TOML).
enum class ControlEscape { kHexByte, kUnicode };
void AppendQuoted(std::string& out, std::string_view text,
                  ControlEscape control = ControlEscape::kHexByte);
// Shortest text that reads back as the same double; always contains '.',
// 'e', "inf" or "nan" so it is never taken for an integer.
void AppendDouble(std::string& out, double value);
// Decimal, as std::to_string writes it, without a temporary string.
void AppendInt(std::string& out, int64_t value);
void AppendDim(std::string& out, const Dim& dim);
void AppendType(std::string& out, const Type& type);

}  // namespace tessera::text

#pragma GCC visibility pop
