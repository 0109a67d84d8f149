// The identification battery: case generator, independent identifiability
// oracle, and verdicts (see identification_battery.hpp).
#include "identification_battery.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "stribeck/workloads/generator.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck::battery {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Counter-based draws: the k-th number of case (seed, kind, index) is a hash
// of the four, so a case never depends on any other case, on the order cases
// are made in, or on std:: distributions.
class Draws {
 public:
  Draws(std::uint64_t seed, bool noisy, long index)
      : key_(mix(mix(mix(seed) ^ (noisy ? 0xA5A5A5A5ull : 0x5A5A5A5Aull)) ^ static_cast<std::uint64_t>(index))) {}
  std::uint64_t bits() { return mix(key_ ^ mix(++k_)); }
  double u() { return (static_cast<double>(bits() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }  // (0, 1)
  double log_uniform(double lo, double hi) { return lo * std::pow(hi / lo, u()); }
  bool chance(double p) { return u() < p; }
  int pick(int n) { return std::min(n - 1, static_cast<int>(u() * n)); }
  std::uint64_t key() const { return key_; }

 private:
  std::uint64_t key_;
  std::uint64_t k_ = 0;
};

bool is_smoothing(const std::string& n) { return n == "v_th" || n == "v_eps" || n == "slope"; }

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

// `n` levels in [lo, hi], one log-uniform draw per stratum: distinct, spread.
std::vector<double> stratified_levels(Draws& d, int n, double lo, double hi) {
  std::vector<double> v;
  for (int j = 0; j < n; ++j) v.push_back(lo * std::pow(hi / lo, (j + 0.1 + 0.8 * d.u()) / n));
  return v;
}

// Truth, levels and degeneracies of one model. Spans are log-uniform around
// the defaults, expressed against the profile's peak speed v_max and the
// Coulomb level where a parameter's effect depends on them (f_v v_max / F_C
// in [0.02, 5] around the defaults' 0.5; v_brk / v_max in [0.005, 1] around
// 1; c_v v_max in [0.3, 30] around 1; slope v_max in [30, 3000] around 100).
constexpr double kDegenerate = 0.15;  // chance of each degenerate value

void draw_model(Draws& d, Case& c, const ModelInfo& m) {
  std::vector<double>& p = c.truth;
  p = m.defaults();
  auto set = [&](const char* n, double x) {
    const int i = m.param_index(n);
    if (i < 0) throw std::logic_error(std::string("battery: ") + c.model + " has no parameter " + n);
    p[i] = x;
  };
  auto degenerate = [&](const char* tag) {
    if (!d.chance(kDegenerate)) return false;
    c.degenerate.push_back(tag);
    return true;
  };
  const double vm = c.v_max;
  const std::string& id = c.model;
  auto pressures = [&](double* f_c_typ) {
    const double f_pr = d.log_uniform(2, 200);
    const double f_cfr = degenerate("f_cfr=0") ? 0.0 : d.log_uniform(1e-7, 1e-5);
    const int n = 1 + d.pick(6);
    if (n == 1 && d.chance(0.3)) c.levels = {0.0};
    else c.levels = stratified_levels(d, n, 1e5, 160e5);
    c.pressure_b = d.chance(0.3) ? d.log_uniform(1e5, 10e5) : 0.0;
    double mean = 0;
    for (double l : c.levels) mean += l / c.levels.size();
    set("F_pr", f_pr);
    set("f_cfr", f_cfr);
    *f_c_typ = f_pr + f_cfr * (mean + c.pressure_b);
  };
  if (id == "simscape-translational" || id == "simscape-rotational") {
    const bool rot = id == "simscape-rotational";
    const double f_c = d.log_uniform(2, 200);
    const double f_brk = degenerate(rot ? "T_brk=T_C" : "F_brk=F_C") ? f_c : f_c * (1 + d.log_uniform(0.05, 2));
    set(rot ? "T_C" : "F_C", f_c);
    set(rot ? "T_brk" : "F_brk", f_brk);
    set(rot ? "w_brk" : "v_brk", vm * d.log_uniform(0.005, 1));
    set("f_v", degenerate("f_v=0") ? 0.0 : f_c / vm * d.log_uniform(0.02, 5));
  } else if (id == "simscape-cylinder") {
    double f_c = 0;
    pressures(&f_c);
    set("K_brk", degenerate("K_brk=1") ? 1.0 : 1 + d.log_uniform(0.05, 3));
    set("c_v", degenerate("c_v=0") ? 0.0 : d.log_uniform(0.3, 30) / vm);
    set("f_vfr", degenerate("f_vfr=0") ? 0.0 : f_c / vm * d.log_uniform(0.02, 5));
    set("v_th", vm * d.log_uniform(1e-4, 1e-2));
  } else if (id == "simscape-cylinder-il") {
    double f_c = 0;
    pressures(&f_c);
    set("R_brk", degenerate("R_brk=1") ? 1.0 : 1 + d.log_uniform(0.05, 3));
    set("v_brk", vm * d.log_uniform(0.005, 1));
    set("f_v", degenerate("f_v=0") ? 0.0 : f_c / vm * d.log_uniform(0.02, 5));
  } else if (id == "20sim-c" || id == "20sim-v" || id == "20sim-cv" || id == "20sim-scvs") {
    c.normal_force_levels = true;
    c.levels = stratified_levels(d, 1 + d.pick(6), 20, 2000);
    const double mu_c = d.log_uniform(0.02, 0.8);
    if (id == "20sim-v") {
      set("mu_v", d.log_uniform(1e-3, 0.1));  // the only parameter: never zero
    } else {
      set("mu_c", mu_c);
      set("slope", d.log_uniform(30, 3000) / vm);
    }
    if (id == "20sim-cv" || id == "20sim-scvs")
      set("mu_v", degenerate("mu_v=0") ? 0.0 : mu_c / vm * d.log_uniform(0.02, 5));
    if (id == "20sim-scvs") {
      set("mu_s", degenerate("mu_s=mu_c") ? mu_c : mu_c * (1 + d.log_uniform(0.05, 2)));
      set("v_st", vm * d.log_uniform(0.005, 1));
    }
  } else if (id == "coulomb-viscous") {
    const double f_c = d.log_uniform(2, 200);
    set("F_C", f_c);
    set("f_v", degenerate("f_v=0") ? 0.0 : f_c / vm * d.log_uniform(0.02, 5));
    set("v_eps", d.chance(0.5) ? 0.0 : vm * d.log_uniform(1e-4, 1e-2));
  } else {
    throw std::logic_error("battery: no parameter ranges for static model " + id +
                           " (add them to tests/unit/identification/identification_battery.cpp)");
  }
  const auto errors = validate_params(m, p.data());
  if (!errors.empty()) throw std::logic_error("battery: drew an invalid truth: " + errors.front());
}

const ModelInfo& info(const std::string& id) {
  const ModelInfo* m = find_model(id);
  if (!m) throw std::logic_error("battery: unknown model " + id);
  return *m;
}

bool truth_on_bound(const ModelInfo& m, const std::vector<double>& p, int i) {
  const ParamInfo& q = m.params[i];
  if (!q.lo_open && p[i] == q.lo) return true;
  for (const auto& r : m.relations)
    if ((r.a == i || r.b == i) && p[r.a] == p[r.b]) return true;
  return false;
}

// The same law written in its canonical form, which the battery scores
// against. A breakaway that never decays (a Stribeck rate of 0: c_v = 0) is a
// Coulomb level K_brk times higher: K_brk = 1 with the Coulomb terms (level,
// preload, pressure coefficient) scaled by K_brk gives the same force in
// every sample, so no fit can tell the two apart. The fit reports that
// identical law as "no breakaway" (the ratio at 1, the rate not determined),
// and the oracle is asked about the truth in that form (with the rate at its
// default: any value is the same law).
std::vector<double> canonical_truth(const ModelInfo& m, std::vector<double> p) {
  int ratio = -1, rate = -1;
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (m.params[i].role == ParamRole::kBreakawayRatio) ratio = static_cast<int>(i);
    if (m.params[i].role == ParamRole::kStribeckRate && p[i] == 0.0) rate = static_cast<int>(i);
  }
  const bool no_decay = rate >= 0;
  if (ratio < 0 || !no_decay || p[ratio] == 1.0) return p;
  for (size_t i = 0; i < m.params.size(); ++i) {
    const ParamRole r = m.params[i].role;
    if (r == ParamRole::kCoulomb || r == ParamRole::kPreload || r == ParamRole::kPressureCoefficient) p[i] *= p[ratio];
  }
  p[ratio] = 1.0;
  p[rate] = m.params[rate].default_value;  // any rate: with no breakaway it has no effect
  return p;
}

}  // namespace

