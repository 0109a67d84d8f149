// Reliability of the readers (issue 32 items 1, 15, 16, 17) and the campaign
// "damaged compressed inputs" (docs/reliability.md): compressed MATLAB v5
// elements damaged at several offsets and variables, HDF5 deflate + shuffle
// chunks damaged, filters libhdf5 lacks, huge attributes. Every case runs
// the readers through `import`, `eval`, `identify` and `export` and must end
// with exit 0 and the right data, or exit 2 and one line naming the file
// and what is wrong, with no output left behind.
//
// Inputs are made with libhdf5 and libmatio (linked into the tests) or, for
// filters libhdf5 cannot write, with /usr/bin/python3's h5py (skipped where
// it is missing); bytes are damaged at fixed offsets, so every run is the same.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <zlib.h>

#ifdef STRIBECK_HAVE_MATIO
#include <matio.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "child_cli.hpp"
#include "damaged_mat5.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;

using test::flip;
using test::kChannels;
using test::signal;
using test::slurp;
using test::spit;
#ifdef STRIBECK_HAVE_MATIO
using test::element_bytes;
using test::kMatDamages;
using test::recompressed_short;
using test::write_mat5_compressed;
#endif
using CliRun = test::ChildRun;

std::string case_dir(const std::string& name) { return test::case_dir("readers_", name); }

// The CLI with `args` (split on spaces), stdout and stderr apart.
CliRun cli(const std::string& args) {
  static int calls = 0;
  const std::string base = test::temp_dir() + "readers_run_" + std::to_string(++calls);
  test::ChildSpec spec;
  spec.out = base + ".out";
  spec.err = base + ".err";
  return test::run_child(test::words(args), spec);
}

bool has_python_h5py() {
  static const bool ok = std::system("/usr/bin/python3 -c 'import h5py, numpy' > /dev/null 2>&1") == 0;
  return ok;
}

// Runs a Python script (h5py, numpy) with `arg` as sys.argv[1].
void python(const std::string& script, const std::string& arg) {
  const std::string py = test::temp_dir() + "readers_script.py";
  spit(py, script);
  ASSERT_EQ(std::system(("/usr/bin/python3 " + py + " '" + arg + "'").c_str()), 0) << script;
}

// An HDF5 log of one experiment `run1`; with chunk_rows > 0 every channel is
// chunked, shuffled and deflated (as Stribeck and h5py write logs).
// `extra(group)` may add attributes. Attributes may be large: the group
// tracks creation order, which gives it the header that holds them.
std::string write_log_h5(const std::string& path, hsize_t chunk_rows,
                         const std::function<void(hid_t file, hid_t group)>& extra = {}) {
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED);
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose(fcpl);
  data::h5::write_string_attribute(f, "schema", "stribeck-log/1", path);
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
  hid_t g = H5Gcreate2(f, "run1", H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  for (const auto& ch : kChannels) {
    const std::vector<double> v = signal(ch);
    const hsize_t n = v.size();
    hid_t sp = H5Screate_simple(1, &n, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED);
    if (chunk_rows > 0) {
      H5Pset_chunk(dcpl, 1, &chunk_rows);
      H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, 4);
    }
    hid_t d = H5Dcreate2(g, ch.c_str(), H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    data::h5::write_string_attribute(d, "units", ch == "time" ? "s" : ch == "velocity" ? "m/s" : "N", path);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
  }
  if (extra) extra(f, g);
  H5Gclose(g);
  H5Fclose(f);
  return path;
}

// Where chunk `index` of `run1/<channel>` lies in the file, and its size.
std::pair<std::uint64_t, std::uint64_t> chunk_place(const std::string& path, const std::string& channel,
                                                    hsize_t index) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, ("run1/" + channel).c_str(), H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t offset[1] = {0}, size = 0;
  haddr_t addr = 0;
  unsigned mask = 0;
  H5Dget_chunk_info(d, sp, index, offset, &mask, &addr, &size);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  return {addr, size};
}

// The contract of a refused input: exit 2, one line on stderr naming the
// input and `expect`, no output file and no temporary in `dir` beyond the
// inputs listed.
void expect_refused(const CliRun& r, const std::string& input, const std::string& expect, const std::string& what) {
  EXPECT_EQ(r.code, 2) << what << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("stribeck: error: " + input, 0), 0u) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(expect), std::string::npos) << what << ": '" << expect << "' not in\n" << r.err;
}

