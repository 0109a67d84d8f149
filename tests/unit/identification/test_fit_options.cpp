// FitOptions::IsValid, the one check of a fit's options (issue 36 item 3):
// each rule's message and the defaults of every model. (`stribeck identify`
// refusing bad options with that message before it opens a log:
// tests/unit/cli/test_fit_options.cpp.)
#include <gtest/gtest.h>

#include <string>

#include "dynamic_fit.hpp"
#include "fit_option_cases.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

using ident::FitOptions;
using test::Invalid;
using test::invalid_options;

TEST(FitOptions, EachBrokenRuleIsOneMessageNamingTheOption) {
  for (const Invalid& c : invalid_options()) {
    FitOptions o;
    c.set(o);
    std::string error = "untouched";
    EXPECT_FALSE(o.IsValid(c.model, &error)) << c.message;
    EXPECT_EQ(error, c.message);
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_FALSE(o.IsValid(c.model, nullptr)) << "a null error pointer is allowed";
    try {
      ident::check_fit_options(c.model, o);
      ADD_FAILURE() << "check_fit_options took " << c.message;
    } catch (const data::InputError& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
    }
  }
}

TEST(FitOptions, AnUnknownModelIsNamed) {
  std::string error;
  EXPECT_FALSE(FitOptions{}.IsValid("no-such-model", &error));
  EXPECT_EQ(error.rfind("unknown model 'no-such-model'; known models: simscape-translational, ", 0), 0u) << error;
}

// What IsValid passes: the defaults for every model identification fits, and
// values at the edges of each rule.
TEST(FitOptions, DefaultsAndEdgeValuesPass) {
  for (const ModelInfo& m : all_models()) {
    std::string error;
    const bool fitted = !m.dynamic || ident::detail::has_two_stage_fit(m.id);
    EXPECT_EQ(FitOptions{}.IsValid(m.id, &error), fitted) << m.id << ": " << error;
    if (!fitted) {
      EXPECT_EQ(error, "model " + m.id + " is dynamic and identification has no fit of it yet");
    }
  }
  FitOptions o;
  o.starts = 0, o.coarse_points = 0, o.decimation = 0, o.cutoff_hz = 0, o.mass = 0, o.agree_tolerance = 0;
  o.function_tolerance = 0;
  o.inertia = true;
  o.loss = "cauchy:0.5";
  o.free = {"F_brk", "F_C", "mass", "offset"};
  o.fix = {"f_v=0", "v_brk=1e-300"};
  o.initial = {"F_C=0", "F_brk=1e300"};
  o.bounds = {"F_C=:inf", "F_brk=-inf:", "mass=-1:0.5"};
  std::string error;
  EXPECT_TRUE(o.IsValid("simscape-translational", &error)) << error;
  // Fixed at equal values meets a >= b; a free F_brk above a held F_C is the fit's to keep.
  o = FitOptions{};
  o.fix = {"F_brk=20", "F_C=20"};
  EXPECT_TRUE(o.IsValid("simscape-translational", &error)) << error;
  o.fix = {"F_C=30"};
  EXPECT_TRUE(o.IsValid("simscape-translational", &error)) << error;
  // An estimated mass (NaN) is valid with or without inertia.
  o = FitOptions{};
  o.inertia = true;
  EXPECT_TRUE(o.IsValid("coulomb-viscous", &error)) << error;
}

}  // namespace
}  // namespace stribeck
