// `stribeck eval`, `import` and `export` streaming (issue 17 item 1, issue 20
// item 5): HDF5 evaluated block by block equals the model evaluated here on
// read_log's channels bit for bit (static and dynamic models, lengths that no
// block divides); eval accepts the text dialect import reads (decimal comma,
// '%' and '//' comments, quoted headers, a units row); import streams text
// into the same log read_log sees; CSV output quotes as RFC 4180 says.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "output_columns.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) { return test::temp_dir() + "stream_" + name; }

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// A log in foreign units (mm/s, bar) with `n` samples: what the reader must
// convert on the way in, block by block.
std::string foreign_log(const std::string& name, size_t n) {
  const std::string path = tmp(name);
  std::vector<double> t(n), v(n), pa(n), pb(n);
  for (size_t i = 0; i < n; ++i) {
    t[i] = 1e-3 * static_cast<double>(i);
    v[i] = 200.0 * std::sin(2 * M_PI * 0.7 * t[i]) * (1 + 0.1 * std::sin(7.0 * t[i]));  // mm/s
    pa[i] = 50.0 + 20.0 * std::sin(t[i]);                                               // bar
    pb[i] = 30.0 - 10.0 * std::cos(3.0 * t[i]);
  }
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(f, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  auto put = [&](const char* ds_name, const std::vector<double>& x, const char* unit) {
    hsize_t dims[1] = {x.size()}, chunk[1] = {std::min<hsize_t>(4000, x.size())};
    hid_t s = H5Screate_simple(1, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_deflate(dcpl, 1);
    hid_t d = H5Dcreate2(g, ds_name, H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
    data::h5::write_string_attribute(d, "units", unit, "test");
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
  };
  put("time", t, "s");
  put("velocity", v, "mm/s");
  put("pressure_a", pa, "bar");
  put("pressure_b", pb, "bar");
  H5Gclose(g);
  H5Fclose(f);
  return path;
}

TEST(EvalStream, Hdf5StaticLawEqualsTheModelOnReadLogBitForBit) {
  const size_t n = 150001;  // two 65,536-row blocks and a rest
  const std::string log = foreign_log("static.h5", n);
  const data::Experiment e = data::read_log(log)[0];
  const std::vector<std::string> assign = {"K_brk=1.5", "F_pr=50", "v_th=0.01"};
  const auto p = workloads::resolve_params(workloads::require_model("simscape-cylinder"), assign);
  const auto c = SimscapeCylinder::prepare(p.data());
  std::vector<double> want(n);
  for (size_t i = 0; i < n; ++i)
    want[i] = SimscapeCylinder::force(
        c, Sample<double>{e.channel("velocity")[i], e.channel("pressure_a")[i], e.channel("pressure_b")[i], 0.0});
  const std::string out_h5 = tmp("static_out.h5"), out_csv = tmp("static_out.csv");
  workloads::EvalOptions o{"simscape-cylinder", assign, log, out_h5, std::nullopt, ""};
  EXPECT_EQ(workloads::evaluate_file(o).samples, static_cast<long>(n));
  EXPECT_TRUE(same_bits(test::h5_column(out_h5, "eval/simscape-cylinder/model_force"), want));
  // The measured channels come back converted, as read_log gives them.
  const data::Experiment back = data::read_log(out_h5)[0];
  EXPECT_EQ(back.name, "run");
  EXPECT_TRUE(same_bits(back.channel("velocity"), e.channel("velocity")));
  EXPECT_TRUE(same_bits(back.channel("pressure_b"), e.channel("pressure_b")));
  EXPECT_EQ(back.units.at("pressure_a"), "Pa");
  o.output = out_csv;
  workloads::evaluate_file(o);
  EXPECT_TRUE(same_bits(test::csv_column(out_csv, "model_force"), want));
  EXPECT_TRUE(same_bits(test::csv_column(out_csv, "velocity"), e.channel("velocity")));
  // The in-memory entry point: the same numbers, threaded or not.
  std::vector<double> mem(n);
  workloads::EvalInputs in;
  in.n = n;
  in.velocity = e.channel("velocity").data();
  in.pressure_a = e.channel("pressure_a").data();
  in.pressure_b = e.channel("pressure_b").data();
  workloads::evaluate_samples("simscape-cylinder", p, in, mem.data());
  EXPECT_TRUE(same_bits(mem, want));
}

TEST(EvalStream, VectorMathStaysWithinUlpsOfTheDefaultForEveryStaticLaw) {
  // --vector-math swaps the scalar exp/tanh for libmvec's (within 4 ulp): the
  // forces may move in the last bits, never more. Velocities from -2 to 2
  // through the linear zones and zero, pressures to 200 bar, loads to 1 kN.
  const size_t n = 40001;
  std::vector<double> v(n), pa(n), pb(n), fn(n), a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) / (n - 1);
    v[i] = 4.0 * (x - 0.5) * std::abs(x - 0.5) * (i % 7 == 0 ? 1e-3 : 1.0);
    pa[i] = 2e7 * x;
    pb[i] = 1e7 * (1 - x);
    fn[i] = 1e3 * x * x;
  }
  int laws = 0;
  for_each_model(StaticModels{}, [&](auto tag) {
    using M = typename decltype(tag)::type;
    SCOPED_TRACE(M::kId);
    ++laws;
    const auto p = workloads::resolve_params(workloads::require_model(M::kId), {});
    workloads::EvalInputs in;
    in.n = n;
    in.velocity = v.data();
    in.pressure_a = pa.data();
    in.pressure_b = pb.data();
    in.normal_force = fn.data();
    workloads::evaluate_samples(M::kId, p, in, a.data());
    in.vector_math = true;
    workloads::evaluate_samples(M::kId, p, in, b.data());
    double worst = 0, scale = 0;
    for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(a[i]));
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    EXPECT_LE(worst, 1e-14 * scale) << "scale " << scale;
    EXPECT_GT(scale, 0.0);
  });
  EXPECT_GE(laws, 8);
}

