// The per-sample information of a static law over (speed, pressure)
// (design_support.hpp).
#include "design_support.hpp"

#include "problem.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident::detail {

Eigen::MatrixXd relative_gradients(const DesignRequest& r, const Prediction& at, const std::vector<MeasurePoint>& pts) {
  const ModelInfo& m = workloads::require_model(r.model);
  const size_t k = at.parameters.size();
  std::vector<int> index(k);
  std::vector<double> scale(k);
  for (size_t i = 0; i < k; ++i) {
    const auto& q = at.parameters[i];
    index[i] = q.name == "offset" ? -1 : m.param_index(q.name);
    if (m.dynamic || (index[i] < 0 && q.name != "offset")) return {};
    scale[i] = q.value != 0 ? std::abs(q.value) : 1.0;
  }
  std::vector<double> params = r.prior;
  for (const auto& [name, value] : parse_user_options(m, r.fit).fixed) params[m.param_index(name)] = value;
  Eigen::MatrixXd G(static_cast<Eigen::Index>(pts.size()), static_cast<Eigen::Index>(k));
  visit_model(r.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if constexpr (!M::kDynamic) {
      auto force = [&](const std::vector<double>& x, const MeasurePoint& s) {
        typename M::template State<double> state{};
        return model_step<M>(M::prepare(x.data()), Sample<double>{s.v, s.p, r.rig.pressure_b, 0.0}, state, 0.0);
      };
      for (size_t j = 0; j < pts.size(); ++j)
        for (size_t i = 0; i < k; ++i) {
          double g = 1.0;  // the offset's
          if (index[i] >= 0) {
            std::vector<double> up = params, down = params;
            const double h = 1e-6 * scale[i];
            up[index[i]] += h;
            down[index[i]] -= h;
            g = (force(up, pts[j]) - force(down, pts[j])) / (2 * h);
          }
          G(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i)) = scale[i] * g;
        }
    }
  });
  return G;
}

}  // namespace stribeck::ident::detail