// The nine reference-tool laws issue 23's goal was set on. Laws added since
// (stribeck-delta, stribeck-asymmetric) are not cycled in: a tenth model would
// renumber every case, and the replays above and in bench/RESULTS.md name cases
// by index. They fit their own generated logs in test_new_laws.cpp.
using BatteryModels = ModelList<SimscapeTranslational, SimscapeRotational, SimscapeCylinder, SimscapeCylinderIL,
                                TwentySimC, TwentySimV, TwentySimCV, TwentySimSCVS, CoulombViscous>;

std::vector<std::string> static_model_ids() {
  std::vector<std::string> ids;
  for_each_model(BatteryModels{}, [&](auto tag) { ids.push_back(decltype(tag)::type::kId); });
  return ids;
}

std::string Case::describe() const {
  std::string s = model + " " + profile + " " + num(rate_hz) + " Hz " + num(duration) + " s v_max " + num(v_max);
  if (!levels.empty()) {
    s += normal_force_levels ? " F_n [" : " p_a [";
    for (size_t j = 0; j < levels.size(); ++j)
      s += (j ? ", " : "") + (normal_force_levels ? num(levels[j]) + " N" : num(levels[j] / 1e5) + " bar");
    s += "]";
    if (!normal_force_levels) s += " p_b " + num(pressure_b / 1e5) + " bar";
  }
  s += noisy ? " noise " + num(noise_rel) + " x RMS" : " noiseless";
  s += " truth";
  for (size_t i = 0; i < names.size(); ++i) s += " " + names[i] + "=" + format_number(truth[i]);
  if (!degenerate.empty()) {
    s += " degenerate";
    for (const auto& t : degenerate) s += " " + t;
  }
  return s;
}

