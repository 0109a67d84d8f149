#pragma once
// Logs for the tests of eval's pipeline (the library's:
// tests/unit/workloads/test_eval_pipeline.cpp; `stribeck eval` on a full
// disk: tests/unit/cli/test_eval_pipeline.cpp): a trace through zero
// written as one experiment with chunks of a given size, and the files a
// run leaves beside its output.
#include <hdf5.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "temp_dir.hpp"

namespace stribeck::test {

inline std::string pipe_dir(const std::string& name) {
  const std::string d = test::temp_dir() + "pipeline_" + name + "/";
  std::filesystem::create_directories(d);
  return d;
}

inline std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bool bits_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

struct Channels {
  std::vector<double> t, v, pa, pb;
};

// A trace through zero with pressures following it; `si`: stored in SI (the
// reader's chunk decoder and the writer's stored copy), else in mm/s and bar
// (converted on the way in, written block by block).
inline Channels trace(size_t n, bool si) {
  Channels c;
  c.t.resize(n);
  c.v.resize(n);
  c.pa.resize(n);
  c.pb.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = 1e-3 * static_cast<double>(i);
    const double v = 0.2 * std::sin(2 * M_PI * 0.7 * t) * (1 + 0.1 * std::sin(7.0 * t));  // m/s
    c.t[i] = t;
    c.v[i] = si ? v : 1e3 * v;
    c.pa[i] = si ? 5e6 + 2e6 * v : 50.0 + 20.0 * v;
    c.pb[i] = si ? 3e6 - 1e6 * std::cos(3.0 * t) : 30.0 - 10.0 * std::cos(3.0 * t);
  }
  return c;
}

// Writes the channels as one experiment "run" (chunks of `chunk` rows,
// shuffle + deflate).
inline std::string write_log(const std::string& path, const Channels& c, bool si, hsize_t chunk) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(f, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  auto put = [&](const char* name, const std::vector<double>& x, const char* unit) {
    hsize_t dims[1] = {x.size()}, ch[1] = {std::min<hsize_t>(chunk, x.size())};
    hid_t s = H5Screate_simple(1, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, ch);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
    hid_t d = H5Dcreate2(g, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
    data::h5::write_string_attribute(d, "units", unit, "test");
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
  };
  put("time", c.t, "s");
  put("velocity", c.v, si ? "m/s" : "mm/s");
  put("pressure_a", c.pa, si ? "Pa" : "bar");
  put("pressure_b", c.pb, si ? "Pa" : "bar");
  H5Gclose(g);
  H5Fclose(f);
  return path;
}

// Files left in `dir` other than `keep` (an output or a temporary).
inline std::vector<std::string> files_besides(const std::string& dir, const std::vector<std::string>& keep) {
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) left.push_back(name);
  }
  return left;
}

}  // namespace stribeck::test