void expect_only(const std::string& dir, const std::vector<std::string>& names, const std::string& what) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << what << ": left " << n;
  }
}

// The four commands of the campaign on `input` (outputs in `dir`).
struct Command {
  const char* name;
  std::string args;
  std::string output;  // "" when it writes to stdout
};
std::vector<Command> commands(const std::string& input, const std::string& dir) {
  return {
      {"import", "import " + input + " -o " + dir + "imported.h5", dir + "imported.h5"},
      {"eval", "eval --model coulomb-viscous --input " + input + " --output " + dir + "eval.h5", dir + "eval.h5"},
      {"identify", "identify " + input + " --model coulomb-viscous --starts 1 --max-iterations 20", ""},
      {"export", "export " + input + " --format csv -o " + dir + "export.csv", dir + "export.csv"},
  };
}

// A command's output holds the signals of the input, exactly.
void expect_right_data(const Command& c, const std::string& what) {
  if (c.output.empty() || std::string(c.name) == "eval") return;  // identify's report; eval's model force
  if (std::string(c.name) == "import") {
    const auto exps = data::read_log(c.output);
    ASSERT_EQ(exps.size(), 1u) << what;
    for (const auto& ch : kChannels) EXPECT_EQ(exps[0].channel(ch), signal(ch)) << what << ": " << ch;
    return;
  }
  const auto exps = data::read_any_log(c.output);  // the CSV export
  ASSERT_EQ(exps.size(), 1u) << what;
  for (const auto& ch : kChannels) EXPECT_EQ(exps[0].channel(ch), signal(ch)) << what << ": " << ch;
}

TEST(ReadersCli, Mat5DamagedZlibStreamEndsEveryCommandWithOneLine) {
#ifndef STRIBECK_HAVE_MATIO
  GTEST_SKIP() << "built without libmatio";
#else
  const std::string dir = case_dir("mat5_cli");
  const std::string input = dir + "rig.mat";
  const auto starts = write_mat5_compressed(input);
  ASSERT_EQ(starts.size(), 3u);
  flip(input, starts[2] + 8 + element_bytes(input, starts[2]) / 2);  // in `force`, as the issue found
  for (const auto& c : commands(input, dir)) {
    const CliRun r = cli(c.args);
    expect_refused(r, input, "variable 'force': its compressed data is damaged", c.name);
    expect_only(dir, {"rig.mat"}, c.name);
  }
#endif
}

TEST(ReadersCli, LargeAttributeIsValidInput) {
  // 8 MB of metadata on the experiment (a description, a configuration
  // dump) and on a channel (its scaling): HDF5 stores them in dense
  // attribute storage, and a log written with them must be read, evaluated,
  // fitted and exported, keeping them where the log is copied. Contiguous
  // and chunked channels (import copies the latter as stored).
  const std::string big(8 << 20, 'x');
  for (const hsize_t chunk_rows : {hsize_t(0), hsize_t(100)}) {
    SCOPED_TRACE(chunk_rows);
    const std::string dir = case_dir("large_attr_" + std::to_string(chunk_rows));
    const std::string input = write_log_h5(dir + "rig.h5", chunk_rows, [&](hid_t, hid_t g) {
      data::h5::write_string_attribute(g, "description", big, "test");
      hid_t d = H5Dopen2(g, "force", H5P_DEFAULT);
      data::h5::write_string_attribute(d, "scaling", big, "test");
      H5Dclose(d);
    });
    for (const auto& c : commands(input, dir)) {
      const CliRun r = cli(c.args);
      EXPECT_EQ(r.code, 0) << c.name << "\n" << r.err;
      if (r.code == 0) expect_right_data(c, c.name);
    }
    const auto exps = data::read_log(dir + "imported.h5");
    ASSERT_EQ(exps.size(), 1u);
    EXPECT_EQ(exps[0].attributes.at("description"), big);
    EXPECT_EQ(exps[0].channel_attributes.at("force").at("scaling"), big);
  }
}