std::string Case::replay() const {
  return "--seed " + std::to_string(seed) + (noisy ? " --noisy" : "") + " --samples " + num(scale.min_samples) + ":" +
         num(scale.max_samples) + " --case " + std::to_string(index);
}

Case make_case(std::uint64_t seed, long index, bool noisy, const Scale& scale) {
  static const std::vector<std::string> models = static_model_ids();
  const auto& profiles = workloads::generator_profiles();
  Draws d(seed, noisy, index);
  Case c;
  c.seed = seed;
  c.index = index;
  c.noisy = noisy;
  c.scale = scale;
  const long nm = static_cast<long>(models.size()), np = static_cast<long>(profiles.size());
  c.model = models[static_cast<size_t>(index % nm)];
  c.profile = profiles[static_cast<size_t>((index / nm) % np)];
  const ModelInfo& m = info(c.model);
  for (const auto& q : m.params) {
    c.names.push_back(q.name);
    c.smoothing.push_back(is_smoothing(q.name));
  }
  c.v_max = d.log_uniform(0.02, 0.5);
  c.rate_hz = std::round(d.log_uniform(1000, 20000));
  draw_model(d, c, m);
  const double experiments = c.levels.empty() ? 1.0 : static_cast<double>(c.levels.size());
  const double samples = d.log_uniform(scale.min_samples, scale.max_samples);
  c.duration = std::max(20.0 / c.rate_hz, samples / experiments / c.rate_hz);
  c.noise_rel = noisy ? d.log_uniform(3e-4, 3e-2) : 0.0;
  return c;
}

