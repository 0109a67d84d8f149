#pragma once
// A fit's uncertainty as a distribution to simulate: the multivariate normal
// of its free parameters in the internal coordinates the fit's covariance is
// normal in (log for a positive parameter, the excess over another for an
// ordering such as F_S >= F_C), read from `identify --json` output
// (docs/dynamics.md, "Ensembles drawn from a fit").
#include <string>
#include <vector>

#include "stribeck/kernels/registry.hpp"

namespace stribeck::workloads {

// How the free parameters are drawn ([ensemble] from_fit_draw): the
// multivariate normal of the covariance, or per parameter the split normal
// of its 95 % interval (profile where the fit ran one, Wald otherwise),
// coupled by a Gaussian copula with the covariance's correlation.
enum class FitDraw { kCovariance, kProfileIntervals };
const char* fit_draw_name(FitDraw d);  // the config's value: "covariance", "profile-intervals"
bool parse_fit_draw(const std::string& name, FitDraw& out);

struct FitPrior {
  std::string file;                // the fit's JSON ("" when the ensemble is not drawn from a fit)
  std::vector<std::string> names;  // the free parameters, drawn jointly
  std::vector<int> transform;      // sweep::JointTransform per free parameter
  std::vector<int> base;           // kJointExcess: index into `names` of the base
  std::vector<double> mean;        // internal coordinates of the estimate
  std::vector<double> chol;  // lower Cholesky factor of their covariance (profile-intervals: correlation), row-major
  FitDraw draw = FitDraw::kCovariance;
  // profile-intervals: the split normal's lower and upper scales, and the
  // bounds a draw is held in (an interval end on the parameter's bound; else
  // infinite), all in internal coordinates.
  std::vector<double> scale_lo, scale_hi, lo, hi;
  std::vector<std::string> fixed;              // the fit's fixed parameters (their values are set, not drawn)
  std::vector<std::pair<int, double>> values;  // (model parameter index, fitted value) of every parameter

  // What the space's list values hold from joint_offset on
  // (sweep::SpaceView::joint, joint_split = draw is profile-intervals).
  std::vector<double> joint_list() const;
};

// Reads the fit at `path` (`identify --json` output) for model `m`: every
// parameter's value, and the free ones' covariance mapped to internal
// coordinates (C_u = G^-1 C_x G^-T, G = dx/du at the estimate). One-line
// InputError naming `where` and the file when it is not a fit of this
// model, a free parameter has no standard error (undetermined: fix it in
// the fit) or the covariance is not positive definite; with
// kProfileIntervals also when a free parameter has no interval or one that
// is unbounded (docs/dynamics.md, "Drawn from the intervals").
FitPrior read_fit_prior(const std::string& path, const ModelInfo& m, const std::string& where,
                        FitDraw draw = FitDraw::kCovariance);

}  // namespace stribeck::workloads
