// The search of `stribeck design` (design.hpp): candidate tests drawn over
// the profile families' free settings within the rig's limits, evaluated on
// a thread pool, the best refined by coordinate search; and the reference.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <optional>

#include "stribeck/data/error.hpp"
#include "design_bound.hpp"
#include "design_plateaus.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/threads.hpp"

namespace stribeck::ident {
namespace {

using Design = std::vector<workloads::DesignedExperiment>;

// splitmix64: the same candidates for a seed on every platform.
struct Rng {
  std::uint64_t s;
  double uniform() {  // [0, 1)
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
  }
  double log_uniform(double lo, double hi) { return lo * std::pow(hi / lo, uniform()); }
  size_t pick(size_t n) { return std::min(n - 1, static_cast<size_t>(uniform() * static_cast<double>(n))); }
};

// Speeds are drawn down to this fraction of v_max; a test that meets the
// stroke only slower than that is infeasible (it would not move).
constexpr double kSlowest = 0.01;
// The multisine band lies within [kBandLo, min(kBandHi, rate / 10)] Hz.
constexpr double kBandLo = 0.05, kBandHi = 20.0;

using detail::reads_pressure;

double band_top(const workloads::RigLimits& rig) { return std::min(kBandHi, 0.1 * rig.rate_hz); }

// The trajectory of e, its speed scaled down (position and acceleration are
// proportional to it in every profile) until it meets the stroke and the
// acceleration limit; false when that takes it below kSlowest * v_max.
bool fit_to_limits(workloads::DesignedExperiment& e, const DesignRequest& r, const std::vector<double>& params,
                   data::Experiment* log) {
  for (int pass = 0; pass < 2; ++pass) {
    auto logs = workloads::generate_log(workloads::generator_options(e, r.model, params));
    *log = std::move(logs.front());
    const workloads::TrajectoryUse u = workloads::trajectory_use(*log);
    e.stroke_used = u.stroke;
    e.a_peak = u.a_peak;
    const double f = std::min({1.0, r.rig.stroke / std::max(u.stroke, 1e-300), r.rig.a_max / std::max(u.a_peak, 1e-300),
                               r.rig.v_max / std::max(u.v_peak, 1e-300)});
    if (f >= 1.0) return true;
    if (pass == 1 || e.v_max * f < kSlowest * r.rig.v_max) return false;
    e.v_max *= f * (1 - 1e-9);
  }
  return false;
}

DesignEvaluation evaluate(const DesignRequest& r, Design d, bool scale) {
  DesignEvaluation ev;
  std::vector<data::Experiment> logs(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    const double v = d[i].v_max;
    if (!fit_to_limits(d[i], r, r.prior, &logs[i]) || (!scale && d[i].v_max != v)) {
      ev.infeasible = "experiment " + d[i].name + " (" + d[i].profile + " at " + format_number(v) +
                      ") exceeds the rig's stroke, speed or acceleration";
      ev.experiments = std::move(d);
      return ev;
    }
    logs[i].name = d[i].name;
  }
  ev.feasible = true;
  ev.prediction = predict(r, logs, r.rig.force_noise);
  ev.experiments = std::move(d);
  return ev;
}

// Evaluates designs on the thread pool; an error in one is its infeasibility.
std::vector<DesignEvaluation> evaluate_all(const DesignRequest& r, const std::vector<Design>& ds, int threads,
                                           DesignResult& totals) {
  std::vector<DesignEvaluation> out(ds.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (long i = 0; i < static_cast<long>(ds.size()); ++i) {
    try {
      out[i] = evaluate(r, ds[i], true);
    } catch (const std::exception& e) {
      out[i].experiments = ds[i];
      out[i].infeasible = e.what();
    }
  }
  totals.evaluated += static_cast<int>(out.size());
  for (const auto& e : out) totals.feasible += e.feasible;
  return out;
}

bool better(const DesignEvaluation& a, const DesignEvaluation& b) {
  if (a.feasible != b.feasible) return a.feasible;
  return a.prediction.criterion < b.prediction.criterion;
}

// The candidate pressures of a rig, `n` spread over its levels or range.
std::vector<double> spread_pressures(const workloads::RigLimits& rig, int n) {
  std::vector<double> p;
  for (int i = 0; i < n; ++i) {
    const double x = n == 1 ? 0.5 : static_cast<double>(i) / (n - 1);
    if (rig.pressure_range) p.push_back(rig.pressure_min + x * (rig.pressure_max - rig.pressure_min));
    else p.push_back(rig.pressure_levels[static_cast<size_t>(std::lround(x * (rig.pressure_levels.size() - 1)))]);
  }
  return p;
}

// The families drawn at random: all but `levels`, whose candidate is the
// optimal measure's plateau test (design_plateaus.hpp).
std::vector<std::string> drawn_profiles(const DesignRequest& r) {
  std::vector<std::string> p;
  for (const auto& x : r.profiles)
    if (x != "levels") p.push_back(x);
  return p;
}

Design draw(const DesignRequest& r, const std::vector<std::string>& drawn, bool pressure, Rng& g) {
  Design d(static_cast<size_t>(r.experiments));
  for (size_t i = 0; i < d.size(); ++i) {
    workloads::DesignedExperiment& e = d[i];
    e.name = "e" + std::to_string(i + 1);
    e.profile = drawn[g.pick(drawn.size())];
    e.duration = r.rig.duration / static_cast<double>(d.size());
    e.rate_hz = r.rig.rate_hz;
    e.v_max = g.log_uniform(kSlowest * r.rig.v_max, r.rig.v_max);
    e.has_pressure = pressure;
    e.pressure_b = r.rig.pressure_b;
    if (pressure)
      e.pressure_a = r.rig.pressure_range ? r.rig.pressure_min + g.uniform() * (r.rig.pressure_max - r.rig.pressure_min)
                                          : r.rig.pressure_levels[g.pick(r.rig.pressure_levels.size())];
    e.band_lo_hz = g.log_uniform(kBandLo, band_top(r.rig));
    e.band_hi_hz = g.log_uniform(e.band_lo_hz, band_top(r.rig));
    const int tones[] = {2, 4, 8, 16};
    e.tones = tones[g.pick(4)];
    e.phase_seed = 1 + (static_cast<std::uint64_t>(g.uniform() * 1e9));
  }
  return d;
}

// The neighbours of d at a step of factor exp(step) in every continuous
// setting of every experiment, and every other profile and pressure level.
std::vector<Design> neighbours(const DesignRequest& r, const Design& d, double step) {
  std::vector<Design> out;
  auto add = [&](size_t i, const std::function<bool(workloads::DesignedExperiment&)>& change) {
    Design n = d;
    if (change(n[i])) out.push_back(std::move(n));
  };
  const double f = std::exp(step), top = band_top(r.rig);
  for (size_t i = 0; i < d.size(); ++i) {
    for (double m : {f, 1 / f}) {
      add(i, [&](workloads::DesignedExperiment& e) {
        return (e.v_max = std::min(e.v_max * m, r.rig.v_max)) != d[i].v_max;
      });
      if (d[i].profile == "multisine") {
        add(i, [&](workloads::DesignedExperiment& e) {
          e.band_lo_hz = std::clamp(e.band_lo_hz * m, kBandLo, e.band_hi_hz);
          return e.band_lo_hz != d[i].band_lo_hz;
        });
        add(i, [&](workloads::DesignedExperiment& e) {
          e.band_hi_hz = std::clamp(e.band_hi_hz * m, e.band_lo_hz, top);
          return e.band_hi_hz != d[i].band_hi_hz;
        });
      }
      if (d[i].has_pressure && r.rig.pressure_range)
        add(i, [&](workloads::DesignedExperiment& e) {
          const double dp = (m > 1 ? 1 : -1) * (f - 1) * 0.5 * (r.rig.pressure_max - r.rig.pressure_min);
          e.pressure_a = std::clamp(e.pressure_a + dp, r.rig.pressure_min, r.rig.pressure_max);
          return e.pressure_a != d[i].pressure_a;
        });
    }
    for (const auto& p : drawn_profiles(r))
      add(i, [&](workloads::DesignedExperiment& e) { return (e.profile = p) != d[i].profile; });
    if (d[i].has_pressure && !r.rig.pressure_range)
      for (double p : r.rig.pressure_levels)
        add(i, [&](workloads::DesignedExperiment& e) { return (e.pressure_a = p) != d[i].pressure_a; });
    // Time moved from experiment i to j (the total stays the rig's), each
    // kept above 5 % of it.
    for (size_t j = 0; j < d.size(); ++j) {
      const double moved = d[i].duration * (1 - 1 / f);
      if (j == i || d[i].duration - moved < 0.05 * r.rig.duration) continue;
      Design n = d;
      n[i].duration -= moved;
      n[j].duration += moved;
      out.push_back(std::move(n));
    }
  }
  return out;
}

// Coordinate search from `start`: the best neighbour while it improves,
// else a step half as large, down to 2 %.
DesignEvaluation refine(const DesignRequest& r, DesignEvaluation best, int threads, DesignResult& totals) {
  double step = std::log(2.0);
  while (step > std::log(1.02)) {
    const auto ns = neighbours(r, best.experiments, step);
    const auto evs = evaluate_all(r, ns, threads, totals);
    const DesignEvaluation* top = &best;
    for (const auto& e : evs)
      if (better(e, *top)) top = &e;
    const double c = best.prediction.criterion;
    if (top == &best || !(top->prediction.criterion < c - 1e-9 * std::abs(c))) step *= 0.5;
    else best = *top;
  }
  return best;
}

void check_request(const DesignRequest& r, const ModelInfo& m) {
  if (r.experiments < 1 || r.experiments > r.rig.max_experiments)
    throw data::InputError("design: --experiments " + std::to_string(r.experiments) + " must be 1.." +
                           std::to_string(r.rig.max_experiments) + " (the rig's max_experiments)");
  if (r.candidates < 1 || r.candidates > 1000000) throw data::InputError("design: --candidates must be 1..1000000");
  if (r.profiles.empty()) throw data::InputError("design: --profiles names no profile");
  for (const auto& p : r.profiles)
    if (p != "levels" && std::find(workloads::generator_profiles().begin(), workloads::generator_profiles().end(), p) ==
                             workloads::generator_profiles().end())
      throw data::InputError("design: unknown profile '" + p + "' in --profiles (see `stribeck generate --help`)");
  if (reads_pressure(m) && r.rig.pressure_levels.empty() && !r.rig.pressure_range)
    throw data::InputError("design: model " + r.model + " reads pressure; the rig gives no pressure_levels");
  const auto bad = validate_params(m, r.prior.data());
  if (!bad.empty()) throw data::InputError("design: prior: " + bad.front());
}

// N experiments of one profile at v_max (slowed to the limits when
// evaluated), pressures spread over the rig's.
Design uniform_design(const DesignRequest& r, const std::string& profile) {
  const ModelInfo& m = workloads::require_model(r.model);
  const bool pressure = reads_pressure(m);
  const int n = std::max(1, r.experiments);
  const std::vector<double> p = pressure ? spread_pressures(r.rig, n) : std::vector<double>(n, 0.0);
  Design d(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    d[i].name = "e" + std::to_string(i + 1);
    d[i].profile = profile;
    d[i].duration = r.rig.duration / n;
    d[i].rate_hz = r.rig.rate_hz;
    d[i].v_max = r.rig.v_max;
    d[i].has_pressure = pressure;
    d[i].pressure_a = p[i];
    d[i].pressure_b = r.rig.pressure_b;
  }
  return d;
}

}  // namespace

DesignEvaluation evaluate_design(const DesignRequest& r, std::vector<workloads::DesignedExperiment> experiments) {
  return evaluate(r, std::move(experiments), false);
}

DesignEvaluation reference_design(const DesignRequest& r) {
  DesignEvaluation ev = evaluate(r, uniform_design(r, "plateaus"), true);
  if (!ev.feasible) throw data::InputError("design: the reference test cannot meet the rig's limits: " + ev.infeasible);
  return ev;
}

DesignResult design_experiment(const DesignRequest& r) {
  const ModelInfo& m = workloads::require_model(r.model);
  check_request(r, m);
  DesignResult out;
  out.threads = workloads::job_threads();
  Rng g{r.seed};
  std::vector<Design> ds;
  // Besides the random candidates, each family alone at the fastest speed
  // within the limits: with plateaus among the families, the reference is a
  // candidate, so the design is never worse than it.
  const std::vector<std::string> drawn = drawn_profiles(r);
  for (const auto& p : drawn) ds.push_back(uniform_design(r, p));
  if (!drawn.empty())
    for (int c = 0; c < r.candidates; ++c) ds.push_back(draw(r, drawn, reads_pressure(m), g));
  // With `levels`, the plateau test of the optimal measure at the prior
  // (its free parameters those of the reference's prediction).
  // The saddle point ignores the stroke's caps on the time above each speed;
  // where its measure exceeds them, the plateau test of the capped optimum
  // the bound certifies (design_bound.hpp) is a candidate too.
  std::optional<DesignEvaluation> reference;
  std::optional<detail::BoundSolution> best;
  if (drawn.size() < r.profiles.size()) {
    reference = reference_design(r);
    best = detail::solve_bound(r, reference->prediction);
    const std::vector<detail::MeasurePoint> measure = detail::optimal_measure(r, reference->prediction);
    for (const auto& test : {detail::plateau_test(r, measure),
                             detail::exceeds_caps(r.rig, measure) ? detail::plateau_test(r, best->measure) : Design{}})
      if (!test.empty()) ds.push_back(test);
  }
  auto evs = evaluate_all(r, ds, out.threads, out);
  std::stable_sort(evs.begin(), evs.end(), better);
  if (evs.empty() || !evs.front().feasible)
    throw data::InputError("design: no candidate meets the rig's limits (" +
                           (evs.empty() ? std::string("none drawn") : evs.front().infeasible) +
                           "); allow a longer stroke, a higher a_max or more, shorter experiments");
  if (!std::isfinite(evs.front().prediction.criterion)) {
    std::string which;
    for (const auto& q : evs.front().prediction.parameters)
      if (!std::isfinite(q.std_error)) which += (which.empty() ? "" : ", ") + q.name;
    throw data::InputError("design: no candidate determines every free parameter (not " + which + "); " +
                           (reads_pressure(m) ? "pressure terms need --experiments >= 2, " : std::string()) +
                           "fix what the rig cannot excite (--fix)");
  }
  // The best few distinct starts, refined.
  out.design = evs.front();
  const size_t starts = std::min<size_t>(3, evs.size());
  for (size_t s = 0; s < starts; ++s) {
    if (!evs[s].feasible || !std::isfinite(evs[s].prediction.criterion)) break;
    DesignEvaluation e = refine(r, evs[s], out.threads, out);
    if (better(e, out.design)) out.design = std::move(e);
  }
  out.reference = reference ? *reference : reference_design(r);
  out.bound = best ? best->bound : detail::solve_bound(r, out.reference.prediction).bound;
  return out;
}

}  // namespace stribeck::ident
