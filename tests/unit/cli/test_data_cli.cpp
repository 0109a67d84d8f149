// The data commands end to end through the CLI binary: generate, export,
// import (with derivation), their error handling and determinism.
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) {
  return stribeck::test::temp_dir() + "stribeck_cli_" + std::to_string(::getpid()) + "_" + name;
}

struct CliRun {
  int code;
  std::string err, out;  // stderr (diagnostics), stdout (results and summaries)
};
CliRun cli(const std::string& args) {
  const std::string err = tmp("stderr.txt"), out = tmp("stdout.txt");
  const int rc = std::system((std::string(STRIBECK_CLI) + " " + args + " 2> " + err + " > " + out).c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  CliRun r{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(err), slurp(out)};
  std::remove(err.c_str());
  std::remove(out.c_str());
  return r;
}

bool exists(const std::string& p) { return std::ifstream(p).good(); }

TEST(DataCli, GenerateIsDeterministicAndFollowsTheWrittenEquation) {
  const std::string a = tmp("g1.h5"), b = tmp("g2.h5"), c = tmp("g3.h5");
  const std::string args =
      "generate --model coulomb-viscous --param F_C=15 --param f_v=200 --profile triangle --rate 500 --duration 4 "
      "--mass 2.5 --area-a 1e-3 --pressure-levels 2bar --noise force=0.3 --seed ";
  ASSERT_EQ(cli(args + "11 -o " + a).code, 0);
  ASSERT_EQ(cli(args + "11 -o " + b).code, 0);
  ASSERT_EQ(cli(args + "12 -o " + c).code, 0);
  const auto ea = data::read_log(a), eb = data::read_log(b), ec = data::read_log(c);
  ASSERT_EQ(ea.size(), 1u);
  EXPECT_EQ(ea[0].name, "p2bar");
  EXPECT_EQ(ea[0].channels, eb[0].channels);  // same seed: bit-identical
  EXPECT_NE(ea[0].channel("force"), ec[0].channel("force"));
  // force = F_C*sign(v) + f_v*v + m*a + p_a*A + noise(0.3)
  const data::Experiment& e = ea[0];
  double sum = 0, sum2 = 0;
  const size_t n = e.size();
  EXPECT_EQ(n, 2001u);
  for (size_t i = 0; i < n; ++i) {
    const double v = e.channel("velocity")[i], acc = e.channel("acceleration")[i];
    const double sign = v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
    const double expect = 15.0 * sign + 200.0 * v + 2.5 * acc + 2e5 * 1e-3;
    EXPECT_DOUBLE_EQ(e.channel("friction_true")[i], 15.0 * sign + 200.0 * v);
    const double r = e.channel("force")[i] - expect;
    sum += r;
    sum2 += r * r;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 4 * 0.3 / std::sqrt(double(n)));
  EXPECT_NEAR(sd, 0.3, 0.03);
  // Position is the integral of velocity, acceleration its derivative.
  const auto& t = e.channel("time");
  const auto& x = e.channel("position");
  const auto& v = e.channel("velocity");
  for (size_t i = 1; i < n; ++i) EXPECT_NEAR(x[i] - x[i - 1], 0.5 * (v[i] + v[i - 1]) * (t[i] - t[i - 1]), 1e-15);
  for (auto p : {a, b, c}) std::remove(p.c_str());
}

TEST(DataCli, EveryModelAndProfileGenerates) {
  workloads::GeneratorOptions o;
  o.rate_hz = 100;
  o.duration = 2;
  for (const auto& m : all_models()) {
    for (const auto& p : workloads::generator_profiles()) {
      SCOPED_TRACE(m.id + " " + p);
      o.model = m.id;
      o.params = m.defaults();
      o.profile = p;
      const auto exps = workloads::generate_log(o);
      ASSERT_EQ(exps.size(), 1u);
      EXPECT_EQ(exps[0].size(), 201u);
      double vmax = 0;
      for (double v : exps[0].channel("velocity")) vmax = std::max(vmax, std::abs(v));
      EXPECT_GT(vmax, 0.0);
      EXPECT_LE(vmax, 0.1 * (1 + 1e-12));
    }
  }
}

TEST(DataCli, RotationalModelsWriteRotationalLogs) {
  workloads::GeneratorOptions o;
  o.model = "simscape-rotational";
  o.params = find_model(o.model)->defaults();
  o.profile = "triangle";
  o.rate_hz = 100;
  o.duration = 1;
  o.v_max = 10;  // rad/s
  const std::string path = tmp("rot.h5");
  write_log(path, workloads::generate_log(o), data::Provenance{});
  const data::Experiment e = data::read_log(path).at(0);
  EXPECT_EQ(e.attributes.at("motion"), "rotational");
  EXPECT_EQ(e.units.at("velocity"), "rad/s");
  EXPECT_EQ(e.units.at("position"), "rad");
  EXPECT_EQ(e.units.at("force"), "N*m");
  std::remove(path.c_str());
}

TEST(DataCli, ExportImportRoundTripIsExact) {
  const std::string log = tmp("rt.h5"), csv = tmp("rt.csv"), back = tmp("rt_back.h5");
  ASSERT_EQ(
      cli("generate --model simscape-cylinder --profile sine-sweep --rate 200 --duration 3 --noise force=1 -o " + log)
          .code,
      0);
  ASSERT_EQ(cli("export " + log + " --format csv -o " + csv).code, 0);
  const CliRun r = cli("import " + csv + " --name again -o " + back);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto a = data::read_log(log), b = data::read_log(back);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].name, "again");
  EXPECT_EQ(a[0].channels, b[0].channels);
  EXPECT_EQ(a[0].units, b[0].units);
  for (auto p : {log, csv, back}) std::remove(p.c_str());
}

