// The filtered path of identify (issue 31 item 3): a fit after parallel
// filtering says what it kept and why, warns when too few samples are left
// for its parameters (naming a cut-off that keeps more), writes results that
// line up with the log's time, and its force-velocity figures draw. The log
// is a rack-and-pinion-like stroke: position only, inertia-dominated, 801
// samples at 200 Hz with frequent reversals, so filtering keeps few samples.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::run_cli;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The stroke, generated once per process: F_C 20 N, f_v 50 N/(m/s), 30 kg.
const std::string& rack_log() {
  static const std::string path = [] {
    const std::string p = test::temp_dir() + "rack.h5";
    std::string out;
    const int rc = run_cli(
        "generate --model coulomb-viscous -p F_C=20 -p f_v=50 --profile multisine --band 0.5:4 --vmax 0.5 "
        "--rate 200 --duration 4 --mass 30 --noise force=1,position=1um --omit velocity,acceleration --seed 5 -o " +
            p + " -q",
        &out);
    EXPECT_EQ(rc, 0) << out;
    return p;
  }();
  return path;
}

nlohmann::json identify_json(const std::string& args, std::string* out = nullptr) {
  static int calls = 0;
  const std::string json = test::temp_dir() + "fit_" + std::to_string(++calls) + ".json";
  std::string text;
  const int rc =
      run_cli("identify " + rack_log() + " --model coulomb-viscous --inertia " + args + " --json " + json, &text);
  EXPECT_EQ(rc, 0) << text;
  if (out) *out = text;
  return nlohmann::json::parse(slurp(json));
}

TEST(FilteredPathCli, SummaryAndJsonSayWhatFilteringKeptAndWhy) {
  std::string text;
  const auto j = identify_json("--offset", &text);
  ASSERT_EQ(j["experiments"].size(), 1u) << j.dump(1);
  const auto& f = j["experiments"][0]["parallel_filter"];
  ASSERT_TRUE(f.is_object()) << j.dump(1);
  EXPECT_DOUBLE_EQ(f["cutoff_hz"].get<double>(), 10.0);  // rate / 20
  EXPECT_EQ(f["samples_in"].get<long>(), 801);
  EXPECT_EQ(f["kept"].get<long>(), j["samples"].get<long>());
  const long d = f["decimation"].get<long>();
  EXPECT_GT(d, 1);
  const auto& left = f["left_out"];
  EXPECT_GT(left["near_reversal"].get<long>(), 0) << f.dump();
  EXPECT_GT(left["near_end"].get<long>(), 0) << f.dump();
  // Every sample is accounted for: kept, or left out for one reason.
  EXPECT_EQ(f["kept"].get<long>() + left["decimation"].get<long>() + left["near_reversal"].get<long>() +
                left["near_end"].get<long>(),
            801)
      << f.dump();
  // The decimation grid is every d-th sample.
  EXPECT_EQ(801 - left["decimation"].get<long>(), (801 + d - 1) / d) << f.dump();
  EXPECT_NE(text.find("parallel filtering: cut-off 10 Hz"), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(f["kept"].get<long>()) + " of 801 samples kept"), std::string::npos) << text;
  EXPECT_NE(text.find("near velocity reversals"), std::string::npos) << text;
  // A log with its velocity fitted as it is says nothing of filtering.
  std::string plain;
  const std::string json = test::temp_dir() + "plain.json";
  ASSERT_EQ(run_cli("identify " + rack_log() + " --model coulomb-viscous --inertia --no-parallel-filter --json " + json,
                    &plain),
            0)
      << plain;
  EXPECT_TRUE(nlohmann::json::parse(slurp(json))["experiments"][0]["parallel_filter"].is_null());
  EXPECT_EQ(plain.find("parallel filtering"), std::string::npos) << plain;
}

TEST(FilteredPathCli, FewKeptSamplesWarnAndNameACutoffThatKeepsMore) {
  // A low cut-off: a long support, a large decimation, few samples left.
  std::string text;
  const auto j = identify_json("--offset --cutoff 4", &text);
  const long k = j["free_parameters"].get<long>(), n = j["samples"].get<long>();
  ASSERT_LT(n, 10 * k) << j.dump(1);
  std::string warning;
  for (const auto& w : j["warnings"])
    if (w.get<std::string>().find("parallel filtering kept only") != std::string::npos) warning = w;
  ASSERT_FALSE(warning.empty()) << j.dump(1);
  EXPECT_NE(text.find(warning), std::string::npos) << text;
  const size_t at = warning.find("--cutoff ");
  ASSERT_NE(at, std::string::npos) << warning;
  std::istringstream in(warning.substr(at + 9));
  double cutoff = 0;
  std::string keeps;
  long promised = 0;
  in >> cutoff >> keeps >> promised;
  ASSERT_EQ(keeps, "keeps") << warning;
  EXPECT_GT(cutoff, 4);
  EXPECT_GE(promised, 10 * k) << warning;
  // The cut-off it names keeps what it says, and the fit there has no such warning.
  const auto there = identify_json("--offset --cutoff " + std::to_string(cutoff));
  EXPECT_EQ(there["samples"].get<long>(), promised) << there.dump(1);
  for (const auto& w : there["warnings"])
    EXPECT_EQ(w.get<std::string>().find("parallel filtering kept only"), std::string::npos) << w;
  // The estimates there hold: mass within 3 standard errors of the truth.
  const auto& m = there["parameters"]["mass"];
  EXPECT_LE(std::abs(m["value"].get<double>() - 30.0), 3 * m["std_error"].get<double>()) << there.dump(1);
}

