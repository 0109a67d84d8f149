#pragma once
// A scratch directory private to this test process, ending in '/'.
//
// CTest runs every test as its own process and `ctest -j` runs several at
// once (and two checkouts may run their suites side by side), so fixed names
// under ::testing::TempDir() collide. The directory is made on first use and
// removed when the process exits.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace stribeck::test {

// Never destroyed, so the exit handler can still read it.
inline std::string*& temp_dir_slot() {
  static std::string* dir = nullptr;
  return dir;
}

inline const std::string& temp_dir() {
  std::string*& dir = temp_dir_slot();
  if (!dir) {
    std::string pattern = ::testing::TempDir() + "stribeck_test_XXXXXX";
    if (!::mkdtemp(pattern.data())) std::abort();
    dir = new std::string(pattern + "/");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(*temp_dir_slot(), ec);
    });
  }
  return *dir;
}

// Writes `text` to the file `name` in temp_dir() and returns its path (the
// config files the CLI and ensemble tests read).
inline std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string p = temp_dir() + name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace stribeck::test