TEST(ReadersCli, UnavailableFilterIsNamedNotCalledCorrupt) {
  if (!has_python_h5py()) GTEST_SKIP() << "/usr/bin/python3 with h5py not available";
  const std::string dir = case_dir("lzf");
  const std::string input = write_log_h5(dir + "rig.h5", 0);
  // `force` again, compressed with LZF (h5py has it; libhdf5 does not).
  python(
      "import sys, h5py\n"
      "with h5py.File(sys.argv[1], 'r+') as f:\n"
      "    g = f['run1']; v = g['force'][...]; del g['force']\n"
      "    d = g.create_dataset('force', data=v, chunks=(100,), compression='lzf')\n"
      "    d.attrs['units'] = b'N'\n",
      input);
  for (const auto& c : commands(input, dir)) {
    const CliRun r = cli(c.args);
    expect_refused(r, input, "channel 'force': is compressed with the HDF5 filter LZF (32000), which is not available",
                   c.name);
    expect_only(dir, {"rig.h5"}, c.name);
  }
}

TEST(ReadersCli, MatlabObjectHintReadsWhole) {
  // A v7.3 file whose variable is a MATLAB object: the hint quotes MATLAB
  // code with several quoted names, which must come out as written.
  const std::string dir = case_dir("object");
  const std::string hint =
      "is a MATLAB Simulink.SimulationData.Dataset object, which cannot be read outside MATLAB; save plain arrays "
      "instead, e.g. ts = logsout.get('force').Values; force = ts.Data; time = ts.Time; save(FILE, 'time', "
      "'force', '-v7.3')";
  for (const std::string& var : {std::string("logsout"), std::string(100, 'v')}) {
    const std::string path = dir + "obj.mat";
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 512);
    hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    const hsize_t dims[2] = {1, 6};
    const double values[6] = {1, 2, 3, 4, 5, 6};
    hid_t sp = H5Screate_simple(2, dims, nullptr);
    hid_t d = H5Dcreate2(f, var.c_str(), H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    data::h5::write_string_attribute(d, "MATLAB_class", "Simulink.SimulationData.Dataset", "test");
    H5Dclose(d);
    H5Sclose(sp);
    H5Fclose(f);
    std::string b = slurp(path);
    const std::string head =
        "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 .";
    b.replace(0, head.size(), head);
    spit(path, b);
    const CliRun r = cli("import " + path + " -o " + dir + "out.h5");
    // A name longer than 80 characters is still cut, and only it.
    const std::string name = var.size() > 80 ? "'" + var.substr(0, 77) + "...' (100 characters)" : "'" + var + "'";
    expect_refused(r, path, "variable " + name + ": " + hint, var);
    EXPECT_EQ(r.err, "stribeck: error: " + path + ": variable " + name + ": " + hint + "\n");
  }
}

// ---- the campaign: damaged compressed inputs ------------------------------

struct Tally {
  int cases = 0, failures = 0;
};

// One input through the four commands: each must exit 0 with the right data
// (refusal empty) or exit 2 with one line naming the input and `refusal`.
void campaign_case(const std::string& what, const std::string& input, const std::string& refusal, Tally& tally) {
  const std::string dir = fs::path(input).parent_path().string() + "/";
  for (const auto& c : commands(input, dir)) {
    const std::string label = what + ", " + c.name;
    SCOPED_TRACE(label);
    const int failed_before = ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
    const CliRun r = cli(c.args);
    if (refusal.empty()) {
      EXPECT_EQ(r.code, 0) << r.err;
      if (r.code == 0) expect_right_data(c, label);
    } else {
      expect_refused(r, input, refusal, label);
    }
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().string() != input) fs::remove(e.path());
    ++tally.cases;
    if (::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count() > failed_before)
      ++tally.failures;
  }
}

