#pragma once
// The residuals of a contiguous range of samples of one experiment as one
// Ceres residual block: parameters are evaluated once per block
// (M::prepare), so a block of thousands of samples costs one virtual call and
// no per-sample allocation. Jacobians: for a law with an analytic gradient
// (M::force_grad, next to M::force in its kernels/ header: the force's
// derivatives by the coefficients of M::prepare), the coefficients'
// derivatives by the parameters come from one M::prepare on Jets per block
// and are chained with each sample's gradient in plain doubles; other laws
// (the steady-state curves of the dynamic models) run M::force on ceres::Jet
// sized to the number of parameters Ceres asks derivatives for (1 to 6, 8 or
// 16 lanes).
#include <ceres/ceres.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "problem.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck::ident::detail {

constexpr int kMaxBlockParams = 16;

// Whether law M has an analytic gradient: T M::force_grad(const Coeffs<T>&,
// const Sample<T>&, Coeffs<T>& d).
template <class M, class = void>
struct HasForceGrad : std::false_type {};
template <class M>
struct HasForceGrad<M, std::void_t<decltype(M::force_grad(std::declval<const typename M::template Coeffs<double>&>(),
                                                          std::declval<const Sample<double>&>(),
                                                          std::declval<typename M::template Coeffs<double>&>()))>>
    : std::true_type {};

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
    if constexpr (HasForceGrad<M>::value) {
      return run_grad(parameters, residuals, jacobians);
    } else {
      switch (active) {
        case 1: return run<ceres::Jet<double, 1>>(parameters, residuals, jacobians);
        case 2: return run<ceres::Jet<double, 2>>(parameters, residuals, jacobians);
        case 3: return run<ceres::Jet<double, 3>>(parameters, residuals, jacobians);
        case 4: return run<ceres::Jet<double, 4>>(parameters, residuals, jacobians);
        case 5: return run<ceres::Jet<double, 5>>(parameters, residuals, jacobians);
        case 6: return run<ceres::Jet<double, 6>>(parameters, residuals, jacobians);
        case 7:
        case 8: return run<ceres::Jet<double, 8>>(parameters, residuals, jacobians);
        default: return run<ceres::Jet<double, 16>>(parameters, residuals, jacobians);
      }
    }
  }

 private:
  using Grad = ceres::Jet<double, kMaxBlockParams>;
  // Coefficients of M::prepare as a flat array (an aggregate of T fields,
  // docs/architecture.md), for the chain rule.
  static constexpr int kCoeffs = static_cast<int>(sizeof(typename M::template Coeffs<double>) / sizeof(double));

  // Parameters as Jets over the active lanes (lane[i]: the lane of local
  // parameter i, -1 when Ceres asks no derivative), transforms applied.
  template <class T>
  void external_values(double const* const* parameters, double** jacobians, T* x, int* lane) const {
    constexpr bool kJet = !std::is_same<T, double>::value;
    const int np = static_cast<int>(locals_.size());
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
  }

  // Analytic Jacobian: per block, the coefficients c(p) on Jets (value and
  // dc/dp); per sample, F and dF/dc in doubles (M::force_grad), dF/dp =
  // dF/dc * dc/dp over the active lanes only.
  bool run_grad(double const* const* parameters, double* residuals, double** jacobians) const {
    using CoeffsD = typename M::template Coeffs<double>;
    using CoeffsJ = typename M::template Coeffs<Grad>;
    static_assert(std::is_trivially_copyable<CoeffsD>::value && std::is_standard_layout<CoeffsJ>::value);
    static_assert(sizeof(CoeffsJ) == kCoeffs * sizeof(Grad), "Coeffs must be an aggregate of T fields");
    const int np = static_cast<int>(locals_.size());
    Grad x[kMaxBlockParams];
    int lane[kMaxBlockParams];
    external_values<Grad>(parameters, jacobians, x, lane);
    int na = 0;
    for (int i = 0; i < np; ++i) na += lane[i] >= 0;
    Grad p[2][M::kNumParams];
    for (int s = 0; s < 2; ++s)
      for (int j = 0; j < M::kNumParams; ++j) p[s][j] = x[map_[s][j]];
    // Per sign: coefficient values and dc/dp (coefficient f, lane l).
    CoeffsD cv[2];
    double dc[2][kCoeffs][kMaxBlockParams];
    for (int s = 0; s < (asym_ ? 2 : 1); ++s) {
      const CoeffsJ cj = M::prepare(p[s]);
      const Grad* flat = reinterpret_cast<const Grad*>(&cj);  // kCoeffs Jets in a row (asserted above)
      double values[kCoeffs];
      for (int f = 0; f < kCoeffs; ++f) {
        values[f] = flat[f].a;
        for (int l = 0; l < kMaxBlockParams; ++l) dc[s][f][l] = flat[f].v[l];
      }
      std::memcpy(static_cast<void*>(&cv[s]), values, sizeof(values));
    }
    if (!asym_) {
      cv[1] = cv[0];
      std::memcpy(dc[1], dc[0], sizeof(dc[0]));
    }
    const Grad mass = mass_ >= 0 ? x[mass_] : Grad(0.0);
    const Grad offset = offset_ >= 0 ? x[offset_] : Grad(0.0);
    const Prepared& d = *d_;
    double* jac[kMaxBlockParams];  // the Jacobian column of each active lane
    for (int i = 0; i < np; ++i)
      if (lane[i] >= 0) jac[lane[i]] = jacobians[i];
    // The rows, with the number of active lanes a constant for the usual
    // counts (the chain rule's loops unrolled; the same operations in the
    // same order, so the same bits).
    auto rows = [&](auto lanes) -> bool {
      constexpr int kLanes = decltype(lanes)::value;
      const int n = kLanes > 0 ? kLanes : na;
      for (size_t k = begin_; k < end_; ++k) {
        const Sample<double> s{d.v[k], d.pa[k], d.pb[k], d.fn[k]};
        const int sign = d.v[k] < 0.0 ? 1 : 0;
        CoeffsD dfc;
        double f = M::force_grad(cv[sign], s, dfc);
        double df[kCoeffs];
        std::memcpy(df, &dfc, sizeof(df));
        double g[kMaxBlockParams];
        for (int l = 0; l < n; ++l) g[l] = 0.0;
        for (int c = 0; c < kCoeffs; ++c)
          for (int l = 0; l < n; ++l) g[l] += df[c] * dc[sign][c][l];
        if (offset_ >= 0) {
          f += offset.a;
          for (int l = 0; l < n; ++l) g[l] += offset.v[l];
        }
        if (mass_ >= 0) {
          f += mass.a * d.acc[k];
          for (int l = 0; l < n; ++l) g[l] += mass.v[l] * d.acc[k];
        }
        const size_t row = k - begin_;
        double r = d.y[k] - f;
        const double scale = loss_.apply(r);
        residuals[row] = r;
        if (!std::isfinite(r)) return false;
        for (int l = 0; l < n; ++l) {
          jac[l][row] = -scale * g[l];
          // Reject the point (Ceres shrinks the step) rather than hand over NaN.
          if (!std::isfinite(jac[l][row])) return false;
        }
      }
      return true;
    };
    switch (na) {
      case 1: return rows(std::integral_constant<int, 1>{});
      case 2: return rows(std::integral_constant<int, 2>{});
      case 3: return rows(std::integral_constant<int, 3>{});
      case 4: return rows(std::integral_constant<int, 4>{});
      case 5: return rows(std::integral_constant<int, 5>{});
      case 6: return rows(std::integral_constant<int, 6>{});
      default: return rows(std::integral_constant<int, 0>{});
    }
  }

  template <class T>
  bool run(double const* const* parameters, double* residuals, double** jacobians) const {
    constexpr bool kJet = !std::is_same<T, double>::value;
    const int np = static_cast<int>(locals_.size());
    T x[kMaxBlockParams];
    int lane[kMaxBlockParams];
    external_values<T>(parameters, jacobians, x, lane);
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
