// Result files -> Figures: what the file holds, nothing computed again
// beyond summaries of its own columns (histograms, the best value per bin,
// an autocorrelation of the stored residual). Every file is read through
// data/ (read_results, read_log, read_sweep_file, PointFile) and workloads/
// (build_heat_map); no HDF5 code of its own.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/point_file.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/engine/point_status.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/fit_draws.hpp"
#include "stribeck/workloads/heat_map.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/report/figure.hpp"

namespace stribeck::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fmt(double x, const char* f = "%.6g") {
  if (!std::isfinite(x)) return std::isnan(x) ? "n/a" : (x > 0 ? "inf" : "-inf");
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

// An axis label with its unit; dimensionless quantities read "[1]".
std::string label(const std::string& name, const std::string& unit) {
  return unit.empty() ? name : name + " [" + unit + "]";
}

// Positive values spaced more evenly in log than linearly (a grid such as
// f_cfr = { log = [1e-7, 1e-5] }): drawn on a log axis.
bool log_spaced(const std::vector<double>& sorted_distinct) {
  const auto& v = sorted_distinct;
  if (v.size() < 3 || !(v.front() > 0)) return false;
  auto spread = [&](bool log) {
    std::vector<double> d;
    for (std::size_t i = 1; i < v.size(); ++i) d.push_back(log ? std::log(v[i] / v[i - 1]) : v[i] - v[i - 1]);
    const double mean = std::accumulate(d.begin(), d.end(), 0.0) / double(d.size());
    double var = 0;
    for (double x : d) var += (x - mean) * (x - mean);
    return std::sqrt(var / double(d.size())) / mean;
  };
  return spread(true) < spread(false);
}

std::string clean_id(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return s;
}

struct IdMaker {
  std::map<std::string, int> used;
  std::string operator()(const std::string& base) {
    const std::string b = "fig-" + clean_id(base);
    const int n = used[b]++;
    return n == 0 ? b : b + "-" + std::to_string(n + 1);
  }
};

// A histogram of the finite values: `bins` equal bins over [min, max].
Series histogram(const std::vector<double>& v, int bins, const std::string& name) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double x : v)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  Series s{name, {}, {}};
  if (!(lo <= hi)) return s;
  if (hi == lo) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 1e-6);
  std::vector<double> counts(bins, 0.0);
  for (double x : v)
    if (std::isfinite(x)) counts[std::min(bins - 1, static_cast<int>((x - lo) / (hi - lo) * bins))] += 1;
  for (int b = 0; b < bins; ++b) s.x.push_back(lo + (b + 0.5) * (hi - lo) / bins), s.y.push_back(counts[b]);
  return s;
}

// Order of the samples by x (scatter data decimated over x).
Series sorted_by_x(const std::string& name, const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::size_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  Series s{name, {}, {}};
  s.x.reserve(idx.size());
  s.y.reserve(idx.size());
  for (std::size_t i : idx)
    if (std::isfinite(x[i]) && std::isfinite(y[i])) s.x.push_back(x[i]), s.y.push_back(y[i]);
  return s;
}

// Every k-th sample, in order (a loop: x is not monotonic).
Series strided(const std::string& name, const std::vector<double>& x, const std::vector<double>& y, std::size_t max) {
  Series s{name, {}, {}};
  const std::size_t k = std::max<std::size_t>(1, (x.size() + max - 1) / std::max<std::size_t>(1, max));
  for (std::size_t i = 0; i < x.size(); i += k) s.x.push_back(x[i]), s.y.push_back(y[i]);
  return s;
}

Figure make(IdMaker& id, const std::string& base, FigureKind kind, const std::string& title, const std::string& xl,
            const std::string& yl, const std::string& what = "", const std::string& experiment = "") {
  Figure f;
  f.id = id(base);
  f.kind = kind;
  f.title = title;
  f.x_label = xl;
  f.y_label = yl;
  f.what = what;
  f.experiment = experiment;
  return f;
}

void add_provenance(Document& d, const data::Provenance& p) {
  if (!p.command_line.empty()) d.provenance.push_back({"command", p.command_line});
  if (!p.toolkit_version.empty()) d.provenance.push_back({"stribeck version", p.toolkit_version});
  if (!p.date.empty()) d.provenance.push_back({"date", p.date});
  if (!p.device.empty()) d.provenance.push_back({"device", p.device});
}

Heatmap to_heatmap(const data::HeatMap& m) {
  Heatmap h;
  h.x = m.x.centers;
  h.y = m.y.centers;
  h.x_edges = m.x.edges;
  h.y_edges = m.y.edges;
  h.x_log = m.x.log;
  h.y_log = m.y.log;
  h.z = m.values;
  h.z_label = m.value_label;
  return h;
}

// ---------------------------------------------------------------- identification

const std::vector<double>* dataset(const data::Results& r, const std::string& name, const std::string& path) {
  for (const auto& d : r.datasets)
    if (d.name == name) return &d.values;
  throw data::InputError(path + ": results group '" + r.group + "' has no dataset '" + name + "'");
}

// Where an experiment was run: its mean pressures and normal force (the
// fitted law's curve is drawn there).
struct OperatingPoint {
  std::string name;
  double pressure_a = 0, pressure_b = 0, normal_force = 0;
};

// The Stribeck curve of the fitted law: force against a steady sliding
// velocity over the data's range [vlo, vhi] (dense near zero, where the
// Stribeck dip is), evaluated by the kernels' model (host's
// evaluate_samples) and not from the stored fitted samples. A dynamic model
// is held at each velocity over one unit of travel (1 m or 1 rad, far past
// its bristles' deflection), its last force the steady one.
Series law_curve(const ModelInfo& mi, const std::vector<double>& params, const OperatingPoint& op, double vlo,
                 double vhi, const std::string& name) {
  std::vector<double> v;
  const int per_side = 200;
  auto side = [&](double vmax, double sign) {
    for (int i = 0; i < per_side; ++i) v.push_back(sign * vmax * std::pow(1e-4, 1.0 - double(i) / (per_side - 1)));
  };
  if (vlo < 0) side(-vlo, -1);
  if (vhi > 0) side(vhi, 1);
  std::sort(v.begin(), v.end());
  Series s{name, v, std::vector<double>(v.size())};
  s.line = true;
  const std::size_t n = mi.dynamic ? 400 : v.size();
  std::vector<double> vel(n), pa(n, op.pressure_a), pb(n, op.pressure_b), fn(n, op.normal_force), t(n), f(n);
  workloads::EvalInputs in;
  in.n = n;
  in.velocity = vel.data();
  in.pressure_a = pa.data();
  in.pressure_b = pb.data();
  in.normal_force = fn.data();
  in.time = t.data();
  if (!mi.dynamic) {
    vel = v;
    workloads::evaluate_samples(mi.id, params, in, s.y.data());
    return s;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::fill(vel.begin(), vel.end(), v[i]);
    for (std::size_t k = 0; k < n; ++k) t[k] = double(k) / double(n - 1) / std::abs(v[i]);
    workloads::evaluate_samples(mi.id, params, in, f.data());
    s.y[i] = f.back();
  }
  return s;
}

