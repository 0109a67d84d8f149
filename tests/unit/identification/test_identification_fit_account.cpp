// One account of a fit (issue 31, the LuGre/Dahl row): the starts that
// reached the best cost and the noise estimate the same in the text header,
// the dynamic fit's note and the JSON; a singular joint problem marks the
// parameters it cannot determine; intervals of a parameter at or near a
// bound stay inside its range; --init and --fix take any value of the
// model's range (sigma1 = 0); a force-balance term left out of a dynamic or
// a streamed fit is named, as static fits in memory name it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "covariance.hpp"
#include "plateau_profile.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/stream_fit.hpp"
#include "stribeck/kernels/models/dahl.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using ident::FitOptions;
using ident::FitSummary;

constexpr double kRate = 1000.0;  // samples per second
constexpr double kNoise = 0.01;   // N

// LuGre at the paper's values (F_C 1 N, F_s 1.5 N), sigma1 as given.
std::vector<double> lugre_truth(double sigma1) {
  std::vector<double> p = find_model("lugre")->defaults();
  p[LuGre::sigma1] = sigma1;
  return p;
}

data::Experiment lugre_log(double sigma1, unsigned seed, double offset = 0.0) {
  data::Experiment e = test::plateau_log<LuGre>(lugre_truth(sigma1), seed, kNoise, kRate, "lugre");
  for (double& f : e.channels["force"]) f += offset;
  return e;
}

std::vector<double> params_of(const std::string& model, const std::map<std::string, double>& over) {
  const ModelInfo& m = *find_model(model);
  std::vector<double> p = m.defaults();
  for (const auto& [n, x] : over) p[m.param_index(n)] = x;
  return p;
}