TEST(DataCli, ImportDerivesVelocityFromHeaderlessText) {
  const std::string txt = tmp("rig.txt"), out = tmp("rig.h5");
  {
    std::ofstream f(txt);
    f << "% position in mm, force in N\n";
    for (int i = 0; i <= 1000; ++i) {
      const double t_ms = 10.0 * i + (i % 3);  // jittered clock
      f << t_ms << "\t" << 20.0 * std::sin(2 * M_PI * 0.2 * t_ms / 1000) << "\t" << 5.0 << "\n";
    }
  }
  const CliRun r = cli("import " + txt +
                       " --columns time=0:ms,position=1:mm,force=2:N --derive velocity --cutoff 2 "
                       "--constant pressure_b=0 --constant p_A=2bar -o " +
                       out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("derived at 2 Hz"), std::string::npos) << r.out;  // the summary: stdout
  const data::Experiment e = data::read_log(out).at(0);
  const auto& t = e.channel("time");
  const auto& v = e.channel("velocity");
  for (size_t i = 50; i + 50 < e.size(); i += 25)
    EXPECT_NEAR(v[i], 0.02 * 2 * M_PI * 0.2 * std::cos(2 * M_PI * 0.2 * t[i]), 1.5e-2 * 0.02 * 2 * M_PI * 0.2)
        << i;  // order-2 droop ~1 % at a tenth of the cut-off
  EXPECT_NE(e.attributes.at("derived_velocity").find("savitzky-golay"), std::string::npos);
  EXPECT_EQ(e.channel("pressure_a"), std::vector<double>(e.size(), 2e5));
  EXPECT_EQ(e.channel("pressure_b"), std::vector<double>(e.size(), 0.0));
  EXPECT_EQ(e.units.at("pressure_a"), "Pa");
  for (auto p : {txt, out}) std::remove(p.c_str());
}

