// HDF5 log schema: round trip, results groups, and every kind of bad input
// named in issue 3 §5 (one-line error naming file, experiment, channel, index).
#include <gtest/gtest.h>

#include "h5_test_files.hpp"
#include "temp_dir.hpp"
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"

namespace stribeck {
namespace {

std::string temp_path(const std::string& name) {
  return stribeck::test::temp_dir() + "stribeck_log_" + std::to_string(::getpid()) + "_" + name;
}

data::Experiment make_experiment(const std::string& name, size_t n) {
  data::Experiment e;
  e.name = name;
  e.source = "memory";
  std::vector<double> t(n), v(n), f(n);
  for (size_t i = 0; i < n; ++i) {
    t[i] = 1e-3 * static_cast<double>(i);
    v[i] = std::sin(7.0 * t[i]);
    f[i] = 20.0 * std::tanh(v[i] / 1e-3) + 0.1 * static_cast<double>(i % 7);
  }
  e.channels = {{"time", t}, {"velocity", v}, {"force", f}};
  e.units = {{"time", "s"}, {"velocity", "m/s"}, {"force", "N"}};
  e.attributes = {{"rig", "test bench 2"}, {"specimen", "seal #4"}};
  return e;
}

// Expects InputError whose message contains every fragment.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> fragments) {
  test::expect_input_error(std::forward<F>(f), fragments);
}

// Writes a file with one group "exp" holding raw datasets built by `fill`.
template <class F>
std::string raw_h5(const std::string& name, F&& fill) {
  return test::raw_h5_file(temp_path(name), std::forward<F>(fill));
}

void dataset(hid_t g, const char* name, hid_t type, std::vector<double> v, const char* units,
             std::vector<hsize_t> dims = {}) {
  if (dims.empty()) dims = {v.size()};
  hid_t s = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t d = H5Dcreate2(g, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  if (units) data::h5::write_string_attribute(d, "units", units, "test");
  H5Sclose(s);
  H5Dclose(d);
}

TEST(DataLog, RoundTripKeepsEveryBitAndAttribute) {
  const std::string path = temp_path("roundtrip.h5");
  std::vector<data::Experiment> in = {make_experiment("run_1", 5000), make_experiment("pressure/3bar", 17)};
  data::Provenance p;
  p.command_line = "stribeck test";
  write_log(path, in, p);
  const auto out = data::read_log(path);
  ASSERT_EQ(out.size(), 2u);
  // Groups come back in name order: "pressure/3bar" < "run_1".
  EXPECT_EQ(out[0].name, "pressure/3bar");
  EXPECT_EQ(out[1].name, "run_1");
  for (const auto& e : out) {
    const data::Experiment& ref = e.name == "run_1" ? in[0] : in[1];
    EXPECT_EQ(e.channels, ref.channels);
    EXPECT_EQ(e.units, ref.units);
    EXPECT_EQ(e.attributes.at("rig"), "test bench 2");
    EXPECT_EQ(e.source, path);
  }
  std::remove(path.c_str());
}

TEST(DataLog, WrittenFileFollowsTheSchema) {
  const std::string path = temp_path("schema.h5");
  write_log(path, {make_experiment("a", 3000)}, data::Provenance{});
  data::h5::File f = data::h5::open_file(path);
  EXPECT_EQ(data::h5::read_string_attribute(f.id(), "schema", path), "stribeck-log/1");
  EXPECT_FALSE(data::h5::read_string_attribute(f.id(), "toolkit_version", path).empty());
  data::h5::Dataset force = data::h5::open_dataset(f.id(), "a/force", path);
  EXPECT_EQ(data::h5::read_string_attribute(force.id(), "units", path), "N");
  EXPECT_TRUE(data::h5::has_attribute(force.id(), "DIMENSION_LIST"));  // time attached as scale
  data::h5::Dataset time = data::h5::open_dataset(f.id(), "a/time", path);
  EXPECT_EQ(data::h5::read_string_attribute(time.id(), "CLASS", path), "DIMENSION_SCALE");
  data::h5::PropList dcpl(H5Dget_create_plist(force.id()));
  EXPECT_EQ(H5Pget_layout(dcpl.id()), H5D_CHUNKED);
  EXPECT_EQ(H5Pget_nfilters(dcpl.id()), 2);  // shuffle + deflate
  std::remove(path.c_str());
}

TEST(DataLog, FailedWriteLeavesNoFileAndKeepsOldContent) {
  const std::string path = temp_path("atomic.h5");
  write_log(path, {make_experiment("good", 10)}, data::Provenance{});
  data::Experiment bad = make_experiment("bad", 10);
  bad.channels["force"][3] = std::numeric_limits<double>::quiet_NaN();
  expect_error(
      [&] {
        write_log(path, {make_experiment("x", 10), bad}, data::Provenance{});
      },
      {"experiment 'bad'", "channel 'force'", "NaN", "index 3"});
  ASSERT_EQ(data::read_log(path).front().name, "good");
  std::remove(path.c_str());
}

TEST(DataLog, AppendResultsAddsAGroupAndLeavesChannelsAlone) {
  const std::string path = temp_path("append.h5");
  write_log(path, {make_experiment("run", 100)}, data::Provenance{});
  data::Results r;
  r.group = "results/sweep_1";
  r.datasets.push_back({"force", {2, 3}, {1, 2, 3, 4, 5, 6}, "N", "model force per trajectory"});
  r.attributes["model"] = "simscape_translational";
  r.provenance.command_line = "stribeck sweep x";
  r.provenance.device = "cpu";
  data::append_results(path, r);
  const auto exps = data::read_log(path);  // results group is not an experiment
  ASSERT_EQ(exps.size(), 1u);
  EXPECT_EQ(exps[0].channels, make_experiment("run", 100).channels);
  {
    data::h5::File f = data::h5::open_file(path);
    data::h5::Group g = data::h5::open_group(f.id(), "results/sweep_1", path);
    EXPECT_EQ(data::h5::read_string_attribute(g.id(), "kind", path), "results");
    EXPECT_EQ(data::h5::read_string_attribute(g.id(), "command_line", path), "stribeck sweep x");
    EXPECT_EQ(data::h5::read_string_attribute(g.id(), "model", path), "simscape_translational");
    data::h5::Dataset d = data::h5::open_dataset(g.id(), "force", path);
    EXPECT_EQ(data::h5::dataset_info(d, path).dims, (std::vector<hsize_t>{2, 3}));
    EXPECT_EQ(data::h5::read_doubles(d, path), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  }  // every handle closed: the file may be opened for writing again
  expect_error([&] { data::append_results(path, r); }, {"results/sweep_1", "already exists"});
  // Read back: the same datasets, shapes, units, attributes and provenance.
  const data::Results back = data::read_results(path, "results/sweep_1");
  ASSERT_EQ(back.datasets.size(), 1u);
  EXPECT_EQ(back.datasets[0].shape, (std::vector<unsigned long long>{2, 3}));
  EXPECT_EQ(back.datasets[0].values, r.datasets[0].values);
  EXPECT_EQ(back.datasets[0].units, "N");
  EXPECT_EQ(back.datasets[0].description, "model force per trajectory");
  EXPECT_EQ(back.attributes, r.attributes);
  EXPECT_EQ(back.provenance.command_line, "stribeck sweep x");
  EXPECT_EQ(data::list_results(path), (std::vector<std::string>{"results/sweep_1"}));
  expect_error([&] { data::read_results(path, "run"); }, {"'run'", "not a results group"});
  expect_error([&] { data::read_results(path, "nope"); }, {"'nope'", "does not exist"});
  // A bad dataset leaves no partial group behind.
  data::Results bad = r;
  bad.group = "results/sweep_2";
  bad.datasets.push_back({"x", {4}, {1, 2}, "", ""});
  expect_error([&] { data::append_results(path, bad); }, {"sweep_2", "'x'"});
  data::h5::File f2 = data::h5::open_file(path);
  EXPECT_FALSE(data::h5::has_child(f2.id(), "results/sweep_2"));
  std::remove(path.c_str());
}

TEST(DataLog, ReadConvertsUnitsToSI) {
  const std::string path = raw_h5("units.h5", [](hid_t g) {
    dataset(g, "time", H5T_IEEE_F64LE, {0, 10, 20}, "ms");
    dataset(g, "position", H5T_IEEE_F64LE, {1, 2, 3}, "mm");
    dataset(g, "pressure_a", H5T_IEEE_F32LE, {1, 2, 3}, "bar");
  });
  const auto e = data::read_log(path).at(0);
  EXPECT_EQ(e.name, "exp");
  EXPECT_EQ(e.channels.at("time"), (std::vector<double>{0, 0.01, 0.02}));
  EXPECT_DOUBLE_EQ(e.channels.at("position")[2], 0.003);
  EXPECT_EQ(e.channels.at("pressure_a"), (std::vector<double>{1e5, 2e5, 3e5}));
  EXPECT_EQ(e.units.at("pressure_a"), "Pa");
  std::remove(path.c_str());
}

TEST(DataLog, AbsolutePressureLogsAreReadAsGauge) {
  const std::string path = raw_h5("abs.h5", [](hid_t g) {
    dataset(g, "pressure_a", H5T_IEEE_F64LE, {2.0, 3.0}, "bar");
    dataset(g, "pressure_b", H5T_IEEE_F64LE, {1.5, 1.5}, "bara");  // unit says absolute too: once only
    data::h5::write_string_attribute(g, "pressure_reference", "absolute", "test");
    data::h5::write_double_attribute(g, "ambient_pressure", 0.98e5, "test");
  });
  const data::Experiment e = data::read_log(path).at(0);
  EXPECT_NEAR(e.channel("pressure_a")[0], 2e5 - 0.98e5, 1e-9);
  EXPECT_NEAR(e.channel("pressure_b")[0], 1.5e5 - 0.98e5, 1e-9);
  EXPECT_EQ(e.attributes.at("pressure_reference"), "gauge");
  std::remove(path.c_str());
}

TEST(DataLogBadInput, EachProblemIsNamedWithItsPlace) {
  struct Case {
    const char* name;
    void (*fill)(hid_t);
    std::initializer_list<const char*> expect;
  };
  const Case cases[] = {
      {"missing_units",
       [](hid_t g) {
         dataset(g, "force", H5T_IEEE_F64LE, {1, 2}, nullptr);
       },
       {"experiment 'exp'", "channel 'force'", "no 'units'"}},
      {"empty", [](hid_t g) { dataset(g, "force", H5T_IEEE_F64LE, {}, "N"); }, {"channel 'force'", "empty"}},
      {"unequal",
       [](hid_t g) {
         dataset(g, "time", H5T_IEEE_F64LE, {0, 1, 2}, "s");
         dataset(g, "force", H5T_IEEE_F64LE, {1, 2}, "N");
       },
       {"channel 'force'", "2 samples", "'time' has 3"}},
      {"nonmonotonic",
       [](hid_t g) {
         dataset(g, "time", H5T_IEEE_F64LE, {0, 1, 0.5, 2}, "s");
       },
       {"channel 'time'", "decreases at index 2"}},
      {"duplicate_time",
       [](hid_t g) {
         dataset(g, "time", H5T_IEEE_F64LE, {0, 1, 1}, "s");
       },
       {"channel 'time'", "repeats at index 2"}},
      {"nan",
       [](hid_t g) {
         dataset(g, "force", H5T_IEEE_F64LE, {1, std::nan(""), 3}, "N");
       },
       {"channel 'force'", "NaN at index 1"}},
      {"inf",
       [](hid_t g) {
         dataset(g, "force", H5T_IEEE_F64LE, {1, 2, HUGE_VAL}, "N");
       },
       {"channel 'force'", "Inf at index 2"}},
      {"unknown_unit",
       [](hid_t g) { dataset(g, "force", H5T_IEEE_F64LE, {1}, "furlong"); },
       {"channel 'force'", "unknown unit 'furlong'"}},
      {"wrong_dimension",
       [](hid_t g) { dataset(g, "velocity", H5T_IEEE_F64LE, {1}, "mm"); },
       {"channel 'velocity'", "unit 'mm' is length", "needs velocity"}},
      {"int_dtype",
       [](hid_t g) {
         dataset(g, "force", H5T_STD_I32LE, {1, 2}, "N");
       },
       {"channel 'force'", "int32", "expected float64"}},
      {"two_d",
       [](hid_t g) {
         dataset(g, "force", H5T_IEEE_F64LE, {1, 2, 3, 4}, "N", {2, 2});
       },
       {"channel 'force'", "2-D"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = raw_h5(std::string(c.name) + ".h5", c.fill);
    expect_error([&] { data::read_log(path); }, c.expect);
    expect_error([&] { data::read_log(path); }, {path.c_str()});
    std::remove(path.c_str());
  }
}

TEST(DataLogBadInput, NotHdf5TruncatedMissing) {
  const std::string text = temp_path("not.h5");
  std::ofstream(text) << "time,force\n0,1\n";
  expect_error([&] { data::read_log(text); }, {"not an HDF5 file"});
  expect_error([&] { data::read_log(temp_path("does_not_exist.h5")); }, {"does_not_exist.h5", "cannot open"});

  const std::string good = temp_path("trunc_src.h5");
  write_log(good, {make_experiment("run", 20000)}, data::Provenance{});
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t keep : {bytes.size() / 2, size_t(600), size_t(100)}) {
    const std::string cut = temp_path("trunc.h5");
    std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<long>(keep));
    expect_error([&] { data::read_log(cut); }, {cut.c_str()});
    std::remove(cut.c_str());
  }
  std::remove(good.c_str());
  std::remove(text.c_str());
}

TEST(DataLog, ReadingDoesNotModifyTheFile) {
  const std::string path = temp_path("ro.h5");
  write_log(path, {make_experiment("run", 100)}, data::Provenance{});
  auto slurp = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string before = slurp();
  data::read_log(path);
  data::read_any_log(path);
  EXPECT_EQ(slurp(), before);
  std::remove(path.c_str());
}

TEST(DataLog, HardLinkCyclesAreVisitedOnce) {
  const std::string path = raw_h5("cycle.h5", [](hid_t g) {
    dataset(g, "force", H5T_IEEE_F64LE, {1, 2}, "N");
    H5Lcreate_hard(g, ".", g, "again", H5P_DEFAULT, H5P_DEFAULT);  // exp/again is exp itself
  });
  const auto exps = data::read_log(path);
  ASSERT_EQ(exps.size(), 1u);
  EXPECT_EQ(exps[0].name, "exp");
  std::remove(path.c_str());
}

TEST(DataLog, WriteRefusesBadNames) {
  const std::string path = temp_path("names.h5");
  expect_error(
      [&] {
        write_log(path, {make_experiment("a", 3), make_experiment("a", 3)}, data::Provenance{});
      },
      {"'a' appears twice"});
  expect_error([&] { write_log(path, {make_experiment("/a", 3)}, data::Provenance{}); }, {"invalid group name '/a'"});
  expect_error([&] { write_log(path, {}, data::Provenance{}); }, {"no experiments"});
  data::Experiment e = make_experiment("a", 3);
  e.units.erase("force");
  expect_error([&] { write_log(path, {e}, data::Provenance{}); }, {"channel 'force'", "has no unit"});
  e = make_experiment("a", 3);
  e.units["velocity"] = "mm/s";
  expect_error([&] { write_log(path, {e}, data::Provenance{}); }, {"channel 'velocity'", "expected SI unit 'm/s'"});
  EXPECT_FALSE(std::ifstream(path).good());
}

TEST(DataLog, SelectExperiment) {
  std::vector<data::Experiment> v = {make_experiment("a", 3), make_experiment("b", 3)};
  EXPECT_EQ(data::select_experiment(v, "b", "f.h5").name, "b");
  expect_error([&] { data::select_experiment(v, "", "f.h5"); }, {"2 experiments", "a, b", "--experiment"});
  expect_error([&] { data::select_experiment(v, "c", "f.h5"); }, {"no experiment 'c'"});
}

}  // namespace
}  // namespace stribeck
