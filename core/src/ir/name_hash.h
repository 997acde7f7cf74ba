// A fast hash for value names (short identifiers such as "acc3" or "tm"),
// for the symbol tables of the parser, printer and verifier.
//
// absl's default hash of a std::string_view goes through std::hash (Debian's
// abseil has its own string_view type), which costs more than the rest of
// a lookup. This one reads the name in at most a few unaligned words and
// mixes them with a 64x64->128 multiply (as wyhash does), which spreads the
// bits well enough for absl's swiss tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tessera::text {

struct NameHash {
  size_t operator()(std::string_view name) const {
    const char* data = name.data();
    const size_t size = name.size();
    uint64_t a = 0;
    uint64_t b = 0;
    if (size >= 8) {
      // Whole words, then the last 8 bytes (overlapping the previous word).
      uint64_t state = kSeed ^ size;
      size_t i = 0;
      for (; i + 8 < size; i += 8) state = Mix(state ^ Load64(data + i), kMul);
      return static_cast<size_t>(Mix(state ^ Load64(data + size - 8), kMul));
    }
    if (size >= 4) {
      a = Load32(data);
      b = Load32(data + size - 4);
    } else if (size > 0) {
      a = static_cast<unsigned char>(data[0]);
      b = (static_cast<uint64_t>(static_cast<unsigned char>(data[size / 2]))
           << 8) |
          (static_cast<uint64_t>(static_cast<unsigned char>(data[size - 1]))
           << 16);
    }
    return static_cast<size_t>(Mix(kSeed ^ size ^ (a << 32 | b), kMul));
  }

 private:
  static constexpr uint64_t kSeed = 0xa0761d6478bd642full;
  static constexpr uint64_t kMul = 0xe7037ed1a0b428dbull;

  static uint64_t Mix(uint64_t x, uint64_t y) {
    const unsigned __int128 product =
        static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(y);
    return static_cast<uint64_t>(product) ^
           static_cast<uint64_t>(product >> 64);
  }
  static uint64_t Load64(const char* p) {
    uint64_t value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  static uint64_t Load32(const char* p) {
    uint32_t value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
};

}  // namespace tessera::text