std::string all_warnings(const FitSummary& s) {
  std::string all;
  for (const auto& w : s.warnings) all += w + "\n";
  return all;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(FitAccount, StartsAndNoiseAreOneStoryInTextNoteAndJson) {
  struct Case {
    const char* model;
    data::Experiment log;
  };
  std::vector<Case> cases = {{"lugre", lugre_log(316.2277660168379, 21)},
                             {"dahl", test::plateau_log<Dahl>({1e5, 1.0, 1.0}, 22, kNoise, kRate, "dahl")}};
  for (const auto& c : cases) {
    const FitSummary s = ident::fit({c.log}, c.model, FitOptions{});
    SCOPED_TRACE(std::string(c.model) + "\n" + s.report());
    // The best start reached its own cost: at least one (was 0).
    EXPECT_GE(s.starts_at_best, 1);
    EXPECT_LE(s.starts_at_best, s.starts);
    const std::string text = s.report();
    EXPECT_NE(text.find(std::to_string(s.starts) + " start(s), " + std::to_string(s.starts_at_best) +
                        " reached the best cost"),
              std::string::npos);
    EXPECT_NE(s.warnings.front().find(std::to_string(s.starts_at_best) + " reaching the best cost"), std::string::npos)
        << s.warnings.front();
    // The noise estimated from the data (was NaN, "-" and null).
    EXPECT_NEAR(s.noise_estimate, kNoise, 0.3 * kNoise);
    EXPECT_EQ(text.find("from the data - N"), std::string::npos);
    const auto j = nlohmann::json::parse(ident::to_json(s));
    EXPECT_EQ(j["starts_at_best"].get<int>(), s.starts_at_best);
    ASSERT_TRUE(j["noise_estimate"].is_number());
    EXPECT_DOUBLE_EQ(j["noise_estimate"].get<double>(), s.noise_estimate);
    // A dynamic fit's determined parameters carry their interval's kind.
    for (const auto& p : s.parameters)
      if (!p.fixed && p.determined) EXPECT_NE(p.interval, "none") << p.name;
  }
}

TEST(FitAccount, ASingularDynamicFitMarksTheParametersItCannotDetermine) {
  // F_s = F_C held: the Stribeck term is zero, so v_s has no effect on the
  // simulated force and the joint problem is singular in v_s alone.
  FitOptions o;
  o.fix = {"F_C=1", "F_s=1"};
  const FitSummary s = ident::fit({lugre_log(316.2277660168379, 23)}, "lugre", o);
  SCOPED_TRACE(s.report());
  EXPECT_EQ(s.status, ident::FitStatus::kSingular);
  EXPECT_FALSE(s.param("v_s").determined);
  EXPECT_TRUE(std::isnan(s.param("v_s").std_error));
  EXPECT_NE(s.report().find("not determined"), std::string::npos);
  for (const char* name : {"sigma0", "sigma1", "sigma2"}) {
    EXPECT_TRUE(s.param(name).determined) << name;
    EXPECT_TRUE(std::isfinite(s.param(name).std_error)) << name;
  }
  const auto j = nlohmann::json::parse(ident::to_json(s));
  EXPECT_FALSE(j["parameters"]["v_s"]["determined"].get<bool>());
  EXPECT_TRUE(j["parameters"]["sigma0"]["determined"].get<bool>());
}

TEST(FitIntervals, AWaldIntervalAtOrNearABoundStaysInsideTheRange) {
  ident::detail::Layout L;
  ident::detail::FitParam p;
  p.lo = 0.0;
  p.hi = 10.0;
  auto interval_of = [&](double value, double se) {
    ident::ParameterEstimate pe;
    pe.value = value;
    pe.std_error = se;
    pe.ci95_lo = value - 1.959963984540054 * se;
    pe.ci95_hi = value + 1.959963984540054 * se;
    pe.interval = "wald";
    ident::detail::interval_in_range(pe, p, L);
    return pe;
  };
  // On the lower bound: one-sided, 1.645 standard errors into the range.
  ident::ParameterEstimate at = interval_of(0.0, 0.5);
  EXPECT_EQ(at.interval, "one-sided");
  EXPECT_DOUBLE_EQ(at.ci95_lo, 0.0);
  EXPECT_NEAR(at.ci95_hi, 1.6448536269514722 * 0.5, 1e-12);
  // On the upper bound.
  ident::ParameterEstimate top = interval_of(10.0, 0.5);
  EXPECT_EQ(top.interval, "one-sided");
  EXPECT_NEAR(top.ci95_lo, 10.0 - 1.6448536269514722 * 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(top.ci95_hi, 10.0);
  // Near the bound: the end that would cross it is the bound.
  ident::ParameterEstimate near = interval_of(0.3, 0.5);
  EXPECT_EQ(near.interval, "one-sided");
  EXPECT_DOUBLE_EQ(near.ci95_lo, 0.0);
  EXPECT_NEAR(near.ci95_hi, 0.3 + 1.959963984540054 * 0.5, 1e-12);
  // Inside: untouched.
  ident::ParameterEstimate inside = interval_of(5.0, 0.5);
  EXPECT_EQ(inside.interval, "wald");
  EXPECT_NEAR(inside.ci95_lo, 5.0 - 1.959963984540054 * 0.5, 1e-12);
  // An excess (F_s >= F_C) is bounded below by its base's value.
  ident::detail::FitParam base;
  base.value = 2.0;
  L.params = {base};
  p.transform = ident::detail::Transform::kExcess;
  p.excess_base = 0;
  p.lo = -kInf;
  p.hi = kInf;
  ident::ParameterEstimate excess = interval_of(2.0, 0.1);
  EXPECT_EQ(excess.interval, "one-sided");
  EXPECT_DOUBLE_EQ(excess.ci95_lo, 2.0);
}

TEST(FitIntervals, SigmaOneOnItsBoundGetsAnIntervalInsideItsRange) {
  // A LuGre log without bristle damping: sigma1 ends on (or next to) its
  // bound 0, and its interval was the Wald [-0.83, 0.83].
  const FitSummary s = ident::fit({lugre_log(0.0, 24)}, "lugre", FitOptions{});
  SCOPED_TRACE(s.report());
  const auto& sigma1 = s.param("sigma1");
  ASSERT_TRUE(sigma1.determined);
  EXPECT_EQ(sigma1.interval, "one-sided");
  EXPECT_GE(sigma1.ci95_lo, 0.0);
  EXPECT_GT(sigma1.ci95_hi, sigma1.ci95_lo);
  EXPECT_LE(sigma1.ci95_lo, sigma1.value);
  EXPECT_GE(sigma1.ci95_hi, sigma1.value);
  // Every interval of every fitted parameter lies inside its range.
  const ModelInfo& m = *find_model("lugre");
  for (const auto& info : m.params) {
    const auto& pe = s.param(info.name);
    if (pe.fixed || !pe.determined) continue;
    EXPECT_GE(pe.ci95_lo, info.lo) << info.name;
    EXPECT_LE(pe.ci95_hi, info.hi) << info.name;
  }
  // A static noiseless fit with f_v on its bound 0 (no profile runs there).
  workloads::GeneratorOptions g;
  g.model = "coulomb-viscous";
  g.params = params_of(g.model, {{"F_C", 20}, {"f_v", 0}});
  g.profile = "multisine";
  g.duration = 5;
  const FitSummary c = ident::fit(workloads::generate_log(g), "coulomb-viscous", FitOptions{});
  SCOPED_TRACE(c.report());
  const auto& fv = c.param("f_v");
  if (fv.determined && std::isfinite(fv.ci95_lo)) EXPECT_GE(fv.ci95_lo, 0.0);
}

TEST(FitInit, InitAndFixTakeAnyValueOfTheRange) {
  const data::Experiment log = lugre_log(316.2277660168379, 25);
  {  // on the bound of [0, inf): was "sigma1 must be a positive number"
    FitOptions o;
    o.initial = {"sigma1=0"};
    const FitSummary s = ident::fit({log}, "lugre", o);
    EXPECT_TRUE(s.converged) << s.report();
    EXPECT_NEAR(s.param("sigma1").value, 316.2, 0.1 * 316.2) << s.report();
  }
  {
    FitOptions o;
    o.fix = {"sigma1=0"};
    const FitSummary s = ident::fit({log}, "lugre", o);
    EXPECT_TRUE(s.param("sigma1").fixed);
    EXPECT_EQ(s.param("sigma1").value, 0.0);
    EXPECT_TRUE(std::isfinite(s.rmse)) << s.report();
  }
  // Outside the range: refused, naming the parameter and its range.
  for (const char* bad : {"sigma1=-1", "sigma0=0"}) {
    FitOptions o;
    o.initial = {bad};
    try {
      ident::fit({log}, "lugre", o);
      ADD_FAILURE() << "expected InputError for " << bad;
    } catch (const data::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string(bad).substr(0, 6)), std::string::npos) << what;
      EXPECT_NE(what.find("must be"), std::string::npos) << what;
    }
  }
}

