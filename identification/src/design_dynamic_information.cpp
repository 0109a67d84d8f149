// The information of a law with memory for `stribeck design`
// (design_dynamic_information.hpp): identify fits LuGre, Dahl, 20-sim LuGre,
// elasto-plastic and GMS by simulation error (dynamic_fit.cpp, joint_fit.cpp)
// and reports the joint stage's standard errors, so the design's information
// is the joint problem's: the same residual blocks (the kernels' trace step
// on Jets along each experiment from the steady state at its first sample),
// unknowns and internal coordinates, evaluated once at the prior.
#include "design_dynamic_information.hpp"

#include <numeric>
#include <string>

#include "dynamic_fit.hpp"
#include "joint_fit.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {
namespace {

template <class F>
Eigen::MatrixXd information(const ModelInfo& model, Layout& L, const std::vector<Prepared>& data,
                            const std::vector<std::vector<double>>& times, std::vector<int>* free) {
  std::vector<int> train(data.size());
  std::iota(train.begin(), train.end(), 0);
  Eigen::MatrixXd jtj;
  // One thread: design evaluates its candidates in parallel.
  if (!joint_information<F>(L, data, times, train, 1, free, &jtj))
    throw data::InputError("design: model " + model.id +
                           " cannot be simulated at the prior (non-finite force or derivative)");
  return jtj;
}

}  // namespace

Eigen::MatrixXd dynamic_information(const ModelInfo& model, Layout& L, const std::vector<Prepared>& data,
                                    const std::vector<data::Experiment>& logs, std::vector<int>* free) {
  // The time stamps the joint stage steps the state over, checked as
  // identify checks them.
  std::vector<std::vector<double>> times;
  for (const auto& ex : logs) {
    if (!ex.has("time"))
      throw data::InputError("design: experiment '" + ex.name + "' has no time channel; " + model.id +
                             " is fitted by simulating its state in time");
    const auto& t = ex.channel("time");
    for (size_t k = 1; k < t.size(); ++k)
      if (!(t[k] > t[k - 1]))
        throw data::InputError("design: experiment '" + ex.name + "', channel 'time', sample " + std::to_string(k) +
                               ": time must increase strictly");
    times.push_back(t);
  }
  // The dispatch of fit_two_stage (dynamic_fit.cpp).
  const std::string& id = model.id;
  if (id == Dahl::kId) return information<DahlFit>(model, L, data, times, free);
  if (id == TwentySimLuGre::kId) return information<TwentySimLuGreFit>(model, L, data, times, free);
  if (id == ElastoPlastic::kId) return information<ElastoPlasticFit>(model, L, data, times, free);
  if (id == Gms1::kId) return information<GmsFit<1>>(model, L, data, times, free);
  if (id == Gms2::kId) return information<GmsFit<2>>(model, L, data, times, free);
  if (id == Gms3::kId) return information<GmsFit<3>>(model, L, data, times, free);
  if (id == Gms4::kId) return information<GmsFit<4>>(model, L, data, times, free);
  if (id == LuGre::kId) return information<LuGreFit>(model, L, data, times, free);
  throw data::InputError("design: model " + id + " has memory but no fit by simulation error in identify");
}

}  // namespace stribeck::ident::detail