TEST(DataCli, EvalReadsHdf5LogsAndWritesHdf5Results) {
  const std::string log = tmp("ev.h5"), out_h5 = tmp("ev_out.h5"), out_csv = tmp("ev_out.csv");
  ASSERT_EQ(cli("generate --model simscape-cylinder --profile steps --rate 100 --duration 2 "
                "--pressure-levels 1bar,4bar -o " +
                log)
                .code,
            0);
  const CliRun many = cli("eval --model simscape-cylinder --input " + log + " --output " + out_h5);
  EXPECT_EQ(many.code, 2);
  EXPECT_NE(many.err.find("2 experiments (p1bar, p4bar)"), std::string::npos) << many.err;
  EXPECT_FALSE(exists(out_h5));
  const CliRun r = cli("eval --model simscape-cylinder -e p4bar --input " + log + " --output " + out_h5);
  ASSERT_EQ(r.code, 0) << r.err;
  // The measured channels come back as the one experiment; the model force
  // sits in its own results group and equals the generator's noiseless force.
  const auto exps = data::read_log(out_h5);
  ASSERT_EQ(exps.size(), 1u);
  EXPECT_EQ(exps[0].name, "p4bar");
  data::h5::File f = data::h5::open_file(out_h5);
  data::h5::Group g = data::h5::open_group(f.id(), "eval/simscape-cylinder", out_h5);
  EXPECT_EQ(data::h5::read_string_attribute(g.id(), "kind", out_h5), "results");
  EXPECT_EQ(data::h5::read_string_attribute(g.id(), "experiment", out_h5), "p4bar");
  data::h5::Dataset d = data::h5::open_dataset(g.id(), "model_force", out_h5);
  EXPECT_EQ(data::h5::read_doubles(d, out_h5), exps[0].channel("friction_true"));
  // CSV output from an HDF5 input: the input channels plus model_force.
  ASSERT_EQ(cli("eval --model simscape-cylinder -e p1bar --input " + log + " --output " + out_csv).code, 0);
  data::ReadOptions ro;
  const auto csv = data::read_any_log(out_csv, ro);
  EXPECT_EQ(csv[0].channel("model_force"), data::read_log(log)[0].channel("friction_true"));
  // A CSV with units in its header (what export writes) is converted on the way in.
  const std::string exported = tmp("ev_exported.csv"), out2 = tmp("ev_out2.csv");
  ASSERT_EQ(cli("export " + log + " -e p1bar -o " + exported).code, 0);
  const CliRun r2 = cli("eval --model simscape-cylinder --input " + exported + " --output " + out2);
  ASSERT_EQ(r2.code, 0) << r2.err;
  EXPECT_EQ(data::read_any_log(out2)[0].channel("model_force"), data::read_log(log)[0].channel("friction_true"));
  for (auto p : {log, out_h5, out_csv, exported, out2}) std::remove(p.c_str());
}

TEST(DataCli, BadInputIsOneLineExit2AndNoOutput) {
  const std::string bad = tmp("bad.csv"), out = tmp("never.h5");
  std::ofstream(bad) << "time,force\n0,1\n1,2\n0.5,3\n";
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"import " + bad + " -o " + out, "channel 'time': decreases at index 2"},
      {"import " + bad + " " + bad + " --name one -o " + out, "--name given 1 times for 2 files"},
      {"import " + tmp("missing.csv") + " -o " + out, "cannot open"},
      {"generate --model coulomb-viscous --pressure-levels 3parsec -o " + out, "unknown unit 'parsec'"},
      {"generate --model coulomb-viscous --noise speed=1 -o " + out, "no channel 'speed'"},
      {"import " + tmp("missing.csv") + " --constant force=3bar -o " + out, "cannot open"},
  };
  // (Values outside a flag's choices, --derive jerk, --profile zigzag,
  // --format xlsx, are usage errors now: CliConventions.ChoicesRanges...)
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const CliRun r = cli(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.find("stribeck: error: "), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_FALSE(exists(out));
  }
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace stribeck
