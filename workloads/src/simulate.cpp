// `stribeck simulate`: run one body system and write its time series.
#include <unistd.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/simulate.hpp"

#include "stribeck/engine/records.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"
#include "stribeck/kernels/systems/stiction.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::workloads {
namespace {

// Drive position x_d(t) = integral of the drive velocity profile, x_d(0) = 0.
double drive_position(const Profile<double>& p, double t) {
  double x = p.offset * t + 0.5 * p.slope * t * t;
  if (p.amplitude != 0 && p.frequency > 0) {
    const double w = kTwoPi * p.frequency;
    x += p.amplitude * (1 - std::cos(w * t)) / w;
  }
  return x;
}

// Collects every output signal and the metrics as the simulation runs.
// The system with the measured input tables attached to its profiles (the
// pointers refer into c.tables, which outlive the simulation).
BodySystem<double> with_tables(const SimulateConfig& c) {
  BodySystem<double> b = c.body;
  for (const auto& tab : c.tables) {
    Profile<double>* p = measured_input_profile(b, tab.channel);
    if (!p) continue;
    p->table_t = tab.t.data();
    p->table_y = tab.y.data();
    p->table_n = static_cast<int>(tab.t.size());
  }
  return b;
}

struct Collector {
  const SimulateConfig& c;
  const BodySystem<double>& body;
  const ModelInfo& m;
  bool pressures, normal;
  MetricsAccumulator<double> acc;
  std::vector<SeriesChannel> ch;

  Collector(const SimulateConfig& cfg, const BodySystem<double>& b, const ModelInfo& model)
      : c(cfg), body(b), m(model), acc(cfg.metrics, cfg.sim.t_end) {
    const bool rot = c.rotational;
    const char* len = rot ? "rad" : "m";
    const char* vel = rot ? "rad/s" : "m/s";
    const char* frc = rot ? "N*m" : "N";
    pressures = body.area_a != 0 || body.area_b != 0 || m.needs(kChannelPressureA) || m.needs(kChannelPressureB);
    normal = m.needs(kChannelNormalForce);
    const std::initializer_list<SeriesChannel> always = {
        {"time", "s", "time", {}},
        {"position", len, "position of the body", {}},
        {"velocity", vel, "velocity of the body", {}},
        {"drive_velocity", vel, "velocity of the drive (spring end)", {}},
        {"sliding_velocity", vel, "velocity of the body relative to the counter-surface", {}},
        {"spring_elongation", len, "elongation of the drive spring", {}},
        {"spring_force", frc, "force of the drive spring on the body", {}},
        {"friction_force", frc, "friction force on the body", {}},
        {"stick_state", "1", "0 while stuck, +1 or -1 sliding forward or backward", {}},
        {"work_drive", "J", "work done by the drive since the start", {}},
        {"work_external", "J", "work done by the external force since the start", {}},
        {"work_friction", "J", "work dissipated by friction since the start", {}},
        {"work_damper", "J", "work dissipated by the damper since the start", {}}};
    ch.assign(always.begin(), always.end());
    if (m.dynamic) ch.push_back({"friction_state", m.state_unit, "internal friction state (bristle deflection)", {}});
    if (pressures) {
      ch.push_back({"pressure_a", "Pa", "pressure in chamber A (gauge)", {}});
      ch.push_back({"pressure_b", "Pa", "pressure in chamber B (gauge)", {}});
    }
    if (normal) ch.push_back({"normal_force", "N", "normal force on the contact", {}});
    const size_t n = static_cast<size_t>(sim_num_steps(c.sim)) + 1;
    for (auto& x : ch) x.values.reserve(n);
  }

  // The time series ends at the last finite sample: a trajectory that goes
  // non-finite (status non-finite) stops there, and a log holds no NaN.
  bool finite = true;
  std::vector<double> row;

  void operator()(const BodySnapshot<double>& s) {
    acc(s);
    if (!finite) return;
    const double t = s.t;
    row = {t,
           drive_position(body.drive_velocity, t) - s.x[kBodyS],
           s.x[kBodyV],
           s.v_drive,
           s.v_rel,
           s.x[kBodyS],
           s.f_spring,
           s.f_fric,
           double(s.mode),
           s.x[kBodyWDrive],
           s.x[kBodyWExt],
           s.x[kBodyWFric],
           s.x[kBodyWDamp]};
    if (m.dynamic) row.push_back(s.x[kBodyZ]);
    if (pressures) {
      row.push_back(body.pressure_a.value(t));
      row.push_back(body.pressure_b.value(t));
    }
    if (normal) row.push_back(body.normal_force.value(t));
    for (double x : row) finite = finite && std::isfinite(x);
    if (!finite) return;
    for (size_t i = 0; i < row.size(); ++i) ch[i].values.push_back(row[i]);
  }
};

// The CSV is the header line and rows (what pandas.read_csv reads as it is);
// the run's model, status, metrics and units go to its sidecar OUT.csv.json.
void write_csv(const std::string& path, const std::vector<SeriesChannel>& ch, const StickSlipMetrics<double>& r,
               const SimulateConfig& c, const std::string& command_line) {
  data::AtomicFile out(path), sidecar(data::csv_sidecar_path(path));
  std::vector<data::CsvColumn> columns;
  for (const auto& x : ch) columns.push_back({x.name, x.unit});
  sidecar.write(data::csv_sidecar_json("simulation", columns,
                                       {{"source", c.source},
                                        {"model", c.model},
                                        {"form", c.stiction ? "stiction" : "smooth"},
                                        {"motion", c.rotational ? "rotational" : "translational"},
                                        {"status", sim_status_name(r.status)},
                                        {"config", c.text}},
                                       stick_slip_metric_columns(r), command_line));
  sidecar.close_stream();
  std::string text;
  for (size_t i = 0; i < ch.size(); ++i) {
    if (i) text += ',';
    data::append_csv_field(text, ch[i].name);
  }
  text += '\n';
  const size_t n = ch[0].values.size();
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < ch.size(); ++i) {
      if (i) text += ',';
      append_double(text, ch[i].values[k]);
    }
    text += '\n';
    if (text.size() > (1u << 20) || k + 1 == n) {
      out.write(text);
      text.clear();
    }
  }
  out.commit();
  sidecar.commit();
}