// The breakaway on each side of a law's curve (sorted by velocity): its
// first local maximum of |force| going out from zero (the Stribeck peak);
// none on a side where the force only rises.
Series breakaway_points(const Series& c) {
  Series b{"breakaway", {}, {}};
  for (double sign : {1.0, -1.0}) {
    std::vector<std::size_t> idx;  // this side, by |v| increasing
    for (std::size_t i = 0; i < c.x.size(); ++i)
      if (sign * c.x[i] > 0 && std::isfinite(c.y[i])) idx.push_back(i);
    std::sort(idx.begin(), idx.end(),
              [&](std::size_t a, std::size_t b) { return std::abs(c.x[a]) < std::abs(c.x[b]); });
    for (std::size_t j = 0; j + 1 < idx.size(); ++j)
      if (sign * c.y[idx[j]] > sign * c.y[idx[j + 1]]) {
        b.x.push_back(c.x[idx[j]]);
        b.y.push_back(c.y[idx[j]]);
        break;
      }
  }
  return b;
}

// A results group's own time: the coordinate of a filtered fit's samples,
// which read_results leaves out as a dimension scale; empty without one.
std::vector<double> group_time(const std::string& path, const std::string& group) {
  const std::string where = path + ": results group '" + group + "'";
  const data::h5::File f = data::h5::open_file(path);
  if (!data::h5::has_child(f.id(), group) || !data::h5::has_child(f.id(), group + "/time")) return {};
  return data::h5::read_doubles(data::h5::open_dataset(f.id(), group + "/time", where), where);
}

