#pragma once
// Content hashes in the identities of runs (a sweep file's config identity,
// checked on resume and merge; an ensemble shard's identity, checked on
// merge): numbers are hashed by their bits, so equal means bit-identical.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "stribeck/kernels/sweep/rng.hpp"

namespace stribeck::workloads {

// Folds the bits of every value of v into h, in order.
inline std::uint64_t hash_doubles(std::uint64_t h, const std::vector<double>& v) {
  for (double x : v) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    h = sweep::mix64(h ^ bits);
  }
  return h;
}

// h as 16 lower-case hex digits.
inline std::string hex64(std::uint64_t h) {
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace stribeck::workloads
