// Fits to rotational logs (motion=rotational: torque in N*m, velocity in
// rad/s, docs/identification.md "Rotational logs"): what `identify` prints,
// writes as JSON and as -o results carries rotational units, a generic law's
// parameters mapped by dimension (sigma0 N/m -> N*m/rad), and laws that only
// apply to translation are refused in one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::run_cli;
using test::temp_dir;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A log of `model` on the plateau profile with a torque sensor offset and
// noise; a translational law's log relabelled as the rotational one it is
// the same numbers of (rad for m, N*m for N).
std::string rotational_log(const std::string& name, const std::string& model, std::vector<double> params,
                           double duration) {
  workloads::GeneratorOptions o;
  o.model = model;
  o.params = std::move(params);
  o.rate_hz = 1000;
  o.duration = duration;
  o.noise["force"] = 0.01;
  o.offset["force"] = 0.2;
  std::vector<data::Experiment> exps = workloads::generate_log(o);
  for (auto& e : exps) {
    e.attributes["motion"] = "rotational";
    for (auto& [ch, unit] : e.units) {
      if (unit == "m") unit = "rad";
      else if (unit == "m/s") unit = "rad/s";
      else if (unit == "m/s^2") unit = "rad/s^2";
      else if (unit == "N") unit = "N*m";
    }
    e.name = "joint";
  }
  const std::string path = temp_dir() + name + ".h5";
  std::remove(path.c_str());
  write_log(path, exps, data::Provenance{});
  return path;
}

struct Fit {
  int rc;
  std::string out;
  nlohmann::json json;
};

Fit identify(const std::string& log, const std::string& args, const std::string& tag) {
  const std::string json = temp_dir() + tag + ".json";
  std::remove(json.c_str());
  Fit f;
  f.rc = run_cli("identify " + log + " " + args + " --json " + json, &f.out);
  if (f.rc == 0) f.json = nlohmann::json::parse(slurp(json));
  return f;
}

