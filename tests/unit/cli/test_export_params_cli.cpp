// `stribeck export-params` and `eval --params`, run as a user would.
//
// The exported names and units are checked against the reference tools'
// documented parameters:
// - Simscape Translational Friction, https://www.mathworks.com/help/simscape/ref/translationalfriction.html
//   (Breakaway friction force, Breakaway friction velocity, Coulomb friction force, Viscous friction
//   coefficient); set_param names brkwy_frc, brkwy_vel, Col_frc, visc_coef as MathWorks' own block
//   forwarding function (transformFrictionR2017a) and set_param scripts use them, units via NAME_unit.
// - Rotational Friction, https://www.mathworks.com/help/simscape/ref/rotationalfriction.html:
//   brkwy_trq, brkwy_vel, Col_trq, visc_coef (N*m, rad/s, N*m/(rad/s)).
// - Cylinder Friction (Hydraulics), https://www.mathworks.com/help/hydro/ref/cylinderfriction.html, and
//   Cylinder Friction (IL), https://www.mathworks.com/help/hydro/ref/cylinderfrictionil.html: the names
//   come from MathWorks' Hydraulics-to-Isothermal-Liquid converter (update_cylinder_friction.m), which
//   maps frc_preload, fr_coef, frc_brkwy_coef, visc_coef, vel_thr onto preload_force, Coulomb_coeff,
//   breakaway_Coulomb_ratio, viscous_coeff, breakaway_velocity; the hydraulic block's transition
//   coefficient is trans_coef [s/m] as in the Translational Friction block that had the same law.
// - Modelica Standard Library, Modelica/Mechanics/Translational/Components/MassWithStopAndFriction.mo
//   (github.com/modelica/ModelicaStandardLibrary; "f = F_Coulomb + F_prop*v + F_Stribeck*exp(-fexp*v)",
//   F_prop [N.s/m], F_Coulomb, F_Stribeck [N], fexp [s/m]) and
//   Modelica/Mechanics/Rotational/Components/BearingFriction.mo (tau_pos[:, 2], peak).
// - 20-sim: the coefficient names of the Mechanical/Translation/Friction submodels as docs/models.md
//   lists them (mu_c, mu_s, mu_v, slope, v_st; no public 20-sim page was found to cite).
//
// Forces are checked with the long-double golden laws of model_specs.hpp
// (typed in from the published equations, independent of kernels/), and the
// MSL law is typed in here from the MSL documentation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "model_specs.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/identification/export_params.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;
using test::LD;
using test::run_cli;
using test::temp_dir;

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void write(const std::string& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}
std::string num(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
std::string short3(double x) {  // as the program prints figures
  char b[40];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

// A fit report as `identify --json` writes it (report.cpp), with a force
// balance term the export must skip.
std::string fit_report(const std::string& model, const std::vector<double>& p, bool with_offset = true) {
  const ModelInfo& m = *find_model(model);
  std::string s = "{\"model\": \"" + model + "\", \"status\": \"converged\", \"converged\": true, \"parameters\": {";
  for (size_t i = 0; i < m.params.size(); ++i)
    s += std::string(i ? ", " : "") + "\"" + m.params[i].name + "\": {\"value\": " + num(p[i]) +
         ", \"std_error\": 0.1, \"ci95\": [null, null], \"fixed\": false, \"at_bound\": false, \"determined\": true, "
         "\"interval\": \"wald\", \"unit\": \"" +
         m.params[i].unit + "\"}";
  if (with_offset) s += ", \"offset\": {\"value\": 3.5, \"unit\": \"N\"}";
  s += "}, \"rmse\": 0.5, \"samples\": 1000, \"warnings\": []}\n";
  return s;
}

std::string fit_file(const std::string& name, const std::string& model, const std::vector<double>& p) {
  const std::string path = temp_dir() + name;
  write(path, fit_report(model, p));
  return path;
}

// Golden force of a static model by id (model_specs.hpp).
LD gold(const std::string& id, const std::vector<double>& p, double v, double pa = 0, double fn = 0) {
  LD f = NAN;
  visit_model(StaticModels{}, id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    f = test::Spec<M>::gold(p, Sample<double>{v, pa, 0.0, fn}).f;
  });
  return f;
}

// Velocities on both sides: log-spaced and linear over [lo, hi].
std::vector<double> grid(double lo, double hi, int n) {
  std::vector<double> v;
  const double g0 = lo > 0 ? lo : hi * 1e-4;
  for (int i = 0; i < n; ++i) {
    v.push_back(g0 * std::pow(hi / g0, i / (n - 1.0)));
    v.push_back(std::max(g0, lo + (hi - lo) * i / (n - 1.0)));
  }
  return v;
}

struct SetParam {
  double value;
  std::string unit;  // "" when the script sets no NAME_unit
};
std::map<std::string, SetParam> parse_set_param(const std::string& text) {
  std::map<std::string, SetParam> out;
  const std::regex re(R"(set_param\(blk, '([A-Za-z_]+)', '([^']+)'(?:, '([A-Za-z_]+)_unit', '([^']+)')?\);)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    EXPECT_EQ(out.count(m[1]), 0u) << "set twice: " << m[1];
    if (m[3].matched) {
      EXPECT_EQ(m[3].str(), m[1].str());
    }
    out[m[1]] = {std::stod(m[2]), m[4].matched ? m[4].str() : ""};
  }
  return out;
}

// "NAME(...) = VALUE" (Modelica) or "real NAME = VALUE;" (20-sim).
std::map<std::string, double> parse_assignments(const std::string& text, const std::string& pattern) {
  std::map<std::string, double> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = std::stod((*it)[2]);
  return out;
}
const char* kModelicaScalar = R"(parameter [A-Za-z.]+ ([A-Za-z_]+)(?:\([^)]*\))? = ([-+0-9.eE]+) )";
const char* kTwentySim = R"(real ([A-Za-z_]+) = ([-+0-9.eE]+);)";

// The largest force difference the program printed ("... largest force difference X N ...").
double stated_error(const std::string& out) {
  std::smatch m;
  const std::regex re(R"([Ll]argest force difference ([-+0-9.eE]+) )");
  EXPECT_TRUE(std::regex_search(out, m, re)) << out;
  return m.empty() ? NAN : std::stod(m[1]);
}

int export_params(const std::string& args, std::string* out = nullptr) { return run_cli("export-params " + args, out); }

struct BlockCase {
  std::string model;
  std::vector<double> params;
  std::vector<std::pair<std::string, std::string>> names;  // set_param name, unit ("" = dimensionless)
};

// Every Simscape block: exactly the documented names, each with its unit,
// and values that give the fitted force (the block's law is the fitted one).
TEST(ExportParamsCli, SimscapeScriptUsesTheBlocksNamesAndUnits) {
  const std::vector<BlockCase> cases = {
      {"simscape-translational",
       {31.5, 0.02, 20.25, 150.0},
       {{"brkwy_frc", "N"}, {"brkwy_vel", "m/s"}, {"Col_frc", "N"}, {"visc_coef", "N/(m/s)"}}},
      {"simscape-rotational",
       {2.5, 0.3, 1.75, 0.05},
       {{"brkwy_trq", "N*m"}, {"brkwy_vel", "rad/s"}, {"Col_trq", "N*m"}, {"visc_coef", "N*m/(rad/s)"}}},
      {"simscape-cylinder",
       {45.0, 2.5e-6, 1.8, 800.0, 25.0, 2e-4},
       {{"frc_preload", "N"},
        {"fr_coef", "N/Pa"},
        {"frc_brkwy_coef", ""},
        {"visc_coef", "N/(m/s)"},
        {"trans_coef", "s/m"},
        {"vel_thr", "m/s"}}},
      {"simscape-cylinder-il",
       {45.0, 2.5e-6, 1.8, 4e-3, 800.0},
       {{"preload_force", "N"},
        {"Coulomb_coeff", "N/Pa"},
        {"breakaway_Coulomb_ratio", ""},
        {"viscous_coeff", "N/(m/s)"},
        {"breakaway_velocity", "m/s"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    const std::string fit = fit_file("block_" + c.model + ".json", c.model, c.params);
    const std::string out = temp_dir() + "block_" + c.model + ".m";
    std::string log;
    ASSERT_EQ(export_params(fit + " --to simscape -o " + out, &log), 0) << log;
    const std::string text = slurp(out);
    EXPECT_NE(text.find("exact"), std::string::npos);
    EXPECT_EQ(text.find("approximate"), std::string::npos);
    EXPECT_NE(text.find("'offset'"), std::string::npos) << "the skipped force-balance term is named";
    const auto got = parse_set_param(text);
    ASSERT_EQ(got.size(), c.names.size()) << text;
    std::vector<double> values;  // in the model's parameter order (the cases list the block's)
    for (const auto& [name, unit] : c.names) {
      ASSERT_EQ(got.count(name), 1u) << name << " missing in\n" << text;
      EXPECT_EQ(got.at(name).unit, unit) << name;
      values.push_back(got.at(name).value);
    }
    if (c.model == "simscape-cylinder-il") std::swap(values[3], values[4]);  // block lists viscous before velocity
    for (double v : grid(1e-6, 2.0, 60))
      for (double s : {1.0, -1.0}) {
        const LD want = gold(c.model, c.params, s * v, 3e6);
        EXPECT_LE(fabsl(gold(c.model, values, s * v, 3e6) - want), 1e-12L * std::max<LD>(1, fabsl(want))) << v;
      }
  }
}

// Exact exports (the target's law is the fitted one, or a reparameterisation
// of it): the exported values give the fitted force to 1e-12.
TEST(ExportParamsCli, ExactExportsReproduceTheForce) {
  const double fn = 750.0;
  struct Case {
    std::string model;
    std::vector<double> params;
    std::string to, extra;
  };
  const std::vector<Case> cases = {
      {"20sim-c", {0.12, 800.0}, "20sim", ""},
      {"20sim-v", {0.02}, "20sim", ""},
      {"20sim-cv", {0.12, 0.02, 800.0}, "20sim", ""},
      {"20sim-scvs", {0.2, 0.12, 0.02, 800.0, 0.015}, "20sim", ""},
      {"coulomb-viscous", {18.0, 90.0, 2e-3}, "simscape", ""},
      {"20sim-cv", {0.12, 0.02, 800.0}, "simscape", "--normal-force " + num(fn)},
      {"20sim-c", {0.12, 800.0}, "simscape", "--normal-force " + num(fn)},
      {"simscape-cylinder", {45.0, 2.5e-6, 1.8, 800.0, 25.0, 2e-4}, "modelica", "--pressure 6e6"},
  };
  int k = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model + " -> " + c.to);
    const std::string fit = fit_file("exact_" + std::to_string(++k) + ".json", c.model, c.params);
    const std::string out = temp_dir() + "exact_" + std::to_string(k) + ".txt";
    std::string log;
    ASSERT_EQ(export_params(fit + " --to " + c.to + " -o " + out + " " + c.extra, &log), 0) << log;
    const std::string text = slurp(out);
    EXPECT_NE(text.find("exact"), std::string::npos) << text;
    EXPECT_LE(stated_error(log), 1e-9) << log;
    const auto sim20 = parse_assignments(text, kTwentySim);
    const auto blk = parse_set_param(text);
    const auto msl = parse_assignments(text, kModelicaScalar);
    for (double v : grid(1e-6, 3.0, 80)) {
      for (double s : {1.0, -1.0}) {
        const double x = s * v;
        const LD want = gold(c.model, c.params, x, c.to == "modelica" ? 6e6 : 0.0, fn);
        LD got = 0;
        if (c.to == "20sim") {
          const ModelInfo& m = *find_model(c.model);
          std::vector<double> p;
          for (const auto& pi : m.params) p.push_back(sim20.at(pi.name));
          got = gold(c.model, p, x, 0.0, fn);
        } else if (c.to == "simscape") {
          got = gold("simscape-translational",
                     {blk.at("brkwy_frc").value, blk.at("brkwy_vel").value, blk.at("Col_frc").value,
                      blk.at("visc_coef").value},
                     x);
        } else {  // MSL sliding law, outside the block's linear zone
          if (v <= 2e-4) continue;
          const LD av = fabsl(LD(x));
          got = (LD(msl.at("F_Coulomb")) + LD(msl.at("F_prop")) * av +
                 LD(msl.at("F_Stribeck")) * expl(-LD(msl.at("fexp")) * av)) *
                (x > 0 ? 1 : -1);
        }
        EXPECT_LE(fabsl(got - want), 1e-12L * std::max<LD>(1, fabsl(want))) << "v = " << x;
      }
    }
  }
}

// Approximate exports: the stated largest force difference is what an
// independent evaluation (golden source law, target law typed in here, a
// denser grid) finds, within the grid's resolution.
TEST(ExportParamsCli, ApproximateExportsStateAnErrorAnIndependentEvaluationConfirms) {
  const double lo = 1e-3, hi = 0.5;
  struct Case {
    std::string model;
    std::vector<double> params;
    std::string to, extra;
  };
  const std::vector<Case> cases = {
      {"simscape-translational", {31.5, 0.02, 20.25, 150.0}, "modelica", ""},
      {"simscape-cylinder-il", {45.0, 2.5e-6, 1.8, 4e-3, 800.0}, "modelica", "--pressure 8e6"},
      {"simscape-translational", {31.5, 0.02, 20.25, 150.0}, "20sim", "--normal-force 400"},
      {"20sim-scvs", {0.2, 0.12, 0.02, 800.0, 0.015}, "simscape", "--normal-force 400"},
      {"simscape-rotational", {2.5, 0.05, 1.75, 0.4}, "modelica", ""},
  };
  int k = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model + " -> " + c.to);
    const std::string fit = fit_file("approx_" + std::to_string(++k) + ".json", c.model, c.params);
    const std::string out = temp_dir() + "approx_" + std::to_string(k) + ".txt";
    std::string log;
    ASSERT_EQ(export_params(
                  fit + " --to " + c.to + " -o " + out + " --velocity-range " + num(lo) + ":" + num(hi) + " " + c.extra,
                  &log),
              0)
        << log;
    const std::string text = slurp(out);
    EXPECT_NE(text.find("approximate"), std::string::npos) << text;
    const double stated = stated_error(log);
    EXPECT_EQ(stated_error(text), stated) << "the file states the same error as the program";
    const double pressure = c.model == "simscape-cylinder-il" ? 8e6 : 0.0;
    // The exported values, parsed once.
    std::vector<double> w, t;  // MSL tau_pos table
    if (c.to == "modelica" && c.model == "simscape-rotational") {
      std::smatch m;
      ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(tau_pos\[:, 2\] = \[([^\]]*)\])")));
      std::stringstream rows(m[1].str());
      std::string row;
      while (std::getline(rows, row, ';')) {
        double a, b;
        ASSERT_EQ(std::sscanf(row.c_str(), " %lf, %lf", &a, &b), 2) << row;
        w.push_back(a), t.push_back(b);
      }
      ASSERT_GE(w.size(), 10u);
      EXPECT_EQ(w.front(), 0.0);
    }
    const auto msl = parse_assignments(text, kModelicaScalar);
    const auto sim20 = parse_assignments(text, kTwentySim);
    const auto blk = parse_set_param(text);
    if (c.to == "modelica" && w.empty()) {
      ASSERT_EQ(msl.size(), 4u) << text;
      EXPECT_GE(msl.at("fexp"), 0.0);
      EXPECT_GE(msl.at("F_prop"), 0.0);
    }
    LD worst = 0, fmax = 0;
    for (double v : grid(lo, hi, 5000)) {
      const LD want = gold(c.model, c.params, v, pressure, 400.0);
      fmax = std::max(fmax, fabsl(want));
      LD got = 0;
      if (!w.empty()) {  // linear interpolation in tau_pos
        size_t j = 1;
        while (j + 1 < w.size() && w[j] < v) ++j;
        got = t[j - 1] + (t[j] - t[j - 1]) * (LD(v) - w[j - 1]) / (w[j] - w[j - 1]);
      } else if (c.to == "modelica") {
        got = LD(msl.at("F_Coulomb")) + LD(msl.at("F_prop")) * v +
              LD(msl.at("F_Stribeck")) * expl(-LD(msl.at("fexp")) * v);
      } else if (c.to == "20sim") {
        got = gold("20sim-scvs",
                   {sim20.at("mu_s"), sim20.at("mu_c"), sim20.at("mu_v"), sim20.at("slope"), sim20.at("v_st")}, v, 0,
                   400.0);
      } else {
        got = gold(
            "simscape-translational",
            {blk.at("brkwy_frc").value, blk.at("brkwy_vel").value, blk.at("Col_frc").value, blk.at("visc_coef").value},
            v);
      }
      worst = std::max(worst, fabsl(got - want));
    }
    // The program checks 2,000 velocities, this test 10,000: the maxima agree
    // to the grid's resolution and the printed 3 digits.
    EXPECT_NEAR(double(worst), stated, 0.03 * stated + 1e-9 * double(fmax)) << text;
    EXPECT_GT(stated, 0.0);
    EXPECT_LT(stated, 0.25 * double(fmax)) << "the conversion is at least a rough match";
  }
}

