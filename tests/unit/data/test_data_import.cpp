// Delimited text and MATLAB v7.3 import: delimiter detection, decimal commas,
// header units, aliases, SI conversion, absolute pressure, bad input.
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#ifdef STRIBECK_HAVE_MATIO
#include <matio.h>
#endif

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/units.hpp"

namespace stribeck {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = stribeck::test::temp_dir() + "stribeck_imp_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const data::InputError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(DataUnits, ConversionFactorsAreTheDefinitions) {
  struct Row {
    const char* unit;
    double factor;
    data::Dimension dim;
  };
  const Row rows[] = {
      {"mm", 1e-3, data::Dimension::kLength},
      {"µm", 1e-6, data::Dimension::kLength},
      {"um", 1e-6, data::Dimension::kLength},
      {"mm/s", 1e-3, data::Dimension::kVelocity},
      {"m/s²", 1, data::Dimension::kAcceleration},
      {"mm/s^2", 1e-3, data::Dimension::kAcceleration},
      {"kN", 1e3, data::Dimension::kForce},
      {"bar", 1e5, data::Dimension::kPressure},
      {"kPa", 1e3, data::Dimension::kPressure},
      {"MPa", 1e6, data::Dimension::kPressure},
      {"psi", 0.45359237 * 9.80665 / (0.0254 * 0.0254), data::Dimension::kPressure},
      {"ms", 1e-3, data::Dimension::kTime},
      {"deg", 3.14159265358979323846 / 180, data::Dimension::kAngle},
      {"°", 3.14159265358979323846 / 180, data::Dimension::kAngle},
      {"rpm", 2 * 3.14159265358979323846 / 60, data::Dimension::kAngularVelocity},
      {"N·m", 1, data::Dimension::kTorque},
      {"Nm", 1, data::Dimension::kTorque},
      {"lbf", 0.45359237 * 9.80665, data::Dimension::kForce},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.unit);
    const auto u = data::find_unit(r.unit);
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->dimension, r.dim);
    EXPECT_NEAR(u->factor, r.factor, 1e-15 * r.factor);
  }
  EXPECT_DOUBLE_EQ(data::find_unit("degC")->offset, 273.15);
  EXPECT_TRUE(data::find_unit("bara")->absolute_pressure);
  EXPECT_TRUE(data::find_unit("bar (abs)")->absolute_pressure);
  EXPECT_FALSE(data::find_unit("barg")->absolute_pressure);
  EXPECT_FALSE(data::find_unit("Pa")->absolute_pressure);
  EXPECT_FALSE(data::find_unit("furlong").has_value());
  EXPECT_FALSE(data::find_unit("").has_value());
}

TEST(DataUnits, HeaderCellsAndAliases) {
  std::string n, u;
  data::split_header_cell("velocity [mm/s]", n, u);
  EXPECT_EQ(n, "velocity");
  EXPECT_EQ(u, "mm/s");
  data::split_header_cell("p_A (bar)", n, u);
  EXPECT_EQ(n, "p_A");
  EXPECT_EQ(u, "bar");
  data::split_header_cell("Force/kN", n, u);
  EXPECT_EQ(n, "Force");
  EXPECT_EQ(u, "kN");
  data::split_header_cell("\"time in ms\"", n, u);
  EXPECT_EQ(n, "time");
  EXPECT_EQ(u, "ms");
  {
    const data::RawColumns raw = data::parse_delimited("\"Force, N\";\"time\"\n1;2\n", "q.csv");
    EXPECT_EQ(raw.names, (std::vector<std::string>{"Force, N", "time"}));
  }
  data::split_header_cell("a/b ratio", n, u);
  EXPECT_EQ(n, "a/b ratio");
  EXPECT_EQ(u, "");
  EXPECT_EQ(data::canonical_channel("p_A"), "pressure_a");
  EXPECT_EQ(data::canonical_channel("Force"), "force");
  EXPECT_EQ(data::canonical_channel("t"), "time");
  EXPECT_EQ(data::canonical_channel("Fn"), "normal_force");
  EXPECT_EQ(data::canonical_channel("Weg"), "position");
  EXPECT_EQ(data::canonical_channel("strain gauge 2"), "strain gauge 2");
}

