#pragma once
// Private to identification/: the elements of a generalized Maxwell-slip fit
// (gms1 ... gms4; docs/identification.md, "Dynamic models") as the joint
// stage moves them. The model's stick-breaking fractions kf_i, af_i give
// element i the share kappa_i of the total stiffness sigma0 and alpha_i of
// the Stribeck curve, so its break displacement is proportional to
// alpha_i / kappa_i. Two things about N >= 2 elements that a search over the
// fractions does not see:
//   - order: any permutation of the elements is the same model, at other
//     fractions, so two starts that reach one optimum report different
//     parameters (and the search's agreement rule never holds). Each
//     refinement's elements are put in the order of their break
//     displacements, smallest first (the order of the model's defaults).
//   - dead elements: an element whose stiffness or level share reaches 0 has
//     no gradient back, so a fit of N elements can end at a fit of N - 1.
//     gms3 and gms4 start from the fit of one element fewer with each of its
//     elements split in two (gms_split_starts), which has every element alive
//     and is as good as that fit before the first step.
#include <type_traits>
#include <vector>

#include "problem.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident::detail {

// The element count of a fit's model: N for GmsFit<N>, 0 for the others.
template <class F, class = void>
struct GmsElementCount : std::integral_constant<int, 0> {};
template <class F>
struct GmsElementCount<F, std::void_t<decltype(F::Model::kElements)>>
    : std::integral_constant<int, F::Model::kElements> {};

// One element's shares: kappa of sigma0, alpha of the Stribeck curve.
struct GmsElement {
  double kappa = 0.0, alpha = 0.0;
};

// The elements of fractions kf[0 .. n-2], af[0 .. n-2] (n = kf.size() + 1).
std::vector<GmsElement> gms_elements(const std::vector<double>& kf, const std::vector<double>& af);
// The fractions of elements whose shares are positive and sum to 1.
void gms_fractions(const std::vector<GmsElement>& el, std::vector<double>* kf, std::vector<double>* af);

// Layout indices of gmsN's kf_1 .. kf_{N-1} and af_1 .. af_{N-1} when every
// one is free, shared by every experiment (and sign) and bounded only by the
// model's (0, 1); both empty otherwise (then the elements are left as the
// user laid them out).
struct GmsFractionIndices {
  std::vector<int> kf, af;
  std::vector<int> all() const {  // kf, then af
    std::vector<int> a = kf;
    a.insert(a.end(), af.begin(), af.end());
    return a;
  }
};
GmsFractionIndices gms_fraction_indices(const Layout& L, int n);

// Puts the elements of internal coordinates u (one per Layout parameter;
// the fractions log-parameterised) in the order of their break
// displacements, smallest first; the force is the same. Nothing when `f` is
// empty or an element is dead (a share not above 0).
void order_gms_elements(const GmsFractionIndices& f, std::vector<double>& u);

// gmsN's starts from the fit `fewer` of N - 1 elements on the same data: its
// parameters (by name, offsets included) with element j split in two, for
// each j. The two halves keep the element's stiffness and level and lie at
// twice and half its break displacement; elements in order. Internal
// coordinates of L (the gmsN layout, values clipped to its bounds).
std::vector<std::vector<double>> gms_split_starts(const Layout& L, const GmsFractionIndices& f,
                                                  const FitSummary& fewer);

// Whether the user's options name an element fraction (kf_i, af_i), whose
// index means another element in a fit of fewer elements.
bool names_gms_fraction(const FitOptions& o);

}  // namespace stribeck::ident::detail