// Bad input: one line `stribeck: error: ...`, exit 2, no output file.
TEST(ExportParamsCli, BadInputIsOneLineAndExitTwo) {
  const std::string dir = temp_dir();
  write(dir + "bad_syntax.json", "{\"model\": \"simscape-translational\", \"parameters\": {");
  write(dir + "bad_array.json", "[1, 2]");
  write(dir + "bad_missing.json",
        "{\"model\": \"simscape-translational\", \"parameters\": {\"F_brk\": 25, \"F_C\": 20, \"f_v\": 100}}");
  write(dir + "bad_asym.json",
        "{\"model\": \"coulomb-viscous\", \"parameters\": {\"F_C+\": {\"value\": 20}, "
        "\"F_C-\": {\"value\": 21}, \"f_v\": {\"value\": 3}, \"v_eps\": {\"value\": 0}}}");
  write(dir + "bad_model.json", "{\"model\": \"stribeck-magic\", \"parameters\": {}}");
  write(dir + "bad_null.json",
        "{\"model\": \"coulomb-viscous\", \"parameters\": {\"F_C\": {\"value\": null}, "
        "\"f_v\": 1, \"v_eps\": 0}}");
  write(dir + "bad_rule.json", fit_report("simscape-translational", {10.0, 0.1, 20.0, 100.0}));
  write(dir + "lugre.json", fit_report("lugre", {1e5, 300.0, 50.0, 20.0, 25.0, 0.01}));
  write(dir + "tslugre.json", fit_report("20sim-lugre", {0.1, 0.15, 0.01, 0.01, 1e4, 0.01}));
  write(dir + "scvs.json", fit_report("20sim-scvs", {0.2, 0.12, 0.02, 800.0, 0.015}));
  write(dir + "rot.json", fit_report("simscape-rotational", {2.5, 0.3, 1.75, 0.05}));
  write(dir + "cv.json", fit_report("20sim-cv", {0.12, 0.02, 800.0}));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dir + "bad_syntax.json --to simscape", "malformed JSON"},
      {dir + "bad_array.json --to json", "expected a JSON object"},
      {dir + "bad_missing.json --to simscape", "'v_brk'"},
      {dir + "bad_asym.json --to json", "asymmetric"},
      {dir + "bad_model.json --to json", "unknown model 'stribeck-magic'"},
      {dir + "bad_null.json --to json", "'F_C' has no numeric value"},
      {dir + "bad_rule.json --to simscape", "F_brk"},
      {dir + "lugre.json --to simscape",
       "lugre has no simscape export: Simscape's friction blocks are static "
       "laws; use --to json"},
      {dir + "tslugre.json --to simscape",
       "20sim-lugre has no simscape export: Simscape's friction blocks are "
       "static laws; use --to 20sim or json"},
      {dir + "rot.json --to 20sim", "simscape-rotational has no 20sim export"},
      {dir + "scvs.json --to modelica", "--normal-force"},
      {dir + "scvs.json --to modelica --normal-force 100", "--velocity-range"},
      {dir + "cv.json --to simscape", "--normal-force"},
      {dir + "scvs.json --to modelica --normal-force 100 --velocity-range 2:1", "--velocity-range '2:1'"},
      {dir + "nonexistent.json --to json", "nonexistent.json"},
  };
  for (const auto& [args, what] : cases) {
    SCOPED_TRACE(args);
    const std::string out = dir + "bad_out.txt";
    std::string log;
    EXPECT_EQ(export_params(args + " -o " + out, &log), 2) << log;
    EXPECT_EQ(log.rfind("stribeck: error: ", 0), 0u) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_NE(log.find(what), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(out));
  }
  // An existing output stays as it was.
  write(dir + "keep.m", "old");
  EXPECT_EQ(export_params(dir + "lugre.json --to simscape -o " + dir + "keep.m"), 2);
  EXPECT_EQ(slurp(dir + "keep.m"), "old");
  // A usage error (unknown target) is exit 1, as every usage error.
  EXPECT_EQ(export_params(dir + "cv.json --to adams"), 1);
}

