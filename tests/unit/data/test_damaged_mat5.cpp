// A compressed MATLAB v5 element damaged at several offsets of each
// variable is refused by the reader in one line naming the file and the
// variable (issue 32; the campaign "damaged compressed inputs",
// docs/reliability.md), as is an intact stream shorter than its tag claims.
// (Every command on such inputs: tests/unit/cli/test_reliability_readers.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "damaged_mat5.hpp"
#include "scratch_files.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;
using test::flip;
using test::kChannels;
using test::signal;
using test::spit;
#ifdef STRIBECK_HAVE_MATIO
using test::element_bytes;
using test::kMatDamages;
using test::recompressed_short;
using test::write_mat5_compressed;
#endif

std::string case_dir(const std::string& name) { return test::case_dir("readers_", name); }

TEST(Readers, Mat5DamagedZlibStreamIsRefusedNamingFileAndVariable) {
#ifndef STRIBECK_HAVE_MATIO
  GTEST_SKIP() << "built without libmatio";
#else
  const std::string dir = case_dir("mat5_lib");
  const std::string good = dir + "good.mat";
  const auto starts = write_mat5_compressed(good);
  ASSERT_EQ(starts.size(), 3u);
  const auto exps = data::read_any_log(good);
  ASSERT_EQ(exps.size(), 1u);
  for (const auto& ch : kChannels) EXPECT_EQ(exps[0].channel(ch), signal(ch)) << ch;
  for (size_t v = 0; v < kChannels.size(); ++v)
    for (const auto& d : kMatDamages) {
      const std::string what = kChannels[v] + ", " + d.name;
      const std::string bad = dir + "bad.mat";
      fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
      flip(bad, starts[v] + 8 + d.at(element_bytes(good, starts[v])));
      std::string msg;
      try {
        data::read_any_log(bad);
      } catch (const data::InputError& e) {
        msg = e.what();
      }
      EXPECT_NE(msg.find(bad + ": variable " + (d.names_variable ? "'" + kChannels[v] + "'" : std::to_string(v + 1)) +
                         ": its compressed data is damaged"),
                std::string::npos)
          << what << ": " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  // Only the check differs: deflate decodes, zlib's Adler-32 refuses.
  const std::string bad = dir + "adler.mat";
  fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
  flip(bad, starts[2] + 8 + element_bytes(good, starts[2]) - 1, 1);
  std::string msg;
  try {
    data::read_any_log(bad);
  } catch (const data::InputError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("variable 'force': its compressed data is damaged (zlib: incorrect data check)"),
            std::string::npos)
      << msg;
  // An intact stream, 800 bytes (100 values) short of what the tag claims:
  // libmatio filled the last 100 values of `force` from its buffer.
  const std::string short_stream = dir + "short.mat";
  spit(short_stream, recompressed_short(good, starts[2], 800));
  msg.clear();
  try {
    data::read_any_log(short_stream);
  } catch (const data::InputError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("variable 'force': its compressed data is damaged (it inflates to 2464 bytes, its tag claims "
                     "3264)"),
            std::string::npos)
      << msg;
#endif
}

}  // namespace
}  // namespace stribeck