void read_identification(Document& doc, const std::string& path, const std::vector<std::string>& groups,
                         const ReadOptions& o) {
  IdMaker id;
  doc.kind = "identification";
  // The measured log: --log, else the result file itself (identify -o LOG.h5).
  std::vector<data::Experiment> logs;
  try {
    logs = data::read_log(o.log.empty() ? path : o.log);
  } catch (const data::InputError&) {
    if (!o.log.empty()) throw;
  }
  nlohmann::json fit;
  // The fit's log's units (N*m and rad/s for a rotational log; older files: N, m/s).
  auto force_unit = [&] { return fit.value("force_unit", std::string("N")); };
  auto velocity_unit = [&] { return fit.value("velocity_unit", std::string("m/s")); };
  Section summary{"Fit", {}};
  Section all{"All experiments", {}};
  std::vector<double> all_residuals;
  std::vector<Series> fv_measured, fv_fitted;
  double vmax = 0;
  struct Kept {
    std::string name;
    std::vector<double> velocity, fitted, measured;
  };
  std::vector<Kept> kept;
  std::vector<OperatingPoint> operating;  // of each kept experiment
  std::vector<Section> per_experiment;
  for (const std::string& g : groups) {
    data::Results r = data::read_results(path, g);
    if (fit.is_null()) {
      auto it = r.attributes.find("fit");
      if (it == r.attributes.end()) throw data::InputError(path + ": results group '" + g + "' has no attribute 'fit'");
      fit = nlohmann::json::parse(it->second, nullptr, false);
      if (fit.is_discarded() || !fit.is_object())
        throw data::InputError(path + ": results group '" + g + "': attribute 'fit' is not a JSON object");
      add_provenance(doc, r.provenance);
    }
    const std::string name = r.attributes.count("experiment") ? r.attributes.at("experiment") : g;
    const std::vector<double>& fitted = *dataset(r, "fitted_force", path);
    const std::vector<double>& residual = *dataset(r, "residual", path);
    if (fitted.size() != residual.size() || fitted.empty())
      throw data::InputError(path + ": results group '" + g +
                             "': fitted_force and residual differ in length or are empty");
    // A filtered fit's samples are a few filtered rows of the log: its group
    // names them (sample_index), with their time and the velocity it used.
    auto optional = [&](const char* n) -> const std::vector<double>* {
      for (const auto& d : r.datasets)
        if (d.name == n && d.values.size() == fitted.size()) return &d.values;
      return nullptr;
    };
    const std::vector<double>* rows = optional("sample_index");
    const std::vector<double> time = group_time(path, g);
    const std::vector<double>* own_time = time.size() == fitted.size() ? &time : nullptr;
    const std::vector<double>* own_velocity = optional("velocity");
    const data::Experiment* log = nullptr;
    for (const auto& e : logs)
      if (e.name == name &&
          (rows ? std::all_of(rows->begin(), rows->end(), [&](double k) { return k >= 0 && k < double(e.size()); })
                : e.size() == fitted.size()))
        log = &e;
    // Channel `ch` of the log at the fitted samples.
    auto at_fitted = [&](const std::string& ch) {
      const std::vector<double>& x = log->channel(ch);
      if (!rows) return x;
      std::vector<double> y(rows->size());
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[static_cast<std::size_t>((*rows)[i])];
      return y;
    };
    std::vector<double> measured(fitted.size());
    for (std::size_t i = 0; i < fitted.size(); ++i) measured[i] = fitted[i] + residual[i];
    std::vector<double> t;
    std::string tl = "sample";
    if (own_time || (log && log->has("time"))) {
      t = own_time ? *own_time : at_fitted("time");
      tl = label("time", "s");
    } else {
      t.resize(fitted.size());
      std::iota(t.begin(), t.end(), 0.0);
    }
    Section s{"Experiment " + name, {}};
    Figure f = make(id, name + "-fit", FigureKind::kLine, name + ": measured and fitted force", tl,
                    label("force", force_unit()), "fit", name);
    f.series.push_back(decimate_minmax({"measured", t, measured}, o.columns));
    f.series.push_back(decimate_minmax({"fitted", t, fitted}, o.columns));
    s.figures.push_back(std::move(f));
    Figure rf = make(id, name + "-residual", FigureKind::kLine, name + ": residual (measured - fitted)", tl,
                     label("residual", force_unit()), "residuals", name);
    rf.series.push_back(decimate_minmax({"residual", t, residual}, o.columns));
    s.figures.push_back(std::move(rf));
    // Autocorrelation of the residual, lags 0..200 (at most 1e6 samples).
    {
      const std::size_t n = std::min<std::size_t>(residual.size(), 1000000);
      const std::size_t lags = std::min<std::size_t>(200, n > 1 ? n - 1 : 0);
      double mean = 0;
      for (std::size_t i = 0; i < n; ++i) mean += residual[i];
      mean /= double(n);
      double c0 = 0;
      for (std::size_t i = 0; i < n; ++i) c0 += (residual[i] - mean) * (residual[i] - mean);
      Figure af = make(id, name + "-acf", FigureKind::kLine, name + ": residual autocorrelation", "lag [samples]",
                       label("autocorrelation", "1"), "", name);
      Series a{"autocorrelation", {}, {}};
      for (std::size_t k = 0; k <= lags && c0 > 0; ++k) {
        double c = 0;
        for (std::size_t i = 0; i + k < n; ++i) c += (residual[i] - mean) * (residual[i + k] - mean);
        a.x.push_back(double(k));
        a.y.push_back(c / c0);
      }
      af.series.push_back(std::move(a));
      s.figures.push_back(std::move(af));
    }
    all_residuals.insert(all_residuals.end(), residual.begin(), residual.end());
    if (own_velocity || (log && log->has("velocity"))) {
      std::vector<double> v = own_velocity ? *own_velocity : at_fitted("velocity");
      std::string level = name;
      if (log && log->has("pressure_a")) {
        const auto& pa = log->channel("pressure_a");
        double dp = std::accumulate(pa.begin(), pa.end(), 0.0) / double(pa.size());
        if (log->has("pressure_b")) {
          const auto& pb = log->channel("pressure_b");
          dp -= std::accumulate(pb.begin(), pb.end(), 0.0) / double(pb.size());
        }
        level += " (" + fmt(dp / 1e5, "%.3g") + " bar)";
      } else if (log && log->has("normal_force")) {
        const auto& fn = log->channel("normal_force");
        level += " (" + fmt(std::accumulate(fn.begin(), fn.end(), 0.0) / double(fn.size()), "%.3g") + " N)";
      }
      for (double x : v)
        if (std::isfinite(x)) vmax = std::max(vmax, std::abs(x));
      auto mean_of = [&](const char* ch) {
        if (!log || !log->has(ch)) return 0.0;
        const auto& x = log->channel(ch);
        return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
      };
      operating.push_back({level, mean_of("pressure_a"), mean_of("pressure_b"), mean_of("normal_force")});
      kept.push_back({level, std::move(v), fitted, measured});
    }
    per_experiment.push_back(std::move(s));
  }
  // Force against velocity, one colour per experiment (pressure level).
  if (!kept.empty()) {
    for (int zoom = 0; zoom < 2; ++zoom) {
      const double vz = 0.05 * vmax;
      Figure f = make(id, zoom ? "force-velocity-zoom" : "force-velocity", FigureKind::kScatter,
                      zoom ? "Low-velocity (Stribeck) region, |v| < " + fmt(vz, "%.3g") + " " + velocity_unit()
                           : "Force against velocity: measured (points) and fitted",
                      label("velocity", velocity_unit()), label("force", force_unit()), zoom ? "" : "force-velocity");
      for (const Kept& k : kept) {
        const auto& v = k.velocity;
        std::vector<double> vx, fm, ff;
        for (std::size_t i = 0; i < v.size(); ++i)
          if (!zoom || std::abs(v[i]) < vz) vx.push_back(v[i]), fm.push_back(k.measured[i]), ff.push_back(k.fitted[i]);
        f.series.push_back(decimate_minmax(sorted_by_x(k.name + " measured", vx, fm), o.columns / 4));
        f.series.push_back(decimate_minmax(sorted_by_x(k.name + " fitted", vx, ff), o.columns / 4));
        f.series.back().line = true;
      }
      all.figures.push_back(std::move(f));
    }
  } else {
    doc.notes.push_back(
        "no velocity channel: the force-velocity figures need the measured log (the result file itself, or --log "
        "LOG.h5)");
  }
  // The fitted law's Stribeck curve over the data's sliding range, with the
  // measured points and the breakaway: one curve per operating point when
  // the law reads pressures or a normal force.
  const ModelInfo* mi = find_model(fit.value("model", std::string()));
  if (!kept.empty() && mi && fit.contains("parameters") && fit["parameters"].is_object()) {
    std::vector<double> params = mi->defaults();
    for (std::size_t k = 0; k < mi->params.size(); ++k) {
      const auto it = fit["parameters"].find(mi->params[k].name);
      if (it != fit["parameters"].end() && it->is_object() && it->contains("value") && (*it)["value"].is_number())
        params[k] = (*it)["value"].get<double>();
    }
    double vlo = 0, vhi = 0;
    for (const Kept& k : kept)
      for (double x : k.velocity)
        if (std::isfinite(x)) vlo = std::min(vlo, x), vhi = std::max(vhi, x);
    const bool per_point =
        mi->needs(kChannelPressureA) || mi->needs(kChannelPressureB) || mi->needs(kChannelNormalForce);
    if (vhi > vlo) {
      Figure sc = make(id, "stribeck-curve", FigureKind::kScatter,
                       "Stribeck curve of the fitted law (" + mi->id + ") over the measured sliding range",
                       label("velocity", velocity_unit()), label("force", force_unit()), "stribeck");
      for (std::size_t e = 0; e < kept.size(); ++e) {
        sc.series.push_back(decimate_minmax(sorted_by_x(kept[e].name + " measured", kept[e].velocity, kept[e].measured),
                                            o.columns / 4));
        if (!per_point && e > 0) continue;
        Series c = law_curve(*mi, params, operating[e], vlo, vhi,
                             per_point ? "fitted law, " + kept[e].name : std::string("fitted law"));
        Series b = breakaway_points(c);
        b.name = per_point ? "breakaway, " + kept[e].name : std::string("breakaway");
        sc.series.push_back(std::move(c));
        sc.series.push_back(std::move(b));
      }
      all.figures.push_back(std::move(sc));
    }
  }
  Figure h = make(id, "residual-histogram", FigureKind::kHistogram, "Residual histogram (all experiments)",
                  label("residual", force_unit()), "samples");
  h.series.push_back(histogram(all_residuals, 60, "residual"));
  all.figures.push_back(std::move(h));

  // The fit's own numbers (the summary JSON the group carries).
  doc.title = "Identification: " + fit.value("model", std::string("?"));
  Figure pt = make(id, "parameters", FigureKind::kTable, "Parameters", "", "");
  pt.table.header = {"parameter", "value", "standard error", "95 % interval", "unit", "note"};
  if (fit.contains("parameters") && fit["parameters"].is_object())
    for (const auto& [name, p] : fit["parameters"].items()) {
      auto num = [&](const nlohmann::json& j) { return j.is_number() ? j.get<double>() : kNaN; };
      std::string ci = "n/a", note;
      if (p.value("fixed", false)) ci = "", note = "fixed";
      else if (p.contains("ci95") && p["ci95"].is_array() && p["ci95"].size() == 2)
        ci = "[" + fmt(num(p["ci95"][0])) + ", " + fmt(num(p["ci95"][1])) + "]";
      if (!p.value("fixed", false) && !p.value("determined", true)) note = "not determined";
      if (p.value("at_bound", false)) note += std::string(note.empty() ? "" : "; ") + "at a bound";
      if (p.value("interval", std::string()) == "profile")
        note += std::string(note.empty() ? "" : "; ") + "profile interval";
      pt.table.rows.push_back({name, fmt(num(p.value("value", nlohmann::json()))),
                               p.value("fixed", false) ? "" : fmt(num(p.value("std_error", nlohmann::json())), "%.3g"),
                               ci, p.value("unit", std::string()), note});
    }
  summary.figures.push_back(std::move(pt));
  if (fit.contains("correlation") && fit["correlation"].is_object()) {
    const auto& c = fit["correlation"];
    Figure ct = make(id, "correlation", FigureKind::kTable, "Correlation of the free parameters", "", "");
    std::vector<std::string> names;
    if (c.contains("parameters")) names = c["parameters"].get<std::vector<std::string>>();
    ct.table.header.push_back("");
    for (const auto& n : names) ct.table.header.push_back(n);
    if (c.contains("matrix"))
      for (std::size_t i = 0; i < c["matrix"].size() && i < names.size(); ++i) {
        std::vector<std::string> row{names[i]};
        std::vector<double> shade{kNaN};
        for (const auto& x : c["matrix"][i]) {
          const double v = x.is_number() ? x.get<double>() : kNaN;
          row.push_back(fmt(v, "%.3f"));
          shade.push_back(v);
        }
        ct.table.rows.push_back(row);
        ct.table.shade.push_back(shade);
      }
    if (!ct.table.rows.empty()) summary.figures.push_back(std::move(ct));
  }
  Figure q = make(id, "quality", FigureKind::kTable, "Quality", "", "");
  q.table.header = {"figure", "value"};
  auto qrow = [&](const char* key, const std::string& text, const char* f = "%.6g") {
    if (fit.contains(key) && fit[key].is_number()) q.table.rows.push_back({text, fmt(fit[key].get<double>(), f)});
  };
  q.table.rows.push_back(
      {"status", fit.value("status", std::string("?")) + (fit.value("converged", false) ? "" : " (not converged)")});
  qrow("samples", "samples", "%.0f");
  qrow("free_parameters", "free parameters", "%.0f");
  qrow("rmse", "RMSE [" + force_unit() + "]");
  qrow("r_squared", "R^2", "%.6f");
  qrow("max_abs_error", "max |error| [" + force_unit() + "]");
  qrow("autocorrelation_lag1", "lag-1 autocorrelation of the residual", "%.4f");
  qrow("aic", "AIC", "%.2f");
  qrow("bic", "BIC", "%.2f");
  qrow("validation_rmse", "validation RMSE, held-out experiments [" + force_unit() + "]");
  qrow("noise_estimate", "noise estimate [" + force_unit() + "]");
  qrow("starts", "starts", "%.0f");
  qrow("starts_at_best", "starts at the best cost", "%.0f");
  qrow("seconds", "seconds");
  summary.figures.push_back(std::move(q));
  if (fit.contains("experiments") && fit["experiments"].is_array()) {
    Figure et = make(id, "experiments", FigureKind::kTable, "Experiments", "", "");
    et.table.header = {"experiment", "samples", "RMSE [" + force_unit() + "]", "held out (validation)"};
    for (const auto& e : fit["experiments"])
      et.table.rows.push_back({e.value("name", std::string()), fmt(e.value("samples", 0.0), "%.0f"),
                               e["rmse"].is_number() ? fmt(e["rmse"].get<double>()) : "n/a",
                               e.value("held_out", false) ? "yes" : "no"});
    summary.figures.push_back(std::move(et));
  }
  Figure w = make(id, "warnings", FigureKind::kText, "Warnings", "", "");
  if (fit.contains("warnings") && fit["warnings"].is_array())
    for (const auto& x : fit["warnings"])
      if (x.is_string()) w.text.push_back(x.get<std::string>());
  if (w.text.empty()) w.text.push_back("None: every free parameter is determined by the data.");
  summary.figures.push_back(std::move(w));
  doc.sections.push_back(std::move(summary));
  doc.sections.push_back(std::move(all));
  for (auto& s : per_experiment) doc.sections.push_back(std::move(s));
}