TEST(EvalStream, Hdf5DynamicModelCarriesItsStateAcrossBlocks) {
  const size_t n = 70001;
  const std::string log = foreign_log("dynamic.h5", n);
  const data::Experiment e = data::read_log(log)[0];
  const std::vector<std::string> assign = {"sigma0=1e5", "sigma1=300"};
  const auto [force, z] = test::lugre_reference(e, assign, 1e-6);
  const std::string out = tmp("dynamic_out.h5");
  workloads::evaluate_file(workloads::EvalOptions{"lugre", assign, log, out, 1e-6, ""});
  EXPECT_TRUE(same_bits(test::h5_column(out, "eval/lugre/model_force"), force));
  EXPECT_TRUE(same_bits(test::h5_column(out, "eval/lugre/model_state"), z));
  std::vector<double> mem_f(n), mem_z(n);
  workloads::EvalInputs in;
  in.n = n;
  in.velocity = e.channel("velocity").data();
  in.time = e.channel("time").data();
  workloads::evaluate_samples("lugre", workloads::resolve_params(workloads::require_model("lugre"), assign), in,
                              mem_f.data(), mem_z.data(), 1e-6);
  EXPECT_TRUE(same_bits(mem_f, force));
  EXPECT_TRUE(same_bits(mem_z, z));
}

TEST(EvalStream, Hdf5ErrorsNameTheLogAndLeaveNoOutput) {
  const std::string log = foreign_log("errors.h5", 100), out = tmp("never.h5");
  try {
    workloads::evaluate_file(workloads::EvalOptions{"20sim-cv", {}, log, out, std::nullopt, ""});
    ADD_FAILURE() << "no error";
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find(log + ": experiment 'run': model 20sim-cv needs a 'normal_force'"),
              std::string::npos)
        << err.what();
  }
  try {
    workloads::evaluate_file(
        workloads::EvalOptions{"simscape-cylinder", {"F_pr=1e308", "f_cfr=1e308"}, log, out, std::nullopt, ""});
    ADD_FAILURE() << "no error";
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find("experiment 'run': data row 1: the simscape-cylinder force is"),
              std::string::npos)
        << err.what();
  }
  std::ifstream probe(out);
  EXPECT_FALSE(probe.good());
}

