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
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "model_specs.hpp"
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
      {dir + "lugre.json --to simscape", "lugre has no simscape export"},
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

}  // namespace
}  // namespace stribeck