// ---------------------------------------------------------------- sweeps

void read_sweep(Document& doc, const std::string& path, const ReadOptions& o) {
  IdMaker id;
  doc.kind = "sweep";
  data::SweepFile f = data::read_sweep_file(path);
  const data::SweepMeta& m = f.meta;
  doc.title = "Sweep: " + m.model + " (" + m.design + ", " + std::to_string(m.points) + " points)";
  const data::Provenance& p = m.provenance;
  if (!p.command_line.empty()) doc.provenance.push_back({"command", p.command_line});
  doc.provenance.push_back({"stribeck version", p.toolkit_version});
  doc.provenance.push_back({"date", p.date});
  doc.provenance.push_back({"device", p.device + ", " + m.precision});
  const int obj = m.objective;
  const sweep::MetricInfo& oi = sweep::kMetricInfo[obj];
  const std::string obj_label = label(oi.name, oi.unit);
  const std::size_t dims = m.param_names.size();
  Section top{"Best points", {}};
  Figure t = make(id, "top-k", FigureKind::kTable,
                  "Top " + std::to_string(f.progress.top.size()) + " by " + oi.name + (m.maximize ? " (largest)" : ""),
                  "", "");
  t.table.header = {"rank", "point", obj_label};
  for (std::size_t d = 0; d < dims; ++d) t.table.header.push_back(label(m.param_names[d], m.param_units[d]));
  for (std::size_t r = 0; r < f.progress.top.size(); ++r) {
    const data::TopEntry& e = f.progress.top[r];
    std::vector<std::string> row{std::to_string(r + 1), std::to_string(e.index), fmt(e.objective)};
    for (std::size_t d = 0; d < dims && d < e.params.size(); ++d) row.push_back(fmt(e.params[d]));
    t.table.rows.push_back(row);
  }
  top.figures.push_back(std::move(t));
  // Counts by status.
  Figure st = make(id, "status", FigureKind::kTable, "Points by status", "", "");
  st.table.header = {"status", "points"};
  std::uint64_t counts[engine::kPointStatusCount] = {};
  for (std::uint8_t s : f.rows.status) ++counts[static_cast<int>(engine::from_sim_status(s))];
  if (f.rows.status.empty()) {  // top_k_only: the checkpoint's counts
    counts[static_cast<int>(engine::PointStatus::kInvalid)] = f.progress.invalid;
    counts[static_cast<int>(engine::PointStatus::kNonFinite)] = f.progress.nonfinite;
    counts[0] = f.progress.completed - f.progress.invalid - f.progress.nonfinite;
  }
  for (int s = 0; s < engine::kPointStatusCount; ++s)
    if (counts[s] || s == 0)
      st.table.rows.push_back(
          {engine::point_status_name(static_cast<engine::PointStatus>(s)), std::to_string(counts[s])});
  top.figures.push_back(std::move(st));
  doc.sections.push_back(std::move(top));
  if (f.rows.status.empty()) {
    doc.notes.push_back("the file holds only the top-K table (top_k_only): no profiles, maps or distributions");
    return;
  }
  const std::size_t n = f.rows.status.size();
  if (f.rows.params.size() < n * dims || f.rows.metrics.size() < n * sweep::kNumMetrics)
    throw data::InputError(path + ": the sweep's columns are shorter than its status column");
  auto metric = [&](std::size_t i, int k) { return f.rows.metrics[i * sweep::kNumMetrics + k]; };
  auto ok = [&](std::size_t i) { return f.rows.status[i] == kSimOk; };
  // 1-D profiles: the best objective over each varying parameter (grid
  // values, else 50 bins). The file lists the model's fixed parameters
  // among its coordinates too; their profile would be one point.
  Section prof{"Cost profiles", {}};
  std::size_t varying = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    std::map<double, double> best;
    std::vector<double> vals;
    for (std::size_t i = 0; i < n; ++i) vals.push_back(f.rows.params[i * dims + d]);
    std::vector<double> distinct = vals;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() < 2) continue;
    const bool grid = distinct.size() <= 256;
    const double lo = distinct.front(), hi = distinct.back();
    const int bins = 50;
    for (std::size_t i = 0; i < n; ++i) {
      const double y = metric(i, obj);
      if (!ok(i) || !std::isfinite(y)) continue;
      double key = vals[i];
      if (!grid && hi > lo)
        key = lo + (std::min(bins - 1, int((vals[i] - lo) / (hi - lo) * bins)) + 0.5) * (hi - lo) / bins;
      auto it = best.find(key);
      if (it == best.end()) best[key] = y;
      else it->second = m.maximize ? std::max(it->second, y) : std::min(it->second, y);
    }
    Figure p = make(id, "profile-" + m.param_names[d], FigureKind::kLine,
                    std::string(m.maximize ? "Largest " : "Smallest ") + oi.name + " over " + m.param_names[d],
                    label(m.param_names[d], m.param_units[d]), obj_label, varying++ == 0 ? "profile" : "");
    p.x_log = grid && log_spaced(distinct);
    Series s{std::string("best ") + oi.name, {}, {}};
    for (const auto& [x, y] : best) s.x.push_back(x), s.y.push_back(y);
    p.series.push_back(std::move(s));
    prof.figures.push_back(std::move(p));
  }
  if (varying > 0) doc.sections.push_back(std::move(prof));
  // The 2-D map of the objective over a pair: the one named by --x/--y, or
  // the first two that vary.
  if (varying < 2 && o.x.empty() && o.y.empty()) {
    doc.notes.push_back(varying == 1 ? "one varying parameter: no map, its profile shows the objective over it"
                                     : "no parameter varies: no profiles or map");
  } else {
    Section maps{"Cost map", {}};
    data::PointFile pf(path);
    workloads::HeatMapOptions ho;
    ho.metric = oi.name;
    ho.x = o.x;
    ho.y = o.y;
    ho.reduce = m.maximize ? "max" : "min";
    data::HeatMap hm = workloads::build_heat_map(pf, ho);
    Figure mf = make(id, "map", FigureKind::kHeatmap, hm.title, hm.x.label, hm.y.label, "map");
    mf.heat = to_heatmap(hm);
    maps.figures.push_back(std::move(mf));
    doc.sections.push_back(std::move(maps));
  }
  // Distributions of the kept metrics.
  Section dist{"Metric distributions (points with status ok)", {}};
  for (int k : m.metrics) {
    std::vector<double> v;
    v.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      if (ok(i)) v.push_back(metric(i, k));
    Figure h = make(id, std::string("dist-") + sweep::kMetricInfo[k].name, FigureKind::kHistogram,
                    sweep::kMetricInfo[k].description, label(sweep::kMetricInfo[k].name, sweep::kMetricInfo[k].unit),
                    "points");
    h.series.push_back(histogram(v, 40, sweep::kMetricInfo[k].name));
    dist.figures.push_back(std::move(h));
  }
  doc.sections.push_back(std::move(dist));
}