// A law with memory goes only where the target has it (json; 20sim-lugre
// also to 20-sim's LuGre submodel), unchanged: nothing is compared, and
// neither the summary nor the file claims a check over a velocity range.
TEST(ExportParamsCli, ALawWithMemoryIsCarriedOverWithoutAClaimedCheck) {
  const std::string dir = temp_dir();
  const std::vector<double> gms = {2e5, 300.0, 0.5, 1.2, 1.6, 2e-3, 1.5, 5e-3, 0.7, 0.4};
  const std::string fit = fit_file("gms2_fit.json", "gms2", gms);
  std::string log;
  ASSERT_EQ(export_params(fit + " --to json -o " + dir + "gms2.json", &log), 0) << log;
  EXPECT_EQ(log, "stribeck export-params: gms2 -> json, exact: carried over unchanged -> " + dir +
                     "gms2.json\n  Stick-slip check not run: a law with memory is carried over unchanged\n");
  const nlohmann::json j = nlohmann::json::parse(slurp(dir + "gms2.json"));
  EXPECT_EQ(j.at("model"), "gms2");
  const ModelInfo& m = *find_model("gms2");
  for (size_t i = 0; i < m.params.size(); ++i) EXPECT_EQ(j.at("parameters").at(m.params[i].name), gms[i]);
  const std::string tsl = fit_file("tslugre_fit.json", "20sim-lugre", {0.1, 0.15, 0.01, 0.01, 1e4, 0.01});
  ASSERT_EQ(export_params(tsl + " --to 20sim -o " + dir + "tsl.txt", &log), 0) << log;
  EXPECT_NE(log.find("20sim-lugre -> 20sim, exact: carried over unchanged -> "), std::string::npos) << log;
  const std::string text = slurp(dir + "tsl.txt");
  EXPECT_NE(text.find("// exact: the submodel's law is the fitted law: values carried over.\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("Checked"), std::string::npos) << text;
  EXPECT_NE(text.find("real sigma0 = 10000;"), std::string::npos) << text;
  EXPECT_EQ(export_params(fit + " --to 20sim -o " + dir + "gms2.txt", &log), 2);
  EXPECT_NE(log.find("gms2 has no 20sim export"), std::string::npos) << log;
}

// `eval --params` takes a fit report's (or a json export's) model and
// parameters: the same forces as the parameters given one by one.
TEST(ExportParamsCli, EvalReadsTheParametersOfAFitReport) {
  const std::string dir = temp_dir();
  std::string csv = "time,velocity,pressure_a,pressure_b\n";
  int i = 0;
  for (double v : grid(1e-5, 0.8, 40)) {
    csv += num(0.001 * i++) + "," + num(v) + ",2e6,1e6\n";
    csv += num(0.001 * i++) + "," + num(-v) + ",5e6,0\n";
  }
  write(dir + "in.csv", csv);
  const std::vector<double> p = {45.0, 2.5e-6, 1.8, 4e-3, 800.0};
  const std::string fit = fit_file("eval_fit.json", "simscape-cylinder-il", p);
  std::string log;
  ASSERT_EQ(run_cli("eval --params " + fit + " -i " + dir + "in.csv -o " + dir + "a.csv", &log), 0) << log;
  ASSERT_EQ(
      run_cli("eval -m simscape-cylinder-il -p F_pr=45 -p f_cfr=2.5e-6 -p R_brk=1.8 -p v_brk=4e-3 -p f_v=800 -i " +
                  dir + "in.csv -o " + dir + "b.csv",
              &log),
      0)
      << log;
  EXPECT_EQ(slurp(dir + "a.csv"), slurp(dir + "b.csv"));
  // The json export reads back the same.
  ASSERT_EQ(export_params(fit + " --to json -o " + dir + "p.json", &log), 0) << log;
  ASSERT_EQ(run_cli("eval --params " + dir + "p.json -i " + dir + "in.csv -o " + dir + "c.csv", &log), 0) << log;
  EXPECT_EQ(slurp(dir + "a.csv"), slurp(dir + "c.csv"));
  // --param overrides one value of the file; --model must agree with it.
  ASSERT_EQ(run_cli("eval --params " + fit + " -p F_pr=50 -i " + dir + "in.csv -o " + dir + "d.csv", &log), 0) << log;
  EXPECT_NE(slurp(dir + "a.csv"), slurp(dir + "d.csv"));
  EXPECT_EQ(
      run_cli("eval --params " + fit + " -m simscape-translational -i " + dir + "in.csv -o " + dir + "e.csv", &log), 2);
  EXPECT_NE(log.find("differs from the model of"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir + "e.csv"));
  EXPECT_EQ(run_cli("eval -i " + dir + "in.csv -o " + dir + "e.csv", &log), 1) << log;
}

// The whole path a user takes: a log, `identify --json`, then every export
// of that very report, the range from the log (--data), and `eval --params`.
TEST(ExportParamsCli, ExportsWhatIdentifyWrites) {
  const std::string dir = temp_dir();
  std::string log;
  ASSERT_EQ(run_cli("generate --model simscape-translational -p F_brk=30 -p v_brk=0.02 -p F_C=20 -p f_v=120 --profile "
                    "triangle --duration 4 --noise force=0.1 -o " +
                        dir + "id.h5",
                    &log),
            0)
      << log;
  ASSERT_EQ(
      run_cli("identify " + dir + "id.h5 --model simscape-translational --starts 2 --json " + dir + "id.json", &log), 0)
      << log;
  const nlohmann::json rep = nlohmann::json::parse(slurp(dir + "id.json"));
  ASSERT_EQ(export_params(dir + "id.json --to simscape -o " + dir + "id.m", &log), 0) << log;
  const auto got = parse_set_param(slurp(dir + "id.m"));
  EXPECT_EQ(got.at("brkwy_frc").value, rep["parameters"]["F_brk"]["value"].get<double>());
  EXPECT_EQ(got.at("brkwy_vel").value, rep["parameters"]["v_brk"]["value"].get<double>());
  EXPECT_EQ(got.at("Col_frc").value, rep["parameters"]["F_C"]["value"].get<double>());
  EXPECT_EQ(got.at("visc_coef").value, rep["parameters"]["f_v"]["value"].get<double>());
  ASSERT_EQ(export_params(dir + "id.json --to modelica --data " + dir + "id.h5 -o " + dir + "id.mo", &log), 0) << log;
  EXPECT_NE(slurp(dir + "id.mo").find("approximate"), std::string::npos);
  EXPECT_NE(log.find("over |v| in [0"), std::string::npos) << log;  // the log's range starts near rest
  ASSERT_EQ(
      export_params(dir + "id.json --to 20sim --normal-force 200 --data " + dir + "id.h5 -o " + dir + "id.txt", &log),
      0)
      << log;
  EXPECT_EQ(run_cli("export " + dir + "id.h5 -o " + dir + "id.csv", &log), 0) << log;
  ASSERT_EQ(run_cli("eval --params " + dir + "id.json -i " + dir + "id.csv -o " + dir + "id_eval.csv", &log), 0) << log;
}

// ---- exports that reproduce the fit (issue 34) -----------------------------
//
// The independent best of a target law: its least-squares fit written here,
// not with Ceres or the program's multistart. Each law below is linear in
// its coefficients once one velocity scale is fixed, so a dense log scan of
// that scale with the linear least squares solved at every node (coefficients
// held at 0 where a sign bound would be broken), then a golden-section polish,
// finds the global optimum.

// Solves the normal equations of columns `a` (samples x k) against f.
bool linear_lsq(const std::vector<std::vector<LD>>& a, const std::vector<LD>& f, std::vector<LD>& x) {
  const size_t k = a.empty() ? 0 : a[0].size();
  std::vector<std::vector<LD>> m(k, std::vector<LD>(k + 1, 0));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t r = 0; r < k; ++r) {
      for (size_t c = 0; c < k; ++c) m[r][c] += a[i][r] * a[i][c];
      m[r][k] += a[i][r] * f[i];
    }
  for (size_t c = 0; c < k; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < k; ++r)
      if (fabsl(m[r][c]) > fabsl(m[piv][c])) piv = r;
    std::swap(m[c], m[piv]);
    if (fabsl(m[c][c]) < 1e-300L) return false;
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const LD q = m[r][c] / m[c][c];
      for (size_t j = c; j <= k; ++j) m[r][j] -= q * m[c][j];
    }
  }
  x.assign(k, 0);
  for (size_t c = 0; c < k; ++c) x[c] = m[c][k] / m[c][c];
  return true;
}

