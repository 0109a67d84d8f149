// The fit-quality figures of a summary (problem.hpp), for static and dynamic fits.
#include <algorithm>
#include <cmath>

#include "fit_problem.hpp"

namespace stribeck::ident {

void detail::set_fit_quality(FitSummary& S, long n, int k, double ssr, double sst, double maxe, double ac) {
  S.samples = n;
  S.free_parameters = k;
  S.rmse = std::sqrt(ssr / n);
  S.r_squared = sst > 0 ? 1.0 - ssr / sst : kNaN;
  S.max_abs_error = maxe;
  S.autocorrelation_lag1 = ssr > 0 ? ac / ssr : 0.0;
  const double ll = n * std::log(std::max(ssr, 1e-300) / n);
  S.aic = ll + 2.0 * k;
  S.bic = ll + k * std::log(static_cast<double>(n));
}

}  // namespace stribeck::ident