TEST(FilteredPathCli, ResultsCarryTimeAndTheLogsRowOfEverySample) {
  const std::string out = test::temp_dir() + "rack_fit.h5";
  std::string text;
  ASSERT_EQ(run_cli("identify " + rack_log() + " --model coulomb-viscous --inertia --offset -o " + out, &text), 0)
      << text;
  const data::Results r = data::read_results(out, "identify_coulomb-viscous/run");
  auto values = [&](const std::string& n) {
    for (const auto& d : r.datasets)
      if (d.name == n) return d.values;
    ADD_FAILURE() << "no dataset " << n;
    return std::vector<double>{};
  };
  const std::vector<double> rows = values("sample_index"), v = values("velocity"), fitted = values("fitted_force");
  // The time is the samples' coordinate (a dimension scale, as a log's).
  data::h5::File f = data::h5::open_file(out);
  const std::vector<double> t =
      data::h5::read_doubles(data::h5::open_dataset(f.id(), "identify_coulomb-viscous/run/time", "test"), "test");
  const std::vector<data::Experiment> log = data::read_log(rack_log());
  const auto& tl = log[0].channel("time");
  const auto& xl = log[0].channel("position");
  ASSERT_EQ(t.size(), fitted.size());
  ASSERT_EQ(rows.size(), fitted.size());
  ASSERT_EQ(v.size(), fitted.size());
  ASSERT_GT(fitted.size(), 10u);
  for (size_t i = 0; i < t.size(); ++i) {
    ASSERT_EQ(rows[i], std::floor(rows[i]));
    ASSERT_LT(rows[i], static_cast<double>(tl.size()));
    if (i) EXPECT_GT(rows[i], rows[i - 1]);
    EXPECT_EQ(t[i], tl[static_cast<size_t>(rows[i])]) << i;  // the log's own time stamp
  }
  // The velocity is the one the fit used: the filtered derivative of the
  // position, so it agrees in sign with the position's central difference.
  int agree = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t k = static_cast<size_t>(rows[i]);
    agree += (v[i] > 0) == (xl[k + 1] - xl[k - 1] > 0);
  }
  EXPECT_EQ(agree, static_cast<int>(v.size()));
  // The samples are along the time dimension, not a bare index of zeros.
  const data::h5::Dataset ds = data::h5::open_dataset(f.id(), "identify_coulomb-viscous/run/fitted_force", "test");
  EXPECT_TRUE(data::h5::has_attribute(ds.id(), "DIMENSION_LIST"));
  EXPECT_TRUE(data::h5::is_dimension_scale(f.id(), "identify_coulomb-viscous/run/time", "test"));
  EXPECT_FALSE(data::h5::has_child(f.id(), "identify_coulomb-viscous/run/sample"));
}

TEST(FilteredPathCli, PlotAndReportDrawTheForceVelocityFigures) {
  const std::string dir = test::temp_dir();
  const std::string out = dir + "rack_fig.h5";
  std::string text;
  ASSERT_EQ(run_cli("identify " + rack_log() + " --model coulomb-viscous --inertia --offset -o " + out, &text), 0)
      << text;
  ASSERT_EQ(run_cli("plot " + out + " --what force-velocity -o " + dir + "fv.svg", &text), 0) << text;
  EXPECT_NE(slurp(dir + "fv.svg").find("<svg"), std::string::npos);
  for (const std::string log : {std::string(), " --log " + rack_log()}) {
    ASSERT_EQ(run_cli("report " + out + log + " -o " + dir + "r.html", &text), 0) << text;
    const std::string html = slurp(dir + "r.html");
    EXPECT_EQ(html.find("no velocity channel"), std::string::npos) << log;
    EXPECT_NE(html.find("force-velocity"), std::string::npos) << log;
    EXPECT_NE(html.find("time [s]"), std::string::npos) << log;
  }
}

}  // namespace
}  // namespace stribeck
