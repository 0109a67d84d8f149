// Block reading and writing of HDF5 logs (data/log_blocks.hpp): blocks of any
// size concatenated equal read_log bit for bit (units converted the same
// way), the checks read_log makes are made per block, and the block writer
// produces a log that read_log / read_results read back, atomically.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <thread>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "h5_test_files.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

std::string temp_path(const std::string& name) { return test::temp_dir() + "blocks_" + name; }

bool exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

template <class F>
void expect_error(F&& f, std::initializer_list<std::string> fragments) {
  test::expect_input_error(std::forward<F>(f), fragments);
}

void dataset(hid_t g, const char* name, hid_t type, const std::vector<double>& v, const char* units,
             std::vector<hsize_t> dims = {}, bool chunked = false) {
  if (dims.empty()) dims = {v.size()};
  hid_t s = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunked) {
    std::vector<hsize_t> c = dims;
    c[0] = std::min<hsize_t>(dims[0], 1000);
    H5Pset_chunk(dcpl, static_cast<int>(c.size()), c.data());
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
  }
  hid_t d = H5Dcreate2(g, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  if (units) data::h5::write_string_attribute(d, "units", units, "test");
  H5Pclose(dcpl);
  H5Sclose(s);
  H5Dclose(d);
}

// A log written by "another tool": raw values in mm, bar (absolute), kN,
// float32 force, one chunked+deflated channel, an extra channel, and a
// second experiment nested below.
std::string foreign_log(size_t n) {
  const std::string path = temp_path("foreign.h5");
  std::vector<double> t(n), x(n), p(n), f(n), extra(n);
  for (size_t i = 0; i < n; ++i) {
    t[i] = 0.5 + 1e-4 * static_cast<double>(i);
    x[i] = 12.5 * std::sin(3.0 * t[i]) + 1e-9 * static_cast<double>(i);
    p[i] = 1.0 + 40.0 * std::cos(t[i]) * std::cos(t[i]);
    f[i] = 0.25 * std::tanh(std::sin(5.0 * t[i]) / 0.01);
    extra[i] = static_cast<double>(i % 13) / 7.0;
  }
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(file, "rig", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  data::h5::write_string_attribute(g, "pressure_reference", "absolute", "test");
  data::h5::write_string_attribute(g, "ambient_pressure", "98000", "test");
  dataset(g, "time", H5T_IEEE_F64LE, t, "s");
  dataset(g, "position", H5T_IEEE_F64LE, x, "mm", {}, /*chunked=*/true);
  dataset(g, "pressure_a", H5T_IEEE_F64LE, p, "bar");
  dataset(g, "force", H5T_IEEE_F32LE, f, "kN");
  dataset(g, "wear", H5T_IEEE_F64LE, extra, "");
  hid_t sub = H5Gcreate2(g, "second", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  dataset(sub, "velocity", H5T_IEEE_F64LE, {1.0, 2.0, 3.0}, "m/s");
  H5Gclose(sub);
  H5Gclose(g);
  H5Fclose(file);
  return path;
}

TEST(LogBlocks, BlocksConcatenatedEqualReadLogExactly) {
  const size_t n = 70001;  // no block size below divides it
  const std::string path = foreign_log(n);
  const auto exps = data::read_log(path);
  ASSERT_EQ(exps.size(), 2u);
  const data::Experiment& e = data::select_experiment(exps, "rig", path);
  EXPECT_EQ(data::list_log_experiments(path), (std::vector<std::string>{"rig", "rig/second"}));
  for (size_t block : {size_t(1) << 16, size_t(7), size_t(1000), size_t(65537), n - 1, n, n + 5}) {
    data::LogBlockReader r(path, "rig");
    EXPECT_EQ(r.length(), n);
    EXPECT_EQ(r.channels(), (std::vector<std::string>{"force", "position", "pressure_a", "time", "wear"}));
    EXPECT_EQ(r.attributes(), e.attributes);
    const std::vector<std::string> chans = r.channels();
    std::vector<std::vector<double>> got(chans.size(), std::vector<double>(n, -1.0));
    const size_t step = block == 7 ? 7 * 977 : block;  // 7: blocks of 7 rows at a stride
    for (size_t b = 0; b < n; b += step) {
      const size_t len = std::min(block, n - b);
      std::vector<double*> out;
      for (auto& g : got) out.push_back(g.data() + b);
      r.read(chans, b, b + len, out.data());
    }
    for (size_t k = 0; k < chans.size(); ++k) {
      SCOPED_TRACE(chans[k] + " block " + std::to_string(block));
      EXPECT_EQ(r.units(chans[k]), e.units.at(chans[k]));
      const auto& want = e.channels.at(chans[k]);
      for (size_t b = 0; b < n; b += step)
        for (size_t i = b; i < std::min(b + block, n); ++i)
          ASSERT_EQ(std::memcmp(&got[k][i], &want[i], sizeof(double)), 0) << "row " << i;
    }
  }
  // The conversions themselves, computed here from the unit definitions.
  data::LogBlockReader r(path, "rig");
  double x = 0, p = 0;
  r.read("position", 123, 124, &x);
  r.read("pressure_a", 123, 124, &p);
  const double t = 0.5 + 1e-4 * 123.0;
  EXPECT_EQ(x, 1e-3 * (12.5 * std::sin(3.0 * t) + 1e-9 * 123.0));
  EXPECT_NEAR(p, 1e5 * (1.0 + 40.0 * std::cos(t) * std::cos(t)) - 98000.0, 1e-7);
  EXPECT_EQ(r.attributes().at("pressure_reference"), "gauge");
  // The nested experiment, and a file with several: a name is needed.
  data::LogBlockReader s(path, "rig/second");
  EXPECT_EQ(s.length(), 3u);
  expect_error([&] { data::LogBlockReader x(path, ""); }, {path, "holds 2 experiments", "rig, rig/second"});
  expect_error([&] { data::LogBlockReader x(path, "nope"); }, {path, "no experiment 'nope'"});
}

// One channel stored in a given layout and filter pipeline.
struct Layout {
  const char* what;
  H5D_layout_t layout;
  hsize_t chunk;             // rows per chunk (chunked)
  std::vector<int> filters;  // in pipeline order: 's' shuffle, 'd' deflate, 'f' Fletcher-32
  hid_t type = H5T_IEEE_F64LE;
  bool half_written = false;  // chunked: only the first half written (the rest: unallocated, fill value)
};

void layout_dataset(hid_t g, const char* name, const std::vector<double>& v, const Layout& l) {
  const hsize_t dims[1] = {v.size()}, unlimited[1] = {H5S_UNLIMITED};
  hid_t s = H5Screate_simple(1, dims, l.layout == H5D_CHUNKED ? unlimited : nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_layout(dcpl, l.layout);
  if (l.layout == H5D_CHUNKED) {
    const hsize_t c[1] = {l.chunk};
    H5Pset_chunk(dcpl, 1, c);
    for (int f : l.filters) {
      if (f == 's') H5Pset_shuffle(dcpl);
      if (f == 'd') H5Pset_deflate(dcpl, 6);
      if (f == 'f') H5Pset_fletcher32(dcpl);
    }
  }
  hid_t d = H5Dcreate2(g, name, l.type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(d, 0) << l.what;
  if (l.half_written) {
    const hsize_t start[1] = {0}, count[1] = {v.size() / 2};
    hid_t fs = H5Dget_space(d);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr);
    hid_t ms = H5Screate_simple(1, count, nullptr);
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, v.data()), 0);
    H5Sclose(ms);
    H5Sclose(fs);
  } else {
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << l.what;
  }
  data::h5::write_string_attribute(d, "units", "m/s", "test");
  H5Pclose(dcpl);
  H5Sclose(s);
  H5Dclose(d);
}

// An executor of two threads (the calling one and one more) taking jobs in
// turn, as eval's pool does.
class TwoThreads final : public data::BlockExecutor {
 public:
  void run(long n, const std::function<void(long)>& body) override {
    std::atomic<long> next{0};
    auto work = [&] {
      for (long i; (i = next.fetch_add(1)) < n;) body(i);
    };
    std::thread other(work);
    work();
    other.join();
  }
};

// Every layout and filter pipeline reads back the values written, bit for
// bit, whatever the blocks: chunks decoded on threads (shuffle and/or
// deflate, float64) and the H5Dread fallback (contiguous, compact, other
// filters or order, float32, unallocated chunks) alike.
TEST(LogBlocks, EveryLayoutAndFilterReadsBackBitForBit) {
  const std::vector<Layout> layouts = {
      {"chunked 65536 shuffle+deflate, partial last chunk", H5D_CHUNKED, 65536, {'s', 'd'}},
      {"chunked 1000 deflate", H5D_CHUNKED, 1000, {'d'}},
      {"chunked 777 shuffle", H5D_CHUNKED, 777, {'s'}},
      {"chunked 4096 no filter", H5D_CHUNKED, 4096, {}},
      {"chunked 1 row shuffle+deflate", H5D_CHUNKED, 1, {'s', 'd'}},
      {"chunked 3001 shuffle+deflate+fletcher32", H5D_CHUNKED, 3001, {'s', 'd', 'f'}},
      {"chunked 5000 deflate then shuffle", H5D_CHUNKED, 5000, {'d', 's'}},
      {"chunked 2048 float32 shuffle+deflate", H5D_CHUNKED, 2048, {'s', 'd'}, H5T_IEEE_F32LE},
      {"chunked 999 shuffle+deflate, half unallocated", H5D_CHUNKED, 999, {'s', 'd'}, H5T_IEEE_F64LE, true},
      {"chunked 2^20 + 1 rows (past the raw-chunk limit)", H5D_CHUNKED, (hsize_t(1) << 20) + 1, {'s', 'd'}},
      {"contiguous", H5D_CONTIGUOUS, 0, {}},
      {"compact", H5D_COMPACT, 0, {}},
  };
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  TwoThreads two_threads;
  for (const Layout& l : layouts) {
    SCOPED_TRACE(l.what);
    const size_t n = l.layout == H5D_COMPACT ? 4000 : l.chunk == 1 ? 301 : l.chunk >= 65536 ? 70001 : 20001;
    std::vector<double> t(n), v(n);
    for (size_t i = 0; i < n; ++i) {
      t[i] = 1e-3 * static_cast<double>(i);
      v[i] = u(rng) * std::pow(10.0, u(rng));  // every byte varies: shuffle matters
    }
    std::vector<double> want = v;
    if (l.type == H5T_IEEE_F32LE)
      for (double& x : want) x = static_cast<double>(static_cast<float>(x));
    if (l.half_written) std::fill(want.begin() + static_cast<long>(n / 2), want.end(), 0.0);
    const std::string path = temp_path("layout.h5");
    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(file, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    dataset(g, "time", H5T_IEEE_F64LE, t, "s", {}, /*chunked=*/true);
    layout_dataset(g, "velocity", v, l);
    H5Gclose(g);
    H5Fclose(file);
    // A chunk larger than HDF5's chunk cache is inflated whole for every
    // read through H5Dread: few blocks there, or the test takes minutes.
    const bool huge = l.chunk > (hsize_t(1) << 20);
    for (size_t block : {size_t(262144), size_t(65536), size_t(4097), size_t(1), n}) {
      if (huge && (block == 1 || block == 4097)) continue;
      SCOPED_TRACE("block " + std::to_string(block));
      data::LogBlockReader r(path, "run");
      if (block != n) r.set_executor(&two_threads);  // the whole length in one block: on the calling thread
      std::vector<double> gv(n, -7.0), gt(n, -7.0);
      const size_t step = block > 1 ? block : n < 1000 ? 7 : 2999;  // 1-row blocks at a stride
      for (size_t b = 0; b < n; b += step) {
        const size_t e = std::min(n, b + block);
        double* out[] = {gt.data() + b, gv.data() + b};
        r.read({"time", "velocity"}, b, e, out);
      }
      for (size_t b = 0; b < n; b += step)
        for (size_t i = b; i < std::min(n, b + block); ++i) {
          ASSERT_EQ(std::memcmp(&gv[i], &want[i], sizeof(double)), 0) << "row " << i;
          ASSERT_EQ(std::memcmp(&gt[i], &t[i], sizeof(double)), 0) << "row " << i;
        }
    }
    // One channel at a time and a block across a chunk boundary, as well.
    data::LogBlockReader r(path, "run");
    const size_t len = std::min<size_t>(1001, n - n / 3);
    std::vector<double> x(len);
    r.read("velocity", n / 3, n / 3 + len, x.data());
    ASSERT_EQ(std::memcmp(x.data(), want.data() + n / 3, len * sizeof(double)), 0);
  }
}

TEST(LogBlocks, RootExperimentIsNamedAfterTheFile) {
  const std::string path = temp_path("rootlog.h5");
  data::Experiment e;
  e.name = "x";
  e.source = "memory";
  e.channels = {{"time", {0.0, 1.0, 2.0}}, {"velocity", {0.1, 0.2, 0.3}}};
  e.units = {{"time", "s"}, {"velocity", "m/s"}};
  write_log(path, {e}, data::Provenance{});
  data::LogBlockReader r(path, "");
  EXPECT_EQ(r.experiment(), "x");
  double v[2];
  r.read("velocity", 1, 3, v);
  EXPECT_EQ(v[0], 0.2);
  EXPECT_EQ(v[1], 0.3);
}

template <class F>
std::string raw_log(const std::string& name, F&& fill) {
  return test::raw_h5_file(temp_path(name), std::forward<F>(fill));
}

TEST(LogBlocks, BadInputNamesFileExperimentAndChannel) {
  const std::vector<double> t = {0, 1, 2, 3}, v = {1, 2, 3, 4};
  const std::string ok = raw_log("ok.h5", [&](hid_t g) {
    dataset(g, "time", H5T_IEEE_F64LE, t, "s");
    dataset(g, "velocity", H5T_IEEE_F64LE, v, "m/s");
  });
  data::LogBlockReader r(ok, "exp");
  double buf[4];
  expect_error([&] { r.read("force", 0, 2, buf); }, {ok, "experiment 'exp'", "no channel 'force'"});
  expect_error([&] { r.read("velocity", 2, 5, buf); }, {ok, "experiment 'exp'", "channel 'velocity'", "past"});
  expect_error([&] { r.units("force"); }, {ok, "experiment 'exp'", "'force'"});

  const std::string two_d = raw_log("2d.h5", [&](hid_t g) {
    dataset(g, "time", H5T_IEEE_F64LE, t, "s");
    dataset(g, "velocity", H5T_IEEE_F64LE, v, "m/s", {2, 2});
  });
  expect_error([&] { data::LogBlockReader x(two_d, "exp"); }, {two_d, "experiment 'exp'", "channel 'velocity'", "2-D"});
  const std::string ints = raw_log("int.h5", [&](hid_t g) { dataset(g, "velocity", H5T_STD_I32LE, v, "m/s"); });
  expect_error([&] { data::LogBlockReader x(ints, "exp"); }, {ints, "experiment 'exp'", "channel 'velocity'", "int32"});
  const std::string lens = raw_log("len.h5", [&](hid_t g) {
    dataset(g, "time", H5T_IEEE_F64LE, t, "s");
    dataset(g, "velocity", H5T_IEEE_F64LE, {1, 2, 3}, "m/s");
  });
  expect_error([&] { data::LogBlockReader x(lens, "exp"); },
               {lens, "channel 'velocity'", "has 3 samples", "'time' has 4"});
  const std::string unit = raw_log("unit.h5", [&](hid_t g) { dataset(g, "velocity", H5T_IEEE_F64LE, v, "bar"); });
  expect_error([&] { data::LogBlockReader x(unit, "exp"); }, {unit, "channel 'velocity'", "'bar'"});
  const std::string nounit = raw_log("nounit.h5", [&](hid_t g) { dataset(g, "velocity", H5T_IEEE_F64LE, v, nullptr); });
  expect_error([&] { data::LogBlockReader x(nounit, "exp"); }, {nounit, "channel 'velocity'", "no 'units'"});
  expect_error([&] { data::LogBlockReader x(temp_path("missing.h5"), ""); }, {temp_path("missing.h5")});

  // Values: a NaN in the second block is named with its index; time that
  // decreases exactly at a block boundary is caught.
  const std::string nan = raw_log("nan.h5", [&](hid_t g) {
    dataset(g, "time", H5T_IEEE_F64LE, {0, 1, 2, 1.5}, "s");
    dataset(g, "velocity", H5T_IEEE_F64LE, {1, 2, std::numeric_limits<double>::quiet_NaN(), 4}, "m/s");
  });
  data::LogBlockReader b(nan, "exp");
  b.read("velocity", 0, 2, buf);
  expect_error([&] { b.read("velocity", 2, 4, buf); }, {nan, "channel 'velocity'", "NaN at index 2"});
  b.read("time", 0, 3, buf);
  expect_error([&] { b.read("time", 3, 4, buf); }, {nan, "channel 'time'", "decreases at index 3"});
}

TEST(LogBlocks, WriterAppendsBlocksReadLogReadsBack) {
  // Blocks of 4099 rows go through HDF5's filters; blocks of two chunks
  // (131,072 rows) are encoded by the writer itself and written as stored,
  // the rest of the last block through the filters again.
  for (const size_t step : {size_t(4099), size_t(131072)}) {
    SCOPED_TRACE(step);
    const std::string path = temp_path("written_" + std::to_string(step) + ".h5");
    const size_t n = 300001;
    std::vector<double> t(n), v(n), f(n);
    for (size_t i = 0; i < n; ++i) {
      t[i] = 1e-3 * static_cast<double>(i);
      v[i] = std::sin(7.0 * t[i]);
      f[i] = 3.0 * v[i] + 1e-3 * static_cast<double>(i % 5);
    }
    data::Provenance prov;
    prov.command_line = "test";
    {
      data::LogBlockWriter w(path, prov);
      const auto e = w.add_experiment("run", {{"time", "s", ""}, {"velocity", "m/s", ""}}, {{"rig", "bench"}});
      const auto r = w.add_results("eval/coulomb", {{"model_force", "N", "force"}}, {{"model", "coulomb"}}, prov);
      for (size_t b = 0; b < n; b += step) {
        const size_t len = std::min<size_t>(step, n - b);
        const double* ev[] = {t.data() + b, v.data() + b};
        w.append(e, ev, len);
        const double* rv[] = {f.data() + b};
        w.append(r, rv, len);
      }
      EXPECT_FALSE(exists(path));  // nothing at the target before commit
      w.commit();
    }
    const auto exps = data::read_log(path);
    ASSERT_EQ(exps.size(), 1u);
    EXPECT_EQ(exps[0].name, "run");
    EXPECT_EQ(exps[0].channels.at("time"), t);
    EXPECT_EQ(exps[0].channels.at("velocity"), v);
    EXPECT_EQ(exps[0].attributes.at("rig"), "bench");
    const data::Results res = data::read_results(path, "eval/coulomb");
    ASSERT_EQ(res.datasets.size(), 1u);
    EXPECT_EQ(res.datasets[0].values, f);
    EXPECT_EQ(res.datasets[0].units, "N");
    EXPECT_EQ(res.attributes.at("model"), "coulomb");
    EXPECT_EQ(res.provenance.command_line, "test");
    data::h5::File file = data::h5::open_file(path);
    data::h5::Dataset vel = data::h5::open_dataset(file.id(), "run/velocity", path);
    EXPECT_TRUE(data::h5::has_attribute(vel.id(), "DIMENSION_LIST"));
    data::h5::PropList dcpl(H5Dget_create_plist(vel.id()));
    EXPECT_EQ(H5Pget_nfilters(dcpl.id()), 2);  // shuffle + deflate, as write_log stores
    EXPECT_EQ(data::h5::read_string_attribute(file.id(), "schema", path), "stribeck-log/1");
  }
}

// The rows of a column's chunks (HDF5's own record of the layout).
hsize_t chunk_rows_of(const std::string& path, const std::string& dataset) {
  data::h5::File file = data::h5::open_file(path);
  data::h5::Dataset ds = data::h5::open_dataset(file.id(), dataset, path);
  data::h5::PropList dcpl(H5Dget_create_plist(ds.id()));
  hsize_t chunk[1] = {0};
  EXPECT_EQ(H5Pget_chunk(dcpl.id(), 1, chunk), 1);
  return chunk[0];
}

TEST(LogBlocks, ExperimentsOfKnownLengthGetChunksOfTheirSize) {
  // A bound of 5 rows gives 16-row chunks (the least), 1000 rows 1024, an
  // unknown length (0) or one beyond the standard chunk the standard chunk;
  // appending past the bound stays correct (more chunks).
  const std::string path = temp_path("short_chunks.h5");
  const std::vector<std::pair<size_t, size_t>> cases = {{5, 5}, {1000, 1000}, {0, 7}, {1u << 20, 9}, {5, 40}};
  {
    data::LogBlockWriter w(path, data::Provenance{});
    for (size_t c = 0; c < cases.size(); ++c) {
      const auto e = w.add_experiment("e" + std::to_string(c), {{"time", "s", ""}, {"force", "N", ""}}, {}, "", nullptr,
                                      cases[c].first);
      std::vector<double> t(cases[c].second), f(cases[c].second);
      for (size_t i = 0; i < t.size(); ++i) t[i] = 0.5 * static_cast<double>(i), f[i] = static_cast<double>(c * i);
      const double* cols[] = {t.data(), f.data()};
      w.append(e, cols, t.size());
    }
    w.commit();
  }
  const size_t standard = data::stream_chunk_rows(2);
  const std::vector<size_t> expected = {16, 1024, standard, standard, 16};
  const auto back = data::read_log(path);
  ASSERT_EQ(back.size(), cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    EXPECT_EQ(chunk_rows_of(path, "e" + std::to_string(c) + "/force"), expected[c]);
    const auto& e = back[c];
    const size_t k = std::stoul(e.name.substr(1));
    ASSERT_EQ(e.size(), cases[k].second);
    for (size_t i = 0; i < e.size(); ++i) EXPECT_EQ(e.channels.at("force")[i], static_cast<double>(k * i));
  }
}

TEST(LogBlocks, WriterFailureLeavesNoFileAndKeepsOldContent) {
  const std::string path = temp_path("atomic.h5");
  {
    data::LogBlockWriter w(path, data::Provenance{});
    const auto e = w.add_experiment("run", {{"time", "s", ""}}, {});
    const double a[] = {0.0, 1.0};
    const double* c[] = {a};
    w.append(e, c, 2);
    w.commit();
  }
  ASSERT_TRUE(exists(path));
  const auto before = data::read_log(path);
  std::vector<std::string> dir_before;
  {
    data::LogBlockWriter w(path, data::Provenance{});
    const auto e = w.add_experiment("run", {{"time", "s", ""}, {"force", "N", ""}}, {});
    const double t1[] = {0.0, 1.0}, f1[] = {1.0, 2.0};
    const double* c1[] = {t1, f1};
    w.append(e, c1, 2);
    const double t2[] = {1.0}, f2[] = {3.0};
    const double* c2[] = {t2, f2};
    expect_error([&] { w.append(e, c2, 1); }, {path, "experiment 'run'", "channel 'time'", "repeats at index 2"});
    const double t3[] = {2.0}, f3[] = {std::numeric_limits<double>::infinity()};
    const double* c3[] = {t3, f3};
    expect_error([&] { w.append(e, c3, 1); }, {path, "channel 'force'", "Inf at index 2"});
    // Destroyed without commit.
  }
  EXPECT_EQ(data::read_log(path)[0].channels, before[0].channels);
  {
    data::LogBlockWriter w(path, data::Provenance{});
    expect_error([&] { w.add_experiment("run", {{"force", "kN", ""}}, {}); }, {path, "channel 'force'", "SI unit 'N'"});
    w.add_experiment("empty", {{"force", "N", ""}}, {});
    expect_error([&] { w.commit(); }, {path, "experiment 'empty'", "no rows"});
  }
  EXPECT_EQ(data::read_log(path)[0].channels, before[0].channels);
  // No temporary is left next to the target.
  const std::string dir = test::temp_dir();
  int others = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    others += entry.path().filename().string().find("blocks_atomic.h5") == 0 &&
              entry.path().filename().string() != "blocks_atomic.h5";
  EXPECT_EQ(others, 0);
}

}  // namespace
}  // namespace stribeck
