// One 64-bit mixing step for hashes built from parts (state fingerprints, event labels).
#pragma once

#include <cstdint>

namespace weft {

/// Mixes `b` into the running hash `a` (a golden-ratio combine, then splitmix64's finaliser):
/// order-sensitive, and every bit of both affects every bit of the result.
inline std::uint64_t hash_mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace weft
