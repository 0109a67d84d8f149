#pragma once
// Helpers of the eval tests (test_eval_stream.cpp, test_eval_pipeline.cpp):
// one column of an output file, read back whole, and the LuGre reference
// the dynamic cases compare it with.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/experiment.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck::test {

// Dataset `name` (a path inside the file) of an HDF5 file, as doubles.
inline std::vector<double> h5_column(const std::string& path, const std::string& name) {
  data::h5::File f = data::h5::open_file(path);
  return data::h5::read_doubles(data::h5::open_dataset(f.id(), name, path), path);
}

// Column `name` of a CSV file.
inline std::vector<double> csv_column(const std::string& path, const std::string& name) {
  data::CsvReader r(path);
  const int c = r.column(name);
  EXPECT_GE(c, 0) << name;
  std::vector<double> out, v;
  std::vector<std::string_view> cells;
  while (r.next(v, cells)) out.push_back(v[static_cast<size_t>(c)]);
  return out;
}

// LuGre with `assign` stepped along e's time and velocity in one run from
// bristle state z0 (v_prev the first sample's): the force and z per sample.
struct LuGreReference {
  std::vector<double> force, z;
};
inline LuGreReference lugre_reference(const data::Experiment& e, const std::vector<std::string>& assign, double z0) {
  const auto p = workloads::resolve_params(workloads::require_model("lugre"), assign);
  const auto c = LuGre::prepare(p.data());
  LuGre::State<double> st{};
  st.z = z0;
  const auto& t = e.channel("time");
  const auto& v = e.channel("velocity");
  LuGreReference r{std::vector<double>(v.size()), std::vector<double>(v.size())};
  for (size_t i = 0; i < v.size(); ++i) {
    if (i == 0) st.v_prev = v[0];
    r.force[i] = model_step<LuGre>(c, Sample<double>{v[i], 0.0, 0.0, 0.0}, st, i ? t[i] - t[i - 1] : 0.0);
    r.z[i] = st.z;
  }
  return r;
}

}  // namespace stribeck::test
