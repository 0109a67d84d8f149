#pragma once
// Helpers of the HDF5 log tests (test_data_log.cpp, test_log_blocks.cpp):
// a file written with raw HDF5 calls (anything a foreign tool may write),
// and the check of a one-line InputError.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <initializer_list>
#include <string>

#include "stribeck/data/error.hpp"

namespace stribeck::test {

// Writes `path` with one group "exp" holding raw datasets built by `fill`.
template <class F>
std::string raw_h5_file(const std::string& path, F&& fill) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(f, "exp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  fill(g);
  H5Gclose(g);
  H5Fclose(f);
  return path;
}

// Expects InputError whose message is one line containing every fragment.
template <class F, class S>
void expect_input_error(F&& f, std::initializer_list<S> fragments) {
  try {
    f();
    ADD_FAILURE() << "no InputError thrown";
  } catch (const data::InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in: " << msg;
  }
}

}  // namespace stribeck::test
