#pragma once
// Private to identification/: the two-stage fit of the dynamic models whose
// state relaxes to a steady state with the distance slid: LuGre, Dahl and
// 20-sim LuGre (docs/identification.md, "Dynamic models").
//
// Stage 1 fits the model's steady-state curve (the kernels' steady_force, one
// equation) as a static law to the samples where the state has settled (all
// moving samples when few settle); stage 2 fits the two dynamic parameters
// with the static part held, simulating the state along each experiment
// inside the residual. Both only start the joint stage (joint_fit.hpp),
// which fits every parameter by simulation error over every sample.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/dahl.hpp"
#include "stribeck/kernels/models/elastoplastic.hpp"
#include "stribeck/kernels/models/gms.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/models/twentysim_lugre.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

// Relaxation lengths a settled sample has slid since a reversal: after one,
// the state starts at most twice its steady value away, and 8 lengths of an
// exponential approach leave 2 e^-8 = 0.07 % of it.
constexpr double kSettleLengths = 8.0;

// What the two-stage fit needs of a model. kDyn: the two parameters of
// stage 2 (both log-parameterised). steady_force: the model's steady state.
// level(p): the force per unit input the state saturates at, which with the
// travel from a reversal to the force's zero crossing (ln 2 relaxation
// lengths when the approach is exponential) gives the first guess of
// sigma0 = level ln 2 / travel. settle_travel(p): travel from a reversal
// after which the state is within 0.07 % of its steady state.
// second_starts(sigma0): the start grid of the second dynamic parameter.
// start_state: the state at the first sample (steady state at v0).
struct LuGreFit {
  using Model = LuGre;
  static constexpr const char* kTitle = "LuGre";
  static constexpr int kDyn[2] = {LuGre::sigma0, LuGre::sigma1};
  // Whether force levels and stiffness are per newton of normal force.
  static constexpr bool kPerNewton = false;
  template <class T>
  static T steady_force(const LuGre::Coeffs<T>& c, const Sample<T>& s) {
    return LuGre::steady_force(c, s.v);
  }
  static double level(const double* p) { return p[LuGre::F_s]; }
  static double settle_travel(const double* p) { return kSettleLengths * p[LuGre::F_s] / p[LuGre::sigma0]; }
  // Bristle time constants sigma1/sigma0 from 1 us to 1 s.
  static std::vector<double> second_starts(double s0) {
    return {s0 * 1e-6, s0 * 1e-5, s0 * 1e-4, s0 * 1e-3, s0 * 1e-2, s0 * 1e-1, s0};
  }
  static double second_default(double s0) { return s0 * 1e-3; }
  template <class T>
  static T start_state(const LuGre::Coeffs<T>& c, const T& v0) {
    return math::sign(v0) * LuGre::z_ss(c, v0);
  }
};

// 20-sim's LuGre is LuGre per newton of normal force: the same bristle, its
// forces times F_n (so z, and every length above, do not depend on F_n).
struct TwentySimLuGreFit : LuGreFit {
  using Model = TwentySimLuGre;
  static constexpr const char* kTitle = "20-sim LuGre";
  static constexpr int kDyn[2] = {TwentySimLuGre::sigma0, TwentySimLuGre::sigma1};
  static constexpr bool kPerNewton = true;
  template <class T>
  static T steady_force(const LuGre::Coeffs<T>& c, const Sample<T>& s) {
    return TwentySimLuGre::steady_force(c, s);
  }
  static double level(const double* p) { return p[TwentySimLuGre::mu_s]; }
  static double settle_travel(const double* p) {
    return kSettleLengths * p[TwentySimLuGre::mu_s] / p[TwentySimLuGre::sigma0];
  }
};

