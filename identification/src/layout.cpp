// The unknowns of a fit and their data-driven initial values.
#include <Eigen/Dense>
#include <algorithm>
#include <optional>
#include <cfloat>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "problem.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/signals.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::ident::detail {
namespace {

// Parameters that only smooth the sign function near v = 0; rig data almost
// never determines them, so they stay at their defaults unless freed.
bool is_smoothing(const ParamInfo& p) { return p.role == ParamRole::kSmoothing; }

// Parameters that only matter at low speed (breakaway / Stribeck region).
bool is_low_speed(const ParamInfo& p) {
  switch (p.role) {
    case ParamRole::kBreakaway:
    case ParamRole::kBreakawayRatio:
    case ParamRole::kStribeckVelocity:
    case ParamRole::kStribeckRate: return true;
    default: return false;
  }
}

const std::vector<double>& checked(const data::Experiment& e, const std::string& ch) {
  const auto& x = e.channel(ch);
  for (size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw data::InputError(e.source + ": experiment '" + e.name + "', channel '" + ch + "', sample " +
                             std::to_string(i) + ": value is not finite");
  return x;
}

// A velocity derived from position (`measured` has none) carries the
// rounding of the derivative's weighted sums, |error| <~ eps * max|x| *
// sum|w|, with sum|w| of the order of 1 / dt: a position that never moves
// (0.12 m at 1 kHz) gives |v| up to 1.5e-13 m/s in both directions, not 0,
// and would pass the "no motion" check as motion. Values within a wide margin (1024) of that
// floor are the derivative of a constant and are made exactly 0; a real
// motion of 1 um/s stays far above it (2e-9 m/s for x ~ 1 m at 10 kHz).
void zero_derivative_rounding(std::vector<double>& v, const data::Experiment& measured) {
  if (measured.has("velocity") || !measured.has("position") || !measured.has("time")) return;
  const auto& x = measured.channel("position");
  const auto& t = measured.channel("time");
  if (t.size() < 2) return;
  const double dt = (t.back() - t.front()) / static_cast<double>(t.size() - 1);
  double xmax = 0;
  for (double a : x) xmax = std::max(xmax, std::abs(a));
  if (!(dt > 0) || !std::isfinite(xmax)) return;
  const double floor = 1024 * DBL_EPSILON * xmax / dt;
  for (double& a : v)
    if (std::abs(a) <= floor) a = 0;
}

// A channel whose `derived_<channel>` attribute says it was computed (import
// --derive, derive_channels) is not a measurement: fitted as one, a
// Savitzky-Golay acceleration against the unfiltered force biases the mass
// (+1.4 %, 12 standard errors on a multisine stroke). Such channels are left
// out, so the fit derives them again as for a log that never had them
// (parallel filtering from the stored position, or the velocity measured).
// One whose source is gone is kept where the fit may use it unfiltered
// (--no-parallel-filter, dynamic models, a channel the fit does not read),
// else refused. Returns null when nothing was derived.
std::unique_ptr<data::Experiment> without_derived(const data::Experiment& e, const ModelInfo& model,
                                                  const FitOptions& o) {
  auto derived = [&](const char* ch) { return e.has(ch) && e.attributes.count(std::string("derived_") + ch) != 0; };
  if (!derived("velocity") && !derived("acceleration")) return nullptr;
  auto out = std::make_unique<data::Experiment>(e);
  const bool filtered = o.parallel_filter && !model.dynamic;
  for (const char* ch : {"velocity", "acceleration"}) {
    if (!derived(ch)) continue;
    const bool velocity = std::string(ch) == "velocity";
    const bool source = velocity ? out->has("position") : out->has("velocity") || out->has("position");
    const bool used = velocity || o.inertia;
    if (source) {
      out->channels.erase(ch);
      out->units.erase(ch);
      out->channel_attributes.erase(ch);
      out->attributes.erase(std::string("derived_") + ch);
    } else if (filtered && used) {
      throw data::InputError(
          e.source + ": experiment '" + e.name + "', channel '" + ch + "' was derived (" +
          e.attributes.at(std::string("derived_") + ch) + ") and the log has no " +
          (velocity ? "position" : "velocity or position") +
          " to derive it again with the force filtered alike; fit the derived channel as a measurement "
          "with --no-parallel-filter");
    }
  }
  return out;
}

double percentile(std::vector<double> x, double q) {
  if (x.empty()) return 0.0;
  const size_t k = std::min(x.size() - 1, static_cast<size_t>(q * (x.size() - 1)));
  std::nth_element(x.begin(), x.begin() + k, x.end());
  return x[k];
}

// Features of the data that initial guesses are made of.
struct Features {
  double offset = 0.0;  // additive force offset
  double fc = 0.0;      // Coulomb level (per unit normal force for 20-sim laws)
  double fv = 0.0;      // viscous slope
  double f_pr = 0.0;    // pressure-independent part of the Coulomb level
  double f_cfr = 0.0;   // Coulomb level per Pa of p_a + p_b
  bool pressure_varies = false;
  double fb = 0.0;      // breakaway level
  double v_char = 0.0;  // characteristic low speed
};

// Least-squares features from the samples of `data` whose velocity sign
// matches `sign` (0: all). `offset` is estimated only for sign 0, otherwise
// the given one is removed first.
Features features(const std::vector<Prepared>& data, const std::vector<int>& exps, int sign, bool fit_offset,
                  double offset, bool normal, bool pressure) {
  Features f;
  f.offset = offset;
  std::vector<double> speeds;
  double pmin = kInf, pmax = -kInf;
  for (int e : exps)
    for (size_t k = 0; k < data[e].size(); ++k) {
      const double v = data[e].v[k];
      if (v == 0 || (sign > 0 && v < 0) || (sign < 0 && v > 0)) continue;
      speeds.push_back(std::abs(v));
      pmin = std::min(pmin, data[e].pa[k] + data[e].pb[k]);
      pmax = std::max(pmax, data[e].pa[k] + data[e].pb[k]);
    }
  if (speeds.empty()) return f;
  const double v_med = percentile(speeds, 0.5);
  const double v_low = percentile(speeds, 0.2);
  f.v_char = std::max(v_low, 1e-12);
  f.pressure_varies = pressure && pmax - pmin > 1e-3 * std::max(std::abs(pmax), 1.0);
  const bool fit_p = f.pressure_varies;
  const int ncol = 2 + (fit_p ? 1 : 0) + (fit_offset ? 1 : 0);
  // Columns: sgn*s, v*s, [sgn*P*s], [1]; s = F_n for normal-force laws.
  Eigen::MatrixXd A(0, ncol);
  std::vector<std::array<double, 4>> rows;
  std::vector<double> rhs;
  for (int e : exps)
    for (size_t k = 0; k < data[e].size(); ++k) {
      const double v = data[e].v[k];
      if (std::abs(v) < v_med || (sign > 0 && v < 0) || (sign < 0 && v > 0)) continue;
      const double s = normal ? data[e].fn[k] : 1.0, sg = v > 0 ? 1.0 : -1.0;
      std::array<double, 4> r{sg * s, v * s, 0, 0};
      int c = 2;
      if (fit_p) r[c++] = sg * (data[e].pa[k] + data[e].pb[k]) * s;
      if (fit_offset) r[c++] = 1.0;
      rows.push_back(r);
      rhs.push_back(data[e].y[k] - (fit_offset ? 0.0 : offset));
    }
  if (rows.size() < static_cast<size_t>(ncol)) return f;
  A.resize(rows.size(), ncol);
  Eigen::VectorXd b(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int c = 0; c < ncol; ++c) A(i, c) = rows[i][c];
    b(i) = rhs[i];
  }
  const Eigen::VectorXd c = A.colPivHouseholderQr().solve(b);
  int col = 2;
  f.fc = std::max(c(0), 0.0);
  f.fv = std::max(c(1), 0.0);
  if (fit_p) {
    f.f_cfr = std::max(c(col++), 0.0);
    f.f_pr = std::max(c(0), 0.0);
    f.fc = f.f_pr + f.f_cfr * 0.5 * (pmin + pmax);
  } else {
    f.f_pr = f.fc;
  }
  if (fit_offset) f.offset = c(col++);
  // Breakaway: the high quantile of the friction level among the slow samples.
  std::vector<double> slow;
  for (int e : exps)
    for (size_t k = 0; k < data[e].size(); ++k) {
      const double v = data[e].v[k];
      if (v == 0 || std::abs(v) > v_low || (sign > 0 && v < 0) || (sign < 0 && v > 0)) continue;
      const double s = normal ? data[e].fn[k] : 1.0;
      slow.push_back(((data[e].y[k] - f.offset) * (v > 0 ? 1 : -1) - f.fv * std::abs(v) * s) / s);
    }
  f.fb = std::max(percentile(slow, 0.95), f.fc);
  return f;
}

// Initial value of a model parameter from the features, by its role; NaN =
// keep the default (roles the features say nothing about: the dynamic ones,
// fitted in their own stage, and kOther).
double guess(const ParamInfo& p, const Features& f, double pressure_mid) {
  switch (p.role) {
    case ParamRole::kCoulomb: return f.fc;
    case ParamRole::kViscous: return f.fv;
    case ParamRole::kBreakaway: return f.fb;
    case ParamRole::kBreakawayRatio: return f.fc > 0 ? std::max(1.0, f.fb / f.fc) : 1.0;
    case ParamRole::kStribeckVelocity: return f.v_char;
    case ParamRole::kStribeckRate: return 3.0 / f.v_char;
    case ParamRole::kPreload: return f.pressure_varies ? f.f_pr : std::max(0.0, f.fc - 1e-6 * pressure_mid);
    case ParamRole::kPressureCoefficient: return f.pressure_varies ? f.f_cfr : std::nan("");
    default: return std::nan("");
  }
}

}  // namespace

