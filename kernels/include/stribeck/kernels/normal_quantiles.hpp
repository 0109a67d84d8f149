#pragma once
// Quantiles of the standard normal that several layers use as constants:
// written once here, the lowest layer, so that identification's intervals
// and workloads' draws from them agree to the bit.
namespace stribeck::math {

// z(0.975) = Phi^-1(0.975), the 95 % two-sided quantile: every 95 %
// interval. The value the fits have always used, one ulp below the nearest
// double (1.9599639845400543): 5.6e-17 relative, kept so that no interval
// changes in its last bit.
inline constexpr double kZ975 = 1.959963984540054;

}  // namespace stribeck::math
