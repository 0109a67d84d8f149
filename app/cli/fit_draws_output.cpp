// `simulate` of an ensemble drawn from a fit (from_fit): prints what the
// draws say (workloads/fit_draws.hpp) and returns it for --json.
#include "commands.hpp"
#include "stribeck/workloads/fit_draws.hpp"
#include "stribeck/workloads/simulate.hpp"

namespace stribeck::cli {

nlohmann::json report_fit_draws(const workloads::SimulateConfig& c, const workloads::EnsembleResult& r,
                                const std::string& output) {
  if (c.prior.file.empty()) return nullptr;
  const workloads::FitDrawsSummary s = workloads::summarize_fit_draws(r, output);
  summary("%s", workloads::fit_draws_report(s, c.prior.file, workloads::fit_draw_name(c.prior.draw)).c_str());
  nlohmann::json q = nlohmann::json::object();
  for (const auto& m : s.quantiles) {
    nlohmann::json e = {{"unit", m.unit}, {"draws", m.draws}};
    for (int i = 0; i < 3; ++i)
      e[i == 0   ? "q05"
        : i == 1 ? "q50"
                 : "q95"] = {{"value", json_number(m.value[i])},
                             {"ci95", {json_number(m.lo[i]), json_number(m.hi[i])}}};
    q[m.metric] = e;
  }
  return {{"fit", c.prior.file},
          {"drawn", c.prior.names},
          {"draw", workloads::fit_draw_name(c.prior.draw)},
          {"stick_slip_probability",
           {{"value", s.stick_slip.value}, {"std_error", s.stick_slip.std_error}, {"draws", s.stick_slip.draws}}},
          {"outside_ranges", s.outside},
          {"quantiles", q}};
}

}  // namespace stribeck::cli