// ---------------------------------------------------------------- ensembles

// Histograms of two groups of values over the same bins (one figure's bars).
std::vector<Series> histograms(const std::vector<double>& a, const std::string& name_a, const std::vector<double>& b,
                               const std::string& name_b, int bins) {
  std::vector<double> both(a);
  both.insert(both.end(), b.begin(), b.end());
  const Series all = histogram(both, bins, "");
  std::vector<Series> out{{name_a, all.x, std::vector<double>(all.x.size(), 0.0)},
                          {name_b, all.x, std::vector<double>(all.x.size(), 0.0)}};
  if (all.x.size() < 2) {
    if (!all.x.empty()) out[0].y[0] = static_cast<double>(a.size()), out[1].y[0] = static_cast<double>(b.size());
    return out;
  }
  const double width = all.x[1] - all.x[0], lo = all.x[0] - width / 2;
  for (int k = 0; k < 2; ++k)
    for (double x : k == 0 ? a : b) out[k].y[std::clamp(static_cast<int>((x - lo) / width), 0, bins - 1)] += 1;
  return out;
}

// An ensemble drawn from a fit (simulate [ensemble] from_fit; the group's
// from_fit, from_fit_draw and drawn attributes): the probability of stick-slip with its
// Monte Carlo error and the quantiles as simulate's summary gives them
// (summarize_fit_draws over the same file), and the distributions of the
// breakaway force and the stick-slip amplitude, draws that stick and slip
// apart from the others. Nothing for other ensembles.
void add_fit_draws(Document& doc, IdMaker& id, const data::PointFile& pf, const std::string& path) {
  std::string fit, drawn, how;
  {
    const data::h5::File f = data::h5::open_file(path);
    const data::h5::Group g = data::h5::open_group(f.id(), "ensemble", path);
    if (!data::h5::has_attribute(g.id(), "from_fit")) return;
    const std::string where = path + ": group 'ensemble'";
    fit = data::h5::read_string_attribute(g.id(), "from_fit", where);
    if (data::h5::has_attribute(g.id(), "drawn")) drawn = data::h5::read_string_attribute(g.id(), "drawn", where);
    // Files written before from_fit_draw existed were drawn from the covariance.
    how = data::h5::has_attribute(g.id(), "from_fit_draw")
              ? data::h5::read_string_attribute(g.id(), "from_fit_draw", where)
              : "covariance";
  }
  // The totals simulate counted, from the status and stick_slip columns.
  workloads::EnsembleResult r;
  std::vector<double> force[2], amp[2];  // [0] stick-slip, [1] not (ok points, finite values)
  const int ks = pf.metric_index("status"), kss = pf.metric_index("stick_slip");
  const int kb = pf.metric_index("breakaway_force"), ka = pf.metric_index("amp_spring_force");
  const std::uint64_t rows = pf.rows(), block = std::uint64_t(1) << 20;
  std::vector<double> st, ss, b, a;
  for (std::uint64_t first = 0; first < rows; first += block) {
    const std::uint64_t nb = std::min(block, rows - first);
    pf.read_metric(ks, first, nb, st);
    pf.read_metric(kss, first, nb, ss);
    pf.read_metric(kb, first, nb, b);
    pf.read_metric(ka, first, nb, a);
    for (std::uint64_t i = 0; i < nb; ++i) {
      ++r.totals.status_counts[static_cast<int>(engine::from_sim_status(static_cast<int>(st[i])))];
      if (st[i] != kSimOk) continue;
      const int group = ss[i] != 0 ? 0 : 1;
      r.totals.stick_slip += group == 0;
      if (std::isfinite(b[i])) force[group].push_back(b[i]);
      if (std::isfinite(a[i])) amp[group].push_back(a[i]);
    }
  }
  const workloads::FitDrawsSummary s = workloads::summarize_fit_draws(r, path);
  Section sec{"Drawn from the fit", {}};
  Figure t = make(id, "fit-draws", FigureKind::kText, "Probability of stick-slip", "", "");
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "%llu draws of %s from the fit %s (%s): P(stick-slip) = %.4g +/- %.2g (Monte Carlo standard error; %llu "
      "draws outside the model's ranges count as not sticking).",
      static_cast<unsigned long long>(s.stick_slip.draws), drawn.empty() ? "its free parameters" : drawn.c_str(),
      fit.c_str(), how.c_str(), s.stick_slip.value, s.stick_slip.std_error, static_cast<unsigned long long>(s.outside));
  t.text.push_back(buf);
  sec.figures.push_back(std::move(t));
  Figure q = make(id, "fit-draws-quantiles", FigureKind::kTable, "Quantiles over the draws (95 % intervals)", "", "");
  q.table.header = {"metric", "5 %", "median", "95 %"};
  for (const workloads::MetricQuantiles& m : s.quantiles) {
    std::vector<std::string> row{m.unit.empty() ? m.metric : m.metric + " [" + m.unit + "]"};
    for (int i = 0; i < 3; ++i) {
      std::snprintf(buf, sizeof buf, "%.4g [%.4g, %.4g]", m.value[i], m.lo[i], m.hi[i]);
      row.push_back(buf);
    }
    q.table.rows.push_back(std::move(row));
  }
  sec.figures.push_back(std::move(q));
  for (const char* name : {"breakaway_force", "amp_spring_force"}) {
    const bool is_force = std::string(name) == "breakaway_force";
    Figure h =
        make(id, std::string("fit-draws-") + name, FigureKind::kHistogram,
             std::string(is_force ? "Breakaway force" : "Stick-slip amplitude (spring force)") + " over the draws",
             label(name, pf.metric_unit(name)), "draws");
    const auto& v = is_force ? force : amp;
    h.series = histograms(v[0], "stick-slip", v[1], "no stick-slip", 40);
    sec.figures.push_back(std::move(h));
  }
  doc.sections.push_back(std::move(sec));
}