double external(const Layout& L, int i) {
  const FitParam& p = L.params[i];
  switch (p.transform) {
    case Transform::kLog: return std::exp(p.u);
    case Transform::kExcess: return external(L, p.excess_base) + p.u;
    default: return p.u;
  }
}

std::string transform_text(const Layout& L, int i) {
  const FitParam& p = L.params[i];
  switch (p.transform) {
    case Transform::kLog: return "log";
    case Transform::kExcess: return "excess:" + L.params[p.excess_base].name;
    default: return "identity";
  }
}

void set_internal_from_values(Layout& L) {
  for (auto& p : L.params) {
    switch (p.transform) {
      case Transform::kLog: p.u = std::log(p.value); break;
      case Transform::kExcess: p.u = std::max(0.0, p.value - L.params[p.excess_base].value); break;
      default: p.u = p.value;
    }
  }
}

void set_values_from_internal(Layout& L) {
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].value = external(L, static_cast<int>(i));
}

std::vector<Prepared> prepare_data(const std::vector<data::Experiment>& experiments, const ModelInfo& model,
                                   const FitOptions& o) {
  if (experiments.empty()) throw data::InputError("no experiments to fit");
  const bool needs_p = model.needs(kChannelPressureA) || model.needs(kChannelPressureB);
  const bool pressure_force = o.area_a != 0.0 || o.area_b != 0.0;
  const bool known_mass = o.inertia && std::isfinite(o.mass);
  std::vector<Prepared> out;
  for (const auto& given : experiments) {
    const std::unique_ptr<data::Experiment> rederive = without_derived(given, model, o);
    const data::Experiment& measured = rederive ? *rederive : given;
    // Velocity and acceleration the log lacks are derived from position (or
    // velocity) by data's zero-phase filters (default cut-off: rate / 20).
    // For static models the force and every other channel then pass through
    // the same low-pass and are decimated (parallel filtering), so that the
    // force balance holds between filtered signals; otherwise (dynamic
    // models, whose state needs every sample, or --no-parallel-filter)
    // Savitzky-Golay derivatives and the unfiltered force, as before.
    std::vector<std::string> need;
    if (!measured.has("velocity")) need.push_back("velocity");
    if (o.inertia && !measured.has("acceleration")) need.push_back("acceleration");
    data::Experiment derived;
    std::vector<size_t> rows;
    FilterReport report;
    if (!need.empty() && o.parallel_filter && !model.dynamic) {
      // Non-finite samples would spread over the filter's support: name them first.
      for (const char* ch : {"time", "position", "velocity", "force", "pressure_a", "pressure_b"})
        if (measured.has(ch)) checked(measured, ch);
      if (model.needs(kChannelNormalForce) && measured.has("normal_force")) checked(measured, "normal_force");
      data::ParallelFilterOptions pf;
      pf.cutoff_hz = o.cutoff_hz;
      pf.decimation = o.decimation;
      // Without --inertia, the filtered acceleration too (the same kept
      // samples and channels), for the missing-term check's m*a: the kept
      // samples' time has gaps at the reversals, where no derivative holds.
      std::vector<std::string> kinematics = need;
      if (!o.inertia && !measured.has("acceleration")) kinematics.push_back("acceleration");
      data::ParallelFilterSummary fs;
      derived = data::parallel_filter(measured, kinematics, pf, &fs);
      rows = std::move(fs.rows);
      report.filtered = true;
      report.rate_hz = fs.rate_hz;
      report.cutoff_hz = fs.cutoff_hz;
      report.half_width_s = fs.half_width_s;
      report.decimation = fs.decimation;
      report.samples_in = static_cast<long>(fs.samples_in);
      report.kept = static_cast<long>(fs.samples_out);
      report.near_reversal = static_cast<long>(fs.near_reversal);
      report.near_end = static_cast<long>(fs.near_end);
      report.resampled = fs.resampled;
    } else if (!need.empty()) {
      derived = measured;
      data::DeriveOptions d;
      d.cutoff_hz = o.cutoff_hz;
      data::derive_channels(derived, need, d);
    }
    const data::Experiment& e = need.empty() ? measured : derived;
    Prepared p;
    p.name = e.name;
    p.rows = std::move(rows);
    p.filter = report;
    const size_t n = e.size();
    if (n == 0) throw data::InputError(e.source + ": experiment '" + e.name + "' has no samples");
    p.force = checked(e, "force");
    p.v = checked(e, "velocity");
    zero_derivative_rounding(p.v, measured);
    const bool has_a = e.has("pressure_a"), has_b = e.has("pressure_b");
    if ((needs_p || pressure_force) && !has_a && !has_b)
      throw data::InputError(e.source + ": experiment '" + e.name + "' has no pressure_a or pressure_b channel, but " +
                             (needs_p ? "model " + model.id + " needs chamber pressures"
                                      : std::string("the force balance has piston areas")));
    p.pa = has_a ? checked(e, "pressure_a") : std::vector<double>(n, 0.0);
    p.pb = has_b ? checked(e, "pressure_b") : std::vector<double>(n, 0.0);
    if (model.needs(kChannelNormalForce)) {
      if (!e.has("normal_force"))
        throw data::InputError(e.source + ": experiment '" + e.name + "' has no normal_force channel, but model " +
                               model.id + " needs it");
      p.fn = checked(e, "normal_force");
    } else if (e.has("normal_force") && std::all_of(e.channel("normal_force").begin(), e.channel("normal_force").end(),
                                                    [](double f) { return std::isfinite(f); })) {
      p.fn = e.channel("normal_force");  // not read by the law: for the missing-term check (fit.cpp)
    } else {
      p.fn.assign(n, 0.0);
    }
    if (o.inertia) p.acc = checked(e, "acceleration");
    // Without --inertia the fit has no use for the acceleration, but the
    // missing-term check (fit.cpp) asks whether m*a explains the residual:
    // the log's acceleration where it has a finite one, else its time.
    else if (e.has("acceleration") && std::all_of(e.channel("acceleration").begin(), e.channel("acceleration").end(),
                                                  [](double a) { return std::isfinite(a); }))
      p.acc = e.channel("acceleration");
    if (e.has("time")) p.t = e.channel("time");
    p.y.resize(n);
    for (size_t i = 0; i < n; ++i) {
      double y = p.force[i] - o.area_a * p.pa[i] + o.area_b * p.pb[i];
      if (known_mass) y -= o.mass * p.acc[i];
      p.y[i] = y;
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

// Transforms: relations a >= b by excess, strict positivity by log.
void add_transforms(Layout& L, const ModelInfo& model, int ne) {
  for (auto& p : L.params)
    if (p.model_index >= 0 && !p.fixed) {
      const ParamInfo& info = model.params[p.model_index];
      if (info.lo_open && info.lo == 0.0) p.transform = Transform::kLog;
    }
  for (const auto& r : model.relations) {
    for (int e = 0; e < ne; ++e)
      for (int s = 0; s < 2; ++s) {
        const int a = L.model_map[e][s][r.a], b = L.model_map[e][s][r.b];
        FitParam& pa = L.params[a];
        FitParam& pb = L.params[b];
        if (pa.fixed && pb.fixed) continue;  // held values that break the rule: refused by FitOptions::IsValid
        if (pa.fixed) {                      // b free below a fixed a: an upper bound suffices
          pb.hi = std::min(pb.hi, pa.value);
          pb.value = std::min(pb.value, pa.value);
          continue;
        }
        if (pa.transform == Transform::kExcess && pa.excess_base != b)
          throw data::InputError(pa.base + " and " + pb.base +
                                 " must both be per-experiment or both shared (rule: " + r.why + ")");
        pa.transform = Transform::kExcess;
        pa.excess_base = b;
        pa.value = std::max(pa.value, pb.value);
      }
  }
}

}  // namespace

Layout make_layout(const ModelInfo& model, const FitOptions& o, const std::vector<Prepared>& data) {
  Layout L;
  L.asymmetric = o.asymmetric;
  for (const auto& p : model.params) L.model_defaults.push_back(p.default_value);
  const int ne = static_cast<int>(data.size());
  const bool normal = model.needs(kChannelNormalForce);
  const bool pressure = model.needs(kChannelPressureA) || model.needs(kChannelPressureB);

  UserOptions user = parse_user_options(model, o);
  std::set<std::string>& free = user.free;
  std::set<std::string>& per_exp = user.per_experiment;
  std::map<std::string, double>& fixed = user.fixed;
  std::map<std::string, double>& initial = user.initial;
  std::map<std::string, std::pair<double, double>>& bounds = user.bounds;

  // Data-driven features: overall (gives the offset), then per group; each
  // computed only when a guess needs it (never when --init or --fix gives
  // every free unknown its value).
  std::vector<int> all(ne);
  for (int e = 0; e < ne; ++e) all[e] = e;
  std::optional<Features> overall_features;
  auto overall = [&]() -> const Features& {
    if (!overall_features) overall_features = features(data, all, 0, o.offset, 0.0, normal, pressure);
    return *overall_features;
  };
  auto user_given = [&](const std::string& base) { return initial.count(base) != 0 || fixed.count(base) != 0; };
  double pmid = 0;
  {
    double pmin = kInf, pmax = -kInf;
    for (const auto& d : data)
      for (size_t k = 0; k < d.size(); ++k) {
        pmin = std::min(pmin, d.pa[k] + d.pb[k]);
        pmax = std::max(pmax, d.pa[k] + d.pb[k]);
      }
    pmid = 0.5 * (pmin + pmax);
  }

  auto add = [&](FitParam p) {
    L.params.push_back(std::move(p));
    return static_cast<int>(L.params.size()) - 1;
  };
  auto apply_user = [&](FitParam& p) {
    if (initial.count(p.base)) p.value = initial[p.base];
    if (fixed.count(p.base)) {
      p.fixed = true;
      p.value = fixed[p.base];
    }
    if (bounds.count(p.base)) {
      p.lo = std::max(p.lo, bounds[p.base].first);
      p.hi = std::min(p.hi, bounds[p.base].second);
    }
  };

  const int nsign = o.asymmetric ? 2 : 1;
  L.model_map.assign(ne, {});
  for (int e = 0; e < ne; ++e)
    for (int s = 0; s < 2; ++s) L.model_map[e][s].assign(model.params.size(), -1);
  for (size_t j = 0; j < model.params.size(); ++j) {
    const ParamInfo& info = model.params[j];
    const bool separate = per_exp.count(info.name) != 0;
    for (int s = 0; s < nsign; ++s) {
      for (int e = 0; e < (separate ? ne : 1); ++e) {
        FitParam p;
        p.base = info.name;
        p.name = info.name;
        if (o.asymmetric) p.name += s == 0 ? "+" : "-";
        if (separate) p.name += "@" + data[e].name;
        p.unit = info.unit;
        p.model_index = static_cast<int>(j);
        p.lo = info.lo;
        p.hi = info.hi;
        p.low_speed = is_low_speed(info);
        p.role = info.role;
        p.fixed = free.empty() ? is_smoothing(info) : free.count(info.name) == 0;
        // Initial value from the data of this group.
        std::vector<int> exps = separate ? std::vector<int>{e} : all;
        const int sign = o.asymmetric ? (s == 0 ? 1 : -1) : 0;
        // Held parameters (outside --free, or sign smoothing) stay at the
        // model's default, as documented; free ones start from the data
        // unless the user gives their value.
        double g = info.default_value;
        if (!p.fixed && !user_given(p.base)) {
          const Features f = (!separate && sign == 0)
                                 ? overall()
                                 : features(data, exps, sign, false, overall().offset, normal, pressure);
          g = guess(info, f, pmid);
        }
        if (!std::isfinite(g) || (info.lo_open && g <= info.lo)) g = info.default_value;
        p.value = g;
        apply_user(p);
        // Inside the range: open bounds need a margin, logs a positive start.
        if (!p.fixed) {
          const double lo_ok = info.lo_open ? (p.lo > 0 ? p.lo * 1.001 : std::nextafter(p.lo, kInf)) : p.lo;
          p.value = std::min(std::max(p.value, lo_ok), p.hi);
          if (info.lo_open && info.lo == 0.0 && !(p.value > 0)) p.value = info.default_value;
        }
        const int idx = add(p);
        for (int e2 = 0; e2 < ne; ++e2)
          if (!separate || e2 == e) L.model_map[e2][s][j] = idx;
      }
    }
    if (!o.asymmetric)
      for (int e = 0; e < ne; ++e) L.model_map[e][1][j] = L.model_map[e][0][j];
  }

  add_transforms(L, model, ne);

  // Force balance unknowns.
  L.offset.assign(ne, -1);
  if (o.offset) {
    const int groups = o.offset_per_experiment ? ne : 1;
    for (int g = 0; g < groups; ++g) {
      FitParam p;
      p.base = "offset";
      p.name = o.offset_per_experiment ? "offset@" + data[g].name : "offset";
      p.unit = "N";
      p.value = user_given(p.base) ? 0.0 : overall().offset;
      apply_user(p);
      const int idx = add(p);
      for (int e = 0; e < ne; ++e)
        if (!o.offset_per_experiment || e == g) L.offset[e] = idx;
    }
  }
  if (o.inertia && !std::isfinite(o.mass)) {
    FitParam p;
    p.base = p.name = "mass";
    p.unit = "kg";
    p.lo = 0.0;
    p.value = 0.0;
    apply_user(p);
    L.mass = add(p);
  }
  set_internal_from_values(L);
  return L;
}

}  // namespace stribeck::ident::detail