// The elasto-plastic model slides to LuGre's steady state (the same g(v), so
// the same stage 1); stage 2 fits sigma0 and sigma1 with r_ba held at its
// value (default 0.5), and the joint stage frees r_ba with the rest. Its
// state starts settled like LuGre's; it has settled after LuGre's travel
// (the elastic zone and the band end at |z_ss| <= F_s/sigma0).
struct ElastoPlasticFit : LuGreFit {
  using Model = ElastoPlastic;
  static constexpr const char* kTitle = "elasto-plastic";
  static constexpr int kDyn[2] = {ElastoPlastic::sigma0, ElastoPlastic::sigma1};
  template <class T>
  static T steady_force(const ElastoPlastic::Coeffs<T>& c, const Sample<T>& s) {
    return ElastoPlastic::steady_force(c, s.v);
  }
  static double level(const double* p) { return p[ElastoPlastic::F_s]; }
  static double settle_travel(const double* p) {
    return kSettleLengths * p[ElastoPlastic::F_s] / p[ElastoPlastic::sigma0];
  }
  template <class T>
  static T start_state(const ElastoPlastic::Coeffs<T>& c, const T& v0) {
    return math::sign(v0) * ElastoPlastic::z_ss(c, v0);
  }
};

// The generalized Maxwell-slip model with N elements slides to the Stribeck
// curve s(v) sign(v) + sigma2 v (stage 1, with its exponent delta); stage 2
// fits the total stiffness sigma0 and the damping sigma1 as LuGre's with the
// attraction C and the element fractions held (at their defaults, or
// --init), and the joint stage frees them with the rest. The state starts
// settled (every element at its maximum m_i(v0)); after a reversal it has
// settled once the most compliant element has crossed from -m_i to m_i and
// through its taper (2 + 8/16 of m_i) and a slipping element has relaxed
// (8 time constants m_i/C at the Stribeck velocity: 8 m_i v_s/C of travel).
template <int N>
struct GmsFit : LuGreFit {
  using Model = Gms<N>;
  static constexpr const char* kTitle = "GMS";
  static constexpr int kDyn[2] = {Model::sigma0, Model::sigma1};
  template <class T>
  static T steady_force(const typename Model::template Coeffs<T>& c, const Sample<T>& s) {
    return Model::steady_force(c, s.v);
  }
  static double level(const double* p) { return p[Model::F_s]; }
  static double settle_travel(const double* p) {
    const auto c = Model::prepare(p);
    double w = 0;
    for (int i = 0; i < N; ++i) w = std::max(w, c.w[i]);
    const double m = w * std::max(p[Model::F_s], p[Model::F_C]);
    return m * (2.0 + kSettleLengths * Model::kTaper + kSettleLengths * p[Model::v_s] / p[Model::C]);
  }
  template <class T>
  static typename Model::template State<T> start_state(const typename Model::template Coeffs<T>& c, const T& v0) {
    typename Model::template State<T> st{};
    const T sv = Model::curve(c, v0), sg = math::sign(v0);
    for (int i = 0; i < N; ++i) Model::element(st, i) = sg * c.w[i] * sv;
    st.v_prev = v0;
    return st;
  }
};

// The state at the first sample: F::start_state's, which is the whole state
// (GMS) or the one state z (the others) with v_prev = v0.
template <class F, class C, class T>
typename F::Model::template State<T> start_of(const C& c, const T& v0) {
  using S = typename F::Model::template State<T>;
  if constexpr (std::is_same_v<decltype(F::start_state(c, v0)), S>) return F::start_state(c, v0);
  else return S{F::start_state(c, v0), v0};
}

