// The one filling of a model's per-point rules (model_rules.hpp).
#include "stribeck/engine/model_rules.hpp"

#include "stribeck/data/error.hpp"

namespace stribeck::engine {

sweep::ParamRules model_rules(const ModelInfo& m) {
  if (m.params.size() > static_cast<std::size_t>(sweep::kMaxParams))
    throw data::InputError("model " + m.id + " has more parameters than a sweep or ensemble supports (" +
                           std::to_string(sweep::kMaxParams) + ")");
  if (m.relations.size() > static_cast<std::size_t>(sweep::kMaxRelations))
    throw data::InputError("model " + m.id + " has more relations than a sweep or ensemble supports (" +
                           std::to_string(sweep::kMaxRelations) + ")");
  sweep::ParamRules r;
  r.n = static_cast<int>(m.params.size());
  for (int d = 0; d < r.n; ++d) {
    r.lo[d] = m.params[d].lo;
    r.hi[d] = m.params[d].hi;
    r.lo_open[d] = m.params[d].lo_open;
    r.hi_open[d] = m.params[d].hi_open;
  }
  r.n_relations = static_cast<int>(m.relations.size());
  for (int k = 0; k < r.n_relations; ++k) r.rel_a[k] = m.relations[k].a, r.rel_b[k] = m.relations[k].b;
  return r;
}

}  // namespace stribeck::engine
