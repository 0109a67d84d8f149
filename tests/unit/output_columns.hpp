#pragma once
// Helpers of the eval tests (test_eval_stream.cpp, test_eval_pipeline.cpp):
// one column of an output file, read back whole.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck::test {

// Dataset `name` (a path inside the file) of an HDF5 file, as doubles.
inline std::vector<double> h5_column(const std::string& path, const std::string& name) {
  h5::File f = h5::open_file(path);
  return h5::read_doubles(h5::open_dataset(f.id(), name, path), path);
}

// Column `name` of a CSV file.
inline std::vector<double> csv_column(const std::string& path, const std::string& name) {
  CsvReader r(path);
  const int c = r.column(name);
  EXPECT_GE(c, 0) << name;
  std::vector<double> out, v;
  std::vector<std::string_view> cells;
  while (r.next(v, cells)) out.push_back(v[static_cast<size_t>(c)]);
  return out;
}

}  // namespace stribeck::test