std::vector<data::Experiment> make_log(const Case& c, double* noise_sd) {
  workloads::GeneratorOptions g;
  g.model = c.model;
  g.params = c.truth;
  g.profile = c.profile;
  g.rate_hz = c.rate_hz;
  g.duration = c.duration;
  g.v_max = c.v_max;
  g.seed = mix(mix(c.seed) ^ static_cast<std::uint64_t>(c.index) * 2 + (c.noisy ? 1 : 0));
  if (!c.normal_force_levels) {
    g.pressure_levels = c.levels;
    g.pressure_b = c.pressure_b;
  }
  auto generate = [&](double sd) {
    std::vector<data::Experiment> out;
    if (!c.normal_force_levels) {
      workloads::GeneratorOptions o = g;
      if (sd > 0) o.noise["force"] = sd;
      return workloads::generate_log(o);
    }
    for (size_t j = 0; j < c.levels.size(); ++j) {
      workloads::GeneratorOptions o = g;
      o.normal_force = c.levels[j];
      o.seed = mix(g.seed + j);
      if (sd > 0) o.noise["force"] = sd;
      auto e = workloads::generate_log(o);
      e.front().name = "fn" + std::to_string(j + 1);
      out.push_back(std::move(e.front()));
    }
    return out;
  };
  std::vector<data::Experiment> log = generate(0.0);
  double sd = 0;
  if (c.noise_rel > 0) {
    double ss = 0;
    long n = 0;
    for (const auto& e : log)
      for (double f : e.channel("friction_true")) ss += f * f, ++n;
    sd = c.noise_rel * std::sqrt(ss / std::max(1L, n));
    log = generate(sd);
  }
  if (noise_sd) *noise_sd = sd;
  return log;
}

ident::FitOptions fit_options(const Case& c) {
  ident::FitOptions o;
  for (size_t i = 0; i < c.names.size(); ++i)
    if (c.smoothing[i]) o.fix.push_back(c.names[i] + "=" + format_number(c.truth[i]));
  return o;
}

const char* identifiability_name(Identifiability k) {
  switch (k) {
    case Identifiability::kDetermined: return "determinable";
    case Identifiability::kUndetermined: return "undetermined";
    case Identifiability::kWeak: return "weak";
  }
  return "?";
}

namespace {

// The samples the fit sees: velocity, pressures and normal force channels.
std::vector<Sample<long double>> samples_of(const std::vector<data::Experiment>& log) {
  std::vector<Sample<long double>> samples;
  for (const auto& e : log) {
    const auto& v = e.channel("velocity");
    const std::vector<double>* pa = e.has("pressure_a") ? &e.channel("pressure_a") : nullptr;
    const std::vector<double>* pb = e.has("pressure_b") ? &e.channel("pressure_b") : nullptr;
    const std::vector<double>* fn = e.has("normal_force") ? &e.channel("normal_force") : nullptr;
    for (size_t s = 0; s < v.size(); ++s)
      samples.push_back(Sample<long double>{v[s], pa ? (*pa)[s] : 0.0, pb ? (*pb)[s] : 0.0, fn ? (*fn)[s] : 0.0});
  }
  return samples;
}

// The model force at parameter vector q on every sample, in long double.
Eigen::Matrix<long double, Eigen::Dynamic, 1> force_of(const Case& c, const std::vector<double>& q,
                                                       const std::vector<Sample<long double>>& samples) {
  Eigen::Matrix<long double, Eigen::Dynamic, 1> f(static_cast<long>(samples.size()));
  visit_model(StaticModels{}, c.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const std::vector<long double> p(q.begin(), q.end());
    for (size_t s = 0; s < samples.size(); ++s)
      f(static_cast<long>(s)) = static_force<M, long double>(p.data(), samples[s]);
  });
  return f;
}

// Slowest moving |v| and the median moving |v| (the element at n/2, as the
// fit's definition of a slow range: slowest above a tenth of the median).
struct SpeedRange {
  double vslow = 0, median = 0;
};
SpeedRange speed_range(const std::vector<Sample<long double>>& samples) {
  std::vector<double> speeds;
  for (const auto& sm : samples)
    if (sm.v != 0) speeds.push_back(std::abs(static_cast<double>(sm.v)));
  SpeedRange r;
  if (speeds.empty()) return r;
  r.vslow = *std::min_element(speeds.begin(), speeds.end());
  std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 2, speeds.end());
  r.median = speeds[speeds.size() / 2];
  return r;
}