// The line of the text report that starts with the parameter's name.
std::string param_line(const std::string& out, const std::string& name) {
  const std::size_t at = out.find("\n  " + name + " ");
  if (at == std::string::npos) return "";
  return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(RotationalCli, GenericStaticLawInTorqueUnits) {
  const std::string log = rotational_log("rot_cv", "coulomb-viscous", {2.0, 0.5, 0.0}, 0);
  const std::string res = temp_dir() + "rot_cv_out.h5";
  std::remove(res.c_str());
  const Fit f = identify(log, "-m coulomb-viscous --offset -o " + res, "rot_cv");
  ASSERT_EQ(f.rc, 0) << f.out;
  EXPECT_TRUE(ends_with(param_line(f.out, "F_C"), " N*m")) << f.out;
  EXPECT_TRUE(ends_with(param_line(f.out, "f_v"), " N*m/(rad/s)")) << f.out;
  EXPECT_TRUE(ends_with(param_line(f.out, "offset"), " N*m")) << f.out;
  EXPECT_NE(f.out.find(" N*m\n  parameter"), std::string::npos) << "noise estimate\n" << f.out;
  EXPECT_NE(f.out.find("  rmse "), std::string::npos) << f.out;
  EXPECT_NE(f.out.substr(f.out.find("  rmse ")).find(" N*m, R^2"), std::string::npos) << f.out;
  const auto& p = f.json["parameters"];
  EXPECT_EQ(p["F_C"]["unit"], "N*m");
  EXPECT_EQ(p["f_v"]["unit"], "N*m/(rad/s)");
  EXPECT_EQ(p["offset"]["unit"], "N*m");
  EXPECT_EQ(f.json["force_unit"], "N*m");
  EXPECT_EQ(f.json["velocity_unit"], "rad/s");
  const data::Results r = data::read_results(res, "identify_coulomb-viscous/joint");
  int checked = 0;
  for (const auto& d : r.datasets) {
    if (d.name != "fitted_force" && d.name != "residual" && d.name != "velocity") continue;
    EXPECT_EQ(d.units, d.name == "velocity" ? "rad/s" : "N*m") << d.name;
    ++checked;
  }
  EXPECT_GE(checked, 2);
  const nlohmann::json stored = nlohmann::json::parse(r.attributes.at("fit"));
  EXPECT_EQ(stored["parameters"]["F_C"]["unit"], "N*m");

  // The report's figures and tables label torque and angular velocity.
  const std::string page = temp_dir() + "rot_cv.html";
  std::string out;
  ASSERT_EQ(run_cli("report " + res + " --log " + log + " -o " + page, &out), 0) << out;
  const std::string html = slurp(page);
  for (const char* want : {"RMSE [N*m]", "noise estimate [N*m]", "residual [N*m]", "velocity [rad/s]"})
    EXPECT_NE(html.find(want), std::string::npos) << want;
  for (const char* wrong : {"RMSE [N]", "force [N]", "residual [N]", "velocity [m/s]"})
    EXPECT_EQ(html.find(wrong), std::string::npos) << wrong;
}

TEST(RotationalCli, StreamedFitInTorqueUnits) {
  const std::string log = rotational_log("rot_stream", "coulomb-viscous", {2.0, 0.5, 0.0}, 0);
  const std::string res = temp_dir() + "rot_stream_out.h5";
  std::remove(res.c_str());
  const Fit f = identify(log, "-m coulomb-viscous --offset --stream always -o " + res, "rot_stream");
  ASSERT_EQ(f.rc, 0) << f.out;
  EXPECT_EQ(f.json["parameters"]["f_v"]["unit"], "N*m/(rad/s)");
  EXPECT_EQ(f.json["parameters"]["offset"]["unit"], "N*m");
  EXPECT_EQ(f.json["force_unit"], "N*m");
  const data::Results r = data::read_results(res, "identify_coulomb-viscous/joint");
  int checked = 0;
  for (const auto& d : r.datasets) {
    if (d.name != "fitted_force" && d.name != "residual") continue;
    EXPECT_EQ(d.units, "N*m") << d.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  std::string out;
  EXPECT_EQ(run_cli("identify " + log + " -m simscape-cylinder --stream always", &out), 2) << out;
  EXPECT_NE(out.find("is a rotational log (force in N*m"), std::string::npos) << out;
  EXPECT_NE(out.find("model simscape-cylinder "), std::string::npos) << out;
}

TEST(RotationalCli, BatchColumnsInTorqueUnits) {
  const std::string log = rotational_log("rot_batch", "coulomb-viscous", {2.0, 0.5, 0.0}, 0);
  const std::string res = temp_dir() + "rot_batch_out.h5";
  std::remove(res.c_str());
  std::string out;
  ASSERT_EQ(run_cli("identify " + log + " -m coulomb-viscous --offset --batch -o " + res, &out), 0) << out;
  const data::Results r = data::read_results(res, "batch_fit");
  std::map<std::string, std::string> units;
  for (const auto& d : r.datasets) units[d.name] = d.units;
  EXPECT_EQ(units["param_F_C"], "N*m");
  EXPECT_EQ(units["param_f_v"], "N*m/(rad/s)");
  EXPECT_EQ(units["param_offset"], "N*m");
  EXPECT_EQ(units["rmse"], "N*m");
  EXPECT_EQ(units["cost"], "(N*m)^2");

  // A translational log in the same batch is bad data, not fitted into
  // columns of the other units.
  workloads::GeneratorOptions o;
  o.model = "coulomb-viscous";
  o.params = {2.0, 0.5, 0.0};
  const std::string trans = temp_dir() + "trans_batch.h5";
  std::remove(trans.c_str());
  write_log(trans, workloads::generate_log(o), data::Provenance{});
  std::string mixed;
  run_cli("identify " + log + " " + trans + " -m coulomb-viscous --batch", &mixed);
  EXPECT_NE(mixed.find("is translational and the batch's first rotational"), std::string::npos) << mixed;
}

TEST(RotationalCli, ExportParamsCarriesTorqueUnits) {
  // A Stribeck law fitted to a rotational log goes to the Rotational
  // Friction block, and its JSON parameter set keeps the fit's units.
  const std::string log = rotational_log("rot_exp", "simscape-translational", {2.5, 0.05, 2.0, 0.4}, 0);
  const Fit f = identify(log, "-m simscape-translational --offset", "rot_exp");
  ASSERT_EQ(f.rc, 0) << f.out;
  const std::string fit = temp_dir() + "rot_exp.json";
  std::string m;
  ASSERT_EQ(run_cli("export-params " + fit + " --to simscape", &m), 0) << m;
  EXPECT_NE(m.find("Rotational Friction"), std::string::npos) << m;
  EXPECT_NE(m.find("'brkwy_trq'"), std::string::npos) << m;
  EXPECT_NE(m.find("'N*m/(rad/s)'"), std::string::npos) << m;
  EXPECT_EQ(m.find("Translational Friction"), std::string::npos) << m;
  const std::string set = temp_dir() + "rot_exp_set.json";
  std::string j;
  ASSERT_EQ(run_cli("export-params " + fit + " --to json -o " + set, &j), 0) << j;
  const auto params = nlohmann::json::parse(slurp(set));
  EXPECT_EQ(params["units"]["F_C"], "N*m");
  EXPECT_EQ(params["units"]["v_brk"], "rad/s");
  EXPECT_EQ(params["units"]["f_v"], "N*m/(rad/s)");
  std::string t;
  EXPECT_EQ(run_cli("export-params " + fit + " --to 20sim", &t), 2) << t;
  EXPECT_NE(t.find("translational"), std::string::npos) << t;
}

TEST(RotationalCli, WarningsSpeakTorque) {
  // Without --offset the residual is the sensor's offset: the advice gives it
  // in N*m, not in N.
  const std::string log = rotational_log("rot_cv_off", "coulomb-viscous", {2.0, 0.5, 0.0}, 0);
  const Fit f = identify(log, "-m coulomb-viscous", "rot_cv_off");
  ASSERT_EQ(f.rc, 0) << f.out;
  bool offset_advice = false;
  for (const auto& w : f.json["warnings"]) {
    const std::string s = w.get<std::string>();
    EXPECT_EQ(s.find(" N)"), std::string::npos) << s;
    EXPECT_EQ(s.find(" N;"), std::string::npos) << s;
    EXPECT_EQ(s.find(" N,"), std::string::npos) << s;
    EXPECT_EQ(s.find(" m/s"), std::string::npos) << s;
    if (s.find("offset of ") != std::string::npos) {
      offset_advice = true;
      EXPECT_NE(s.find(" N*m"), std::string::npos) << s;
    }
  }
  EXPECT_TRUE(offset_advice) << f.out;
}

TEST(RotationalCli, DynamicLawStiffnessPerRadian) {
  // Dahl: sigma0 1e3 N*m/rad, F_C 1 N*m, alpha 1; a short log keeps it quick.
  const std::string log = rotational_log("rot_dahl", "dahl", {1e3, 1.0, 1.0}, 4);
  const Fit f = identify(log, "-m dahl --offset", "rot_dahl");
  ASSERT_EQ(f.rc, 0) << f.out;
  const auto& p = f.json["parameters"];
  EXPECT_EQ(p["sigma0"]["unit"], "N*m/rad");
  EXPECT_EQ(p["F_C"]["unit"], "N*m");
  EXPECT_EQ(p["alpha"]["unit"], "1");
  EXPECT_TRUE(ends_with(param_line(f.out, "sigma0"), " N*m/rad")) << f.out;
  EXPECT_EQ(f.out.find(" N/m"), std::string::npos) << f.out;
  for (const auto& w : f.json["warnings"]) EXPECT_EQ(w.get<std::string>().find(" m since"), std::string::npos) << w;
}

TEST(RotationalCli, RotationalBlockKeepsItsUnitsAndTheOffsetIsTorque) {
  workloads::GeneratorOptions o;
  o.model = "simscape-rotational";
  o.params = {2.5, 0.05, 2.0, 0.4};
  o.rate_hz = 1000;
  o.v_max = 1.0;
  o.offset["force"] = 0.2;
  o.noise["force"] = 0.01;
  auto exps = workloads::generate_log(o);
  for (auto& e : exps) e.name = "joint";
  const std::string log = temp_dir() + "rot_ss.h5";
  std::remove(log.c_str());
  write_log(log, exps, data::Provenance{});
  const Fit f = identify(log, "-m simscape-rotational --offset", "rot_ss");
  ASSERT_EQ(f.rc, 0) << f.out;
  const auto& p = f.json["parameters"];
  EXPECT_EQ(p["T_C"]["unit"], "N*m");
  EXPECT_EQ(p["w_brk"]["unit"], "rad/s");
  EXPECT_EQ(p["f_v"]["unit"], "N*m/(rad/s)");
  EXPECT_EQ(p["offset"]["unit"], "N*m");
  EXPECT_EQ(f.json["force_unit"], "N*m");
  for (const auto& w : f.json["warnings"])
    EXPECT_EQ(w.get<std::string>().find("simscape-translational"), std::string::npos) << w;

  // The Translational block on the same log: fitted in torque units, with a
  // note naming the Rotational block.
  const Fit t = identify(log, "-m simscape-translational --offset", "rot_st");
  ASSERT_EQ(t.rc, 0) << t.out;
  EXPECT_EQ(t.json["parameters"]["F_C"]["unit"], "N*m");
  EXPECT_EQ(t.json["parameters"]["v_brk"]["unit"], "rad/s");
  bool note = false;
  for (const auto& w : t.json["warnings"])
    note |= w.get<std::string>().find("simscape-rotational") != std::string::npos;
  EXPECT_TRUE(note) << t.out;
}

TEST(RotationalCli, TranslationalOnlyLawsAreRefusedInOneLine) {
  const std::string log = rotational_log("rot_refuse", "coulomb-viscous", {2.0, 0.5, 0.0}, 0);
  for (const std::string model : {"simscape-cylinder", "simscape-cylinder-il", "20sim-lugre"}) {
    std::string out;
    EXPECT_EQ(run_cli("identify " + log + " -m " + model, &out), 2) << model << "\n" << out;
    EXPECT_EQ(out.rfind("stribeck: error: ", 0), 0u) << out;
    EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line\n" << out;
    EXPECT_NE(out.find("model " + model + " "), std::string::npos) << out;
    EXPECT_NE(out.find("N*m"), std::string::npos) << out;
    EXPECT_NE(out.find("rad/s"), std::string::npos) << out;
    EXPECT_NE(out.find("simscape-rotational"), std::string::npos) << "names the laws that apply\n" << out;
  }
}

}  // namespace
}  // namespace stribeck