void read_ensemble(Document& doc, const std::string& path, const ReadOptions& o) {
  IdMaker id;
  doc.kind = "ensemble";
  data::PointFile pf(path);
  try {
    add_provenance(doc, data::read_results(path, "ensemble", false).provenance);
  } catch (const data::InputError&) {}
  doc.title = "Ensemble: " + std::to_string(pf.rows()) + " simulations";
  const std::uint64_t rows = pf.rows();
  if (rows == 0) throw data::InputError(path + ": the ensemble holds no points");
  Section maps{"Stick-slip maps", {}};
  // The quantities that take more than one value (a fixed one is listed
  // among the coordinates too), read until each differs from its first row.
  const std::uint64_t block = std::uint64_t(1) << 20;
  std::vector<int> varying;
  std::vector<double> col;
  for (int d = 0; d < static_cast<int>(pf.dimensions().size()); ++d)
    for (std::uint64_t first = 0; first < rows; first += block) {
      pf.read_dimension(d, first, std::min(block, rows - first), col);
      if (std::any_of(col.begin(), col.end(), [&](double x) { return !(x == col[0]); })) {
        varying.push_back(d);
        break;
      }
    }
  if (varying.size() >= 2 || !o.x.empty() || !o.y.empty()) {
    bool first = true;
    for (const char* name : {"stick_slip", "amp_spring_force", "stick_fraction"}) {
      const auto& ms = pf.metrics();
      if (std::find(ms.begin(), ms.end(), name) == ms.end()) continue;
      workloads::HeatMapOptions ho;
      ho.metric = name;
      ho.x = o.x;
      ho.y = o.y;
      ho.reduce = std::string(name) == "amp_spring_force" ? "max" : "mean";
      data::HeatMap hm = workloads::build_heat_map(pf, ho);
      Figure mf = make(id, std::string("map-") + name, FigureKind::kHeatmap, hm.title, hm.x.label, hm.y.label,
                       first ? "map" : "");
      first = false;
      mf.heat = to_heatmap(hm);
      maps.figures.push_back(std::move(mf));
    }
  } else if (varying.size() == 1) {
    // The map metrics over the one varying quantity (ok points, in its order).
    doc.notes.push_back("one varying quantity: no maps, the metrics are drawn over it");
    const int d = varying[0];
    const std::string& dim = pf.dimensions()[static_cast<std::size_t>(d)];
    const std::string& unit = pf.dimension_units()[static_cast<std::size_t>(d)];
    maps.title = "Stick-slip over " + dim;
    bool first = true;
    for (const char* name : {"stick_slip", "amp_spring_force", "stick_fraction"}) {
      const auto& ms = pf.metrics();
      if (std::find(ms.begin(), ms.end(), name) == ms.end()) continue;
      const int k = pf.metric_index(name);
      std::vector<std::pair<double, double>> xy;
      std::vector<double> x, y;
      std::vector<std::uint8_t> okv;
      for (std::uint64_t b = 0; b < rows; b += block) {
        const std::uint64_t nb = std::min(block, rows - b);
        pf.read_dimension(d, b, nb, x);
        pf.read_metric(k, b, nb, y);
        pf.read_ok(b, nb, okv);
        for (std::uint64_t i = 0; i < nb; ++i)
          if (okv[i] && std::isfinite(x[i]) && std::isfinite(y[i])) xy.emplace_back(x[i], y[i]);
      }
      std::sort(xy.begin(), xy.end());
      Figure f = make(id, std::string("over-") + name, FigureKind::kLine, std::string(name) + " over " + dim,
                      label(dim, unit), label(name, pf.metric_unit(name)), first ? "profile" : "");
      first = false;
      Series s{name, {}, {}};
      for (const auto& [a, v] : xy) s.x.push_back(a), s.y.push_back(v);
      std::vector<double> distinct = s.x;
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      f.x_log = log_spaced(distinct);
      f.series.push_back(std::move(s));
      maps.figures.push_back(std::move(f));
    }
  } else {
    doc.notes.push_back("no quantity varies: no maps");
  }
  // Metric distributions and status counts, read a block at a time.
  Section dist{"Metric distributions (points with status ok)", {}};
  std::vector<std::uint8_t> okv;
  std::uint64_t counts[engine::kPointStatusCount] = {};
  for (const std::string& name : pf.metrics()) {
    const int k = pf.metric_index(name);
    std::vector<double> v;  // finite values of ok points (held: a report of 1e8 points reads 800 MB here)
    for (std::uint64_t first = 0; first < rows; first += block) {
      const std::uint64_t nb = std::min(block, rows - first);
      pf.read_metric(k, first, nb, col);
      if (name == "status") {
        for (double c : col) ++counts[static_cast<int>(engine::from_sim_status(int(c)))];
        continue;
      }
      pf.read_ok(first, nb, okv);
      for (std::uint64_t i = 0; i < nb; ++i)
        if (okv[i] && std::isfinite(col[i])) v.push_back(col[i]);
    }
    if (name == "status") continue;
    Figure h = make(id, "dist-" + name, FigureKind::kHistogram, name, label(name, pf.metric_unit(name)), "points");
    h.series.push_back(histogram(v, 40, name));
    dist.figures.push_back(std::move(h));
  }
  Figure st = make(id, "status", FigureKind::kTable, "Points by status", "", "");
  st.table.header = {"status", "points"};
  for (int s = 0; s < engine::kPointStatusCount; ++s)
    if (counts[s] || s == 0)
      st.table.rows.push_back(
          {engine::point_status_name(static_cast<engine::PointStatus>(s)), std::to_string(counts[s])});
  maps.figures.push_back(std::move(st));
  add_fit_draws(doc, id, pf, path);
  doc.sections.push_back(std::move(maps));
  doc.sections.push_back(std::move(dist));
}

// ---------------------------------------------------------------- batch fits