struct IndependentFit {
  LD theta = 0;
  std::vector<LD> coef;
  LD sse = INFINITY, max_err = 0;
};

// basis(v, theta): the law's columns at v; nonneg: coefficients that must be >= 0.
template <class Basis>
IndependentFit best_fit(const std::vector<double>& v, const std::vector<LD>& f, Basis basis, double th_lo, double th_hi,
                        const std::vector<bool>& nonneg) {
  auto at = [&](LD th) {
    IndependentFit r;
    r.theta = th;
    const size_t k = nonneg.size();
    std::vector<std::vector<LD>> basis_rows;
    for (double x : v) basis_rows.push_back(basis(x, th));
    // Every choice of sign-bounded coefficients held at 0; the best feasible.
    // Mask 0 holds none: when its solution is feasible it is the optimum.
    for (unsigned mask = 0; mask < (1u << k); ++mask) {
      bool skip = false;
      for (size_t j = 0; j < k; ++j) skip |= ((mask >> j) & 1u) && !nonneg[j];
      if (skip) continue;
      std::vector<size_t> cols;
      for (size_t j = 0; j < k; ++j)
        if (!((mask >> j) & 1u)) cols.push_back(j);
      std::vector<std::vector<LD>> a;
      for (const auto& b : basis_rows) {
        std::vector<LD> row;
        for (size_t j : cols) row.push_back(b[j]);
        a.push_back(row);
      }
      std::vector<LD> sol;
      if (!linear_lsq(a, f, sol)) continue;
      std::vector<LD> coef(k, 0);
      bool ok = true;
      for (size_t j = 0; j < cols.size(); ++j) {
        coef[cols[j]] = sol[j];
        ok &= !nonneg[cols[j]] || sol[j] >= 0;
      }
      if (!ok) continue;
      LD sse = 0, mx = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        LD g = 0;
        for (size_t j = 0; j < k; ++j) g += coef[j] * basis_rows[i][j];
        sse += (g - f[i]) * (g - f[i]);
        mx = std::max(mx, fabsl(g - f[i]));
      }
      if (sse < r.sse) r.sse = sse, r.max_err = mx, r.coef = coef;
      if (mask == 0) break;
    }
    return r;
  };
  IndependentFit best;
  const int n = 400;
  int ibest = 0;
  for (int i = 0; i < n; ++i) {
    const IndependentFit r = at(th_lo * powl(LD(th_hi) / th_lo, LD(i) / (n - 1)));
    if (r.sse < best.sse) best = r, ibest = i;
  }
  // Golden section on log(theta) between the best node's neighbours.
  LD a = logl(th_lo) + (logl(th_hi) - logl(th_lo)) * std::max(0, ibest - 1) / (n - 1);
  LD b = logl(th_lo) + (logl(th_hi) - logl(th_lo)) * std::min(n - 1, ibest + 1) / (n - 1);
  const LD g = (sqrtl(5.0L) - 1) / 2;
  for (int it = 0; it < 80; ++it) {
    const LD c = b - g * (b - a), d = a + g * (b - a);
    if (at(expl(c)).sse < at(expl(d)).sse) b = d;
    else a = c;
  }
  const IndependentFit r = at(expl((a + b) / 2));
  if (r.sse < best.sse) best = r;
  return best;
}

