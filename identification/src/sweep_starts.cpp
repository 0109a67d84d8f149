#include "sweep_starts.hpp"

#include <algorithm>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/sweep.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck::ident::detail {

bool sweep_can_seed(const Layout& L) {
  if (L.asymmetric) return false;
  for (const auto& m : L.model_map)
    if (m[0] != L.model_map[0][0]) return false;  // per-experiment model parameters
  return true;
}

std::vector<std::vector<double>> sweep_starts(const ModelInfo& model, const Layout& L,
                                              const std::vector<Prepared>& data, const std::vector<int>& train,
                                              const std::vector<BoxAxis>& box, int k, int points, std::uint64_t seed,
                                              std::string* device) {
  workloads::SweepSpec c;
  c.model = model.id;
  c.design = sweep::Design::kSobol;
  c.points = static_cast<std::uint64_t>(std::max(1, points));
  c.seed = seed;
  c.top_k = std::max(1, k);
  c.objective = sweep::kRmse;
  c.metrics = {sweep::kRmse};
  c.where = "identify";
  for (size_t j = 0; j < model.params.size(); ++j) {
    const FitParam& p = L.params[L.model_map[0][0][j]];
    workloads::ParamSpec s;
    s.name = model.params[j].name;
    s.where = "identify";
    s.kind = sweep::AxisKind::kFixed;
    s.a = p.value;
    if (!p.fixed) {
      const auto free = L.free_indices();
      const size_t f = std::find(free.begin(), free.end(), L.model_map[0][0][j]) - free.begin();
      s.kind = box[f].log ? sweep::AxisKind::kLogUniform : sweep::AxisKind::kUniform;
      s.a = box[f].lo;
      s.b = box[f].hi;
    }
    c.params.push_back(s);
  }
  // The force the model must explain: measured minus known terms minus the
  // initial offset (at most ~4000 samples: the coarse stage ranks, Ceres refines).
  std::vector<workloads::SweepTrace> traces;
  long n = 0;
  for (int e : train) n += static_cast<long>(data[e].size());
  const size_t stride = std::max<size_t>(1, n / 4000);
  for (int e : train) {
    const Prepared& d = data[e];
    const double offset = L.offset[e] >= 0 ? L.params[L.offset[e]].value : 0.0;
    const double mass = L.mass >= 0 ? L.params[L.mass].value : 0.0;
    data::Experiment x;
    x.name = d.name;
    x.source = "identify";
    for (const char* ch : {"time", "velocity", "pressure_a", "pressure_b", "normal_force", "force"})
      x.channels[ch] = {};
    for (size_t i = 0; i < d.size(); i += stride) {
      x.channels["time"].push_back(1e-3 * static_cast<double>(x.channels["time"].size()));
      x.channels["velocity"].push_back(d.v[i]);
      x.channels["pressure_a"].push_back(d.pa[i]);
      x.channels["pressure_b"].push_back(d.pb[i]);
      x.channels["normal_force"].push_back(d.fn[i]);
      x.channels["force"].push_back(d.y[i] - offset - (mass != 0.0 ? mass * d.acc[i] : 0.0));
    }
    if (x.size() >= 2) traces.push_back(workloads::make_sweep_trace(model, x));
  }
  // (The caller falls back to its residual search, with a warning.)
  if (traces.empty()) throw data::InputError("no experiment has two samples to rank a design on");
  const workloads::SweepPlan plan = workloads::plan_sweep(c, std::move(traces));
  workloads::SweepRunOptions ro;
  // Decided here so the sweep does not print its fallback note: the fit
  // reports the device in its summary instead.
  ro.device = workloads::choose_device("auto").gpu ? "gpu" : "cpu";
  const workloads::SweepSummary s = workloads::run_sweep(plan, ro);
  if (device) *device = s.device;
  std::vector<std::vector<double>> starts;
  for (const data::TopEntry& t : s.top) {
    std::vector<double> v;
    for (const auto& p : L.params) v.push_back(p.value);
    for (size_t j = 0; j < model.params.size(); ++j) v[L.model_map[0][0][j]] = t.params[j];
    starts.push_back(std::move(v));
  }
  return starts;
}

}  // namespace stribeck::ident::detail
