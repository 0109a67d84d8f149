#pragma once
// Private to identification/: how a fit lays out its unknowns and data.
//
// Every unknown is one FitParam with a one-dimensional Ceres parameter block
// (`u`, the internal coordinate). The value the model sees is external:
//   identity: x = u                 (bounded parameters, offsets, mass)
//   log:      x = exp(u)            (parameters that must be > 0: v_brk, slope, ...)
//   excess:   x = x[base] + u, u>=0 (rules a >= b: F_brk >= F_C, mu_s >= mu_c)
// so positivity and the model's relations hold at every step, not only at
// the solution.
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/normal_quantiles.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

// z(0.975): the 95 % two-sided quantile of the standard normal, for every interval.
using math::kZ975;

enum class Transform { kIdentity, kLog, kExcess };

// Whether a model parameter of this role enters the laws linearly (checked
// numerically before use: a role is a hint, not a promise).
inline bool linear_role(ParamRole r) {
  return r == ParamRole::kCoulomb || r == ParamRole::kBreakaway || r == ParamRole::kPreload ||
         r == ParamRole::kPressureCoefficient || r == ParamRole::kViscous;
}

struct FitParam {
  std::string name;  // reported name: base + "+"/"-" + "@experiment"
  std::string base;  // model parameter name, "mass" or "offset"
  std::string unit;
  int model_index = -1;  // index into the model's parameters; -1 for mass/offset
  Transform transform = Transform::kIdentity;
  int excess_base = -1;          // kExcess: index of the parameter this one exceeds
  double value = 0.0;            // external value (initial guess, then the estimate)
  double lo = -kInf, hi = kInf;  // external bounds (model range and user bounds)
  bool fixed = false;
  bool low_speed = false;              // breakaway/Stribeck parameter: determined by low-speed samples only
  ParamRole role = ParamRole::kOther;  // the model table's role (kOther for mass and offset)
  double u = 0.0;                      // internal coordinate: the Ceres parameter block
};

// One experiment's inputs, ready for the residual: y is the measured force
// minus every known term (pressure force, known mass times acceleration).
struct Prepared {
  std::string name;
  std::vector<double> v, pa, pb, fn, acc, force, y;
  // Time [s] (empty without a time channel): the results' time, and the
  // missing-term check derives the acceleration from it when `acc` is empty.
  std::vector<double> t;
  // The log's row of each sample; empty: sample i is row i (not filtered).
  std::vector<size_t> rows;
  FilterReport filter;
  size_t size() const { return v.size(); }
  // Appends sample i of `p` (subsamples of a log, in memory or streamed).
  void push_back(const Prepared& p, size_t i) {
    v.push_back(p.v[i]);
    pa.push_back(p.pa[i]);
    pb.push_back(p.pb[i]);
    fn.push_back(p.fn[i]);
    force.push_back(p.force[i]);
    y.push_back(p.y[i]);
    if (!p.acc.empty()) acc.push_back(p.acc[i]);
    if (!p.t.empty()) t.push_back(p.t[i]);
    if (!p.rows.empty()) rows.push_back(p.rows[i]);
  }
};

struct Layout {
  std::vector<FitParam> params;
  // model_map[e][s][j]: the FitParam of model parameter j for experiment e,
  // sign s (0: v >= 0 or symmetric, 1: v < 0).
  std::vector<std::array<std::vector<int>, 2>> model_map;
  std::vector<int> offset;  // per experiment; -1 = none
  int mass = -1;
  bool asymmetric = false;
  std::vector<double> model_defaults;  // the model's default parameter values, by model index

  std::vector<int> free_indices() const {
    std::vector<int> f;
    for (size_t i = 0; i < params.size(); ++i)
      if (!params[i].fixed) f.push_back(static_cast<int>(i));
    return f;
  }
};

// External value of parameter i from the current internal coordinates.
double external(const Layout& L, int i);
// Parameter i's internal coordinate as the fit JSON names it: "identity",
// "log" or "excess:BASE" (its value is BASE's plus the coordinate).
std::string transform_text(const Layout& L, int i);
// Sets every internal coordinate from the external values.
void set_internal_from_values(Layout& L);
// Sets every external value from the internal coordinates.
void set_values_from_internal(Layout& L);

// The user's names and values (--free, --per-experiment, --fix, --init,
// --bounds), read by the rules of FitOptions::IsValid (fit_options.cpp);
// options it refuses throw InputError naming the option.
struct UserOptions {
  std::set<std::string> free, per_experiment;
  std::map<std::string, double> fixed, initial;
  std::map<std::string, std::pair<double, double>> bounds;
};
UserOptions parse_user_options(const ModelInfo& model, const FitOptions& o);

// FitOptions::loss: `kind` "" (least squares), "huber" or "cauchy" and its
// scale D [N]; false (with the message in *error when given) for a loss
// IsValid refuses.
bool parse_loss_spec(const std::string& spec, std::string* kind, double* scale, std::string* error);

// Builds the unknowns: which are free, fixed, bounded, reparameterised, with
// data-driven initial values. Throws InputError for bad option syntax/names.
Layout make_layout(const ModelInfo& model, const FitOptions& o, const std::vector<Prepared>& data);

// Per-sample inputs of each experiment, checked. Throws InputError.
std::vector<Prepared> prepare_data(const std::vector<data::Experiment>& experiments, const ModelInfo& model,
                                   const FitOptions& o);

// The fit-quality fields of S from the training residuals of n samples and
// k free parameters: ssr (sum of squares), sst (total sum of squares of the
// measured force), maxe (max |residual|), ac (sum of r_i r_(i-1)); AIC and
// BIC from the Gaussian log-likelihood up to a constant.
void set_fit_quality(FitSummary& S, long n, int k, double ssr, double sst, double maxe, double ac);

}  // namespace stribeck::ident::detail