// MSL MassWithStopAndFriction's sliding law for v > 0: F_Coulomb + F_prop v +
// F_Stribeck exp(-fexp v), with F_prop, fexp >= 0 as MSL declares them and a
// stuck limit F_Coulomb + F_Stribeck >= 0 (a negative one never holds the
// mass): columns 1 - e, v, e for F_Coulomb, F_prop, F_Coulomb + F_Stribeck.
IndependentFit best_msl(const std::vector<double>& v, const std::vector<LD>& f, double hi) {
  return best_fit(v, f,
                  [](double x, LD fexp) {
                    const LD e = expl(-fexp * x);
                    return std::vector<LD>{1.0L - e, LD(x), e};
                  },
                  1e-2 / hi, 1e5 / hi, {true, true, true});
}
LD msl_force(const std::map<std::string, double>& p, double v) {
  return LD(p.at("F_Coulomb")) + LD(p.at("F_prop")) * v + LD(p.at("F_Stribeck")) * expl(-LD(p.at("fexp")) * v);
}

// The check velocities the program documents: 1000 geometric and 1000 linear
// points over [lo, hi], a lower end of 0 starting the geometric part at hi/1e4.
std::vector<double> documented_grid(double lo, double hi) {
  std::vector<double> v;
  const double g0 = lo > 0 ? lo : hi * 1e-4;
  for (int i = 0; i < 1000; ++i) v.push_back(g0 * std::pow(hi / g0, i / 999.0));
  for (int i = 0; i < 1000; ++i) v.push_back(std::max(g0, lo + (hi - lo) * i / 999.0));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// The data's |v| range as documented: largest |v|, and the smallest (at most half of it).
void data_range(const std::string& log, double& lo, double& hi) {
  lo = INFINITY, hi = 0;
  for (const data::Experiment& e : data::read_any_log(log))
    for (double v : e.channel("velocity")) lo = std::min(lo, std::abs(v)), hi = std::max(hi, std::abs(v));
  lo = std::min(lo, hi / 2);
}

double fit_value(const nlohmann::json& rep, const char* name) { return rep["parameters"][name]["value"].get<double>(); }

// Issue 34, row 1: the README's path, a Simscape Translational fit of a
// generated log exported to MSL. It stopped in a degenerate local optimum
// (F_Stribeck 0, fexp 0: 8.25 N off where the law allows 0.49 N); now the
// export is the law's least-squares optimum over the data's range, as an
// independent fit finds it, and says so.
TEST(ExportParamsCli, ModelicaExportIsTheBestTheMslLawAllows) {
  const std::string dir = temp_dir() + "row1_";
  std::string log;
  ASSERT_EQ(run_cli("generate --model simscape-translational -p F_C=20 -p F_brk=25 -p f_v=100 -p v_brk=0.1 --seed 11 "
                    "-o " +
                        dir + "log.h5",
                    &log),
            0)
      << log;
  ASSERT_EQ(run_cli("identify " + dir + "log.h5 --model simscape-translational --json " + dir + "fit.json", &log), 0)
      << log;
  ASSERT_EQ(export_params(dir + "fit.json --to modelica --data " + dir + "log.h5 -o " + dir + "f.mo", &log), 0) << log;
  const std::string text = slurp(dir + "f.mo");
  const auto msl = parse_assignments(text, kModelicaScalar);
  ASSERT_EQ(msl.size(), 4u) << text;
  const nlohmann::json rep = nlohmann::json::parse(slurp(dir + "fit.json"));
  const std::vector<double> p = {fit_value(rep, "F_brk"), fit_value(rep, "v_brk"), fit_value(rep, "F_C"),
                                 fit_value(rep, "f_v")};
  double lo, hi;
  data_range(dir + "log.h5", lo, hi);
  const std::vector<double> v = documented_grid(lo, hi);
  std::vector<LD> f;
  for (double x : v) f.push_back(gold("simscape-translational", p, x));
  const IndependentFit best = best_msl(v, f, hi);
  LD err = 0;
  for (size_t i = 0; i < v.size(); ++i) err = std::max(err, fabsl(msl_force(msl, v[i]) - f[i]));
  EXPECT_LE(double(err), 1.05 * double(best.max_err) + 1e-6) << text;
  EXPECT_LT(double(best.max_err), 1.0) << "the law allows the issue's 0.49 N";
  EXPECT_NEAR(stated_error(text), double(err), 0.02 * double(err)) << text;
  EXPECT_GE(msl.at("F_prop"), 0.0);
  EXPECT_GE(msl.at("fexp"), 0.0);
  EXPECT_NE(text.find("the best this law allows there"), std::string::npos) << text;
  // MSL breaks away at its law's value at v = 0+; that the fit's smoothed rise leaves it less is said.
  EXPECT_NE(log.find("stribeck: warning: the exported values break away at"), std::string::npos) << log;
  // The breakaways are stated: the fit's F_brk, MSL's F_Coulomb + F_Stribeck.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      text, m,
      std::regex(R"(Breakaway \(held at rest before sliding\): fitted law ([-+0-9.eE]+) N, exported ([-+0-9.eE]+) N)")))
      << text;
  EXPECT_EQ(m[1].str(), short3(p[0]));
  EXPECT_NEAR(std::stod(m[2]), msl.at("F_Coulomb") + msl.at("F_Stribeck"),
              1e-9 * msl.at("F_Coulomb") + 0.005 * std::stod(m[2]));
}