struct DahlFit {
  using Model = Dahl;
  static constexpr const char* kTitle = "Dahl";
  static constexpr int kDyn[2] = {Dahl::sigma0, Dahl::alpha};
  static constexpr bool kPerNewton = false;
  template <class T>
  static T steady_force(const Dahl::Coeffs<T>& c, const Sample<T>& s) {
    return Dahl::steady_force(c, s.v);
  }
  static double level(const double* p) { return p[Dahl::F_C]; }
  // |u| = |1 - F sign(v)/F_C| falls from 2 to 2 e^-8 (Dahl::travel): after
  // 8 F_C/sigma0 for alpha = 1, after (|u_e|^(1-a) - 2^(1-a)) / ((a-1) sigma0/F_C)
  // otherwise (much longer for alpha > 1, whose approach is algebraic).
  static double settle_travel(const double* p) {
    const double k = p[Dahl::sigma0] / p[Dahl::F_C], a = p[Dahl::alpha];
    if (std::abs(a - 1.0) < 1e-9) return kSettleLengths / k;
    const double end = 2.0 * std::exp(-kSettleLengths);
    return (std::pow(end, 1.0 - a) - std::pow(2.0, 1.0 - a)) / ((a - 1.0) * k);
  }
  // Not exactly 1: there Dahl::travel takes its exponential form, which
  // carries no derivative in alpha; the fit moves on from any start.
  static std::vector<double> second_starts(double) { return {0.5, 0.8, 1.25, 1.5, 2.0, 3.0}; }
  static double second_default(double) { return 1.25; }
  template <class T>
  static T start_state(const Dahl::Coeffs<T>& c, const T& v0) {
    return Dahl::steady_force(c, v0);
  }
};

// A dynamic model's steady state as a static law with the model's
// parameters, so the static-fit machinery (layout, guesses, vectorised
// blocks, covariance) fits it unchanged. The dynamic parameters do not act
// on it and are held fixed.
template <class F>
struct SteadyState : StaticLaw {
  using M = typename F::Model;
  static constexpr int kNumParams = M::kNumParams;
  template <class T>
  using Coeffs = typename M::template Coeffs<T>;
  template <class T>
  static Coeffs<T> prepare(const T* p) {
    return M::prepare(p);
  }
  template <class T>
  static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return F::steady_force(c, s);
  }
};

struct FitOrigin;  // fit_solve.hpp

// Stage 1 on the settled samples (run_fit<SteadyState<F>>, compiled in
// fit.cpp for the traits above). A failure names the stage and only the
// user's own values (origin).
template <class F>
FitSummary fit_steady_state(const ModelInfo& model, const std::vector<data::Experiment>& steady, const FitOptions& o,
                            const FitOrigin& origin);

// Calls fn(FitKind<F>{}) with the fit traits F of model `model_id` (lugre,
// dahl, 20sim-lugre, elastoplastic, gms1..gms4) and returns true; false
// (fn not called) for a model without a fit by simulation error. The one
// list of those models: the fit, its options and design dispatch through it.
template <class F>
struct FitKind {
  using type = F;
};
template <class Fn>
bool visit_two_stage_fit(const std::string& model_id, Fn&& fn) {
  if (model_id == LuGre::kId) fn(FitKind<LuGreFit>{});
  else if (model_id == Dahl::kId) fn(FitKind<DahlFit>{});
  else if (model_id == TwentySimLuGre::kId) fn(FitKind<TwentySimLuGreFit>{});
  else if (model_id == ElastoPlastic::kId) fn(FitKind<ElastoPlasticFit>{});
  else if (model_id == Gms1::kId) fn(FitKind<GmsFit<1>>{});
  else if (model_id == Gms2::kId) fn(FitKind<GmsFit<2>>{});
  else if (model_id == Gms3::kId) fn(FitKind<GmsFit<3>>{});
  else if (model_id == Gms4::kId) fn(FitKind<GmsFit<4>>{});
  else return false;
  return true;
}

// Whether `model_id` has a two-stage fit (visit_two_stage_fit's models).
bool has_two_stage_fit(const std::string& model_id);
// The time stamps the state is simulated over: experiment `ex`'s time
// channel, which must exist and increase strictly, else an InputError
// beginning with `where` (the log's source, or "design").
const std::vector<double>& simulation_times(const data::Experiment& ex, const std::string& where,
                                            const std::string& model_id);
// Both stages, then the joint stage; the summary is the joint stage's.
FitSummary fit_two_stage(const std::vector<data::Experiment>& experiments, const ModelInfo& model, const FitOptions& o);

}  // namespace stribeck::ident::detail