void write_hdf5(const std::string& path, std::vector<SeriesChannel>& ch, const StickSlipMetrics<double>& r,
                const SimulateConfig& c, const std::string& command_line) {
  data::Experiment e;
  e.name = "simulation";
  e.source = path;
  for (auto& x : ch) {
    e.units[x.name] = x.unit;
    e.channel_attributes[x.name]["long_name"] = x.long_name;
    e.channels[x.name] = std::move(x.values);
  }
  e.attributes["model"] = c.model;
  e.attributes["form"] = c.stiction ? "stiction" : "smooth";
  e.attributes["motion"] = c.rotational ? "rotational" : "translational";
  e.attributes["status"] = sim_status_name(r.status);
  data::Provenance prov;
  prov.command_line = command_line;
  prov.config = c.text;
  prov.device = "cpu";
  data::Results res;
  res.group = "results/metrics";
  double row[engine::kStickSlipFieldCount];
  engine::pack(r, row);
  for (std::size_t k = 0; k < engine::kStickSlipFieldCount; ++k) {
    const engine::FieldInfo& f = engine::kStickSlipFields[k];
    res.datasets.push_back(
        {f.name, {}, {row[k]}, c.rotational ? engine::rotational_units(f.units) : f.units, f.long_name});
  }
  res.attributes["model"] = c.model;
  res.attributes["status"] = sim_status_name(r.status);
  res.provenance = prov;
  data::AtomicFile out(path);
  out.fill([&] {
    data::write_log(out.temp_path(), {e}, prov);
    data::append_results(out.temp_path(), res, /*in_place=*/true);
  });
  out.commit();
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

}  // namespace

std::string stiction_breakaway_message(const std::string& id, int side, double brk, double slide0) {
  return "breakaway = " + format_number(brk) + " is below the sliding force " + format_number(slide0) + " of " + id +
         (side > 0 ? " just above zero velocity, on the positive side (v > 0)"
                   : " just below zero velocity, on the negative side (v < 0)") +
         "; it must be > 0 and >= it there, or the contact chatters";
}

SimulationSeries simulate_series(const SimulateConfig& c) {
  const ModelInfo& m = require_model(c.model);
  // The channels and their copies on the way to the file take about 350 B
  // per output sample (measured: 1.67 GB for 5e6 samples).
  const double samples = static_cast<double>(sim_num_steps(c.sim)) + 1, need = 350 * samples;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 && need > 0.8 * double(pages) * double(page))
    throw data::InputError(c.source + ": [simulation]: t_end/dt gives " + format_number(samples) +
                           " output samples, about " + format_number(std::round(need / 1e8) / 10) +
                           " GB to hold, more than 80 % of this machine's memory; "
                           "raise dt or shorten t_end");
  const BodySystem<double> body = with_tables(c);
  Collector col(c, body, m);
  int status = kSimOk;
  long steps = 0;
  BodySnapshot<double> last;
  visit_model(c.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto fc = M::prepare(c.params.data());
    if constexpr (M::kDynamic) {
      status = simulate_smooth<M>(fc, body, c.sim, col, &steps, &last);
    } else if (c.stiction) {
      // The contact must hold at least what the law pulls just off zero
      // speed on each side, or it breaks away and re-sticks forever.
      StictionBreakaway<double> brk;
      const std::string why = stiction_breakaway_problem<M>(c, body, c.params.data(), brk);
      if (!why.empty()) throw data::InputError(c.source + ": [friction]: " + why);
      status = simulate_stiction<M>(fc, brk, body, c.sim, col, &steps, &last);
    } else {
      status = simulate_smooth<M>(fc, body, c.sim, col, &steps, &last);
    }
  });
  if (status == kSimInvalid)
    throw data::InputError(c.source + ": [friction]: " + m.id +
                           " with these parameters cannot be simulated as an ODE "
                           "(dahl needs alpha >= 1 in systems; see docs/dynamics.md)");
  SimulateSummary s;
  s.metrics = status == kSimInvalid ? col.acc.finish(status) : col.acc.finish(status, last);
  s.metrics.steps = steps;
  s.samples = static_cast<long>(col.ch[0].values.size());
  if (s.samples == 0)
    throw data::InputError(c.source + ": the simulation is not finite from its first sample (status " +
                           sim_status_name(status) + "): check the inputs and parameters; nothing written");
  SimulationSeries out;
  out.summary = s;
  out.channels = std::move(col.ch);
  return out;
}

SimulateSummary run_simulation(const SimulateConfig& c, const std::string& output, const std::string& command_line) {
  SimulationSeries r = simulate_series(c);
  if (ends_with(output, ".csv")) write_csv(output, r.channels, r.summary.metrics, c, command_line);
  else write_hdf5(output, r.channels, r.summary.metrics, c, command_line);
  return r.summary;
}

std::vector<std::pair<std::string, double>> stick_slip_metric_columns(const StickSlipMetrics<double>& r) {
  return engine::named_values(r);
}

}  // namespace stribeck::workloads