// Whether the truth shows no breakaway on any sample: moving each free
// breakaway level a tenth (of its value, at least 0.1) with the Stribeck
// velocities three decades below the slowest sample (rates three decades
// above its inverse) leaves the force `F` within 1e-11 of its norm (the
// oracle's "undetermined" sensitivity). `moved` gets the parameters moved.
bool hides_breakaway(const Case& c, const std::vector<Sample<long double>>& samples,
                     const Eigen::Matrix<long double, Eigen::Dynamic, 1>& F, double vslow, std::vector<int>* moved) {
  const ModelInfo& m = info(c.model);
  std::vector<double> q = c.truth;
  std::vector<int> idx;
  bool level = false;
  for (size_t i = 0; i < q.size(); ++i) {
    if (c.smoothing[i]) continue;
    switch (m.params[i].role) {
      case ParamRole::kBreakawayRatio:
      case ParamRole::kBreakaway: q[i] += 0.1 * std::max(std::abs(q[i]), 1.0), level = true; break;
      case ParamRole::kStribeckVelocity: q[i] = 1e-3 * vslow; break;
      case ParamRole::kStribeckRate: q[i] = 1e3 / vslow; break;
      default: continue;
    }
    idx.push_back(static_cast<int>(i));
  }
  if (!level || !validate_params(m, q.data()).empty()) return false;
  if ((force_of(c, q, samples) - F).norm() > static_cast<long double>(kUndeterminedBelow) * F.norm()) return false;
  if (moved) *moved = idx;
  return true;
}

}  // namespace

