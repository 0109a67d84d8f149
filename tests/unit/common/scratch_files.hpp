#pragma once
// Files of a test's scratch directory (temp_dir.hpp): a file's bytes read
// and written whole, and a fresh directory per case.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.hpp"

namespace stribeck::test {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A fresh directory per case (temp_dir() + prefix + name), so "no temporary
// left" means "nothing but the files the case made".
inline std::string case_dir(const std::string& prefix, const std::string& name) {
  const std::string d = temp_dir() + prefix + name + "/";
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace stribeck::test
