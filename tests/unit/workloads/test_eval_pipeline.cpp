// `stribeck eval` reads, evaluates and writes its blocks on three threads at
// once (issue 17, item 1): the results equal the law evaluated here on
// read_log's channels bit for bit at every block size, with the stages
// overlapped or one after another; an error in any block (a value that is not
// finite, a force that overflows, a damaged chunk, a full disk) ends the run
// with the first error in block order, on the calling thread, and leaves no
// output.
// (`stribeck eval` on a full disk: tests/unit/cli/test_eval_pipeline.cpp.)
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "eval_pipeline_logs.hpp"
#include "output_columns.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/params.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;
using test::bits_equal;
using test::Channels;
using test::files_besides;
using test::pipe_dir;
using test::slurp_file;
using test::trace;
using test::write_log;

const std::vector<std::string> kAssign = {"K_brk=1.5", "F_pr=50", "v_th=0.01"};

// The law evaluated here, sample by sample, on read_log's channels.
std::vector<double> cylinder_forces(const data::Experiment& e) {
  const auto p = workloads::resolve_params(workloads::require_model("simscape-cylinder"), kAssign);
  const auto c = SimscapeCylinder::prepare(p.data());
  const size_t n = e.size();
  std::vector<double> f(n);
  for (size_t i = 0; i < n; ++i)
    f[i] = SimscapeCylinder::force(
        c, Sample<double>{e.channel("velocity")[i], e.channel("pressure_a")[i], e.channel("pressure_b")[i], 0.0});
  return f;
}