Oracle analyse(const Case& c, const std::vector<data::Experiment>& log, double noise_sd) {
  using LD = long double;
  using Mat = Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<LD, Eigen::Dynamic, 1>;
  const ModelInfo& m = info(c.model);
  std::vector<int> free;
  for (size_t i = 0; i < c.names.size(); ++i)
    if (!c.smoothing[i]) free.push_back(static_cast<int>(i));
  const int k = static_cast<int>(free.size());

  const std::vector<Sample<LD>> samples = samples_of(log);
  const long n = static_cast<long>(samples.size());
  // Central differences of the force at parameter vector `q` (full, double).
  auto jacobian = [&](const std::vector<double>& q, Vec* force) {
    Mat J(n, k);
    visit_model(StaticModels{}, c.model.c_str(), [&](auto tag) {
      using M = typename decltype(tag)::type;
      std::vector<LD> p(q.begin(), q.end());
      if (force) {
        force->resize(n);
        for (long s = 0; s < n; ++s) (*force)(s) = static_force<M, LD>(p.data(), samples[s]);
      }
      for (int j = 0; j < k; ++j) {
        const int i = free[j];
        const double ref =
            q[i] != 0 ? std::abs(q[i]) : (m.params[i].default_value != 0 ? std::abs(m.params[i].default_value) : 1.0);
        const LD h = 1e-6L * ref;  // ~ cube root of the long-double epsilon: truncation and rounding ~1e-13
        std::vector<LD> up = p, dn = p;
        up[i] += h;
        dn[i] -= h;
        for (long s = 0; s < n; ++s)
          J(s, j) = (static_force<M, LD>(up.data(), samples[s]) - static_force<M, LD>(dn.data(), samples[s])) / (2 * h);
      }
    });
    return J;
  };
  Vec F;
  const Mat J = jacobian(c.truth, &F);

  Oracle o;
  const LD fnorm = F.norm();
  o.force_rms = static_cast<double>(fnorm / std::sqrt(static_cast<LD>(std::max(1L, n))));
  for (int j = 0; j < k; ++j) {
    const int i = free[j];
    o.names.push_back(c.names[i]);
    o.truth.push_back(c.truth[i]);
    const LD cn = J.col(j).norm();
    LD kappa = 0;
    if (cn > 0) {
      if (k == 1) {
        kappa = 1;
      } else {
        // The part of column j orthogonal to the span of the others.
        Mat others(n, k - 1);
        for (int a = 0, b = 0; a < k; ++a)
          if (a != j) {
            const LD an = J.col(a).norm();
            others.col(b++) = an > 0 ? Vec(J.col(a) / an) : Vec(J.col(a));
          }
        Eigen::ColPivHouseholderQR<Mat> qr(others);
        qr.setThreshold(1e-13L);
        const Vec y = qr.householderQ().adjoint() * (J.col(j) / cn);
        const long r = qr.rank();
        kappa = y.tail(n - r).norm();
      }
    }
    const double scale = c.truth[i] != 0 ? std::abs(c.truth[i])
                         : cn > 0        ? static_cast<double>(fnorm / cn)
                                         : std::numeric_limits<double>::infinity();
    const double s = cn > 0 && fnorm > 0 ? static_cast<double>(kappa * cn / fnorm) * scale : 0.0;
    o.scale.push_back(scale);
    o.sensitivity.push_back(s);
    o.kind.push_back(s >= kDeterminedAbove     ? Identifiability::kDetermined
                     : s <= kUndeterminedBelow ? Identifiability::kUndetermined
                                               : Identifiability::kWeak);
    o.predicted_se.push_back(noise_sd > 0 && kappa > 0 ? noise_sd / static_cast<double>(kappa * cn) : kNaN);
  }

  // A flat direction can reach a bound where another parameter stops acting
  // (c_v = 0: K_brk trades against F_pr and f_cfr down to K_brk = 1, where
  // c_v has no effect): that parameter is then not determined either, though
  // its column at the truth is regular. Follow each null vector of J to the
  // bound of an undetermined parameter and look at the columns there.
  Mat Jn = J;
  std::vector<LD> cn(k);
  for (int j = 0; j < k; ++j) {
    cn[j] = J.col(j).norm();
    if (cn[j] > 0) Jn.col(j) /= cn[j];
  }
  Eigen::HouseholderQR<Mat> hq(Jn);
  const Mat R = hq.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
  Eigen::JacobiSVD<Mat> svd(R, Eigen::ComputeFullV);
  const auto sv = svd.singularValues();
  for (int a = 0; a < k; ++a) {
    if (sv(a) > 1e-11L) continue;
    const Vec nv = svd.matrixV().col(a);
    std::vector<double> step(c.truth.size(), 0.0);
    for (int j = 0; j < k; ++j) {
      const int i = free[j];
      const double ref = cn[j] > 0 ? static_cast<double>(1 / cn[j]) : (c.truth[i] != 0 ? std::abs(c.truth[i]) : 1.0);
      // Only the undetermined parameters move: the others' components are
      // rounding noise and would push a truth on its bound out of range.
      if (o.kind[j] == Identifiability::kUndetermined) step[i] = static_cast<double>(nv(j)) * ref;
    }
    for (int u = 0; u < k; ++u) {
      const int iu = free[u];
      const ParamInfo& pu = m.params[iu];
      if (o.kind[u] != Identifiability::kUndetermined || std::abs(nv(u)) < 0.1L || pu.lo_open ||
          !std::isfinite(pu.lo) || c.truth[iu] == pu.lo || step[iu] == 0)
        continue;
      const double t = (pu.lo - c.truth[iu]) / step[iu];
      std::vector<double> q = c.truth;
      for (size_t i = 0; i < q.size(); ++i) q[i] += t * step[i];
      q[iu] = pu.lo;
      // The null vector is the tangent of the flat set; Gauss-Newton on the
      // other free parameters (u held at its bound) brings q back onto it.
      // Only a point that reproduces the true force exactly counts.
      bool on_flat_set = false;
      for (int it = 0; it < 30 && validate_params(m, q.data()).empty(); ++it) {
        Vec Fq;
        const Mat Jq = jacobian(q, &Fq);
        const Vec r = F - Fq;
        if (r.norm() <= 1e-12L * fnorm) {
          on_flat_set = true;
          break;
        }
        Mat A(n, k - 1);
        for (int j = 0, b = 0; j < k; ++j)
          if (j != u) A.col(b++) = Jq.col(j);
        const Vec d = A.colPivHouseholderQr().solve(r);
        for (int j = 0, b = 0; j < k; ++j)
          if (j != u) {
            const int i = free[j];
            q[i] += static_cast<double>(d(b++));
            if (!m.params[i].lo_open) q[i] = std::max(q[i], m.params[i].lo);  // rounding below a closed bound
          }
      }
      if (!on_flat_set) continue;
      const Mat Jb = jacobian(q, nullptr);
      for (int j = 0; j < k; ++j)
        if (o.kind[j] == Identifiability::kDetermined && Jb.col(j).norm() <= 1e-13L * cn[j]) {
          o.kind[j] = Identifiability::kUndetermined;
          o.predicted_se[j] = kNaN;
        }
    }
  }

  // A breakaway no sample sees (docs/identification.md): in a log without a
  // slow range a breakaway whose Stribeck velocity lies far below the slowest
  // sample acts on no sample, so where the truth shows none either (K_brk =
  // 1, or a breakaway hidden there itself) the log cannot tell its level. The
  // level and the Stribeck velocities are then undetermined. (In a log with a
  // slow range the convention is the law without a breakaway:
  // canonical_hidden_truth scores that form.)
  const SpeedRange sr = speed_range(samples);
  if (!(sr.vslow > 0) || !(sr.vslow > 0.1 * sr.median)) return o;
  std::vector<int> hidden;
  if (!hides_breakaway(c, samples, F, sr.vslow, &hidden)) return o;
  for (int i : hidden) {
    const auto j = std::find(free.begin(), free.end(), i) - free.begin();
    if (j == k) continue;
    o.kind[j] = Identifiability::kUndetermined;
    o.predicted_se[j] = kNaN;
  }
  return o;
}

