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

Eigen::MatrixXd dynamic_information(const ModelInfo& model, Layout& L, const std::vector<Prepared>& data,
                                    const std::vector<data::Experiment>& logs, std::vector<int>* free) {
  // The time stamps the joint stage steps the state over, checked as
  // identify checks them.
  std::vector<std::vector<double>> times;
  for (const auto& ex : logs) times.push_back(simulation_times(ex, "design", model.id));
  std::vector<int> train(data.size());
  std::iota(train.begin(), train.end(), 0);
  Eigen::MatrixXd jtj;
  bool finite = false;
  // One thread: design evaluates its candidates in parallel.
  if (!visit_two_stage_fit(model.id, [&](auto kind) {
        finite = joint_information<typename decltype(kind)::type>(L, data, times, train, 1, free, &jtj);
      }))
    throw data::InputError("design: model " + model.id + " has memory but no fit by simulation error in identify");
  if (!finite)
    throw data::InputError("design: model " + model.id +
                           " cannot be simulated at the prior (non-finite force or derivative)");
  return jtj;
}

}  // namespace stribeck::ident::detail
