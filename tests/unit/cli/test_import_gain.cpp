// Channel gains at import (issue 15, section 3): `import --gain` and
// `identify --gain` scale a channel recorded as a voltage or current to SI,
// value = gain * recorded + offset, and keep the scaling as channel
// attributes. Bad input is one line and exit code 2, with no output file.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"

#ifdef STRIBECK_HAVE_MATIO
#include <matio.h>
#endif

namespace stribeck {
namespace {

using test::run_cli;
using test::temp_dir;

// Recorded samples: time [s], force as a voltage, position [mm].
const std::vector<double> kT{0.0, 0.1, 0.2, 0.3};
const std::vector<double> kVolt{0.5, -0.25, 1.75, 0.0};
const std::vector<double> kMm{1.0, 2.0, 3.5, -4.0};

std::string write_csv(const std::string& name, const std::string& force_header) {
  const std::string path = temp_dir() + name;
  std::ofstream f(path);
  f << "time [s],force" << force_header << ",position [mm]\n";
  for (size_t i = 0; i < kT.size(); ++i) f << kT[i] << "," << kVolt[i] << "," << kMm[i] << "\n";
  return path;
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

TEST(ImportGain, ScalesTheChannelAndKeepsTheScalingAsAttributes) {
  const std::string in = write_csv("gain_volt.csv", " [V]"), out = temp_dir() + "gain_volt.h5";
  std::string text;
  ASSERT_EQ(run_cli("import " + in + " --gain force=35.15N/V,-1.2N -o " + out, &text), 0) << text;
  const auto exps = data::read_log(out);
  ASSERT_EQ(exps.size(), 1u);
  const data::Experiment& e = exps[0];
  for (size_t i = 0; i < kT.size(); ++i) {
    EXPECT_DOUBLE_EQ(e.channel("force")[i], 35.15 * kVolt[i] - 1.2) << i;
    EXPECT_DOUBLE_EQ(e.channel("position")[i], kMm[i] * 1e-3) << i;  // other channels as before
  }
  EXPECT_EQ(e.units.at("force"), "N");
  const auto& a = e.channel_attributes.at("force");
  EXPECT_EQ(std::stod(a.at("gain")), 35.15);
  EXPECT_EQ(a.at("gain_unit"), "N/V");
  EXPECT_EQ(std::stod(a.at("offset")), -1.2);
  EXPECT_EQ(a.at("raw_unit"), "V");
  EXPECT_EQ(a.at("scaling"), "35.15N/V,-1.2N");
  EXPECT_EQ(e.channel_attributes.count("position"), 0u);
}

TEST(ImportGain, UnitsPrefixesRepeatsAndHeaderlessColumns) {
  // Headerless: the raw unit comes from the gain alone; the gain in kN/V and
  // the offset in kN convert to SI; two channels gained at once; the
  // position's gain in mm/V.
  const std::string in = temp_dir() + "gain_headerless.txt", out = temp_dir() + "gain_headerless.h5";
  {
    std::ofstream f(in);
    for (size_t i = 0; i < kT.size(); ++i) f << kT[i] << " " << kVolt[i] << " " << kMm[i] << "\n";
  }
  std::string text;
  ASSERT_EQ(run_cli("import " + in +
                        " --columns time=0,force=1,position=2 --gain force=0.03515kN/V,+0.3kN"
                        " --gain position=2.5mm/V -o " +
                        out,
                    &text),
            0)
      << text;
  const data::Experiment e = data::read_log(out).at(0);
  for (size_t i = 0; i < kT.size(); ++i) {
    EXPECT_NEAR(e.channel("force")[i], 35.15 * kVolt[i] + 300.0, 1e-12) << i;
    EXPECT_NEAR(e.channel("position")[i], 2.5e-3 * kMm[i], 1e-15) << i;
  }
  EXPECT_EQ(e.units.at("position"), "m");
  EXPECT_EQ(e.channel_attributes.at("position").at("gain_unit"), "m/V");
  EXPECT_NEAR(std::stod(e.channel_attributes.at("force").at("offset")), 300.0, 1e-9);
  // A bare gain: a factor on the value as recorded (the schema's SI unit).
  const std::string in2 = write_csv("gain_bare.csv", ""), out2 = temp_dir() + "gain_bare.h5";
  ASSERT_EQ(run_cli("import " + in2 + " --gain F=-2 -o " + out2, &text), 0) << text;  // alias F = force
  const data::Experiment e2 = data::read_log(out2).at(0);
  for (size_t i = 0; i < kT.size(); ++i) EXPECT_DOUBLE_EQ(e2.channel("force")[i], -2 * kVolt[i]);
  EXPECT_EQ(e2.channel_attributes.at("force").at("raw_unit"), "1");
  // The attributes survive a second import of the written log (read_log).
  const std::string out3 = temp_dir() + "gain_again.h5";
  ASSERT_EQ(run_cli("import " + out + " -o " + out3, &text), 0) << text;
  EXPECT_EQ(data::read_log(out3).at(0).channel_attributes.at("force").at("scaling"), "0.03515kN/V,+0.3kN");
}

TEST(ImportGain, BadGainsAreOneLineExitTwoAndNoOutput) {
  const std::string in = write_csv("gain_bad.csv", " [V]"), in_mv = write_csv("gain_bad_mv.csv", " [mV]"),
                    bare = write_csv("gain_bad_bare.csv", "");
  const std::string out = temp_dir() + "gain_bad.h5";
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases{
      {bare + " --gain forse=3N/V", "no channel 'forse' (channels: force, position, time)"},
      {in, "unknown unit 'V'"},  // without a gain a voltage is no force
      {in + " --gain force", "is not CHANNEL=GAIN"},
      {in + " --gain =3", "is not CHANNEL=GAIN"},
      {in + " --gain force=", "is not CHANNEL=GAIN"},
      {in + " --gain force=abc", "is not a number"},
      {in + " --gain force=0N/V", "non-zero"},
      {in + " --gain force=nan", "non-zero"},
      {in + " --gain force=3N/", "no recorded unit"},
      {in + " --gain force=3furlong/V", "unknown unit 'furlong'"},
      {in + " --gain force=3m/V", "channel 'force' needs force"},
      {in + " --gain force=3N/V,2m", "the offset is length"},
      {in + " --gain force=3N/V,", "is not CHANNEL=GAIN"},
      {in + " --gain force=3N/V --gain force=4N/V", "twice"},
      {in + " --gain time=2", "time cannot be scaled"},
      {in_mv + " --gain force=35.15N/V", "is in 'mV'"},
  };
  for (const auto& c : cases) {
    std::remove(out.c_str());
    std::string text;
    EXPECT_EQ(run_cli("import " + c.args + " -o " + out, &text), 2) << c.args << "\n" << text;
    EXPECT_EQ(text.rfind("stribeck: error: ", 0), 0u) << c.args << "\n" << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << c.args << "\n" << text;
    EXPECT_NE(text.find(c.says), std::string::npos) << c.args << "\n" << text;
    EXPECT_FALSE(exists(out)) << c.args;
  }
  // HDF5 logs are in SI already: a gain there is refused, not applied twice.
  const std::string good = temp_dir() + "gain_good.h5";
  ASSERT_EQ(run_cli("import " + in + " --gain force=35.15N/V -o " + good), 0);
  std::string text;
  EXPECT_EQ(run_cli("import " + good + " --gain force=2 -o " + out, &text), 2) << text;
  EXPECT_NE(text.find("--gain applies to text and MATLAB files"), std::string::npos) << text;
}

// identify reads a text log directly with the same --gain: a force logged in
// volts, scaled back, fits the same Coulomb + viscous parameters as the log
// in newtons; without the gain the volts are refused.
TEST(ImportGain, IdentifyScalesTextInputsTheSameWay) {
  const double F_C = 12.0, f_v = 40.0, k = 35.15;
  const std::string n_csv = temp_dir() + "gain_fit_n.csv", v_csv = temp_dir() + "gain_fit_v.csv";
  {
    std::ofstream fn(n_csv), fv(v_csv);
    fn.precision(17);
    fv.precision(17);
    fn << "velocity [m/s],force [N]\n";
    fv << "velocity [m/s],force [V]\n";
    for (int i = 0; i < 400; ++i) {
      const double v = 0.5 * std::sin(0.05 * i) + 0.01 * std::cos(1.3 * i);
      const double f = F_C * std::tanh(v / 1e-3) + f_v * v + 0.3 * std::sin(7.1 * i);  // deterministic "noise"
      fn << v << "," << f << "\n";
      fv << v << "," << (f + 1.2) / k << "\n";  // offset -1.2 N on the amplifier
    }
  }
  auto fit = [&](const std::string& args) {
    const std::string json = temp_dir() + "gain_fit.json";
    std::string text;
    EXPECT_EQ(run_cli("identify " + args + " --model coulomb-viscous --fix v_eps=1e-3 --json " + json, &text), 0)
        << text;
    std::ifstream in(json);
    std::stringstream ss;
    ss << in.rdbuf();
    const auto j = nlohmann::json::parse(ss.str());
    return std::vector<double>{j["parameters"]["F_C"]["value"].get<double>(),
                               j["parameters"]["f_v"]["value"].get<double>()};
  };
  const auto ref = fit(n_csv), scaled = fit(v_csv + " --gain force=35.15N/V,-1.2N");
  EXPECT_NEAR(ref[0], F_C, 0.2);
  EXPECT_NEAR(ref[1], f_v, 1.0);
  EXPECT_NEAR(scaled[0], ref[0], 1e-6 * ref[0]);
  EXPECT_NEAR(scaled[1], ref[1], 1e-6 * ref[1]);
  std::string text;
  EXPECT_EQ(run_cli("identify " + v_csv + " --model coulomb-viscous", &text), 2) << text;  // volts are no force
  EXPECT_NE(text.find("unknown unit 'V'"), std::string::npos) << text;
  EXPECT_EQ(run_cli("identify " + v_csv + " --model coulomb-viscous --gain force=x", &text), 2) << text;
  EXPECT_EQ(text.rfind("stribeck: error: ", 0), 0u) << text;
}

// The scaling stays with the channel through the streaming paths: the text
// import a block at a time equals read_text_log (values and attributes),
// the HDF5 block reader returns the attributes read_log does, and eval
// HDF5 -> HDF5 (channels copied or re-encoded block by block) keeps them.
TEST(ImportGain, StreamingImportEvalAndTheBlockReaderKeepTheScaling) {
  const std::string in = temp_dir() + "gain_stream.csv", log = temp_dir() + "gain_stream.h5",
                    evaluated = temp_dir() + "gain_stream_eval.h5";
  {
    std::ofstream f(in);
    f << "time [s],velocity [mm/s],force [mV]\n";
    for (size_t i = 0; i < kT.size(); ++i) f << kT[i] << "," << kMm[i] * 10 << "," << kVolt[i] * 1000 << "\n";
  }
  std::string text;
  ASSERT_EQ(run_cli("import " + in + " --gain force=0.03515N/mV,2N -o " + log, &text), 0) << text;
  data::ReadOptions o;
  o.gains.push_back(data::parse_channel_gain("force=0.03515N/mV,2N"));
  const data::Experiment whole = data::read_text_log(in, o);  // the whole-file reader
  const data::Experiment e = data::read_log(log).at(0);
  EXPECT_EQ(e.channel("force"), whole.channel("force"));  // bit-identical
  EXPECT_EQ(e.channel("velocity"), whole.channel("velocity"));
  for (size_t i = 0; i < kT.size(); ++i) EXPECT_NEAR(e.channel("force")[i], 35.15 * kVolt[i] + 2, 1e-12) << i;
  EXPECT_EQ(e.channel_attributes, whole.channel_attributes);
  ASSERT_EQ(e.channel_attributes.count("force"), 1u);
  EXPECT_EQ(e.channel_attributes.at("force").at("raw_unit"), "mV");
  EXPECT_EQ(e.channel_attributes.at("force").at("gain_unit"), "N/mV");
  EXPECT_EQ(e.channel_attributes.count("velocity"), 0u);

  const data::LogBlockReader r(log, "");
  EXPECT_EQ(r.channel_attributes("force"), e.channel_attributes.at("force"));
  EXPECT_TRUE(r.channel_attributes("velocity").empty());
  std::vector<double> f(r.length());
  r.read("force", 0, r.length(), f.data());
  EXPECT_EQ(f, e.channel("force"));

  ASSERT_EQ(run_cli("eval -m coulomb-viscous -i " + log + " -o " + evaluated, &text), 0) << text;
  const data::Experiment ev = data::read_log(evaluated).at(0);
  EXPECT_EQ(ev.channel_attributes, e.channel_attributes);
  EXPECT_EQ(ev.channel("force"), e.channel("force"));
}

// A MATLAB v5 file (MATLAB's default save format) read directly: the gain
// applies as for text, in import and in identify's reader.
TEST(ImportGain, MatlabInputsAreScaledToo) {
#ifndef STRIBECK_HAVE_MATIO
  GTEST_SKIP() << "built without libmatio";
#else
  const std::string path = temp_dir() + "gain_runs.mat", out = temp_dir() + "gain_runs.h5";
  {
    mat_t* mat = Mat_CreateVer(path.c_str(), nullptr, MAT_FT_MAT5);
    ASSERT_NE(mat, nullptr);
    std::vector<double> t = kT, volt = kVolt;
    size_t dims[2] = {kT.size(), 1};
    for (auto [name, data] : {std::pair<const char*, double*>{"time", t.data()}, {"force", volt.data()}}) {
      matvar_t* v = Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, data, 0);
      Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
      Mat_VarFree(v);
    }
    Mat_Close(mat);
  }
  std::string text;
  ASSERT_EQ(run_cli("import " + path + " --gain force=20A,5N -o " + out, &text), 2) << text;  // A is no force unit
  EXPECT_NE(text.find("unknown unit 'A'"), std::string::npos) << text;
  ASSERT_EQ(run_cli("import " + path + " --gain force=20N/A,5N -o " + out, &text), 0) << text;
  const data::Experiment e = data::read_log(out).at(0);
  for (size_t i = 0; i < kT.size(); ++i) EXPECT_DOUBLE_EQ(e.channel("force")[i], 20 * kVolt[i] + 5) << i;
  EXPECT_EQ(e.channel_attributes.at("force").at("raw_unit"), "A");
  data::ReadOptions o;
  o.gains.push_back(data::parse_channel_gain("force=20N/A,5N"));
  const auto direct = data::read_any_log(path, o);  // what identify reads
  ASSERT_EQ(direct.size(), 1u);
  EXPECT_EQ(direct[0].channel("force"), e.channel("force"));
  o.gains[0] = data::parse_channel_gain("position=2mm/V");
  EXPECT_THROW(data::read_any_log(path, o), data::InputError);  // no such channel in the file
#endif
}

}  // namespace
}  // namespace stribeck