std::vector<double> canonical_hidden_truth(const Case& c, const std::vector<data::Experiment>& log) {
  const std::vector<Sample<long double>> samples = samples_of(log);
  const SpeedRange sr = speed_range(samples);
  if (!(sr.vslow > 0) || sr.vslow > 0.1 * sr.median) return c.truth;  // no slow range: analyse() decides
  const ModelInfo& m = info(c.model);
  using Vec = Eigen::Matrix<long double, Eigen::Dynamic, 1>;
  const Vec F = force_of(c, c.truth, samples);
  if (!hides_breakaway(c, samples, F, sr.vslow, nullptr)) return c.truth;
  // The law without a breakaway: the level at none, the Stribeck velocity
  // at the slowest sample (where the fit's convention holds it), if that is
  // the same law (the velocity may also shape another term).
  std::vector<double> q = c.truth;
  for (size_t i = 0; i < q.size(); ++i) {
    if (c.smoothing[i]) continue;
    switch (m.params[i].role) {
      case ParamRole::kBreakawayRatio: q[i] = m.params[i].lo; break;
      case ParamRole::kBreakaway:
        for (const auto& r : m.relations)
          if (r.a == static_cast<int>(i)) q[i] = q[r.b];
        break;
      case ParamRole::kStribeckVelocity: q[i] = sr.vslow; break;
      case ParamRole::kStribeckRate: q[i] = 1.0 / sr.vslow; break;
      default: break;
    }
  }
  if (!validate_params(m, q.data()).empty()) return c.truth;
  if ((force_of(c, q, samples) - F).norm() > static_cast<long double>(kUndeterminedBelow) * F.norm()) return c.truth;
  return q;
}

NoiselessResult judge_noiseless(const Case& c, const Oracle& o, const ident::FitSummary& s) {
  NoiselessResult r;
  const ModelInfo& m = info(c.model);
  r.rmse_rel = o.force_rms > 0 ? s.rmse / o.force_rms : s.rmse;
  auto add = [&](const std::string& cls) {
    if (std::find(r.classes.begin(), r.classes.end(), cls) == r.classes.end()) r.classes.push_back(cls);
  };
  const bool failed = s.status == ident::FitStatus::kFailed;
  if (failed) add("failed");
  for (size_t j = 0; j < o.names.size(); ++j) {
    const ident::ParameterEstimate* pe = nullptr;
    for (const auto& q : s.parameters)
      if (q.name == o.names[j]) pe = &q;
    const int i = m.param_index(o.names[j]);
    const std::string head = o.names[j] + " (" + identifiability_name(o.kind[j]) + ", s " + num(o.sensitivity[j]) +
                             "): truth " + format_number(o.truth[j]);
    if (!pe) {
      add("missing-parameter");
      r.detail += head + " not reported; ";
      continue;
    }
    const std::string got = ", fit " + format_number(pe->value) + (pe->determined ? "" : " (undetermined)") + "; ";
    switch (o.kind[j]) {
      case Identifiability::kDetermined: {
        ++r.determinable;
        const double rel = std::abs(pe->value - o.truth[j]) / o.scale[j];
        r.worst_rel = std::max(r.worst_rel, std::isfinite(rel) ? rel : std::numeric_limits<double>::infinity());
        bool bad = false;
        if (!pe->determined) {
          add("determinable-flagged");
          bad = true;
        }
        if (!(rel <= 1e-6)) {
          bad = true;
          if (failed) {
          } else if (r.rmse_rel > 1e-5) add("wrong-basin");
          else if (truth_on_bound(m, c.truth, i)) add("bound");
          else add("imprecise");
        }
        if (bad) r.detail += head + got;
        break;
      }
      case Identifiability::kUndetermined:
        ++r.undetermined;
        if (pe->determined) {
          add("undetermined-reported");
          r.detail += head + got;
        }
        break;
      case Identifiability::kWeak: ++r.weak; break;
    }
  }
  if (!r.classes.empty() && s.status == ident::FitStatus::kMaxIterations) add("not-converged");
  r.pass = r.classes.empty();
  return r;
}