// Issue 34, row 2: MSL BearingFriction broke away at peak * tau_pos(0) with
// peak = 1, i.e. at the law's torque at the range's lower end (1.37 N*m for
// a 25 N*m breakaway). Now peak puts the breakaway at the fit's T_brk.
TEST(ExportParamsCli, BearingFrictionBreaksAwayAtTheFittedTorque) {
  const std::string fit = fit_file("row2.json", "simscape-rotational", {25.0, 0.1, 20.0, 100.0});
  const std::string out = temp_dir() + "row2.mo";
  std::string log;
  ASSERT_EQ(export_params(fit + " --to modelica --velocity-range 0:1 -o " + out, &log), 0) << log;
  const std::string text = slurp(out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(tau_pos\[:, 2\] = \[0, ([-+0-9.eE]+);)"))) << text;
  const double tau0 = std::stod(m[1]);
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(parameter Real peak\(final min = 1\) = ([-+0-9.eE]+) )")))
      << text;
  const double peak = std::stod(m[1]);
  EXPECT_GE(peak, 1.0);
  EXPECT_NEAR(peak * tau0, 25.0, 1e-12 * 25.0) << text;
  EXPECT_NE(text.find("fitted law 25 N.m, exported 25 N.m"), std::string::npos) << text;
}

// The records of a Modelica file by name: NAME -> its scalar assignments.
std::map<std::string, std::map<std::string, double>> modelica_records(const std::string& text) {
  std::map<std::string, std::map<std::string, double>> out;
  const std::regex re(R"(record ([A-Za-z0-9_]+) [^\n]*\n([\s\S]*?)end \1;)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = parse_assignments((*it)[2].str(), kModelicaScalar);
  return out;
}

// Issue 34, row 3: a cylinder fit went to Modelica / 20-sim at p_A + p_B = 0
// unless --pressure said otherwise, labelled exact (F_Coulomb 20 N where the
// fit gives 180 N at 80 bar). Now the data's operating points, one parameter
// set each, or a stated one; none is an error; exact only where it is.
TEST(ExportParamsCli, PressureDependentLawsAreExportedAtTheDatasOperatingPoints) {
  const std::string dir = temp_dir() + "row3_";
  const std::vector<double> p = {20.0, 2e-5, 1.5, 300.0, 20.0, 1e-4};  // F_C = 20 + 2e-5 (p_A + p_B)
  const std::string fit = fit_file("row3.json", "simscape-cylinder", p);
  std::string log;
  // No operating point: refused, never a silent 0.
  for (const std::string to : {"modelica", "20sim --normal-force 100"}) {
    EXPECT_EQ(export_params(fit + " --to " + to + " -o " + dir + "none.txt", &log), 2) << log;
    EXPECT_NE(log.find("--pressure"), std::string::npos) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_FALSE(fs::exists(dir + "none.txt"));
  }
  // A stated point: one record, exact there.
  ASSERT_EQ(export_params(fit + " --to modelica --pressure 8e6 -o " + dir + "stated.mo", &log), 0) << log;
  std::string text = slurp(dir + "stated.mo");
  EXPECT_NEAR(parse_assignments(text, kModelicaScalar).at("F_Coulomb"), 180.0, 1e-9) << text;
  EXPECT_NE(text.find("exact:"), std::string::npos) << text;
  // The data's points: one record per pressure level, each at its level.
  auto gen = [&](const std::string& name, const std::string& extra) {
    return run_cli(
        "generate --model simscape-cylinder -p F_pr=20 -p f_cfr=2e-5 -p K_brk=1.5 -p f_vfr=300 -p c_v=20 "
        "-p v_th=1e-4 --pressure-levels 40bar,80bar " +
            extra + " -o " + dir + name,
        &log);
  };
  ASSERT_EQ(gen("levels.h5", ""), 0) << log;
  ASSERT_EQ(export_params(fit + " --to modelica --data " + dir + "levels.h5 -o " + dir + "levels.mo", &log), 0) << log;
  text = slurp(dir + "levels.mo");
  auto records = modelica_records(text);
  ASSERT_EQ(records.size(), 2u) << text;
  EXPECT_NEAR(records["StribeckFrictionParameters_p40bar"].at("F_Coulomb"), 100.0, 1e-9) << text;
  EXPECT_NEAR(records["StribeckFrictionParameters_p80bar"].at("F_Coulomb"), 180.0, 1e-9) << text;
  EXPECT_EQ(text.find("approximate"), std::string::npos) << "constant pressures: exact at each\n" << text;
  EXPECT_NE(log.find("at p80bar, exact"), std::string::npos) << log;
  // The seal law's linear zone (v_th 0.1 mm/s) is steep: the check's body is heavier, not step-limited.
  EXPECT_EQ(log.find("step-limit"), std::string::npos) << log;
  EXPECT_EQ(log.find("Stick-slip check (1 kg"), std::string::npos) << log;
  // Pressures that vary within an experiment: taken at their mean, and not exact.
  ASSERT_EQ(gen("noisy.h5", "--noise pressure_a=5e5 --seed 3"), 0) << log;
  ASSERT_EQ(export_params(fit + " --to modelica --data " + dir + "noisy.h5 -o " + dir + "noisy.mo", &log), 0) << log;
  text = slurp(dir + "noisy.mo");
  records = modelica_records(text);
  ASSERT_EQ(records.size(), 2u) << text;
  for (const data::Experiment& e : data::read_any_log(dir + "noisy.h5")) {
    SCOPED_TRACE(e.name);
    LD sum = 0;
    for (size_t i = 0; i < e.size(); ++i) sum += e.channel("pressure_a")[i] + e.channel("pressure_b")[i];
    const double mean = double(sum / e.size());
    EXPECT_NEAR(records["StribeckFrictionParameters_" + e.name].at("F_Coulomb"), 20.0 + 2e-5 * mean, 1e-9);
  }
  EXPECT_EQ(text.find("exact:"), std::string::npos) << text;
  EXPECT_NE(text.find("approximate"), std::string::npos) << text;
  // 20-sim: the SCVS law fitted at each level's pressure.
  ASSERT_EQ(
      export_params(fit + " --to 20sim --normal-force 1000 --data " + dir + "levels.h5 -o " + dir + "levels.txt", &log),
      0)
      << log;
  text = slurp(dir + "levels.txt");
  // Each section holds that level's breakaway K_brk (F_pr + f_cfr (p_A + p_B)) as F_n mu_s, to the fit's
  // accuracy, and its stated difference bounds the force there.
  std::vector<double> mu_s;
  const std::regex re(R"(real mu_s = ([-+0-9.eE]+);)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    mu_s.push_back(std::stod((*it)[1]));
  ASSERT_EQ(mu_s.size(), 2u) << text;
  EXPECT_NEAR(mu_s[0] * 1000.0, 150.0, 0.03 * 150.0) << text;
  EXPECT_NEAR(mu_s[1] * 1000.0, 270.0, 0.03 * 270.0) << text;
}

// The 20-sim laws are per newton of normal force: a log whose experiments
// ran at different normal forces gives one parameter set each; the Simscape
// script sets the one `op` names (MATLAB quotes doubled inside its messages).
TEST(ExportParamsCli, NormalForceLawsAreExportedPerExperiment) {
  const std::string dir = temp_dir() + "fn_";
  const std::vector<std::pair<std::string, double>> points = {{"lo", 200.0}, {"hi", 400.0}};
  for (const auto& [name, fn] : points) {
    std::string csv = "time,velocity,force,normal_force\n";
    for (int i = 0; i < 1000; ++i) {
      const double t = 1e-3 * i, v = 0.2 * std::sin(2 * M_PI * t);
      csv += num(t) + "," + num(v) + "," + num(0.12 * fn * std::tanh(800 * v)) + "," + num(fn) + "\n";
    }
    write(dir + name + ".csv", csv);
  }
  std::string log;
  ASSERT_EQ(run_cli("import " + dir + "lo.csv " + dir + "hi.csv -n lo -n hi -o " + dir + "two.h5", &log), 0) << log;
  const std::string fit = fit_file("fn_cv.json", "20sim-cv", {0.12, 0.02, 800.0});
  ASSERT_EQ(export_params(fit + " --to simscape --data " + dir + "two.h5 -o " + dir + "two.m", &log), 0) << log;
  const std::string text = slurp(dir + "two.m");
  EXPECT_NE(text.find("error('stribeck:export', 'set op to the operating point: one of ''hi'', ''lo''');"),
            std::string::npos)
      << text;
  for (const auto& [name, fn] : points) {
    SCOPED_TRACE(name);
    const size_t at = text.find("  case '" + name + "'\n");
    ASSERT_NE(at, std::string::npos) << text;
    const auto got = parse_set_param(text.substr(at, text.find("  case", at + 1) - at));
    EXPECT_NEAR(got.at("Col_frc").value, 0.12 * fn, 1e-12 * fn);
    EXPECT_NEAR(got.at("visc_coef").value, 0.02 * fn, 1e-12 * fn);
    EXPECT_NE(log.find("20sim-cv -> simscape at " + name + ", exact"), std::string::npos) << log;
  }
}

// Issue 34, row 4: a 20-sim SCVS fit exported to Simscape or MSL lost its
// Coulomb level (coefficient ~0). Now the export keeps the fitted F_n mu_c,
// the normal force from the log, and is the target law's best.
TEST(ExportParamsCli, ScvsExportsKeepTheFittedCoulombLevel) {
  const std::string dir = temp_dir() + "row4_";
  std::string log;
  ASSERT_EQ(run_cli("generate --model 20sim-scvs -p mu_s=0.2 -p mu_c=0.12 -p mu_v=0.02 -p slope=800 -p v_st=0.015 "
                    "--normal-force 400 --vmax 0.5 --seed 5 -o " +
                        dir + "log.h5",
                    &log),
            0)
      << log;
  ASSERT_EQ(run_cli("identify " + dir + "log.h5 --model 20sim-scvs --json " + dir + "fit.json", &log), 0) << log;
  const nlohmann::json rep = nlohmann::json::parse(slurp(dir + "fit.json"));
  const std::vector<double> p = {fit_value(rep, "mu_s"), fit_value(rep, "mu_c"), fit_value(rep, "mu_v"),
                                 fit_value(rep, "slope"), fit_value(rep, "v_st")};
  double lo, hi;
  data_range(dir + "log.h5", lo, hi);
  const std::vector<double> v = documented_grid(lo, hi);
  std::vector<LD> f;
  for (double x : v) f.push_back(gold("20sim-scvs", p, x, 0, 400.0));
  // Simscape Translational: linear in (F_brk - F_C, F_C, f_v) once v_brk is fixed.
  ASSERT_EQ(export_params(dir + "fit.json --to simscape --data " + dir + "log.h5 -o " + dir + "f.m", &log), 0) << log;
  std::string text = slurp(dir + "f.m");
  const auto blk = parse_set_param(text);
  // The Coulomb level carries over (the laws' shapes differ, so not exactly).
  EXPECT_NEAR(blk.at("Col_frc").value, 400.0 * p[1], 0.15 * 400.0 * p[1]) << text;
  const IndependentFit best_block =
      best_fit(v, f,
               [](double x, LD v_brk) {
                 const LD s = x / (sqrtl(2.0L) * v_brk);
                 return std::vector<LD>{sqrtl(2.0L * expl(1.0L)) * expl(-s * s) * s, tanhl(10.0L * x / v_brk), LD(x)};
               },
               1e-2 * hi / 1e4, hi, {true, true, true});
  LD err = 0;
  for (size_t i = 0; i < v.size(); ++i)
    err = std::max(err, fabsl(gold("simscape-translational",
                                   {blk.at("brkwy_frc").value, blk.at("brkwy_vel").value, blk.at("Col_frc").value,
                                    blk.at("visc_coef").value},
                                   v[i]) -
                              f[i]));
  EXPECT_LE(double(err), 1.05 * double(best_block.max_err) + 1e-6) << text;
  // MSL.
  ASSERT_EQ(export_params(dir + "fit.json --to modelica --data " + dir + "log.h5 -o " + dir + "f.mo", &log), 0) << log;
  text = slurp(dir + "f.mo");
  const auto msl = parse_assignments(text, kModelicaScalar);
  EXPECT_NEAR(msl.at("F_Coulomb"), 400.0 * p[1], 0.15 * 400.0 * p[1]) << text;
  const IndependentFit best = best_msl(v, f, hi);
  err = 0;
  for (size_t i = 0; i < v.size(); ++i) err = std::max(err, fabsl(msl_force(msl, v[i]) - f[i]));
  EXPECT_LE(double(err), 1.05 * double(best.max_err) + 1e-6) << text;
}

// The stick-slip check: the rig the file names, the fitted law's metrics as
// `simulate` computes them for it, and no difference for an exact export,
// where an approximate one states what changes.
TEST(ExportParamsCli, StickSlipCheckStatesWhatTheSimulationGives) {
  const std::vector<double> p = {31.5, 0.02, 20.25, 15.0};  // falling past v_brk: the body oscillates
  const std::string fit = fit_file("stick.json", "simscape-translational", p);
  const std::string out = temp_dir() + "stick.m";
  std::string log;
  ASSERT_EQ(export_params(fit + " --to simscape --velocity-range 0:0.2 -o " + out, &log), 0) << log;
  const std::string text = slurp(out);
  std::smatch m;
  const std::regex re(
      R"(Stick-slip check \(1 kg on a spring of [-+0-9.eE]+ N/m pulled at [-+0-9.eE]+ m/s for 1 s, both laws in the )"
      R"(stiction form\): fitted law: (no stick-slip|stick-slip, period [-+0-9.eE]+ s, stick fraction [-+0-9.eE]+), )"
      R"(spring force amplitude ([-+0-9.eE]+) N, first breakaway ([-+0-9.eE]+) N; exported: \1, spring force )"
      R"(amplitude \2 N, first breakaway \3 N; differences: first breakaway 0 %, amplitude 0 %)");
  ASSERT_TRUE(std::regex_search(text, m, re)) << text;
  EXPECT_NE(log.find(m[0].str()), std::string::npos) << "the summary states it too\n" << log;
  // The documented rig: driven where the law falls fastest on the check grid
  // (at least a hundredth of the range's top), the spring reaching F_brk
  // after 50 ms of drive travel.
  const std::vector<double> v = documented_grid(0.0, 0.2);
  LD steepest = 0;
  double v_d = 0.02;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    const LD slope =
        (gold("simscape-translational", p, v[i + 1]) - gold("simscape-translational", p, v[i])) / (v[i + 1] - v[i]);
    if (slope < steepest) steepest = slope, v_d = v[i];
  }
  v_d = std::max(v_d, 0.002);
  EXPECT_NE(text.find("pulled at " + short3(v_d) + " m/s"), std::string::npos) << text;
  const double k = p[0] / (0.05 * v_d);
  const std::string cfg =
      "[system]\nmass = 1.0\nstiffness = " + num(k) + "\ndrive_velocity = " + num(v_d) +
      "\n[friction]\nmodel = \"simscape-translational\"\nform = \"stiction\"\n"
      "[friction.params]\nF_brk = " +
      num(p[0]) + "\nv_brk = " + num(p[1]) + "\nF_C = " + num(p[2]) + "\nf_v = " + num(p[3]) +
      "\n[simulation]\nt_end = 1.0\ndt = 1e-4\nmax_substeps = 256\n[metrics]\nv_stick = " + num(0.01 * v_d) +
      "\nv_breakaway = " + num(0.1 * v_d) + "\n";
  const StickSlipMetrics<double> r =
      workloads::simulate_series(workloads::parse_simulate_config(cfg, "rig.toml")).summary.metrics;
  ASSERT_GT(r.amp_spring_force, 1.0) << "a rig where the law matters";
  EXPECT_EQ(m[1].str() == "no stick-slip", r.stick_slip == 0);
  EXPECT_NEAR(std::stod(m[2]), r.amp_spring_force, 0.005 * r.amp_spring_force);
  EXPECT_NEAR(std::stod(m[3]), r.breakaway_force, 0.005 * r.breakaway_force);
  // An approximate export (MSL) states how its simulation differs.
  ASSERT_EQ(export_params(fit + " --to modelica --velocity-range 0:0.2 -o " + out + "o", &log), 0) << log;
  const std::string approx = slurp(out + "o");
  ASSERT_TRUE(std::regex_search(approx, m,
                                std::regex(R"(exported: [^;]*spring force amplitude ([-+0-9.eE]+) N, first breakaway )"
                                           R"(([-+0-9.eE]+) N; differences: first breakaway ([-+0-9.eE]+) %, )"
                                           R"(amplitude ([-+0-9.eE]+) %)")))
      << approx;
  EXPECT_NEAR(std::stod(m[4]), 100.0 * (std::stod(m[1]) - r.amp_spring_force) / r.amp_spring_force, 1.0) << approx;
  EXPECT_NEAR(std::stod(m[3]), 100.0 * (std::stod(m[2]) - r.breakaway_force) / r.breakaway_force, 1.0) << approx;
}

// A law whose backward static force is the larger (exact sign, viscous term:
// F(0-) = F_s_neg + f_v_neg 1e-12 N) runs its stick-slip check: the check's
// breakaway holds the law on both sides, which the stiction form requires.
TEST(ExportParamsCli, StickSlipCheckRunsALawStrongerBackward) {
  // F_C_pos, F_s_pos, v_s_pos, f_v_pos, F_C_neg, F_s_neg, v_s_neg, f_v_neg, delta, v_eps
  const std::vector<double> p = {20.0, 25.0, 0.01, 100.0, 22.0, 30.0, 0.01, 100.0, 2.0, 0.0};
  const std::string fit = fit_file("stick_asym.json", "stribeck-asymmetric", p);
  const std::string out = temp_dir() + "stick_asym.m";
  std::string log;
  ASSERT_EQ(export_params(fit + " --to simscape --velocity-range 0:0.2 -o " + out, &log), 0) << log;
  const std::string text = slurp(out);
  EXPECT_EQ(text.find("Stick-slip check not run"), std::string::npos) << text;
  EXPECT_NE(text.find("both laws in the stiction form): fitted law: "), std::string::npos) << text;
}

// The library behind the command (identification's export_params, which
// Python's stribeck.export_params calls too): typed options, checked before
// any input is read, that name the wrong option as the CLI spells it.
TEST(ExportParamsLibrary, OptionsCheckNamesTheWrongOption) {
  ident::ExportOptions o;
  std::string why;
  EXPECT_FALSE(o.IsValid(&why));
  EXPECT_NE(why.find("fit"), std::string::npos) << why;
  o.fit = temp_dir() + "not_there.json";
  EXPECT_TRUE(o.IsValid(&why)) << why;
  EXPECT_EQ(why, "");
  EXPECT_EQ(o.to, ident::ExportTarget::kJson);  // the documented default
  const std::vector<std::pair<std::function<void(ident::ExportOptions&)>, std::string>> cases = {
      {[](ident::ExportOptions& x) { x.fit_index = 0; }, "--fit "},
      {[](ident::ExportOptions& x) { x.pressure = NAN; }, "--pressure must be finite"},
      {[](ident::ExportOptions& x) { x.pressure = INFINITY; }, "--pressure must be finite"},
      {[](ident::ExportOptions& x) { x.normal_force = NAN; }, "--normal-force must be finite"},
  };
  for (const auto& [wrong, what] : cases) {
    ident::ExportOptions bad = o;
    wrong(bad);
    EXPECT_FALSE(bad.IsValid(&why)) << what;
    EXPECT_NE(why.find(what), std::string::npos) << why;
    // export_params checks before it reads: the message is the option's, not the missing file's.
    try {
      ident::export_params(bad);
      ADD_FAILURE() << "no error for " << what;
    } catch (const data::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  for (const char* name : {"simscape", "modelica", "20sim", "json"}) {
    ident::ExportTarget t = ident::ExportTarget::kJson;
    EXPECT_TRUE(ident::parse_export_target(name, &t)) << name;
    EXPECT_STREQ(ident::export_target_name(t), name);
  }
  ident::ExportTarget t;
  EXPECT_FALSE(ident::parse_export_target("adams", &t));
}

// The command binds flags and prints: its file and its summary are the
// library's result for the same options, an approximate conversion (the MSL
// law fitted to Simscape's) included.
TEST(ExportParamsLibrary, TheCommandsFileAndSummaryAreTheLibrarys) {
  const std::string dir = temp_dir();
  const std::string fit = fit_file("lib_st.json", "simscape-translational", {30.0, 0.02, 20.0, 120.0});
  std::string log;
  ASSERT_EQ(export_params(fit + " --to modelica --velocity-range 0.001:0.3 -o " + dir + "lib.mo", &log), 0) << log;
  ident::ExportOptions o;
  o.fit = fit;
  o.to = ident::ExportTarget::kModelica;
  o.velocity_range = "0.001:0.3";
  const ident::ExportResult r = ident::export_params(o);
  EXPECT_EQ(r.text, slurp(dir + "lib.mo"));
  EXPECT_EQ(r.source.model, "simscape-translational");
  EXPECT_EQ(r.source.ignored, std::vector<std::string>{"offset"});
  ASSERT_EQ(r.conversions.size(), 1u);
  const ident::ExportConversion& c = r.conversions.front();
  EXPECT_EQ(c.law, "simscape-cylinder");
  EXPECT_FALSE(c.exact);
  EXPECT_EQ(c.v_lo, 0.001);
  EXPECT_EQ(c.v_hi, 0.3);
  EXPECT_EQ(short3(c.max_error), short3(stated_error(log)));
  const std::string summary = ident::export_summary(r, o, 0, dir + "lib.mo");
  EXPECT_NE(log.find(summary), std::string::npos) << summary << "\n---\n" << log;
  const std::string warning = ident::export_warning(r, 0);
  ASSERT_FALSE(warning.empty());  // the MSL law keeps (almost) no stiction here
  EXPECT_NE(log.find("stribeck: warning: " + warning), std::string::npos) << log;
}

// A normal force that is not a number is refused, as a pressure is (it was
// taken as not given, so the export silently used each experiment's or 1 N).
TEST(ExportParamsCli, NonFiniteNormalForceIsRefused) {
  const std::string fit = fit_file("nf_cv.json", "20sim-cv", {0.12, 0.02, 800.0});
  for (const char* value : {"nan", "inf"}) {
    std::string log;
    EXPECT_EQ(export_params(fit + " --to json --normal-force " + value, &log), 2) << log;
    EXPECT_EQ(log, "stribeck: error: --normal-force must be finite\n");
  }
}

}  // namespace
}  // namespace stribeck
