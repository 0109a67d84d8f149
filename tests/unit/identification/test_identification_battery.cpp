// The identification battery's CTest subset (issue 23, item 2): seeded cases
// over every static model and generator profile (identification_battery.hpp),
// fitted with ident::fit's default options. The large run with per-model counts
// is bench/identify_battery.cpp; docs/identification.md, "Battery", has the
// numbers. Any failure printed here is replayed with
//   build/bin/identify_battery --seed S [--noisy] --samples 1000:3000 --case I
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "identification_battery.hpp"
#include "stribeck/workloads/generator.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::battery {
namespace {

constexpr std::uint64_t kSeed = 23;
// Small logs keep the subset within the CTest budget; the bench runs larger ones.
const Scale kSmall{1000, 3000};

Identifiability kind_of(const Oracle& o, const std::string& name) {
  for (size_t j = 0; j < o.names.size(); ++j)
    if (o.names[j] == name) return o.kind[j];
  ADD_FAILURE() << "oracle has no parameter " << name;
  return Identifiability::kWeak;
}

bool has_tag(const Case& c, const std::string& tag) {
  return std::find(c.degenerate.begin(), c.degenerate.end(), tag) != c.degenerate.end();
}

void set_truth(Case& c, const std::string& name, double x) {
  const auto it = std::find(c.names.begin(), c.names.end(), name);
  ASSERT_NE(it, c.names.end()) << name;
  c.truth[it - c.names.begin()] = x;
}

// The first case of `model` (noiseless, seed kSeed) with every degeneracy
// removed, several pressure levels and no back pressure: a regular problem to
// make degenerate by hand.
Case regular_case(const std::string& model) {
  const auto ids = static_model_ids();
  const long m = std::find(ids.begin(), ids.end(), model) - ids.begin();
  Case c = make_case(kSeed, m + static_cast<long>(ids.size()) * 4, false, kSmall);  // plateaus
  c.degenerate.clear();
  const ModelInfo& info = *find_model(model);
  for (size_t i = 0; i < c.names.size(); ++i)
    if (!c.smoothing[i] && c.truth[i] == 0) c.truth[i] = info.params[i].default_value;
  if (model == "simscape-cylinder") set_truth(c, "K_brk", 1.7);
  if (model == "simscape-cylinder-il") set_truth(c, "R_brk", 1.7);
  for (const auto& r : info.relations)  // F_brk = F_C, T_brk = T_C, mu_s = mu_c drawn: open them up
    if (c.truth[r.a] == c.truth[r.b]) c.truth[r.a] = 1.5 * c.truth[r.b];
  if (!c.normal_force_levels && !c.levels.empty()) {
    c.levels = {10e5, 40e5, 90e5};
    c.pressure_b = 0;
  }
  return c;
}

TEST(Identification, BatteryCasesCoverEveryStaticModelAndProfileReproducibly) {
  const auto ids = static_model_ids();
  const auto& profiles = workloads::generator_profiles();
  ASSERT_EQ(ids.size(), 9u);  // a new static model needs ranges in identification_battery.cpp
  std::set<std::pair<std::string, std::string>> pairs;
  std::set<std::string> tags;
  std::set<size_t> level_counts;
  double rate_lo = 1e9, rate_hi = 0;
  const long n = static_cast<long>(ids.size() * profiles.size()) * 4;
  for (long i = 0; i < n; ++i) {
    const Case c = make_case(kSeed, i, i % 2 == 1, kSmall);
    pairs.emplace(c.model, c.profile);
    for (const auto& t : c.degenerate) tags.insert(t);
    if (!c.levels.empty()) level_counts.insert(c.levels.size());
    rate_lo = std::min(rate_lo, c.rate_hz);
    rate_hi = std::max(rate_hi, c.rate_hz);
    const ModelInfo& m = *find_model(c.model);
    EXPECT_TRUE(validate_params(m, c.truth.data()).empty()) << c.describe();
    EXPECT_EQ(c.noisy, c.noise_rel > 0) << c.describe();
    // The same (seed, kind, index) is the same case, whatever was made before.
    EXPECT_EQ(make_case(kSeed, i, c.noisy, kSmall).describe(), c.describe());
  }
  EXPECT_EQ(pairs.size(), ids.size() * profiles.size());
  for (const char* t : {"K_brk=1", "R_brk=1", "F_brk=F_C", "f_v=0", "f_vfr=0", "f_cfr=0", "c_v=0", "mu_v=0"})
    EXPECT_TRUE(tags.count(t)) << "no case with " << t;
  EXPECT_EQ(level_counts, (std::set<size_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_GE(rate_lo, 1000.0);
  EXPECT_LE(rate_hi, 20000.0);
  EXPECT_LT(rate_lo, 2000.0);
  EXPECT_GT(rate_hi, 10000.0);

  // Logs are bit-identical for a seed; another seed draws another case.
  const Case c = make_case(kSeed, 11, true, kSmall);
  const auto a = make_log(c), b = make_log(c);
  ASSERT_EQ(a.size(), b.size());
  for (size_t e = 0; e < a.size(); ++e) EXPECT_EQ(a[e].channel("force"), b[e].channel("force"));
  EXPECT_NE(make_case(kSeed + 1, 11, true, kSmall).describe(), c.describe());
  double sd = 0;
  make_log(c, &sd);
  EXPECT_GT(sd, 0.0);
}

// The oracle (rank of the long-double Jacobian at the truth) against the
// written rules of docs/models.md.
TEST(Identification, BatteryOracleAgreesWithTheDegeneracyRules) {
  auto oracle = [](const Case& c) { return analyse(c, make_log(c)); };
  for (const auto& id : static_model_ids()) {  // regular cases: everything determinable
    const Case c = regular_case(id);
    const Oracle o = oracle(c);
    for (size_t j = 0; j < o.names.size(); ++j)
      EXPECT_EQ(o.kind[j], Identifiability::kDetermined)
          << o.names[j] << " s " << o.sensitivity[j] << ": " << c.describe();
  }
  {
    Case c = regular_case("simscape-cylinder");
    set_truth(c, "K_brk", 1.0);  // no breakaway: c_v has no effect
    const Oracle o = oracle(c);
    EXPECT_EQ(kind_of(o, "c_v"), Identifiability::kUndetermined);
    for (const char* n : {"F_pr", "f_cfr", "K_brk", "f_vfr"})
      EXPECT_EQ(kind_of(o, n), Identifiability::kDetermined) << n;
  }
  {
    Case c = regular_case("simscape-cylinder");
    set_truth(c, "c_v", 0.0);    // constant level K_brk F_C: K_brk trades against F_pr and f_cfr,
    const Oracle o = oracle(c);  // down to K_brk = 1, where c_v has no effect
    for (const char* n : {"F_pr", "f_cfr", "K_brk", "c_v"})
      EXPECT_EQ(kind_of(o, n), Identifiability::kUndetermined) << n;
    EXPECT_EQ(kind_of(o, "f_vfr"), Identifiability::kDetermined);
  }
  for (const char* id : {"simscape-cylinder", "simscape-cylinder-il"}) {
    Case c = regular_case(id);
    c.levels = {40e5};  // one pressure level: F_pr and f_cfr only as F_pr + f_cfr p
    Oracle o = oracle(c);
    for (const char* n : {"F_pr", "f_cfr"}) EXPECT_EQ(kind_of(o, n), Identifiability::kUndetermined) << id << " " << n;
    c.levels = {0.0};  // at zero pressure f_cfr has no effect at all; F_pr is the Coulomb level
    o = oracle(c);
    EXPECT_EQ(kind_of(o, "f_cfr"), Identifiability::kUndetermined) << id;
    EXPECT_EQ(kind_of(o, "F_pr"), Identifiability::kDetermined) << id;
  }
  // R_brk = 1 and F_brk = F_C remove the Stribeck term, but not v_brk: the
  // Coulomb term F_C tanh(10 v / v_brk) still carries it (docs/models.md).
  {
    Case c = regular_case("simscape-cylinder-il");
    set_truth(c, "R_brk", 1.0);
    EXPECT_NE(kind_of(oracle(c), "v_brk"), Identifiability::kUndetermined);
  }
  {
    Case c = regular_case("simscape-translational");
    set_truth(c, "F_brk", c.truth[2]);
    const Oracle o = oracle(c);
    EXPECT_NE(kind_of(o, "v_brk"), Identifiability::kUndetermined);
    for (const char* n : {"F_brk", "F_C", "f_v"}) EXPECT_EQ(kind_of(o, n), Identifiability::kDetermined) << n;
  }
  // Over the generated subset: each rule's parameter is undetermined whenever
  // its degeneracy was drawn. (Not the converse: a log without samples near
  // a breakaway speed leaves its parameters undetermined with no rule, and
  // c_v = 0 with one Coulomb level confounds c_v with the viscous term.)
  long applied = 0;
  for (long i = 0; i < 270; ++i) {
    const Case c = make_case(kSeed, i, false, kSmall);
    const Oracle o = oracle(c);
    const bool one_level = !c.normal_force_levels && c.levels.size() == 1;
    for (size_t j = 0; j < o.names.size(); ++j) {
      const std::string& n = o.names[j];
      bool rule = false;
      if (n == "c_v") rule = has_tag(c, "K_brk=1") || has_tag(c, "c_v=0");
      if (n == "f_cfr") rule = one_level || (has_tag(c, "c_v=0") && !has_tag(c, "f_cfr=0"));
      if (n == "F_pr") rule = (one_level && c.levels[0] + c.pressure_b != 0) || has_tag(c, "c_v=0");
      if (n == "K_brk") rule = has_tag(c, "c_v=0");
      if (!rule) continue;
      ++applied;
      EXPECT_EQ(o.kind[j], Identifiability::kUndetermined) << n << " s " << o.sensitivity[j] << ": " << c.describe();
    }
  }
  EXPECT_GE(applied, 20);
}

// Noiseless logs: cases that recover every determinable parameter to 1e-6
// (relative) and report exactly the undetermined ones as determined == false.
// Issue 23's goal, asserted: at least 99.5 % (docs/identification.md, "Battery").
constexpr double kNoiselessGoal = 0.995;
TEST(Identification, BatteryNoiselessRecoversEveryDeterminableParameter) {
  const long n = 270;  // 30 per model, every profile
  long pass = 0, scored = 0;
  std::string failures;
  for (long i = 0; i < n; ++i) {
    const CaseRun r = run_case(kSeed, i, false, kSmall);
    pass += r.noiseless.pass;
    scored += r.noiseless.determinable + r.noiseless.undetermined;
    if (!r.noiseless.pass) {
      std::string cls;
      for (const auto& c : r.noiseless.classes) cls += " " + c;
      failures += "\n  " + r.c.replay() + " [" + cls + " ] " + r.c.describe() + " -- " + r.noiseless.detail + r.error;
    }
  }
  std::printf("battery noiseless: %ld of %ld cases pass\n", pass, n);
  EXPECT_GT(scored, 2 * n);  // the oracle scores most parameters (few are weak)
  EXPECT_GE(pass, static_cast<long>(std::ceil(kNoiselessGoal * n)))
      << pass << " of " << n << " noiseless cases pass (goal " << kNoiselessGoal * 100 << " %); failing:" << failures;
}

// Cases that once failed, each for its own reason, replayed alone:
//  65  K_brk = 1 (c_v arbitrary): moving K_brk off its bound stays exact only
//      by hiding the Stribeck term below the slowest sample (c_v -> inf),
//      which is not a direction the data leave open: K_brk is determined.
//  20  c_v = 0: the same law as K_brk = 1 with K_brk times the Coulomb terms;
//      scored in that canonical form (canonical_truth).
//  30  R_brk = 1, f_cfr = 0, f_v = 0: parameters at 0 that change by 1e-20
//      along a probe did not move (moves count against the default's size).
//  55  T_brk = T_C with w_brk below every sample: there hiding the breakaway is
//      what the data allow, and T_brk is not determined.
//  169 20sim-scvs in a wrong basin that 32 starts missed: a profile found a
//      lower cost and the fit continued from it to the truth.
//  155 K_brk = 1 in a log without a slow range (steps): a breakaway hidden
//      below the slowest sample fits alike, so K_brk is not determined; the
//      oracle, by its local columns, used to call it determinable.
//  244 T_brk > T_C hidden below a log moving one way at 0.29-0.39 m/s: the
//      probe off T_brk = T_C only approached the hidden law and stopped on
//      its tolerances, calling T_brk determined; it now tries the hidden law.
TEST(Identification, BatteryCasesThatOnceFailedPass) {
  for (long i : {65L, 20L, 30L, 55L, 169L, 155L, 244L}) {
    const CaseRun r = run_case(kSeed, i, false, kSmall);
    EXPECT_TRUE(r.noiseless.pass) << r.c.replay() << " " << r.c.describe() << " -- " << r.noiseless.detail << r.error
                                  << "\n"
                                  << r.report;
    if (i == 169) EXPECT_NE(r.report.find("continued 1 time(s) from a lower cost"), std::string::npos) << r.report;
  }
}

// Noisy cases that once failed, one per class: a breakaway no sample sees,
// which the fit first placed where it made F_pr and f_cfr look undetermined
// (120: now the law without one, every determinable parameter covered), a
// viscous slope whose interval was given with the undetermined parameters
// held, 7 times too tight (111), and K_brk = 1 in a log with a slow range,
// which the law without a breakaway reported as not determined by hiding the
// Stribeck velocity below the slowest sample (272: now at it, K_brk's
// interval [1, ...] covers).
TEST(Identification, BatteryNoisyCasesThatOnceFailedAreCovered) {
  for (long i : {120L, 111L, 272L}) {
    const CaseRun r = run_case(kSeed, i, true, kSmall);
    for (const auto& p : r.noisy.params)
      if (p.included && (i != 111 || p.name == "f_v"))
        EXPECT_TRUE(p.covered) << p.name << ": " << r.c.replay() << " " << r.c.describe() << " -- " << r.noisy.detail
                               << r.error << "\n"
                               << r.report;
  }
}

// Noisy logs: the truth lies inside the reported 95 % interval over >= 1000
// parameter-cases. Issue 23's goal, asserted: the nominal rate, within the
// binomial band at z = 3.29 around 95 % (below it: intervals too narrow;
// above: too wide) (docs/identification.md, "Battery").
TEST(Identification, BatteryNoisyIntervalsCoverAtTheNominalRate) {
  const long n = 405;  // 45 per model
  long included = 0, covered = 0;
  std::string misses;
  for (long i = 0; i < n; ++i) {
    const CaseRun r = run_case(kSeed, i, true, kSmall);
    for (const auto& p : r.noisy.params) {
      if (!p.included) continue;
      ++included;
      covered += p.covered;
    }
    if (!r.noisy.detail.empty() && misses.size() < 20000)
      misses += "\n  " + r.c.replay() + " " + r.c.describe() + " -- " + r.noisy.detail + r.error;
  }
  std::printf("battery noisy: %ld of %ld intervals cover the truth\n", covered, included);
  ASSERT_GE(included, 1000);
  long lo = 0, hi = 0;
  binomial_band(included, 0.95, 3.29, &lo, &hi);
  EXPECT_GE(covered, lo) << covered << " of " << included << " intervals cover the truth (goal at least " << lo
                         << "); misses:" << misses;
  EXPECT_LE(covered, hi) << covered << " of " << included << " intervals cover the truth (too wide)";
}

}  // namespace
}  // namespace stribeck::battery