NoisyResult judge_noisy(const Case& c, const Oracle& o, const ident::FitSummary& s) {
  NoisyResult r;
  const ModelInfo& m = info(c.model);
  for (size_t j = 0; j < o.names.size(); ++j) {
    const ident::ParameterEstimate* pe = nullptr;
    for (const auto& q : s.parameters)
      if (q.name == o.names[j]) pe = &q;
    NoisyParam p;
    p.name = o.names[j];
    p.truth_on_bound = truth_on_bound(m, c.truth, m.param_index(o.names[j]));
    p.included = o.kind[j] == Identifiability::kDetermined && o.predicted_se[j] <= kMaxRelativeSe * o.scale[j];
    if (pe) {
      p.interval = pe->interval;
      p.flagged_undetermined = !pe->determined;
      p.covered = pe->determined && pe->ci95_lo <= o.truth[j] && o.truth[j] <= pe->ci95_hi;
      if (o.kind[j] == Identifiability::kUndetermined && pe->determined) ++r.wrong_flags;
    }
    if (p.included && !p.covered)
      r.detail += p.name + ": truth " + format_number(o.truth[j]) +
                  (pe ? " outside [" + num(pe->ci95_lo) + ", " + num(pe->ci95_hi) + "] (fit " + num(pe->value) +
                            ", predicted SE " + num(o.predicted_se[j]) + ", " + pe->interval +
                            (pe->determined ? "" : ", undetermined") + "); "
                      : std::string(" not reported; "));
    r.params.push_back(p);
  }
  return r;
}

CaseRun run_case(std::uint64_t seed, long index, bool noisy, const Scale& scale) {
  CaseRun run;
  run.c = make_case(seed, index, noisy, scale);
  const std::vector<data::Experiment> log = make_log(run.c, &run.noise_sd);
  // The log is made; score the same law's canonical form.
  run.c.truth = canonical_truth(info(run.c.model), run.c.truth);
  run.c.truth = canonical_hidden_truth(run.c, log);
  run.oracle = analyse(run.c, log, run.noise_sd);
  ident::FitSummary s;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    s = ident::fit(log, run.c.model, fit_options(run.c));
    run.report = s.report();
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.error.empty()) {
    if (noisy) {
      run.noisy = judge_noisy(run.c, run.oracle, ident::FitSummary{});  // every included parameter uncovered
      run.noisy.exception = true;
    } else {
      run.noiseless.classes = {"exception"};
    }
    return run;
  }
  if (noisy) run.noisy = judge_noisy(run.c, run.oracle, s);
  else run.noiseless = judge_noiseless(run.c, run.oracle, s);
  return run;
}

void binomial_band(long n, double p, double z, long* lo, long* hi) {
  const double mean = n * p, sd = std::sqrt(n * p * (1 - p));
  *lo = static_cast<long>(std::floor(mean - z * sd - 0.5));
  *hi = static_cast<long>(std::ceil(mean + z * sd + 0.5));
}

}  // namespace stribeck::battery
