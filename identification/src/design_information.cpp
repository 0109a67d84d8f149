// The predicted uncertainty of a designed test (design.hpp): identify's own
// problem built on the test's noiseless log at the prior (for a law with
// memory its joint stage's: design_dynamic_information.cpp), its Jacobian
// in the internal coordinates, and the covariance identify would report.
#include <Eigen/Dense>
#include <cmath>
#include <numeric>

#include "design_dynamic_information.hpp"
#include "fit_helpers.hpp"
#include "fit_problem.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident {
namespace {

using detail::Layout;

// J_u^T J_u of the free parameters of L over `data`: the CompressedCost of
// build_problem, whose compressed residuals have the Jacobian product of
// every sample's (the product uncertainty.cpp reads when the solver's last
// Jacobian is not at hand).
template <class M>
Eigen::MatrixXd information(Layout& L, const std::vector<detail::Prepared>& data, const std::vector<int>& free,
                            size_t block) {
  std::vector<int> exps(data.size());
  std::iota(exps.begin(), exps.end(), 0);
  auto P = detail::build_problem<M>(L, data, exps, block, detail::SampleLoss{}, 1);
  const int k = static_cast<int>(free.size());
  Eigen::MatrixXd JtJ = Eigen::MatrixXd::Zero(k, k);
  if (!detail::add_evaluated_jtj(*P, L, free, 1, JtJ))
    throw data::InputError("design: the model cannot be evaluated at the prior");
  return JtJ;
}

// The criterion of the relative covariance of the parameters that count
// (all but the offset and the mass: nuisances).
void score(Prediction& p, DesignCriterion c) {
  std::vector<int> idx;
  for (size_t i = 0; i < p.parameters.size(); ++i) {
    const auto& q = p.parameters[i];
    if (q.name != "offset" && q.name != "mass") idx.push_back(static_cast<int>(i));
  }
  const int k = static_cast<int>(p.parameters.size()), m = static_cast<int>(idx.size());
  p.worst_rse = 0;
  Eigen::MatrixXd R(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) {
      const double sa = p.parameters[idx[a]].value != 0 ? std::abs(p.parameters[idx[a]].value) : 1.0;
      const double sb = p.parameters[idx[b]].value != 0 ? std::abs(p.parameters[idx[b]].value) : 1.0;
      R(a, b) = p.cov[idx[a] * k + idx[b]] / (sa * sb);
    }
  for (int a = 0; a < m; ++a) p.worst_rse = std::max(p.worst_rse, std::sqrt(R(a, a)));
  if (!p.determined || !R.allFinite()) {
    p.worst_rse = p.criterion = std::numeric_limits<double>::infinity();
    return;
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(R);
  const Eigen::VectorXd ev = es.eigenvalues();
  switch (c) {
    case DesignCriterion::kD: {
      double s = 0;
      for (int a = 0; a < m; ++a) s += std::log(std::max(ev(a), 1e-300));
      p.criterion = s;
      break;
    }
    case DesignCriterion::kA: p.criterion = R.trace(); break;
    case DesignCriterion::kE: p.criterion = m ? ev(m - 1) : 0.0; break;
    case DesignCriterion::kWorstRse: p.criterion = p.worst_rse; break;
  }
}

}  // namespace

bool parse_design_criterion(const std::string& text, DesignCriterion* out) {
  if (text == "d") *out = DesignCriterion::kD;
  else if (text == "a") *out = DesignCriterion::kA;
  else if (text == "e") *out = DesignCriterion::kE;
  else if (text == "worst-rse") *out = DesignCriterion::kWorstRse;
  else return false;
  return true;
}

const char* criterion_name(DesignCriterion c) {
  switch (c) {
    case DesignCriterion::kD: return "d";
    case DesignCriterion::kA: return "a";
    case DesignCriterion::kE: return "e";
    case DesignCriterion::kWorstRse: return "worst-rse";
  }
  return "?";
}

Prediction predict(const DesignRequest& r, const std::vector<data::Experiment>& logs, double sigma) {
  const ModelInfo& model = workloads::require_model(r.model);
  if (r.prior.size() != model.params.size())
    throw data::InputError("design: the prior has " + std::to_string(r.prior.size()) + " values, model " + r.model +
                           " takes " + std::to_string(model.params.size()));
  FitOptions o = r.fit;
  o.num_threads = 1;
  o.keep_signals = false;
  const std::vector<detail::Prepared> data = detail::prepare_data(logs, model, o);
  Layout L = detail::make_layout(model, o, data);
  // The prior is the truth the information is taken at; a held parameter
  // keeps its --fix value (a free one has no effect on the layout's choice).
  const detail::UserOptions user = detail::parse_user_options(model, o);
  for (auto& p : L.params) {
    if (p.model_index < 0) p.value = 0.0;  // offset and mass: the log has none
    else p.value = user.fixed.count(p.base) ? user.fixed.at(p.base) : r.prior[static_cast<size_t>(p.model_index)];
  }
  detail::set_internal_from_values(L);
  std::vector<int> free = L.free_indices();
  Eigen::MatrixXd JtJ;
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  // A law with memory: the joint stage's problem, whose standard errors
  // identify reports for it (design_dynamic_information.cpp).
  if (model.dynamic) JtJ = detail::dynamic_information(model, L, data, logs, &free);
  else
    visit_model(r.model.c_str(), [&](auto tag) {
      using M = typename decltype(tag)::type;
      if constexpr (!M::kDynamic) JtJ = information<M>(L, data, free, block);
    });
  const detail::Covariance C = detail::covariance_from_jtj(L, free, JtJ, sigma * sigma);
  Prediction p;
  const int k = static_cast<int>(free.size());
  p.cov.assign(static_cast<size_t>(k) * k, 0.0);
  for (int a = 0; a < k; ++a) {
    const detail::FitParam& fp = L.params[free[a]];
    PredictedParameter q;
    q.name = fp.name;
    q.unit = fp.unit;
    q.value = fp.value;
    if (C.determined[a] && std::isfinite(C.cov_x(a, a))) q.std_error = std::sqrt(std::max(0.0, C.cov_x(a, a)));
    else p.determined = false;
    if (fp.model_index >= 0 && fp.value != 0) q.relative = q.std_error / std::abs(fp.value);
    p.parameters.push_back(q);
    for (int b = 0; b < k; ++b) p.cov[a * k + b] = C.cov_x(a, b);
  }
  score(p, r.criterion);
  return p;
}

}  // namespace stribeck::ident
