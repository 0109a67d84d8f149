#include "stribeck/identification/results_io.hpp"

#include <cstdio>

#include "stribeck/data/output_lock.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck::ident {
namespace {

bool root_has(const std::string& path, const std::string& name) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fclose(f);
  data::h5::File file = data::h5::open_file(path, false);
  return data::h5::has_child(file.id(), name);
}

std::string clean(std::string s) {
  for (char& c : s)
    if (c == '/' || c == '.') c = '_';
  return s;
}

}  // namespace

data::Results fit_group_summary(const FitSummary& s, const ExperimentFit& e, const std::string& fit_json) {
  data::Results r;
  r.attributes = {{"model", s.model}, {"experiment", e.name}, {"status", status_name(s.status)}, {"fit", fit_json}};
  r.numbers = {{"rmse", e.rmse}};
  r.flags = {{"converged", s.converged}, {"held_out", e.held_out}};
  // One variable per parameter, so xarray and h5py see each with its units.
  for (const auto& p : s.parameters) {
    const std::string n = "param_" + clean(p.name), u = p.unit.empty() ? "1" : p.unit;
    r.datasets.push_back({n, {}, {p.value}, u, "estimate of " + p.name});
    r.datasets.push_back({n + "_std_error", {}, {p.std_error}, u, "standard error of " + p.name});
    r.datasets.push_back({n + "_ci95_lo", {}, {p.ci95_lo}, u, "95 % interval of " + p.name + ", lower end"});
    r.datasets.push_back({n + "_ci95_hi", {}, {p.ci95_hi}, u, "95 % interval of " + p.name + ", upper end"});
  }
  return r;
}

std::string write_fit_results(const std::string& path, const FitSummary& s, const data::Provenance& provenance) {
  // Held from the choice of the group's name to the rename: another run
  // appending to the same file waits, then sees this fit's group.
  const data::OutputLock lock(path, data::OutputLock::Mode::kExclusive);
  std::string prefix = "identify_" + clean(s.model);
  for (int i = 2; root_has(path, prefix); ++i) prefix = "identify_" + clean(s.model) + "_" + std::to_string(i);
  const std::string json = to_json(s, -1);
  std::vector<data::Results> groups;
  for (const auto& e : s.experiments) {
    if (e.fitted.empty()) continue;
    data::Results r;
    r.group = prefix + "/" + clean(e.name);
    r.provenance = provenance;
    const unsigned long long n = e.fitted.size();
    // Time (the rows' dimension scale), the log's row and the velocity of
    // each fitted sample: a filtered fit's samples are a few filtered rows
    // of the log, which plots and reports line up by these.
    if (e.time.size() == n) r.datasets.push_back({"time", {n}, e.time, "s", "time of the fitted sample"});
    if (e.rows.size() == n)
      r.datasets.push_back({"sample_index",
                            {n},
                            std::vector<double>(e.rows.begin(), e.rows.end()),
                            "1",
                            "row of the log (0-based) at the fitted sample"});
    if (e.velocity.size() == n)
      r.datasets.push_back({"velocity", {n}, e.velocity, s.velocity_unit, "filtered velocity the fit used"});
    r.datasets.push_back({"fitted_force", {n}, e.fitted, s.force_unit, "model force with force-balance terms"});
    r.datasets.push_back({"residual", {n}, e.residual, s.force_unit, "measured force - fitted force"});
    data::Results summary = fit_group_summary(s, e, json);
    r.attributes = std::move(summary.attributes);
    r.numbers = std::move(summary.numbers);
    r.flags = std::move(summary.flags);
    for (auto& d : summary.datasets) r.datasets.push_back(std::move(d));
    groups.push_back(std::move(r));
  }
  // One copy of the log for every experiment, all or none.
  if (!groups.empty()) data::append_results(path, groups);
  return prefix;
}

}  // namespace stribeck::ident