// identify --batch -o: a table of the fits (name, status, RMSE, each
// parameter with its 95 % interval), each parameter and the RMSE over the
// fits (the interval as a band), and the maps of stribeck map over the
// experiments' operating points where two of them vary.
void read_batch_fit(Document& doc, const std::string& path, const ReadOptions& o) {
  IdMaker id;
  doc.kind = "batch-fit";
  const data::Results r = data::read_results(path, "batch_fit");
  add_provenance(doc, r.provenance);
  const std::string at = path + ": results group 'batch_fit'";
  auto attribute = [&](const char* k) {
    const auto it = r.attributes.find(k);
    if (it == r.attributes.end()) throw data::InputError(at + ": no attribute '" + k + "'");
    return it->second;
  };
  if (r.attributes.count("checkpoint_rows"))
    throw data::InputError(at + ": the batch is not finished (continue it with identify --batch --resume)");
  const std::vector<std::string> params = data::split_names(attribute("parameters"));
  std::vector<std::string> units = data::split_names(attribute("parameter_units"));
  units.resize(params.size());
  const std::string model = attribute("model");
  const std::string force_unit = r.attributes.count("force_unit") ? r.attributes.at("force_unit") : "N";
  // Format 1 named the parameter columns NAME (data-format.md, "Batch-fit results").
  const std::string prefix = r.attributes.count("format_version") ? "param_" : "";
  auto column = [&](const std::string& name) -> const std::vector<double>* {
    for (const auto& d : r.datasets)
      if (d.name == name) return &d.values;
    return nullptr;
  };
  const std::vector<double>& status = *dataset(r, "status", path);
  const std::vector<double>& fit_status = *dataset(r, "fit_status", path);
  const std::vector<double>& rmse = *dataset(r, "rmse", path);
  const std::size_t n = status.size();
  if (n == 0) throw data::InputError(at + ": holds no fits");
  for (const auto* c : {&fit_status, &rmse})
    if (c->size() != n) throw data::InputError(at + ": its columns differ in length");
  std::vector<std::string> names;
  try {
    names = data::read_text_column(path, "batch_fit", "experiment_name");
  } catch (const data::InputError&) {  // files of format 1: the experiment's index in its log
    const std::vector<double>* e = column("experiment");
    const std::vector<double>* l = column("log");
    for (std::size_t i = 0; i < n; ++i)
      names.push_back(e && l ? "log " + fmt((*l)[i], "%.0f") + ", experiment " + fmt((*e)[i], "%.0f") : fmt(double(i)));
  }
  names.resize(n);
  doc.title = "Batch fit: " + model + ", " + std::to_string(n) + (n == 1 ? " experiment" : " experiments");

  Section fits{"Fits", {}};
  std::uint64_t counts[ident::kBatchFitStatusCount] = {};
  for (double s : fit_status)
    if (s >= 0 && s < ident::kBatchFitStatusCount) ++counts[static_cast<int>(s)];
  Figure st = make(id, "fit-status", FigureKind::kTable, "Fits by status", "", "");
  st.table.header = {"fit status", "fits"};
  for (int k = 0; k < ident::kBatchFitStatusCount; ++k)
    if (counts[k] || k == 0)
      st.table.rows.push_back(
          {ident::batch_fit_status_name(static_cast<ident::BatchFitStatus>(k)), std::to_string(counts[k])});
  fits.figures.push_back(std::move(st));
  // The table: every fit up to kRows (the file holds them all).
  constexpr std::size_t kRows = 2000;
  Figure t = make(id, "fits", FigureKind::kTable, "Fits (value and 95 % interval of each parameter)", "", "");
  t.table.header = {"fit", "experiment", "status", "RMSE [" + force_unit + "]"};
  struct Param {
    const std::vector<double>*value, *lo, *hi;
  };
  std::vector<Param> ps;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const std::string c = prefix + params[k];
    ps.push_back({column(c), column(c + "_ci95_lo"), column(c + "_ci95_hi")});
    if (!ps.back().value || ps.back().value->size() != n)
      throw data::InputError(at + ": no column '" + c + "' of " + std::to_string(n) + " fits for parameter " +
                             params[k]);
    Param& p = ps.back();
    if (p.lo && p.lo->size() != n) p.lo = nullptr;
    if (p.hi && p.hi->size() != n) p.hi = nullptr;
    t.table.header.push_back(label(params[k], units[k]));
  }
  for (std::size_t i = 0; i < n && i < kRows; ++i) {
    const int fs = static_cast<int>(fit_status[i]);
    std::vector<std::string> row{std::to_string(i), names[i],
                                 fs >= 0 && fs < ident::kBatchFitStatusCount
                                     ? ident::batch_fit_status_name(static_cast<ident::BatchFitStatus>(fs))
                                     : "?",
                                 fmt(rmse[i])};
    for (const Param& p : ps) {
      std::string cell = fmt((*p.value)[i]);
      if (p.lo && p.hi && std::isfinite((*p.lo)[i]) && std::isfinite((*p.hi)[i]))
        cell += " [" + fmt((*p.lo)[i]) + ", " + fmt((*p.hi)[i]) + "]";
      row.push_back(cell);
    }
    t.table.rows.push_back(std::move(row));
  }
  if (n > kRows)
    doc.notes.push_back("the table shows the first " + std::to_string(kRows) + " of " + std::to_string(n) +
                        " fits; the figures and the file hold them all");
  fits.figures.push_back(std::move(t));
  doc.sections.push_back(std::move(fits));

  // Each parameter (and the RMSE) over the fits that were fitted, in batch
  // order, with its 95 % interval as a band where the fits have one.
  Section over{"Parameters over the fits", {}};
  const std::string x_label = label("fit", "1");
  auto figure = [&](const std::string& name, const std::string& unit, const std::vector<double>& v,
                    const std::vector<double>* lo, const std::vector<double>* hi, const std::string& what) {
    Figure f = make(id, "over-" + name, FigureKind::kScatter, name + " of each fit", x_label, label(name, unit), what);
    Series s{name, {}, {}}, l{"95 % interval, lower end", {}, {}, true}, h{"95 % interval, upper end", {}, {}, true};
    for (std::size_t i = 0; i < n; ++i) {
      if (status[i] != 0 || !std::isfinite(v[i])) continue;
      s.x.push_back(double(i)), s.y.push_back(v[i]);
      if (lo && hi && std::isfinite((*lo)[i]) && std::isfinite((*hi)[i]))
        l.x.push_back(double(i)), l.y.push_back((*lo)[i]), h.x.push_back(double(i)), h.y.push_back((*hi)[i]);
    }
    if (s.x.empty()) return;  // a parameter no fit determined: no empty figure
    f.series.push_back(decimate_minmax(s, o.columns));
    if (!l.x.empty()) {
      f.series.push_back(decimate_minmax(l, o.columns));
      f.series.push_back(decimate_minmax(h, o.columns));
    }
    over.figures.push_back(std::move(f));
  };
  for (std::size_t k = 0; k < params.size(); ++k)
    figure(params[k], units[k], *ps[k].value, ps[k].lo, ps[k].hi, over.figures.empty() ? "profile" : "");
  figure("rmse", force_unit, rmse, nullptr, nullptr, "");
  if (!over.figures.empty()) doc.sections.push_back(std::move(over));

  // The maps of stribeck map: RMSE and each parameter over two operating
  // points that vary (mean over the converged fits of a cell).
  std::unique_ptr<data::PointFile> pf;
  std::string why;
  auto reason = [&](const data::InputError& e) {  // without the path the page names already
    const std::string m = e.what();
    return m.rfind(path + ": ", 0) == 0 ? m.substr(path.size() + 2) : m;
  };
  try {
    pf = std::make_unique<data::PointFile>(path);
  } catch (const data::InputError& e) {
    why = reason(e);
  }
  Section maps{"Maps over the operating points", {}};
  if (pf) {
    std::vector<std::string> metrics{"rmse"};
    for (const auto& p : params) metrics.push_back(prefix + p);
    for (const auto& m : metrics) {
      workloads::HeatMapOptions ho;
      ho.metric = m;
      ho.x = o.x;
      ho.y = o.y;
      ho.reduce = "mean";
      try {
        data::HeatMap hm = workloads::build_heat_map(*pf, ho);
        Figure mf = make(id, "map-" + m, FigureKind::kHeatmap, hm.title, hm.x.label, hm.y.label,
                         maps.figures.empty() ? "map" : "");
        mf.heat = to_heatmap(hm);
        maps.figures.push_back(std::move(mf));
      } catch (const data::InputError& e) {
        why = reason(e);
        break;
      }
    }
  }
  if (!maps.figures.empty()) doc.sections.push_back(std::move(maps));
  else doc.notes.push_back("no maps: " + why);
}

