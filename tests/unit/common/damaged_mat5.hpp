#pragma once
// Inputs of the readers' reliability cases (issue 32; the library's:
// tests/unit/data/test_damaged_mat5.cpp, through every command:
// tests/unit/cli/test_reliability_readers.cpp): the signals every input
// holds, bytes flipped at fixed offsets, and compressed MATLAB v5 files
// written by libmatio with their elements found, cut short and damaged.
#include <gtest/gtest.h>
#include <zlib.h>

#ifdef STRIBECK_HAVE_MATIO
#include <matio.h>
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "scratch_files.hpp"

namespace stribeck::test {

// The signals every input holds: a Stribeck-like curve over a sine of
// velocity, 400 samples at 1 kHz.
inline constexpr std::size_t kSamples = 400;
inline std::vector<double> signal(const std::string& name) {
  std::vector<double> v(kSamples);
  for (size_t i = 0; i < kSamples; ++i) {
    const double t = static_cast<double>(i) * 1e-3, vel = 0.05 * std::sin(2 * M_PI * 5 * t);
    v[i] = name == "time" ? t : name == "velocity" ? vel : 100 * std::tanh(vel / 1e-3) + 200 * vel;
  }
  return v;
}
inline const std::vector<std::string> kChannels = {"time", "velocity", "force"};

// Flips `n` bytes of `path` from `offset` on.
inline void flip(const std::string& path, std::uint64_t offset, std::size_t n = 4) {
  std::string b = slurp(path);
  ASSERT_LE(offset + n, b.size());
  for (size_t i = 0; i < n; ++i) b[offset + i] = static_cast<char>(b[offset + i] ^ 0xA5);
  spit(path, b);
}

#ifdef STRIBECK_HAVE_MATIO
// A compressed v7 file (MATLAB's default) of the three signals as column
// vectors, written by libmatio; returns where each variable's element starts.
inline std::vector<std::uint64_t> write_mat5_compressed(const std::string& path) {
  mat_t* mat = Mat_CreateVer(path.c_str(), nullptr, MAT_FT_MAT5);
  for (const auto& ch : kChannels) {
    std::vector<double> v = signal(ch);
    size_t dims[2] = {v.size(), 1};
    matvar_t* var = Mat_VarCreate(ch.c_str(), MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, v.data(), 0);
    Mat_VarWrite(mat, var, MAT_COMPRESSION_ZLIB);
    Mat_VarFree(var);
  }
  Mat_Close(mat);
  const std::string b = slurp(path);
  std::vector<std::uint64_t> starts;
  for (std::uint64_t off = 128; off + 8 <= b.size();) {
    std::uint32_t type = 0, nbytes = 0;
    std::memcpy(&type, b.data() + off, 4);
    std::memcpy(&nbytes, b.data() + off + 4, 4);
    EXPECT_EQ(type, 15u) << "not a compressed element at " << off;
    starts.push_back(off);
    off += 8 + nbytes;
  }
  EXPECT_EQ(starts.size(), kChannels.size());
  return starts;
}

inline std::uint32_t element_bytes(const std::string& path, std::uint64_t start) {
  const std::string b = slurp(path);
  std::uint32_t nbytes = 0;
  std::memcpy(&nbytes, b.data() + start + 4, 4);
  return nbytes;
}

// `good` with the last variable's content cut by `cut` bytes before it is
// compressed again: an intact zlib stream of fewer bytes than the
// variable's tag claims (a writer that stopped early).
inline std::string recompressed_short(const std::string& good, std::uint64_t start, size_t cut) {
  const std::string b = slurp(good);
  const std::uint32_t nbytes = element_bytes(good, start);
  std::vector<unsigned char> raw(1 << 16);
  uLongf got = static_cast<uLongf>(raw.size());
  EXPECT_EQ(uncompress(raw.data(), &got, reinterpret_cast<const Bytef*>(b.data() + start + 8), nbytes), Z_OK);
  EXPECT_GT(got, cut);
  std::vector<unsigned char> packed(compressBound(got));
  uLongf size = static_cast<uLongf>(packed.size());
  EXPECT_EQ(compress2(packed.data(), &size, raw.data(), got - cut, 6), Z_OK);
  const std::uint32_t tag[2] = {15, static_cast<std::uint32_t>(size)};
  return b.substr(0, start) + std::string(reinterpret_cast<const char*>(tag), 8) +
         std::string(reinterpret_cast<const char*>(packed.data()), size) + b.substr(start + 8 + nbytes);
}

// Where in a compressed element the damage goes: the zlib header, the
// start of the deflate data (the variable's name), its middle, the Adler-32
// check at its end (the deflate data intact: only the check finds it).
struct Damage {
  const char* name;
  std::function<std::uint64_t(std::uint32_t nbytes)> at;  // offset in the zlib stream
  bool names_variable;                                    // the name inflates before the damage
};
inline const std::vector<Damage> kMatDamages = {
    {"zlib header", [](std::uint32_t) { return 0; }, false},
    {"stream start", [](std::uint32_t) { return 2; }, false},
    {"stream middle", [](std::uint32_t n) { return n / 2; }, true},
    {"adler-32", [](std::uint32_t n) { return n - 4; }, true},
};
#endif

}  // namespace stribeck::test