TEST(EvalPipeline, EveryBlockSizeEqualsTheLawOnReadLogBitForBit) {
  const std::string d = pipe_dir("bits");
  const size_t n = 40001;  // no block size below divides it
  for (bool si : {true, false}) {
    SCOPED_TRACE(si ? "SI log (chunks decoded on the pool, channels copied)" : "mm/s and bar (converted, written)");
    const std::string log = write_log(d + (si ? "si.h5" : "foreign.h5"), trace(n, si), si, si ? 16384 : 4000);
    const data::Experiment e = data::read_log(log)[0];
    const std::vector<double> want = cylinder_forces(e);
    std::vector<double> vector_overlapped;
    for (size_t rows : {size_t(0), size_t(16384), size_t(7919), size_t(2048)}) {
      for (bool overlap : {true, false}) {
        SCOPED_TRACE("block_rows " + std::to_string(rows) + (overlap ? ", overlapped" : ", one after another"));
        workloads::EvalOptions o{"simscape-cylinder", kAssign, log, d + "out.h5", std::nullopt, ""};
        o.block_rows = rows;
        o.overlap = overlap;
        ASSERT_EQ(workloads::evaluate_file(o).samples, static_cast<long>(n));
        EXPECT_TRUE(bits_equal(test::h5_column(o.output, "eval/simscape-cylinder/model_force"), want));
        const data::Experiment back = data::read_log(o.output)[0];
        EXPECT_TRUE(bits_equal(back.channel("time"), e.channel("time")));
        EXPECT_TRUE(bits_equal(back.channel("velocity"), e.channel("velocity")));
        EXPECT_TRUE(bits_equal(back.channel("pressure_a"), e.channel("pressure_a")));
        o.output = d + "out.csv";
        workloads::evaluate_file(o);
        EXPECT_TRUE(bits_equal(test::csv_column(o.output, "model_force"), want));
        EXPECT_TRUE(bits_equal(test::csv_column(o.output, "pressure_b"), e.channel("pressure_b")));
        // The vector kernel: within its ulps of the law, and its tiles start
        // at each block's start whichever thread runs them.
        o.vector_math = true;
        o.output = d + "vec.h5";
        workloads::evaluate_file(o);
        const auto vec = test::h5_column(o.output, "eval/simscape-cylinder/model_force");
        ASSERT_EQ(vec.size(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_NEAR(vec[i], want[i], 1e-13 * std::max(1.0, std::abs(want[i]))) << i;
        if (overlap) vector_overlapped = vec;
        else EXPECT_TRUE(bits_equal(vec, vector_overlapped));
      }
    }
    EXPECT_TRUE(files_besides(d, {"si.h5", "foreign.h5", "out.h5", "out.csv", "vec.h5"}).empty());
  }
}

TEST(EvalPipeline, DynamicModelCarriesItsStateAcrossEveryBlockSize) {
  const std::string d = pipe_dir("dynamic");
  const size_t n = 30011;
  const std::string log = write_log(d + "in.h5", trace(n, false), false, 3000);
  const data::Experiment e = data::read_log(log)[0];
  const std::vector<std::string> assign = {"sigma0=1e5", "sigma1=300"};
  const auto [force, z] = test::lugre_reference(e, assign, 2e-6);
  for (size_t rows : {size_t(0), size_t(4096), size_t(977)}) {
    for (bool overlap : {true, false}) {
      SCOPED_TRACE("block_rows " + std::to_string(rows) + (overlap ? ", overlapped" : ", one after another"));
      workloads::EvalOptions o{"lugre", assign, log, d + "out.h5", 2e-6, ""};
      o.block_rows = rows;
      o.overlap = overlap;
      workloads::evaluate_file(o);
      EXPECT_TRUE(bits_equal(test::h5_column(o.output, "eval/lugre/model_force"), force));
      EXPECT_TRUE(bits_equal(test::h5_column(o.output, "eval/lugre/model_state"), z));
      o.output = d + "out.csv";
      workloads::evaluate_file(o);
      EXPECT_TRUE(bits_equal(test::csv_column(o.output, "model_state"), z));
    }
  }
}

// Errors raised on the reader's thread (a value that is not finite, a damaged
// chunk) and on the evaluating thread (a force that overflows), in a block
// after others went through the writer: one InputError on the calling thread,
// the first in block order, and no output or temporary left.
TEST(EvalPipeline, AnErrorInAnyBlockLeavesNoOutput) {
  const std::string d = pipe_dir("errors");
  const size_t n = 50000;
  struct Case {
    const char* what;
    size_t nan_at, huge_at;  // n: none
    const char* expect;
  };
  const Case cases[] = {
      {"NaN read in block 4", 3 * 8192 + 77, n, "value NaN at index 24653"},
      {"force overflow in block 3", n, 2 * 8192 + 5, "data row 16390:"},
      {"overflow before a NaN: the earlier wins", 5 * 8192 + 1, 8192 + 100, "data row 8293:"},
      {"NaN before an overflow: the earlier wins", 8192 + 100, 5 * 8192 + 1, "value NaN at index 8292"},
  };
  // eval of `log` into `out` ends with one line holding `expect`, and leaves
  // nothing beside the input.
  auto expect_refused = [&](const std::string& log, const char* out, bool overlap, const char* expect) {
    workloads::EvalOptions o{"simscape-cylinder", kAssign, log, d + out, std::nullopt, ""};
    o.block_rows = 8192;
    o.overlap = overlap;
    try {
      workloads::evaluate_file(o);
      ADD_FAILURE() << "no error";
    } catch (const data::InputError& err) {
      const std::string msg = err.what();
      EXPECT_NE(msg.find(expect), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    const auto left = files_besides(d, {"in.h5"});
    EXPECT_TRUE(left.empty()) << left.front();
  };
  for (const auto& k : cases) {
    Channels c = trace(n, true);
    if (k.nan_at < n) c.v[k.nan_at] = std::nan("");
    if (k.huge_at < n) c.pa[k.huge_at] = 1.7e308;  // p_a + p_b overflows
    if (k.huge_at < n) c.pb[k.huge_at] = 1.7e308;
    const std::string log = write_log(d + "in.h5", c, true, 4096);
    for (const char* out : {"out.h5", "out.csv"}) {
      for (bool overlap : {true, false}) {
        SCOPED_TRACE(std::string(k.what) + " -> " + out + (overlap ? ", overlapped" : ", one after another"));
        expect_refused(log, out, overlap, k.expect);
      }
    }
  }
  // A damaged chunk in the middle of the input (its stored bytes changed):
  // the reader's thread refuses it naming the channel.
  const std::string log = write_log(d + "in.h5", trace(n, true), true, 4096);
  {
    const hid_t f = H5Fopen(log.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(f, "run/velocity", H5P_DEFAULT);
    hsize_t offset[1] = {6 * 4096};  // in the fourth block of 8192 rows
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    unsigned mask = 0;
    ASSERT_GE(H5Dget_chunk_info_by_coord(ds, offset, &mask, &addr, &size), 0);
    H5Dclose(ds);
    H5Fclose(f);
    ASSERT_GT(size, 64u);
    std::string bytes = slurp_file(log);
    for (hsize_t i = size / 4; i < size / 2; ++i) bytes[addr + i] = static_cast<char>(bytes[addr + i] ^ 0x5a);
    std::ofstream(log, std::ios::binary) << bytes;
  }
  for (bool overlap : {true, false}) {
    SCOPED_TRACE(overlap ? "damaged chunk, overlapped" : "damaged chunk, one after another");
    expect_refused(log, "out.h5", overlap,
                   "in.h5: experiment 'run': channel 'velocity': chunk 6 (rows 24576..28671) is damaged");
  }
}

// The filters of dataset `name` in an HDF5 file, as "shuffle deflate=4" or
// "fletcher32" (empty: none).
std::string filters(const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  const hid_t dcpl = H5Dget_create_plist(ds);
  std::string text;
  for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
    unsigned flags = 0, cd[8] = {};
    size_t ncd = 8;
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &ncd, cd, 0, nullptr, nullptr);
    text += text.empty() ? "" : " ";
    text += id == H5Z_FILTER_SHUFFLE      ? "shuffle"
            : id == H5Z_FILTER_DEFLATE    ? "deflate=" + std::to_string(cd[0])
            : id == H5Z_FILTER_FLETCHER32 ? "fletcher32"
                                          : "filter " + std::to_string(id);
  }
  H5Pclose(dcpl);
  H5Dclose(ds);
  H5Fclose(f);
  return text;
}

// Flips bytes in the middle of the stored chunk of `dataset` that holds row
// `row`.
void damage_chunk(const std::string& path, const std::string& dataset, hsize_t row) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  hsize_t offset[1] = {row};
  haddr_t addr = HADDR_UNDEF;
  hsize_t size = 0;
  unsigned mask = 0;
  const herr_t got = H5Dget_chunk_info_by_coord(ds, offset, &mask, &addr, &size);
  H5Dclose(ds);
  H5Fclose(f);
  ASSERT_GE(got, 0);
  ASSERT_GT(size, 64u);
  std::string bytes = slurp_file(path);
  for (hsize_t i = size / 4; i < size / 2; ++i) bytes[addr + i] = static_cast<char>(bytes[addr + i] ^ 0x5a);
  std::ofstream(path, std::ios::binary) << bytes;
}

// --compression (issue 35 item 3): the columns eval writes, uncompressed with
// a checksum per chunk (level 0, the default) or shuffled and deflated at
// level 1-9, hold the same bits whichever way they were written (whole chunks
// encoded on the pool or a rest through libhdf5's filters; overlapped or one
// block after another) and read back the same through read_log and through
// eval's own block reader; each dataset carries the filters asked for, and
// channels copied as stored keep the input's.
TEST(EvalPipeline, EveryCompressionWritesTheSameBits) {
  const std::string d = pipe_dir("compression");
  const size_t n = 70001;  // a whole chunk of 65,536 rows and a rest
  for (bool si : {true, false}) {
    SCOPED_TRACE(si ? "SI log (channels copied as stored)" : "mm/s and bar (channels converted, written)");
    const std::string log = write_log(d + "in.h5", trace(n, si), si, si ? 16384 : 4000);
    const data::Experiment e = data::read_log(log)[0];
    const std::vector<double> want = cylinder_forces(e);
    for (int level : {0, 1, 9}) {
      // One block (its whole chunk encoded on the pool, the rest through
      // libhdf5), or blocks that never end on a chunk boundary.
      for (size_t rows : {size_t(0), size_t(7919)}) {
        for (bool overlap : {true, false}) {
          SCOPED_TRACE("level " + std::to_string(level) + ", block_rows " + std::to_string(rows) +
                       (overlap ? ", overlapped" : ", one after another"));
          workloads::EvalOptions o{"simscape-cylinder", kAssign, log, d + "out.h5", std::nullopt, ""};
          o.deflate_level = level;
          o.block_rows = rows;
          o.overlap = overlap;
          ASSERT_EQ(workloads::evaluate_file(o).samples, static_cast<long>(n));
          const std::string expect = level ? "shuffle deflate=" + std::to_string(level) : "fletcher32";
          EXPECT_EQ(filters(o.output, "eval/simscape-cylinder/model_force"), expect);
          EXPECT_EQ(filters(o.output, "run/velocity"), si ? "shuffle deflate=4" : expect);
          EXPECT_TRUE(bits_equal(test::h5_column(o.output, "eval/simscape-cylinder/model_force"), want));
          const data::Experiment back = data::read_log(o.output)[0];
          for (const char* ch : {"time", "velocity", "pressure_a", "pressure_b"})
            EXPECT_TRUE(bits_equal(back.channel(ch), e.channel(ch))) << ch;
          // The output as eval's input: its block reader gives the same channels.
          workloads::EvalOptions again{"simscape-cylinder", kAssign, o.output, d + "again.csv", std::nullopt, ""};
          again.block_rows = rows;
          again.overlap = overlap;
          workloads::evaluate_file(again);
          EXPECT_TRUE(bits_equal(test::csv_column(again.output, "model_force"), want));
          EXPECT_TRUE(bits_equal(test::csv_column(again.output, "pressure_b"), e.channel("pressure_b")));
        }
      }
    }
  }
  workloads::EvalOptions bad{"simscape-cylinder", kAssign, d + "in.h5", d + "bad.h5", std::nullopt, ""};
  bad.deflate_level = 10;
  EXPECT_THROW(workloads::evaluate_file(bad), data::InputError);
  EXPECT_TRUE(files_besides(d, {"in.h5", "out.h5", "again.csv"}).empty());
}

// A damaged chunk of an uncompressed output (no zlib stream to fail): its
// Fletcher-32 checksum refuses it when the file is read again, by eval
// (overlapped or not) and by read_log, in one line naming the channel, and
// eval leaves no output.
TEST(EvalPipeline, DamagedUncompressedChunkIsRefusedByItsChecksum) {
  const std::string d = pipe_dir("checksum");
  const size_t n = 100000;
  const std::string log = write_log(d + "in.h5", trace(n, false), false, 4000);
  workloads::EvalOptions o{"simscape-cylinder", kAssign, log, d + "plain.h5", std::nullopt, ""};
  o.deflate_level = 0;
  workloads::evaluate_file(o);
  ASSERT_EQ(filters(o.output, "run/velocity"), "fletcher32");
  damage_chunk(o.output, "run/velocity", 70000);  // the second chunk of 65,536 rows
  for (bool overlap : {true, false}) {
    SCOPED_TRACE(overlap ? "overlapped" : "one after another");
    workloads::EvalOptions again{"simscape-cylinder", kAssign, o.output, d + "out.h5", std::nullopt, ""};
    again.block_rows = 16384;
    again.overlap = overlap;
    try {
      workloads::evaluate_file(again);
      ADD_FAILURE() << "no error";
    } catch (const data::InputError& err) {
      const std::string msg = err.what();
      EXPECT_NE(msg.find("plain.h5"), std::string::npos) << msg;
      EXPECT_NE(msg.find("channel 'velocity'"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    const auto left = files_besides(d, {"in.h5", "plain.h5"});
    EXPECT_TRUE(left.empty()) << left.front();
  }
  try {
    data::read_log(o.output);
    ADD_FAILURE() << "no error";
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find("channel 'velocity'"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace stribeck
