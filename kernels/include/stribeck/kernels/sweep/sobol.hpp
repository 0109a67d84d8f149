#pragma once
// Sobol' low-discrepancy points, point i computed directly (Gray-code order, so
// the unscrambled points equal scipy.stats.qmc.Sobol(scramble=False)), with
// optional seeded nested uniform (Owen) scrambling by Burley's hash
// (Burley 2020, "Practical Hash-based Owen Scrambling").
//
// Direction numbers: Joe & Kuo, new-joe-kuo-6.21201, dimensions 1..16
// (dimension 1 is van der Corput). Primitive polynomial degree s, coefficients
// a, initial m_1..m_s per dimension; the rest follow by the Bratley-Fox
// recurrence. Points are 32-bit: indices up to 2^32 - 1.
#include <cstdint>

#include "stribeck/kernels/config.hpp"

namespace stribeck::sweep {

constexpr int kSobolMaxDims = 16;

STRIBECK_HD_INLINE std::uint32_t reverse_bits32_generic(std::uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}

STRIBECK_HD_INLINE std::uint32_t reverse_bits32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __brev(x);
#else
  return reverse_bits32_generic(x);
#endif
}

// Nested uniform scrambling of a 32-bit fraction: each bit is flipped by a
// hash of the bits above it (Laine-Karras permutation with Burley's constants).
STRIBECK_HD_INLINE std::uint32_t owen_scramble(std::uint32_t x, std::uint32_t seed) {
  x = reverse_bits32(x);
  x += seed;
  x ^= x * 0x6c50b47cu;
  x ^= x * 0xb82f1e52u;
  x ^= x * 0xc7afe638u;
  x ^= x * 0x8d22f6e6u;
  return reverse_bits32(x);
}

// Unscrambled Sobol' coordinate d (0-based) of point i (Gray-code order), as a
// 32-bit fraction. Direction numbers are generated on the fly (a few hundred
// integer operations, once per parameter set) so no table lives in device memory.
STRIBECK_HD_INLINE std::uint32_t sobol_bits(std::uint64_t i, int d) {
  const std::uint64_t gray = i ^ (i >> 1);
  if (d == 0) return reverse_bits32_generic(static_cast<std::uint32_t>(gray));
  // s, a, m_1..m_6 for dimensions 2..16 (Joe-Kuo 6.21201).
  const std::uint8_t s_tab[15] = {1, 2, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6};
  const std::uint8_t a_tab[15] = {0, 1, 1, 2, 1, 4, 2, 4, 7, 11, 13, 14, 1, 13, 16};
  const std::uint8_t m_tab[15][6] = {{1},
                                     {1, 3},
                                     {1, 3, 1},
                                     {1, 1, 1},
                                     {1, 1, 3, 3},
                                     {1, 3, 5, 13},
                                     {1, 1, 5, 5, 17},
                                     {1, 1, 5, 5, 5},
                                     {1, 1, 7, 11, 19},
                                     {1, 1, 5, 1, 1},
                                     {1, 1, 1, 3, 11},
                                     {1, 3, 5, 5, 31},
                                     {1, 3, 3, 9, 7, 49},
                                     {1, 1, 1, 15, 21, 21},
                                     {1, 3, 1, 13, 27, 49}};
  const int s = s_tab[d - 1];
  const unsigned a = a_tab[d - 1];
  std::uint32_t v[32];
  std::uint32_t x = 0;
  for (int j = 0; j < 32 && (gray >> j) != 0; ++j) {
    if (j < s) {
      v[j] = std::uint32_t(m_tab[d - 1][j]) << (31 - j);
    } else {
      std::uint32_t w = v[j - s] ^ (v[j - s] >> s);
      for (int t = 1; t < s; ++t)
        if ((a >> (s - 1 - t)) & 1u) w ^= v[j - t];
      v[j] = w;
    }
    if ((gray >> j) & 1u) x ^= v[j];
  }
  return x;
}

}  // namespace stribeck::sweep