// One file in the dialect import reads and the old eval reader refused:
// ';' delimiter, decimal comma, '%' and '//' comments, a quoted header, CRLF.
const char* kDialect =
    "% rig R2, exported by a spreadsheet\r\n"
    "// second comment\r\n"
    "\"time\";\"velocity\";\"pressure_a\";\"pressure_b\"\r\n"
    "0;0,10;2000000;1000000\r\n"
    "% a comment between rows\r\n"
    "0,001;-0,25;2500000,5;1000000\r\n"
    "0,002;0,0005;3000000;1000000\r\n";

TEST(EvalStream, EvalAcceptsTheFilesImportReads) {
  const std::string in = tmp("dialect.csv"), out = tmp("dialect_out.csv");
  write_file(in, kDialect);
  std::string text;
  ASSERT_EQ(test::run_cli("eval -m simscape-cylinder -i " + in + " -o " + out, &text), 0) << text;
  // The model on what import makes of the same file.
  const data::Experiment e = data::read_any_log(in)[0];
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e.channel("velocity")[1], -0.25);
  const auto p = workloads::resolve_params(workloads::require_model("simscape-cylinder"), {});
  const auto c = SimscapeCylinder::prepare(p.data());
  const auto got = test::csv_column(out, "model_force");
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(got[i], SimscapeCylinder::force(c, Sample<double>{e.channel("velocity")[i], e.channel("pressure_a")[i],
                                                                e.channel("pressure_b")[i], 0.0}));
  // The input cells are carried through with a decimal point.
  EXPECT_EQ(test::csv_column(out, "velocity"), e.channel("velocity"));
  EXPECT_NE(slurp(out).find("\n0.001,-0.25,2500000.5,1000000,"), std::string::npos) << slurp(out);

  // A units row under the header (and units in header cells): converted to SI.
  write_file(in, "time\tvelocity\tpressure_a\tpressure_b\ns\tmm/s\tbar\tbar\n0\t100\t20\t10\n0.001\t-250\t25\t10\n");
  ASSERT_EQ(test::run_cli("eval -m simscape-cylinder -i " + in + " -o " + out, &text), 0) << text;
  const data::Experiment u = data::read_any_log(in)[0];
  EXPECT_EQ(u.channel("velocity")[1], -0.25);
  EXPECT_EQ(u.channel("pressure_a")[0], 2e6);
  const auto got_u = test::csv_column(out, "model_force");
  ASSERT_EQ(got_u.size(), 2u);
  EXPECT_EQ(got_u[1], SimscapeCylinder::force(c, Sample<double>{-0.25, 2.5e6, 1e6, 0.0}));
}

TEST(EvalStream, OneTokenizerForEveryLineEndingAndBufferBoundary) {
  // CR-only line ends, a byte-order mark, and rows that straddle the
  // reader's 64 KiB refills: the streamed file reads as the text in memory.
  std::string text = "\xEF\xBB\xBFtime,force\r";
  for (int i = 0; i < 60000; ++i)
    text += std::to_string(i) + "." + std::string(static_cast<size_t>(i % 17), '0') + "1," + std::to_string(i % 13) +
            (i % 3 == 0   ? "\r\n"
             : i % 3 == 1 ? "\n"
                          : "\r");
  const std::string path = tmp("endings.csv");
  write_file(path, text);
  const data::RawColumns mem = data::parse_delimited(text, path);
  data::TextTable t(path);
  EXPECT_EQ(t.names(), (std::vector<std::string>{"time", "force"}));
  std::vector<double> row;
  size_t k = 0;
  while (t.next(row)) {
    ASSERT_LT(k, mem.values[0].size());
    ASSERT_EQ(row[0], mem.values[0][k]) << k;
    ASSERT_EQ(row[1], mem.values[1][k]) << k;
    ASSERT_EQ(row[0], std::stod(std::to_string(k) + "." + std::string(k % 17, '0') + "1")) << k;
    ++k;
  }
  EXPECT_EQ(k, 60000u);
  EXPECT_EQ(mem.values[0].size(), 60000u);
}

