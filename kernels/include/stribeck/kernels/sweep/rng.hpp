#pragma once
// Counter-based randomness for sweep designs: every draw is a pure function of
// (seed, point index, dimension), so point i is computed on the fly on any
// thread of any device, and shards, resumes and GPU/CPU runs see the same
// numbers without sharing a generator state.
#include <cstdint>

#include "stribeck/kernels/config.hpp"

namespace stribeck::sweep {

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer
// whose output passes BigCrush when fed a counter.
STRIBECK_HD_INLINE std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// 64 random bits for (seed, a, b).
STRIBECK_HD_INLINE std::uint64_t hash3(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return mix64(mix64(mix64(seed) ^ a) ^ (b * 0xd1342543de82ef95ull));
}

// Uniform double in [0, 1) from the top 53 bits.
STRIBECK_HD_INLINE double to_unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// A seeded bijection of [0, n) (n >= 1): a balanced Feistel network on the
// smallest even number of bits covering n, with cycle walking to stay inside
// [0, n). Expected walks per call < 4, never materialises the permutation.
STRIBECK_HD_INLINE std::uint64_t permute_index(std::uint64_t i, std::uint64_t n, std::uint64_t key) {
  if (n <= 1) return 0;
  int bits = 0;
  while (bits < 64 && (std::uint64_t(1) << bits) < n) ++bits;
  if (bits & 1) ++bits;
  if (bits < 2) bits = 2;
  const int half = bits / 2;
  const std::uint64_t mask = (half == 32) ? 0xffffffffull : ((std::uint64_t(1) << half) - 1);
  std::uint64_t x = i;
  do {
    std::uint64_t l = x >> half, r = x & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t f = hash3(key, r, round) & mask;
      const std::uint64_t nl = r;
      r = l ^ f;
      l = nl;
    }
    x = (l << half) | r;
  } while (x >= n);
  return x;
}

}  // namespace stribeck::sweep