TEST(ReadersCli, CampaignDamagedCompressedInputs) {
  Tally mat5, chunks, filters, attributes;
#ifdef STRIBECK_HAVE_MATIO
  // Class 1: compressed MATLAB v5 elements, each variable damaged at four
  // places of its zlib stream.
  {
    const std::string good = case_dir("campaign_mat5_good") + "good.mat";
    const auto starts = write_mat5_compressed(good);
    ASSERT_EQ(starts.size(), 3u);
    for (size_t v = 0; v < kChannels.size(); ++v)
      for (const auto& d : kMatDamages) {
        const std::string input =
            case_dir("campaign_mat5_" + std::to_string(v) + "_" + std::to_string(&d - &kMatDamages[0])) + "rig.mat";
        fs::copy_file(good, input, fs::copy_options::overwrite_existing);
        flip(input, starts[v] + 8 + d.at(element_bytes(good, starts[v])));
        campaign_case("mat5 " + kChannels[v] + " " + d.name, input,
                      std::string("variable ") + (d.names_variable ? "'" + kChannels[v] + "'" : std::to_string(v + 1)) +
                          ": its compressed data is damaged",
                      mat5);
      }
    const std::string cut = case_dir("campaign_mat5_short") + "rig.mat";
    spit(cut, recompressed_short(good, starts[2], 800));
    campaign_case("mat5 force cut before compression", cut, "variable 'force': its compressed data is damaged", mat5);
    // A struct of the three signals (one experiment named `rig`), damaged
    // in the middle of its one compressed element.
    const std::string input = case_dir("campaign_mat5_struct") + "rig.mat";
    const char* fields[] = {"time", "velocity", "force", nullptr};
    size_t one[2] = {1, 1};
    matvar_t* rig = Mat_VarCreateStruct2("rig", 2, one, fields);
    for (size_t k = 0; k < kChannels.size(); ++k) {
      std::vector<double> v = signal(kChannels[k]);
      size_t dims[2] = {v.size(), 1};
      Mat_VarSetStructFieldByIndex(rig, k, 0, Mat_VarCreate(nullptr, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, v.data(), 0));
    }
    mat_t* mat = Mat_CreateVer(input.c_str(), nullptr, MAT_FT_MAT5);
    Mat_VarWrite(mat, rig, MAT_COMPRESSION_ZLIB);
    Mat_VarFree(rig);
    Mat_Close(mat);
    flip(input, 128 + 8 + element_bytes(input, 128) / 2);
    campaign_case("mat5 struct middle", input, "variable 'rig': its compressed data is damaged", mat5);
  }
#endif
  // Class 2: HDF5 logs chunked, shuffled and deflated (100 rows a chunk,
  // four chunks a channel), one chunk damaged: its zlib header, its
  // middle, its Adler-32 check.
  {
    struct ChunkDamage {
      const char* channel;
      hsize_t chunk;
      const char* where;
    };
    const ChunkDamage damages[] = {{"force", 0, "header"},
                                   {"force", 1, "middle"},
                                   {"force", 3, "adler"},
                                   {"time", 2, "middle"},
                                   {"velocity", 0, "adler"}};
    for (const auto& d : damages) {
      const std::string input =
          write_log_h5(case_dir(std::string("campaign_chunk_") + d.channel + std::to_string(d.chunk)) + "rig.h5", 100);
      const auto [addr, size] = chunk_place(input, d.channel, d.chunk);
      ASSERT_GT(size, 8u);
      const std::string where = d.where;
      flip(input, addr + (where == "header" ? 0 : where == "middle" ? size / 2 : size - 4));
      campaign_case(std::string("hdf5 chunk ") + d.channel + " " + std::to_string(d.chunk) + " " + d.where, input,
                    std::string("channel '") + d.channel + "'", chunks);
    }
  }
  // Class 3: filters this libhdf5 lacks, mandatory (refused, named) and
  // optional (skipped when the chunks were written without it: read).
  if (has_python_h5py()) {
    const std::string lzf = write_log_h5(case_dir("campaign_lzf") + "rig.h5", 0);
    python(
        "import sys, h5py\n"
        "with h5py.File(sys.argv[1], 'r+') as f:\n"
        "    g = f['run1']; v = g['force'][...]; del g['force']\n"
        "    d = g.create_dataset('force', data=v, chunks=(100,), compression='lzf')\n"
        "    d.attrs['units'] = b'N'\n",
        lzf);
    campaign_case("filter lzf", lzf, "channel 'force': is compressed with the HDF5 filter LZF (32000)", filters);
    const std::string zstd = write_log_h5(case_dir("campaign_zstd") + "rig.h5", 0);
    python(
        "import sys, h5py, numpy as np\n"
        "with h5py.File(sys.argv[1], 'r+') as f:\n"
        "    g = f['run1']; del g['velocity']\n"
        "    d = g.create_dataset('velocity', shape=(400,), dtype='f8', chunks=(400,), compression=32015,\n"
        "                         allow_unknown_filter=True)\n"
        "    d.id.write_direct_chunk((0,), b'\\x28\\xb5\\x2f\\xfd' + bytes(60))\n"
        "    d.attrs['units'] = b'm/s'\n",
        zstd);
    campaign_case("filter zstd", zstd, "channel 'velocity': is compressed with the HDF5 filter Zstandard (32015)",
                  filters);
    const std::string optional = write_log_h5(case_dir("campaign_optional") + "rig.h5", 0);
    python(
        "import sys, h5py, numpy as np\n"
        "with h5py.File(sys.argv[1], 'r+') as f:\n"
        "    g = f['run1']; v = g['force'][...]; del g['force']\n"
        "    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE); dcpl.set_chunk((100,))\n"
        "    dcpl.set_filter(32015, h5py.h5z.FLAG_OPTIONAL)\n"
        "    sp = h5py.h5s.create_simple((400,))\n"
        "    h5py.h5d.create(g.id, b'force', h5py.h5t.IEEE_F64LE, sp, dcpl)\n"
        "    g['force'][...] = v; g['force'].attrs['units'] = b'N'\n",
        optional);
    campaign_case("optional filter skipped", optional, "", filters);
    const std::string mat = case_dir("campaign_mat73_lzf") + "rig.mat";
    python(
        "import sys, h5py, numpy as np\n"
        "n = 400; t = np.arange(n) * 1e-3; v = 0.05 * np.sin(2 * np.pi * 5 * t)\n"
        "F = 100 * np.tanh(v / 1e-3) + 200 * v\n"
        "with h5py.File(sys.argv[1], 'w', userblock_size=512) as f:\n"
        "    for name, x in (('time', t), ('velocity', v), ('force', F)):\n"
        "        d = f.create_dataset(name, data=x.reshape(1, n), chunks=(1, 100),\n"
        "                             compression='lzf' if name == 'force' else 'gzip')\n"
        "        d.attrs['MATLAB_class'] = np.bytes_('double')\n"
        "head = b'MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 .'\n"
        "b = bytearray(open(sys.argv[1], 'rb').read()); b[:len(head)] = head\n"
        "open(sys.argv[1], 'wb').write(b)\n",
        mat);
    campaign_case("v7.3 mat lzf", mat, "variable 'force': is compressed with the HDF5 filter LZF (32000)", filters);
    // A MATLAB v7.3 file (HDF5, deflated and shuffled as MATLAB saves it)
    // with a chunk of `force` damaged.
    const std::string mat73 = case_dir("campaign_mat73_chunk") + "rig.mat";
    python(
        "import sys, h5py, numpy as np\n"
        "n = 400; t = np.arange(n) * 1e-3; v = 0.05 * np.sin(2 * np.pi * 5 * t)\n"
        "F = 100 * np.tanh(v / 1e-3) + 200 * v\n"
        "with h5py.File(sys.argv[1], 'w', userblock_size=512) as f:\n"
        "    for name, x in (('time', t), ('velocity', v), ('force', F)):\n"
        "        d = f.create_dataset(name, data=x.reshape(1, n), chunks=(1, 100), shuffle=True, compression='gzip')\n"
        "        d.attrs['MATLAB_class'] = np.bytes_('double')\n"
        "    place = f['force'].id.get_chunk_info(2)\n"
        "head = b'MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 .'\n"
        "b = bytearray(open(sys.argv[1], 'rb').read()); b[:len(head)] = head\n"
        "for i in range(4): b[place.byte_offset + place.size // 2 + i] ^= 0xA5\n"
        "open(sys.argv[1], 'wb').write(b)\n",
        mat73);
    campaign_case("v7.3 mat chunk", mat73, "variable 'force'", chunks);
    // Intact zlib streams of the wrong length in chunk 1 of `force` (100
    // rows, 800 bytes): half of it, shuffled or not, and twice it after
    // shuffle. libhdf5 (and h5py) read these as wrong numbers.
    const char* lengths[][3] = {
        {"half", "False", "400"}, {"half shuffled", "True", "400"}, {"double shuffled", "True", "1600"}};
    for (const auto& l : lengths) {
      const std::string input = write_log_h5(case_dir(std::string("campaign_length_") + l[2] + l[1]) + "rig.h5", 0);
      python(std::string("import sys, zlib, h5py, numpy as np\n"
                         "with h5py.File(sys.argv[1], 'r+') as f:\n"
                         "    g = f['run1']; v = g['force'][...]; del g['force']\n"
                         "    d = g.create_dataset('force', data=v, chunks=(100,), shuffle=") +
                 l[1] + ", compression='gzip')\n" +
                 "    d.attrs['units'] = b'N'\n"
                 "    raw = np.resize(v[100:200], 200).astype('<f8').tobytes()[:" +
                 l[2] + "]\n" + "    if " + l[1] +
                 ": raw = np.frombuffer(raw, np.uint8).reshape(-1, 8).T.tobytes()\n"
                 "    d.id.write_direct_chunk((100,), zlib.compress(raw))\n",
             input);
      campaign_case(std::string("hdf5 chunk of ") + l[0] + " length", input,
                    std::string("channel 'force': chunk 1 (rows 100..199) is damaged (it inflates to ") + l[2] +
                        " bytes, 800 expected)",
                    chunks);
    }
  }
  // Class 4: huge attributes (8 MB) where a log keeps its metadata: the
  // experiment (fixed-length and variable-length strings), the file, a
  // channel (an array of numbers, not a string Stribeck reads).
  {
    const std::string big(8 << 20, 'd');
    const std::vector<std::pair<std::string, std::function<void(hid_t, hid_t)>>> cases = {
        {"group fixed", [&](hid_t, hid_t g) { data::h5::write_string_attribute(g, "description", big, "test"); }},
        {"group vlen",
         [&](hid_t, hid_t g) {
           hid_t type = H5Tcopy(H5T_C_S1);
           H5Tset_size(type, H5T_VARIABLE);
           hid_t sp = H5Screate(H5S_SCALAR);
           hid_t a = H5Acreate2(g, "rig", type, sp, H5P_DEFAULT, H5P_DEFAULT);
           const char* p = big.c_str();
           H5Awrite(a, type, &p);
           H5Aclose(a);
           H5Sclose(sp);
           H5Tclose(type);
         }},
        {"root", [&](hid_t f, hid_t) { data::h5::write_string_attribute(f, "config", big, "test"); }},
        {"channel scaling",
         [&](hid_t, hid_t g) {
           hid_t d = H5Dopen2(g, "force", H5P_DEFAULT);
           data::h5::write_string_attribute(d, "scaling", big, "test");
           H5Dclose(d);
         }},
        // Beyond the 16 MiB a fixed-length string attribute may claim (a
        // damaged size must not make the reader allocate gigabytes): metadata
        // that size is left in the file, the log is read.
        {"group 20 MB",
         [&](hid_t, hid_t g) {
           data::h5::write_string_attribute(g, "description", std::string(20 << 20, 'd'), "test");
         }},
        {"channel array",
         [&](hid_t, hid_t g) {
           hid_t d = H5Dopen2(g, "force", H5P_DEFAULT);
           const std::vector<double> values(1 << 20, 1.5);
           const hsize_t n = values.size();
           hid_t sp = H5Screate_simple(1, &n, nullptr);
           hid_t a = H5Acreate2(d, "calibration", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
           H5Awrite(a, H5T_NATIVE_DOUBLE, values.data());
           H5Aclose(a);
           H5Sclose(sp);
           H5Dclose(d);
         }},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string input =
          write_log_h5(case_dir("campaign_attr_" + std::to_string(i)) + "rig.h5", 0, cases[i].second);
      campaign_case("attribute " + cases[i].first, input, "", attributes);
    }
  }
  const int cases = mat5.cases + chunks.cases + filters.cases + attributes.cases;
  const int failures = mat5.failures + chunks.failures + filters.failures + attributes.failures;
  std::printf(
      "campaign 'damaged compressed inputs': mat5 %d cases (%d failed), hdf5 chunks %d (%d), filters %d (%d), "
      "attributes %d (%d); %d cases, %d failed\n",
      mat5.cases, mat5.failures, chunks.cases, chunks.failures, filters.cases, filters.failures, attributes.cases,
      attributes.failures, cases, failures);
  EXPECT_GE(cases, 30);
}

}  // namespace
}  // namespace stribeck
