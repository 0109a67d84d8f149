// The phase "check data" of a static fit (fit_data.hpp).
#include "fit_data.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "fit_warnings.hpp"
#include "noise.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {

FitData check_data(const std::vector<data::Experiment>& experiments, const ModelInfo& model, const FitOptions& o,
                   FitSummary& S) {
  FitData D;
  D.data = prepare_data(experiments, model, o);
  const int ne = static_cast<int>(D.data.size());
  for (const auto& v : o.validate)
    if (std::none_of(D.data.begin(), D.data.end(), [&](const Prepared& d) { return d.name == v; }))
      throw data::InputError("--validate: no experiment named '" + v + "'");
  for (int e = 0; e < ne; ++e)
    (std::count(o.validate.begin(), o.validate.end(), D.data[e].name) ? D.held : D.train).push_back(e);
  if (D.train.empty()) throw data::InputError("--validate holds out every experiment; nothing is left to fit");
  check_samples(D, o, S);
  return D;
}

void check_samples(FitData& D, const FitOptions& o, FitSummary& S) {
  long npos = 0, nneg = 0;
  double vmin = kInf, vmax = -kInf, ysq = 0;
  for (int e : D.train)
    for (size_t k = 0; k < D.data[e].size(); ++k) {
      const double v = D.data[e].v[k];
      ++D.n;
      npos += v > 0;
      nneg += v < 0;
      vmin = std::min(vmin, v);
      vmax = std::max(vmax, v);
      ysq += D.data[e].y[k] * D.data[e].y[k];
      if (v != 0) D.vslow = std::min(D.vslow, std::abs(v));
    }
  motion_checks(o, npos, nneg, vmin, vmax, S);
  D.vfast = std::max(std::abs(vmin), std::abs(vmax));
  // The low-speed hint applies when the log lacks the slow range relative to
  // its own speeds: its slowest moving sample is above a tenth of the median
  // (the element m = moving/2 of the sorted |v|). vslow > 0.1 * x holds for a
  // prefix of the sorted speeds, so it holds at the median exactly when more
  // than m speeds satisfy it: a count, no selection.
  long moving = 0, below = 0;
  for (int e : D.train)
    for (double v : D.data[e].v)
      if (v != 0) ++moving, below += D.vslow > 0.1 * std::abs(v);
  D.lacks_slow = below > moving / 2;
  D.scale.samples = D.n;
  D.scale.force_rms = std::sqrt(ysq / static_cast<double>(D.n));
  D.scale.noise = noise_estimate(D.data, D.train);
  S.noise_estimate = D.scale.noise;
}

// What the velocity range says: errors for no motion (and --asymmetric
// without both directions), warnings for one direction or constant velocity.
void motion_checks(const FitOptions& o, long npos, long nneg, double vmin, double vmax, FitSummary& S) {
  if (npos + nneg == 0)
    throw data::InputError("no motion: the velocity is zero in every sample of the fitted experiments");
  if (o.asymmetric && (npos == 0 || nneg == 0))
    throw data::InputError("--asymmetric needs samples moving in both directions; the log has only " +
                           std::string(npos ? "v > 0" : "v < 0"));
  if (npos == 0 || nneg == 0)
    S.warnings.push_back("the log moves in one direction only (" + std::string(npos ? "v > 0" : "v < 0") +
                         "): an offset and the Coulomb level cannot be told apart, and the other direction "
                         "is extrapolated");
  if (vmax - vmin <= 1e-9 * std::max(std::abs(vmax), std::abs(vmin)))
    S.warnings.push_back("the velocity is constant (" + fmt(vmax) +
                         " m/s): velocity-dependent terms cannot be separated from the Coulomb level");
}

std::vector<Prepared> subsample(const std::vector<Prepared>& data, size_t stride) {
  stride = std::max<size_t>(1, stride);
  std::vector<Prepared> sub;
  for (const auto& d : data) {
    Prepared s;
    s.name = d.name;
    for (size_t i = 0; i < d.size(); i += stride) s.push_back(d, i);
    sub.push_back(std::move(s));
  }
  return sub;
}

}  // namespace stribeck::ident::detail