// ---------------------------------------------------------------- one simulation

void read_simulation(Document& doc, const std::string& path, const ReadOptions& o) {
  IdMaker id;
  doc.kind = "simulation";
  std::vector<data::Experiment> exps = data::read_log(path);
  const data::Experiment& e = data::select_experiment(exps, "simulation", path);
  if (!e.has("time")) throw data::InputError(path + ": experiment 'simulation' has no channel 'time'");
  const auto& t = e.channel("time");
  const bool rot = e.attributes.count("motion") && e.attributes.at("motion") == "rotational";
  doc.title = "Simulation: " + (e.attributes.count("model") ? e.attributes.at("model") : std::string("?")) +
              (e.attributes.count("form") ? " (" + e.attributes.at("form") + ")" : "");
  try {
    add_provenance(doc, data::read_results(path, "results/metrics").provenance);
  } catch (const data::InputError&) {}
  Section ts{"Time series", {}};
  struct Ch {
    const char* name;
    const char* title;
  };
  const Ch chans[] = {{"position", rot ? "Angle" : "Position"},
                      {"velocity", rot ? "Angular velocity" : "Velocity"},
                      {"friction_force", rot ? "Friction torque" : "Friction force"},
                      {"friction_state", "Bristle (friction) state"},
                      {"spring_force", rot ? "Spring torque" : "Spring force"}};
  for (const Ch& c : chans) {
    if (!e.has(c.name)) continue;
    const std::string unit = e.units.count(c.name) ? e.units.at(c.name) : "";
    Figure f = make(id, c.name, FigureKind::kLine, c.title, label("time", "s"), label(c.name, unit),
                    std::string(c.name) == "friction_force" ? "timeseries" : "");
    f.series.push_back(decimate_minmax({c.name, t, e.channel(c.name)}, o.columns));
    ts.figures.push_back(std::move(f));
  }
  if (ts.figures.empty()) throw data::InputError(path + ": experiment 'simulation' has none of the simulated channels");
  Section loop{"Friction against velocity", {}};
  const char* vname = e.has("sliding_velocity") ? "sliding_velocity" : "velocity";
  if (e.has(vname) && e.has("friction_force")) {
    Figure f = make(id, "friction-velocity", FigureKind::kScatter, "Friction-velocity loop",
                    label(vname, e.units.count(vname) ? e.units.at(vname) : ""),
                    label("friction_force", e.units.count("friction_force") ? e.units.at("friction_force") : ""),
                    "force-velocity");
    f.series.push_back(strided("friction", e.channel(vname), e.channel("friction_force"), 2 * o.columns));
    loop.figures.push_back(std::move(f));
  }
  try {
    data::Results r = data::read_results(path, "results/metrics");
    Figure mt = make(id, "metrics", FigureKind::kTable, "Stick-slip metrics", "", "");
    mt.table.header = {"metric", "value", "unit"};
    // The status in words (the experiment's attribute) replaces its code.
    const bool status_word = e.attributes.count("status") != 0;
    if (status_word) mt.table.rows.push_back({"status", e.attributes.at("status"), ""});
    for (const auto& d : r.datasets)
      if (!(status_word && d.name == "status"))
        mt.table.rows.push_back({d.name, d.values.empty() ? "n/a" : fmt(d.values[0]), d.units});
    loop.figures.push_back(std::move(mt));
  } catch (const data::InputError&) {}
  doc.sections.push_back(std::move(ts));
  doc.sections.push_back(std::move(loop));
}

}  // namespace

const char* kind_name(FigureKind k) {
  switch (k) {
    case FigureKind::kLine: return "line";
    case FigureKind::kScatter: return "scatter";
    case FigureKind::kHistogram: return "histogram";
    case FigureKind::kHeatmap: return "heatmap";
    case FigureKind::kTable: return "table";
    case FigureKind::kText: return "text";
  }
  return "?";
}

Series decimate_minmax(const Series& s, std::size_t columns) {
  columns = std::max<std::size_t>(columns, 1);
  Series out{s.name, {}, {}, s.line};
  const std::size_t n = std::min(s.x.size(), s.y.size());
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0;
  std::size_t finite = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]), ++finite;
  if (finite <= 2 * columns || !(x1 > x0)) {
    for (std::size_t i = 0; i < n; ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) out.x.push_back(s.x[i]), out.y.push_back(s.y[i]);
    return out;
  }
  std::size_t lo = n, hi = n, col = 0;
  auto flush = [&] {
    if (lo == n) return;
    const std::size_t a = std::min(lo, hi), b = std::max(lo, hi);
    out.x.push_back(s.x[a]), out.y.push_back(s.y[a]);
    if (b != a) out.x.push_back(s.x[b]), out.y.push_back(s.y[b]);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
    const std::size_t c = std::min(columns - 1, static_cast<std::size_t>((s.x[i] - x0) / (x1 - x0) * double(columns)));
    if (c != col || lo == n) {
      if (c != col) flush(), lo = hi = n;
      col = c;
    }
    if (lo == n || s.y[i] < s.y[lo]) lo = i;
    if (hi == n || s.y[i] > s.y[hi]) hi = i;
  }
  flush();
  return out;
}

// An error of a reader about `path`, without the path it starts with (the
// caller's message names it once).
std::string cause(const data::InputError& e, const std::string& path) {
  std::string m = e.what();
  if (m.rfind(path + ": ", 0) == 0) m.erase(0, path.size() + 2);
  return m;
}

Document read_document(const std::string& path, const ReadOptions& o) {
  Document doc;
  doc.source = path;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    throw data::InputError(path + ": cannot open the result file");
  }
  if (!o.log.empty()) {
    if (std::FILE* f = std::fopen(o.log.c_str(), "rb")) std::fclose(f);
    else throw data::InputError(o.log + ": cannot open the log (--log)");
  }
  if (data::is_sweep_file(path)) {
    read_sweep(doc, path, o);
    return doc;
  }
  if (ident::is_batch_fit_file(path)) {
    read_batch_fit(doc, path, o);
    return doc;
  }
  std::vector<std::string> groups;
  try {
    groups = data::list_results(path);
  } catch (const data::InputError& e) {
    throw data::InputError(
        path +
        ": not a result file of stribeck (identify -o, identify --batch -o, sweep, simulate): " + cause(e, path));
  }
  std::vector<std::string> ident;
  std::string prefix = o.group;
  for (const auto& g : groups) {
    const std::string top = g.substr(g.front() == '/' ? 1 : 0);
    if (top.rfind("identify_", 0) != 0) continue;
    const std::string p = top.substr(0, top.find('/'));
    if (prefix.empty()) prefix = p;
    if (p == prefix) ident.push_back(g);
  }
  if (!ident.empty()) {
    read_identification(doc, path, ident, o);
    return doc;
  }
  if (!o.group.empty()) throw data::InputError(path + ": no results group '" + o.group + "'");
  for (const auto& g : groups)
    if (g == "results/metrics" || g == "/results/metrics") {
      read_simulation(doc, path, o);
      return doc;
    }
  try {
    data::PointFile probe(path);
  } catch (const data::InputError& e) {
    throw data::InputError(
        path +
        ": not a result file of stribeck (no identify_* results, sweep, ensemble or simulation): " + cause(e, path));
  }
  read_ensemble(doc, path, o);
  return doc;
}

}  // namespace stribeck::report