TEST(DataText, DelimitersDecimalCommasComments) {
  struct Case {
    const char* text;
    char delim;
    bool comma;
  };
  const Case cases[] = {
      {"time,force\n0,1.5\n0.1,2.5\n", ',', false},
      {"time;force\n0;1,5\n0,1;2,5\n", ';', true},
      {"# rig 3\ntime\tforce\n0\t1,5\n0,1\t2,5\n", '\t', true},
      {"% matlab style\ntime   force\n  0   1.5\n 0.1  2.5\n", ' ', false},
      {"time force\r\n0 1,5\r\n0,1 2,5\r\n", ' ', true},
      {"\xEF\xBB\xBFtime, force\n// c++ comment\n0, 1.5\n\n0.1, 2.5\n", ',', false},
      {"\"time\",\"force\"\n\"0\",\"1.5\"\n\"0.1\",\"2.5\"\n", ',', false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    data::TextInfo info;
    const data::RawColumns raw = data::parse_delimited(c.text, "t.csv", &info);
    EXPECT_EQ(info.delimiter, c.delim);
    EXPECT_EQ(info.decimal_comma, c.comma);
    EXPECT_TRUE(info.header);
    ASSERT_EQ(raw.names, (std::vector<std::string>{"time", "force"}));
    EXPECT_EQ(raw.values[0], (std::vector<double>{0, 0.1}));
    EXPECT_EQ(raw.values[1], (std::vector<double>{1.5, 2.5}));
  }
}

TEST(DataText, HeaderUnitsConvertToSI) {
  const std::string path = write_temp("units.csv",
                                      "Time [ms];Weg [mm];velocity [mm/s];p_A (bar);p_B (psi);Force/kN;Temp [degC]\n"
                                      "0;1;10;2;0;0,5;20\n"
                                      "10;2;10;3;1;0,25;21\n");
  const data::Experiment e = data::read_any_log(path).at(0);
  EXPECT_EQ(e.name, data::file_stem(path));
  EXPECT_EQ(e.channels.at("time"), (std::vector<double>{0, 0.01}));
  EXPECT_EQ(e.channels.at("position"), (std::vector<double>{1e-3, 2e-3}));
  EXPECT_EQ(e.channels.at("velocity"), (std::vector<double>{0.01, 0.01}));
  EXPECT_EQ(e.channels.at("pressure_a"), (std::vector<double>{2e5, 3e5}));
  EXPECT_DOUBLE_EQ(e.channels.at("pressure_b")[1], 6894.757293168361);
  EXPECT_EQ(e.channels.at("force"), (std::vector<double>{500, 250}));
  EXPECT_DOUBLE_EQ(e.channels.at("temperature")[0], 293.15);
  EXPECT_EQ(e.units.at("velocity"), "m/s");
  EXPECT_EQ(e.units.at("temperature"), "K");
  EXPECT_EQ(e.attributes.at("pressure_reference"), "gauge");
  std::remove(path.c_str());
}

TEST(DataText, HeaderlessWithColumnSpecsAndAbsolutePressure) {
  const std::string path = write_temp("nohead.txt", "0 9 9 1.0 1.2\n10 9 9 2.0 1.3\n");
  data::ReadOptions o;
  o.columns = data::parse_column_specs("time=0:ms, position=3:mm, pressure_a=4:bara");
  o.ambient_pressure = 1e5;
  const data::Experiment e = data::read_any_log(path, o).at(0);
  EXPECT_EQ(e.channels.size(), 3u);  // only mapped columns
  EXPECT_EQ(e.channels.at("position"), (std::vector<double>{1e-3, 2e-3}));
  EXPECT_NEAR(e.channels.at("pressure_a")[0], 0.2e5, 1e-9);
  EXPECT_EQ(std::stod(e.attributes.at("ambient_pressure")), 1e5);
  EXPECT_NE(error_of([&] { data::read_any_log(path); }).find("no header row; map the columns with --columns"),
            std::string::npos);
  std::remove(path.c_str());
}

TEST(DataText, RotationalUnitsMarkTheLog) {
  const std::string path = write_temp("rot.csv", "time,speed [rpm],torque [N*m]\n0,60,1\n1,60,2\n");
  const data::Experiment e = data::read_any_log(path).at(0);
  EXPECT_EQ(e.attributes.at("motion"), "rotational");
  EXPECT_DOUBLE_EQ(e.channels.at("velocity")[0], 2 * 3.14159265358979323846);
  EXPECT_EQ(e.units.at("force"), "N*m");
  std::remove(path.c_str());
}

TEST(DataText, BadInputNamesFileLineColumn) {
  struct Case {
    const char* name;
    const char* text;
    std::vector<const char*> expect;
  };
  const Case cases[] = {
      {"nan", "time,force\n0,1\n1,nan\n", {":3:", "column 2 'force'", "'nan'", "not a finite number"}},
      {"short", "time,force\n0,1\n1\n", {":3:", "expected 2 cells, found 1"}},
      {"empty_cell", "time,force\n0,1\n1,\n", {":3:", "column 2", "empty"}},
      {"unknown_unit", "time,force [furlong]\n0,1\n1,2\n", {"column 1 'force'", "unknown unit 'furlong'"}},
      {"wrong_dim", "time,velocity [mm]\n0,1\n1,2\n", {"column 1 'velocity'", "is length", "needs velocity"}},
      {"time_back", "time,force\n0,1\n2,1\n1,1\n", {"channel 'time'", "decreases at index 2"}},
      {"dup_channel", "F,force\n0,1\n1,1\n", {"column 0 'F' and column 1 'force' both map to channel 'force'"}},
      {"only_header", "time,force\n", {"header row but no data rows"}},
      {"empty", "", {"file is empty"}},
      {"comments_only", "# nothing\n\n", {"no data"}},
      {"binary", std::string("\x01\x02\x00\x03", 4).c_str(), {"not a log"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write_temp(std::string(c.name) + ".csv",
                                        std::string(c.name) == "binary" ? std::string("\x01\x02\x00\x03", 4) : c.text);
    const std::string msg = error_of([&] { data::read_any_log(path); });
    EXPECT_EQ(msg.find('\n'), std::string::npos);
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    for (const char* f : c.expect) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
    std::remove(path.c_str());
  }
  EXPECT_NE(error_of([] { data::parse_column_specs("time=0:parsec"); }).find("unknown unit 'parsec'"),
            std::string::npos);
  EXPECT_NE(error_of([] { data::parse_column_specs("time"); }).find("CHANNEL=COLUMN"), std::string::npos);
}

// A MATLAB v7.3 file as MATLAB writes it: 512-byte user block starting with
// the MAT header text, variables with MATLAB_class, column-major storage.
class MatFile {
 public:
  explicit MatFile(const std::string& name) : path_(write_temp(name, "")) {
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 512);
    file_ = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
  }
  // MATLAB size rows x cols, given column by column (column-major).
  void matrix(hid_t loc, const char* name, size_t rows, size_t cols, const std::vector<double>& colmajor,
              const char* cls = "double") {
    const hsize_t dims[2] = {cols, rows};  // HDF5 sees the transpose
    hid_t sp = H5Screate_simple(2, dims, nullptr);
    hid_t d = H5Dcreate2(loc, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, colmajor.data());
    data::h5::write_string_attribute(d, "MATLAB_class", cls, "test");
    H5Dclose(d);
    H5Sclose(sp);
  }
  // A group; cls nullptr for MATLAB's unmarked "#refs#".
  hid_t group(const char* name, const char* cls, hid_t loc = -1) {
    hid_t g = H5Gcreate2(loc < 0 ? file_ : loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (cls) data::h5::write_string_attribute(g, "MATLAB_class", cls, "test");
    groups_.push_back(g);
    return g;
  }
  // MATLAB's []: the MATLAB dims stored as values, marked MATLAB_empty.
  void empty(hid_t loc, const char* name, const char* cls = "double") {
    const hsize_t n = 2;
    const std::uint64_t dims[2] = {0, 0};
    hid_t sp = H5Screate_simple(1, &n, nullptr);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, dims);
    data::h5::write_string_attribute(d, "MATLAB_class", cls, "test");
    data::h5::write_uint_attribute(d, "MATLAB_empty", 1, "test");
    H5Dclose(d);
    H5Sclose(sp);
  }
  hobj_ref_t ref(const char* path) const {
    hobj_ref_t r = 0;
    H5Rcreate(&r, file_, path, H5R_OBJECT, -1);
    return r;
  }
  // A dataset of object references for a rows x cols MATLAB array: a field of
  // a struct array (cls nullptr, as MATLAB writes it) or a cell array.
  void references(hid_t loc, const char* name, size_t rows, size_t cols, const std::vector<hobj_ref_t>& refs,
                  const char* cls = nullptr) {
    const hsize_t dims[2] = {cols, rows};
    hid_t sp = H5Screate_simple(2, dims, nullptr);
    hid_t d = H5Dcreate2(loc, name, H5T_STD_REF_OBJ, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, refs.data());
    if (cls) data::h5::write_string_attribute(d, "MATLAB_class", cls, "test");
    H5Dclose(d);
    H5Sclose(sp);
  }
  hid_t root() const { return file_; }
  std::string close() {
    for (hid_t g : groups_) H5Gclose(g);
    H5Fclose(file_);
    std::FILE* f = std::fopen(path_.c_str(), "r+b");
    const char header[] =
        "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 .";
    std::fwrite(header, 1, sizeof header - 1, f);
    std::fclose(f);
    return path_;
  }

 private:
  std::string path_;
  hid_t file_;
  std::vector<hid_t> groups_;
};

TEST(DataMat, VectorsMatricesStructsColumnMajor) {
  MatFile m("test.mat");
  m.matrix(m.root(), "t", 1, 3, {0, 0.5, 1});            // row vector
  m.matrix(m.root(), "F", 3, 1, {10, 20, 30});           // column vector
  m.matrix(m.root(), "Ts", 1, 1, {0.5});                 // scalar -> attribute
  m.matrix(m.root(), "data", 3, 2, {1, 2, 3, 7, 8, 9});  // 3x2 matrix: columns data_0, data_1
  hid_t s = m.group("run2", "struct");
  m.matrix(s, "time", 2, 1, {0, 1});
  m.matrix(s, "velocity", 2, 1, {0.1, 0.2});
  const std::string path = m.close();
  data::ReadOptions o;
  o.columns = data::parse_column_specs("time=t,force=F:kN,position=data_1:mm");
  o.only_mapped = false;
  const auto exps = data::read_any_log(path, o);
  ASSERT_EQ(exps.size(), 2u);
  const data::Experiment& e = exps[0];
  EXPECT_EQ(e.channel("time"), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(e.channel("force"), (std::vector<double>{1e4, 2e4, 3e4}));
  for (size_t i = 0; i < 3; ++i)  // the second MATLAB column, mm -> m
    EXPECT_DOUBLE_EQ(e.channel("position")[i], (7.0 + static_cast<double>(i)) * 1e-3);
  EXPECT_EQ(e.channel("data_0"), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(e.attributes.at("Ts"), "0.5");
  EXPECT_EQ(exps[1].name, "run2");
  std::remove(path.c_str());
  // Without a mapping, struct fields named like channels are read as they are.
  MatFile m2("plain.mat");
  hid_t g = m2.group("trial", "struct");
  m2.matrix(g, "time", 2, 1, {0, 1});
  m2.matrix(g, "v", 2, 1, {0.1, 0.2});
  const std::string p2 = m2.close();
  const auto e2 = data::read_any_log(p2);
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0].name, "trial");
  EXPECT_EQ(e2[0].channel("velocity"), (std::vector<double>{0.1, 0.2}));
  std::remove(p2.c_str());
}

// The first two elements both struct-array tests write: runs(1) complete
// (time, force, a scalar gain of 2), runs(2) a shorter time and no force.
// `prefix`: the --name the file was read with.
void expect_runs_1_and_2(const std::vector<data::Experiment>& exps, const std::string& gain_2,
                         const std::string& prefix) {
  EXPECT_EQ(exps[0].name, prefix + "runs_1");
  EXPECT_EQ(exps[0].channel("time"), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(exps[0].channel("force"), (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(exps[0].attributes.at("gain"), "2");
  EXPECT_EQ(exps[1].name, prefix + "runs_2");
  EXPECT_EQ(exps[1].channel("time"), (std::vector<double>{0, 0.5}));
  EXPECT_FALSE(exps[1].has("force"));
  EXPECT_EQ(exps[1].attributes.at("gain"), gain_2);
}

// `save('f.mat', 'runs', 'trial', '-v7.3')` with runs a 1x3 struct array:
// runs(1) full, runs(2) without force, runs(3) with nothing numeric; trial a
// scalar struct with a cell field; an empty struct array beside them.
// Sizes a damaged v7.3 file claims are refused before Stribeck allocates
// by them (found by the fuzz_mat campaign; before, `import` ended with
// "internal error: std::bad_alloc", exit 3, after taking 4 GB): an empty
// matrix (0 rows) claiming millions of columns would have made as many
// channels; variables that each claim less than 64 MiB but together more
// than the file could hold even deflated (here never written: fill values).
TEST(DataMat, DamagedSizesAreRefusedBeforeAllocating) {
  {
    MatFile m("empty_columns.mat");
    const hsize_t dims[2] = {10000000, 0};  // MATLAB 0 x 10^7
    hid_t sp = H5Screate_simple(2, dims, nullptr);
    hid_t d = H5Dcreate2(m.root(), "F", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    data::h5::write_string_attribute(d, "MATLAB_class", "double", "test");
    H5Dclose(d);
    H5Sclose(sp);
    m.matrix(m.root(), "t", 3, 1, {0, 1, 2});
    const std::string path = m.close();
    EXPECT_NE(
        error_of([&] { data::read_any_log(path); }).find("variable 'F': a matrix of 10000000 columns; at most 4096"),
        std::string::npos);
    std::remove(path.c_str());
  }
  {
    MatFile m("unwritten.mat");
    for (const char* name : {"a", "b", "c"}) {
      const hsize_t dims[2] = {8000000, 1};  // MATLAB 1 x 8e6 row vectors, 64 MB each, never written
      hid_t sp = H5Screate_simple(2, dims, nullptr);
      hid_t d = H5Dcreate2(m.root(), name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      data::h5::write_string_attribute(d, "MATLAB_class", "double", "test");
      H5Dclose(d);
      H5Sclose(sp);
    }
    const std::string path = m.close();
    const std::string err = error_of([&] { data::read_any_log(path); });
    EXPECT_NE(err.find("variable 'b': claims 8000000 values, more than the file can hold with the variables before it"),
              std::string::npos)
        << err;
    std::remove(path.c_str());
  }
}

TEST(DataMat, StructArrayElementsAreExperimentsV73) {
  MatFile m("structarray.mat");
  hid_t refs = m.group("#refs#", nullptr);
  m.matrix(refs, "a", 3, 1, {0, 1, 2});
  m.matrix(refs, "b", 3, 1, {10, 20, 30});
  m.matrix(refs, "c", 1, 1, {2});
  m.matrix(refs, "d", 1, 2, {0, 0.5});
  m.empty(refs, "e");
  m.empty(refs, "f", "char");
  m.group("g", "struct", refs);  // runs(3).gain: a nested struct
  m.matrix(refs, "h", 1, 2, {7, 8});
  hid_t runs = m.group("runs", "struct");
  m.references(runs, "time", 1, 3, {m.ref("/#refs#/a"), m.ref("/#refs#/d"), m.ref("/#refs#/f")});
  m.references(runs, "force", 1, 3, {m.ref("/#refs#/b"), m.ref("/#refs#/e"), m.ref("/#refs#/e")});
  m.references(runs, "gain", 1, 3, {m.ref("/#refs#/c"), m.ref("/#refs#/c"), m.ref("/#refs#/g")});
  hid_t trial = m.group("trial", "struct");
  m.matrix(trial, "time", 2, 1, {0, 1});
  m.matrix(trial, "force", 2, 1, {3, 4});
  m.references(trial, "notes", 1, 1, {m.ref("/#refs#/h")}, "cell");
  m.empty(m.root(), "none", "struct");
  const std::string path = m.close();
  data::ReadOptions o;
  const auto exps = data::read_any_log(path, o);
  ASSERT_EQ(exps.size(), 3u);
  expect_runs_1_and_2(exps, "2", "");
  EXPECT_EQ(exps[2].name, "trial");  // a scalar struct reads as before
  // --name prefixes the experiments of a file that holds several, so two
  // such files import side by side.
  o.name = "rigA";
  const auto named = data::read_any_log(path, o);
  ASSERT_EQ(named.size(), 3u);
  expect_runs_1_and_2(named, "2", "rigA_");
  EXPECT_EQ(named[2].name, "rigA_trial");
  EXPECT_EQ(exps[2].channel("force"), (std::vector<double>{3, 4}));
  EXPECT_FALSE(exps[2].has("notes"));
  std::remove(path.c_str());
  // A lone scalar struct still takes the given name.
  MatFile m2("scalar.mat");
  hid_t s = m2.group("trial", "struct");
  m2.matrix(s, "time", 2, 1, {0, 1});
  const std::string p2 = m2.close();
  o.name = "bench";
  const auto one = data::read_any_log(p2, o);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "bench");
  std::remove(p2.c_str());
}

TEST(DataMat, BrokenStructArraysAreOneLineErrors) {
  struct Case {
    const char* name;
    void (*build)(MatFile&, hid_t runs, hid_t refs);
    std::vector<const char*> expect;
  };
  const Case cases[] = {
      {"dangling",
       [](MatFile& m, hid_t runs, hid_t) {
         m.references(runs, "time", 1, 2, {m.ref("/#refs#/a"), hobj_ref_t(1) << 40});
       },
       {"variable 'runs(2)': field 'time'", "refers to a missing object"}},
      {"counts",
       [](MatFile& m, hid_t runs, hid_t) {
         m.references(runs, "force", 1, 3, {m.ref("/#refs#/a"), m.ref("/#refs#/a"), m.ref("/#refs#/a")});
         m.references(runs, "time", 1, 2, {m.ref("/#refs#/a"), m.ref("/#refs#/a")});
       },
       {"variable 'runs': field 'time' has 2 elements, field 'force' has 3"}},
      {"mixed",
       [](MatFile& m, hid_t runs, hid_t) {
         m.matrix(runs, "force", 2, 1, {1, 2});
         m.references(runs, "time", 1, 2, {m.ref("/#refs#/a"), m.ref("/#refs#/a")});
       },
       {"variable 'runs': field 'force'", "other fields of this struct array hold element references"}},
      {"lengths",
       [](MatFile& m, hid_t runs, hid_t refs) {
         m.matrix(refs, "b", 3, 1, {1, 2, 3});
         m.references(runs, "force", 1, 2, {m.ref("/#refs#/a"), m.ref("/#refs#/b")});
         m.references(runs, "time", 1, 2, {m.ref("/#refs#/a"), m.ref("/#refs#/a")});
       },
       {"experiment 'runs_2'", "'time' has 2 samples, 'force' has 3"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    MatFile m(std::string("broken_") + c.name + ".mat");
    hid_t refs = m.group("#refs#", nullptr);
    m.matrix(refs, "a", 2, 1, {0, 1});
    c.build(m, m.group("runs", "struct"), refs);
    const std::string path = m.close();
    const std::string msg = error_of([&] { data::read_any_log(path); });
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    for (const char* f : c.expect) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
    std::remove(path.c_str());
  }
}

#ifdef STRIBECK_HAVE_MATIO
// A MATLAB double array as libmatio writes it (values column-major; no name
// for a struct field, which takes its field's).
matvar_t* mat5_double(size_t rows, size_t cols, std::vector<double> v, const char* name = nullptr) {
  size_t dims[2] = {rows, cols};
  return Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, v.empty() ? nullptr : v.data(), 0);
}

// Writes (and frees) the variables as a compressed v7 file, MATLAB's default.
std::string write_mat5(const std::string& name, const std::vector<matvar_t*>& vars) {
  const std::string path = write_temp(name, "");
  mat_t* mat = Mat_CreateVer(path.c_str(), nullptr, MAT_FT_MAT5);
  for (matvar_t* v : vars) {
    Mat_VarWrite(mat, v, MAT_COMPRESSION_ZLIB);
    Mat_VarFree(v);
  }
  Mat_Close(mat);
  return path;
}

// A 2x2 struct array runs with fields time, force, gain, given element by
// element in MATLAB's linear (column-major) order; a field left out or
// nullptr stays unset, which matio writes as [].
matvar_t* mat5_runs(const std::vector<std::vector<matvar_t*>>& elements) {
  const char* fields[] = {"time", "force", "gain", nullptr};
  size_t dims[2] = {2, 2};
  matvar_t* runs = Mat_VarCreateStruct2("runs", 2, dims, fields);
  for (size_t e = 0; e < elements.size(); ++e)
    for (size_t k = 0; k < elements[e].size(); ++k)
      if (elements[e][k]) Mat_VarSetStructFieldByIndex(runs, k, e, elements[e][k]);
  return runs;
}
#endif

TEST(DataMat, StructArrayElementsAreExperimentsV5) {
#ifndef STRIBECK_HAVE_MATIO
  GTEST_SKIP() << "built without libmatio";
#else
  // runs(1) full; runs(2) leaves force unset; runs(3) all []; runs(4) no gain.
  const std::string path = write_mat5(
      "runs.mat", {mat5_runs({{mat5_double(3, 1, {0, 1, 2}), mat5_double(3, 1, {10, 20, 30}), mat5_double(1, 1, {2})},
                              {mat5_double(1, 2, {0, 0.5}), nullptr, mat5_double(1, 1, {3})},
                              {mat5_double(0, 0, {}), mat5_double(0, 0, {}), mat5_double(0, 0, {})},
                              {mat5_double(2, 1, {5, 6}), mat5_double(2, 1, {-1, -2}), nullptr}})});
  data::ReadOptions o;
  o.name = "rigB";  // prefixes the experiments of a file that holds several
  const auto exps = data::read_any_log(path, o);
  ASSERT_EQ(exps.size(), 3u);
  expect_runs_1_and_2(exps, "3", "rigB_");
  EXPECT_EQ(exps[2].name, "rigB_runs_4");
  EXPECT_EQ(exps[2].channel("time"), (std::vector<double>{5, 6}));
  EXPECT_EQ(exps[2].channel("force"), (std::vector<double>{-1, -2}));
  EXPECT_EQ(exps[2].attributes.count("gain"), 0u);
  std::remove(path.c_str());
  // A 1x1 struct is one experiment as before, taking the given name.
  const char* fields[] = {"time", "force", nullptr};
  size_t one[2] = {1, 1};
  matvar_t* trial = Mat_VarCreateStruct2("trial", 2, one, fields);
  Mat_VarSetStructFieldByIndex(trial, 0, 0, mat5_double(2, 1, {0, 1}));
  Mat_VarSetStructFieldByIndex(trial, 1, 0, mat5_double(2, 1, {3, 4}));
  const std::string p2 = write_mat5("trial.mat", {trial});
  o.name = "bench";
  const auto single = data::read_any_log(p2, o);
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].name, "bench");
  EXPECT_EQ(single[0].channel("force"), (std::vector<double>{3, 4}));
  std::remove(p2.c_str());
  // An element's bad field is named by MATLAB's index, in one line.
  size_t cube[3] = {2, 2, 2};
  std::vector<double> eight(8, 1.0);
  const std::string p3 = write_mat5(
      "bad.mat", {mat5_runs({{mat5_double(2, 1, {0, 1})},
                             {mat5_double(2, 1, {0, 1}),
                              Mat_VarCreate(nullptr, MAT_C_DOUBLE, MAT_T_DOUBLE, 3, cube, eight.data(), 0)}})});
  const std::string msg = error_of([&] { data::read_any_log(p3); });
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find(p3 + ": variable 'runs(2)': field 'force': has 3 dimensions"), std::string::npos) << msg;
  std::remove(p3.c_str());
#endif
}

TEST(DataMat, OpaqueObjectsAndV5AreExplained) {
  MatFile m("obj.mat");
  m.matrix(m.root(), "logsout", 1, 6, {1, 2, 3, 4, 5, 6}, "Simulink.SimulationData.Dataset");
  const std::string path = m.close();
  const std::string msg = error_of([&] { data::read_any_log(path); });
  EXPECT_NE(msg.find("variable 'logsout'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Simulink.SimulationData.Dataset"), std::string::npos) << msg;
  EXPECT_NE(msg.find("save plain arrays"), std::string::npos) << msg;
  std::remove(path.c_str());
  // A v5 header with nothing behind it: refused either way (no libmatio: the
  // hint to save -v7.3; with it: not a readable v5 file).
  const std::string v5 =
      write_temp("v5.mat", std::string("MATLAB 5.0 MAT-file, Platform: PCWIN64") + std::string(100, ' '));
  const std::string v5msg = error_of([&] { data::read_any_log(v5); });
  EXPECT_NE(v5msg.find(data::have_mat5_support() ? v5 : std::string("'-v7.3'")), std::string::npos) << v5msg;
  std::remove(v5.c_str());
}

TEST(DataMat, Version5And7ThroughLibmatio) {
  if (!data::have_mat5_support()) GTEST_SKIP() << "built without libmatio";
  const std::string dir = std::string(STRIBECK_SOURCE_DIR) + "/tests/data/";
  data::ReadOptions o;
  o.columns = data::parse_column_specs("time=t:ms,force=F:kN,position=data_1:mm");
  const auto exps = data::read_any_log(dir + "v5_small.mat", o);
  ASSERT_EQ(exps.size(), 2u);
  EXPECT_EQ(exps[0].name, "v5_small");
  EXPECT_EQ(exps[0].channel("time"), (std::vector<double>{0, 0.01, 0.02, 0.03, 0.04}));
  EXPECT_EQ(exps[0].channel("force"), (std::vector<double>{1e3, 2e3, 3e3, 4e3, 5e3}));
  for (size_t i = 0; i < 5; ++i)  // second MATLAB column of data = 2 t, in mm
    EXPECT_DOUBLE_EQ(exps[0].channel("position")[i], 20.0 * static_cast<double>(i) * 1e-3);
  EXPECT_EQ(exps[0].attributes.at("Ts"), "0.01");
  EXPECT_EQ(exps[1].name, "trial2");  // struct of vectors, mapped by its field names
  EXPECT_EQ(exps[1].channel("velocity"), (std::vector<double>{0.1, 0.2}));
  // Compressed v7 (MATLAB's default save format): float32 widened, logicals ignored.
  const auto v7 = data::read_any_log(dir + "v7_compressed.mat");
  ASSERT_EQ(v7.size(), 1u);
  EXPECT_EQ(v7[0].channel("force"), (std::vector<double>{5, 6, 7}));
  EXPECT_FALSE(v7[0].has("flag"));
  // A truncated v5 file is an error, not a crash.
  std::ifstream in(dir + "v5_small.mat", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = write_temp("cut.mat", bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(error_of([&] { data::read_any_log(cut); }), "<no error>");
  std::remove(cut.c_str());
}

}  // namespace
}  // namespace stribeck
