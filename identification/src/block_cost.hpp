#pragma once
// The residuals of a contiguous range of samples of one experiment as one
// Ceres residual block: parameters are evaluated once per block
// (M::prepare), Jacobians come from ceres::Jet sized to the number of
// parameters Ceres asks derivatives for (4, 6, 8 or 16 lanes), so a block of
// thousands of samples costs one virtual call and no per-sample allocation.
#include <ceres/ceres.h>

#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "problem.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck::ident::detail {

constexpr int kMaxBlockParams = 16;

// A local parameter of a block: where its external value comes from.
struct LocalParam {
  Transform transform = Transform::kIdentity;
  int base = -1;  // local index of the excess base
};

// Per-sample robust loss applied to each residual r as sign(r)*sqrt(rho(r^2)),
// so 0.5*sum of squares is exactly Ceres' robust cost 0.5*sum rho(r_i^2)
// (a Ceres LossFunction on a vectorised block would robustify the block's
// total instead of each sample).
struct SampleLoss {
  std::shared_ptr<ceres::LossFunction> rho;  // null: plain least squares
  // Scales r in place; returns d(scaled)/dr.
  double apply(double& r) const {
    if (!rho) return 1.0;
    const double s = r * r;
    double e[3];
    rho->Evaluate(s, e);
    if (s == 0.0) return std::sqrt(e[1]);
    const double g = std::sqrt(e[0]);
    const double d = e[1] * std::abs(r) / g;
    r = r > 0 ? g : -g;
    return d;
  }
};

template <class M>
class BlockCost : public ceres::CostFunction {
 public:
  // `locals` describe the parameter blocks in the order they are passed;
  // map[s][j] is the local index of model parameter j for sign s; mass and
  // offset are local indices or -1.
  BlockCost(const Prepared* data, size_t begin, size_t end, std::vector<LocalParam> locals,
            std::array<std::array<int, M::kNumParams>, 2> map, int mass, int offset, bool asymmetric, SampleLoss loss)
      : d_(data),
        begin_(begin),
        end_(end),
        locals_(std::move(locals)),
        map_(map),
        mass_(mass),
        offset_(offset),
        asym_(asymmetric),
        loss_(std::move(loss)) {
    set_num_residuals(static_cast<int>(end - begin));
    for (size_t i = 0; i < locals_.size(); ++i) mutable_parameter_block_sizes()->push_back(1);
  }

  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
    int active = 0;
    if (jacobians)
      for (size_t i = 0; i < locals_.size(); ++i) active += jacobians[i] != nullptr;
    if (active == 0) return run<double>(parameters, residuals, nullptr);
    if (active <= 4) return run<ceres::Jet<double, 4>>(parameters, residuals, jacobians);
    if (active <= 6) return run<ceres::Jet<double, 6>>(parameters, residuals, jacobians);
    if (active <= 8) return run<ceres::Jet<double, 8>>(parameters, residuals, jacobians);
    return run<ceres::Jet<double, 16>>(parameters, residuals, jacobians);
  }

 private:
  template <class T>
  bool run(double const* const* parameters, double* residuals, double** jacobians) const {
    constexpr bool kJet = !std::is_same<T, double>::value;
    const int np = static_cast<int>(locals_.size());
    T x[kMaxBlockParams];
    int lane[kMaxBlockParams];
    int next = 0;
    for (int i = 0; i < np; ++i) {
      T u(parameters[i][0]);
      lane[i] = -1;
      if constexpr (kJet) {
        if (jacobians[i]) {
          lane[i] = next++;
          u.v[lane[i]] = 1.0;
        }
      }
      x[i] = locals_[i].transform == Transform::kLog ? ceres::exp(u) : u;
    }
    for (int i = 0; i < np; ++i)
      if (locals_[i].transform == Transform::kExcess) x[i] = x[locals_[i].base] + x[i];
    T p[2][M::kNumParams];
    for (int s = 0; s < 2; ++s)
      for (int j = 0; j < M::kNumParams; ++j) p[s][j] = x[map_[s][j]];
    const auto c_pos = M::prepare(p[0]);
    const auto c_neg = asym_ ? M::prepare(p[1]) : c_pos;
    const T mass = mass_ >= 0 ? x[mass_] : T(0.0);
    const T offset = offset_ >= 0 ? x[offset_] : T(0.0);
    const Prepared& d = *d_;
    for (size_t k = begin_; k < end_; ++k) {
      const Sample<T> s{T(d.v[k]), T(d.pa[k]), T(d.pb[k]), T(d.fn[k])};
      T f = (d.v[k] < 0.0) ? M::force(c_neg, s) : M::force(c_pos, s);
      if (offset_ >= 0) f += offset;
      if (mass_ >= 0) f += mass * d.acc[k];
      const size_t row = k - begin_;
      if constexpr (kJet) {
        double r = d.y[k] - f.a;
        const double scale = loss_.apply(r);
        residuals[row] = r;
        for (int i = 0; i < np; ++i)
          if (jacobians[i]) {
            jacobians[i][row] = -scale * f.v[lane[i]];
            // Reject the point (Ceres shrinks the step) rather than hand over NaN.
            if (!std::isfinite(jacobians[i][row])) return false;
          }
      } else {
        double r = d.y[k] - f;
        loss_.apply(r);
        residuals[row] = r;
      }
      if (!std::isfinite(residuals[row])) return false;
    }
    return true;
  }

  const Prepared* d_;
  size_t begin_, end_;
  std::vector<LocalParam> locals_;
  std::array<std::array<int, M::kNumParams>, 2> map_;
  int mass_, offset_;
  bool asym_;
  SampleLoss loss_;
};

}  // namespace stribeck::ident::detail