TEST(EvalStream, CsvFieldsAreQuotedAsRfc4180Says) {
  std::string s;
  data::append_csv_field(s, "plain");
  EXPECT_EQ(s, "plain");
  const std::pair<const char*, const char*> cases[] = {{"Force, N", "\"Force, N\""},
                                                       {"say \"hi\"", "\"say \"\"hi\"\"\""},
                                                       {"two\nlines", "\"two\nlines\""},
                                                       {" padded", "\" padded\""},
                                                       {"", ""},
                                                       {"semi;colon", "semi;colon"}};
  for (const auto& [in, want] : cases) {
    s.clear();
    data::append_csv_field(s, in);
    EXPECT_EQ(s, want) << in;
  }
  s.clear();
  data::append_csv_field(s, "semi;colon", ';');
  EXPECT_EQ(s, "\"semi;colon\"");
  // eval carries a header name holding a comma through, quoted, and the
  // reader reads it back as one column.
  const std::string in = tmp("quoted.csv"), out = tmp("quoted_out.csv");
  write_file(in, "time;velocity;\"Force, N\"\n0;0,5;1\n1;-0,5;2\n");
  std::string text;
  ASSERT_EQ(test::run_cli("eval -m coulomb-viscous -i " + in + " -o " + out, &text), 0) << text;
  EXPECT_EQ(slurp(out).substr(0, slurp(out).find('\n')), "time,velocity,\"Force, N\",model_force");
  data::CsvReader back(out);
  EXPECT_EQ(back.columns()[2], "Force, N");
  EXPECT_EQ(test::csv_column(out, "velocity"), (std::vector<double>{0.5, -0.5}));
}

TEST(EvalStream, ImportStreamsTextIntoTheLogReadLogReads) {
  const std::string in = tmp("import.csv"), out = tmp("import.h5");
  std::string text = "time [ms];position [mm];p_A [bar]\n";
  const int n = 150001;
  for (int i = 0; i < n; ++i) text += std::to_string(i) + ";" + std::to_string(i % 1000) + ",25;" + "2,5\n";
  write_file(in, text);
  std::string log;
  ASSERT_EQ(test::run_cli("import " + in + " --constant pressure_b=3bar --attr rig=R2 -o " + out, &log), 0) << log;
  EXPECT_NE(log.find("150001 samples"), std::string::npos) << log;
  const data::Experiment e = data::read_log(out)[0];
  const data::Experiment want = data::read_any_log(in)[0];  // the same file read whole
  for (const char* ch : {"time", "position", "pressure_a"}) {
    SCOPED_TRACE(ch);
    EXPECT_TRUE(same_bits(e.channel(ch), want.channel(ch)));
  }
  EXPECT_EQ(e.channel("time")[n - 1], (n - 1) * 1e-3);
  EXPECT_EQ(e.channel("position")[1234], 1e-3 * 234.25);
  EXPECT_EQ(e.channel("pressure_b"), std::vector<double>(n, 3e5));
  EXPECT_EQ(e.attributes.at("rig"), "R2");
  EXPECT_EQ(e.attributes.at("constant_pressure_b"), "3bar");
  EXPECT_EQ(e.units.at("position"), "m");
  // A bad row far down: one line naming file and line, no output, old
  // content kept.
  text += "150001;oops;2,5\n";
  write_file(in, text);
  const std::string before = slurp(out);
  EXPECT_EQ(test::run_cli("import " + in + " -o " + out, &log), 2);
  EXPECT_NE(log.find(in + ":150003: column 2 'position': 'oops'"), std::string::npos) << log;
  EXPECT_EQ(slurp(out), before);
}

TEST(EvalStream, ExportStreamsHdf5LogsAsWriteCsvDoes) {
  const std::string log = foreign_log("export.h5", 70001), a = tmp("exp_a.csv"), b = tmp("exp_b.csv");
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -o " + a, &text), 0) << text;
  data::write_csv(b, data::read_log(log)[0]);
  EXPECT_EQ(slurp(a), slurp(b));
  EXPECT_NE(slurp(a).find("velocity [m/s]"), std::string::npos);
}

}  // namespace
}  // namespace stribeck