TEST(MissingTerms, ADynamicFitNamesTheOffsetItWasNotGiven) {
  // 0.5 N added to every force (F_C = 1 N): the joint stage cannot take it up.
  const data::Experiment log = lugre_log(316.2277660168379, 26, 0.5);
  const FitSummary without = ident::fit({log}, "lugre", FitOptions{});
  const std::string w = all_warnings(without);
  EXPECT_EQ(count_of(w, "add --offset"), 1u) << without.report();
  EXPECT_EQ(count_of(w, "add --"), 1u) << without.report();
  const size_t at = w.find("an offset of ");
  ASSERT_NE(at, std::string::npos) << w;
  EXPECT_NEAR(std::stod(w.substr(at + 13)), 0.5, 0.05) << w;
  // Given --offset, nothing is advised (never what already ran).
  FitOptions o;
  o.offset = true;
  const FitSummary with = ident::fit({log}, "lugre", o);
  EXPECT_EQ(count_of(all_warnings(with), "add --"), 0u) << with.report();
  EXPECT_EQ(count_of(all_warnings(with), "the residual "), 0u) << with.report();
}

TEST(MissingTerms, AStreamedFitNamesTheInertiaAndTheOffsetItWasNotGiven) {
  struct Case {
    const char* term;
    double mass, offset;
  };
  for (const Case& c : {Case{"--inertia", 20, 0}, Case{"--offset", 0, 15}}) {
    SCOPED_TRACE(c.term);
    workloads::GeneratorOptions g;
    g.model = "coulomb-viscous";
    g.params = params_of(g.model, {{"F_C", 20}, {"f_v", 100}});
    g.profile = "multisine";
    g.mass = c.mass;
    if (c.offset != 0) g.offset["force"] = c.offset;
    g.noise["force"] = 0.5;
    g.duration = 10;
    g.seed = 11;
    const auto log = workloads::generate_log(g);
    const std::string path = test::temp_dir() + "missing_" + std::string(c.term + 2) + ".h5";
    write_log(path, log, data::Provenance{});
    std::vector<ident::LogStream> streams;
    for (const auto& e : log) streams.push_back({path, e.name, e.name});
    const FitSummary s = ident::fit_streamed(streams, "coulomb-viscous", FitOptions{}, ident::StreamOptions{});
    const std::string w = all_warnings(s);
    EXPECT_EQ(count_of(w, std::string("add ") + c.term), 1u) << s.report();
    EXPECT_EQ(count_of(w, "add --"), 1u) << s.report();
    // The streamed advice is the in-memory fit's.
    const FitSummary m = ident::fit(log, "coulomb-viscous", FitOptions{});
    EXPECT_EQ(count_of(all_warnings(m), std::string("add ") + c.term), 1u) << m.report();
    // Given the term, nothing is advised.
    FitOptions o;
    o.inertia = c.mass != 0;
    o.offset = c.offset != 0;
    const FitSummary given = ident::fit_streamed(streams, "coulomb-viscous", o, ident::StreamOptions{});
    EXPECT_EQ(count_of(all_warnings(given), "add --"), 0u) << given.report();
  }
}

}  // namespace
}  // namespace stribeck
