// Batch fits as the third workload of the engine (identification/batch_fit.hpp):
// known truths of synthetic experiments recovered while bad experiments get
// their own status; threads and chunks change no fit; options no fit could
// use are refused before any fit. (`identify --batch`: shards merged, and a
// stopped run resumed, equal one run bit for bit; bad input is one line and
// exit 2: tests/unit/cli/test_batch_fit.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "batch_line.hpp"
#include "stribeck/identification/batch_fit.hpp"

namespace stribeck {
namespace {

using ident::BatchFitStatus;
using test::synthetic;
using test::truth;

// Good experiments 0..3, then: too short, NaN force, no motion, constant
// velocity.
std::vector<data::Experiment> line_batch() {
  std::vector<data::Experiment> v;
  for (int k = 0; k < 4; ++k) v.push_back(synthetic(k, 10 + k));
  data::Experiment shorty = synthetic(0, 20);
  for (auto& [name, ch] : shorty.channels) ch.resize(3);
  shorty.name = "short";
  v.push_back(shorty);
  data::Experiment nan = synthetic(1, 21);
  nan.channels["force"][100] = std::nan("");
  nan.name = "nan";
  v.push_back(nan);
  data::Experiment still = synthetic(2, 22);
  for (double& x : still.channels["velocity"]) x = 0;
  still.name = "still";
  v.push_back(still);
  data::Experiment constant = synthetic(3, 23);
  for (double& x : constant.channels["velocity"]) x = 0.05;
  constant.name = "constant";
  v.push_back(constant);
  return v;
}

TEST(BatchFit, RecoversKnownTruthsAndGivesBadExperimentsTheirOwnStatus) {
  const auto src = ident::memory_experiments(line_batch(), "line");
  ident::BatchFitOptions o;
  o.model = "simscape-translational";
  o.threads = 2;
  o.chunk = 3;  // chunks cut across good and bad experiments
  const ident::BatchFitResult r = ident::run_batch_fit(*src, o);
  ASSERT_TRUE(r.finished);
  ASSERT_EQ(r.rows.size(), 8u);
  EXPECT_EQ(r.parameters, (std::vector<std::string>{"F_brk", "v_brk", "F_C", "f_v"}));
  for (int k = 0; k < 4; ++k) {
    const ident::BatchFitRow& row = r.rows[k];
    EXPECT_EQ(row.status, BatchFitStatus::kConverged) << k;
    EXPECT_GT(row.iterations, 0);
    EXPECT_EQ(row.samples, 2001);
    EXPECT_NEAR(row.rmse, 0.2, 0.03) << k;  // the noise put in
    for (size_t p = 0; p < r.parameters.size(); ++p) {
      const double want = truth(k).at(r.parameters[p]);
      EXPECT_NEAR(row.value[p], want, 0.03 * want) << k << " " << r.parameters[p];
      EXPECT_GT(row.std_error[p], 0) << k << " " << r.parameters[p];
      EXPECT_LT(std::abs(row.value[p] - want), 6 * row.std_error[p] + 1e-3 * want) << k << " " << r.parameters[p];
    }
  }
  // Bad data: not fitted, the reason kept, parameters NaN; the rest fitted.
  for (int k : {4, 5, 6}) {
    EXPECT_EQ(r.rows[k].status, BatchFitStatus::kBadData) << k;
    EXPECT_TRUE(std::isnan(r.rows[k].value[0]));
    EXPECT_EQ(r.rows[k].iterations, 0);
  }
  EXPECT_NE(r.rows[4].reason.find("too few samples"), std::string::npos) << r.rows[4].reason;
  EXPECT_NE(r.rows[5].reason.find("NaN"), std::string::npos) << r.rows[5].reason;
  EXPECT_NE(r.rows[6].reason.find("no motion"), std::string::npos) << r.rows[6].reason;
  // Constant velocity: fitted, but not a clean convergence, with a warning.
  EXPECT_NE(r.rows[7].status, BatchFitStatus::kConverged);
  EXPECT_NE(r.rows[7].status, BatchFitStatus::kBadData);
  EXPECT_GT(r.rows[7].warnings, 0);
  EXPECT_EQ(r.status_counts[0], 4u);
  EXPECT_EQ(r.status_counts[4], 3u);
  EXPECT_EQ(r.totals.count(engine::PointStatus::kOk), 5u);
  EXPECT_EQ(r.totals.count(engine::PointStatus::kInvalid), 3u);
  ASSERT_EQ(r.totals.invalid_examples.size(), 3u);
  EXPECT_EQ(r.totals.invalid_examples[0].rfind("point 4: line:short: ", 0), 0u) << r.totals.invalid_examples[0];
}

TEST(BatchFit, ThreadsAndChunksDoNotChangeAFit) {
  std::vector<data::Experiment> v;
  for (int k = 0; k < 3; ++k) v.push_back(synthetic(k, 40 + k));
  const auto src = ident::memory_experiments(v, "line");
  ident::BatchFitOptions o;
  o.model = "simscape-translational";
  o.threads = 1;
  o.chunk = 1;
  const auto a = ident::run_batch_fit(*src, o);
  o.threads = 3;
  o.chunk = 3;
  const auto b = ident::run_batch_fit(*src, o);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(a.rows[k].value, b.rows[k].value);
    EXPECT_EQ(a.rows[k].std_error, b.rows[k].std_error);
    EXPECT_EQ(a.rows[k].cost, b.rows[k].cost);
  }
}

TEST(BatchFit, OptionsNoFitCouldUseAreRefusedBeforeAnyFit) {
  const auto src = ident::memory_experiments({synthetic(0, 1)}, "line");
  ident::BatchFitOptions o;
  o.model = "simscape-translational";
  o.fit.fix = {"F_X=3"};
  EXPECT_THROW(ident::run_batch_fit(*src, o), data::InputError);
  o.fit.fix.clear();
  o.model = "no-such-model";
  EXPECT_THROW(ident::run_batch_fit(*src, o), data::InputError);
  o.model = "simscape-translational";
  o.shard = "2/2";
  EXPECT_THROW(ident::run_batch_fit(*src, o), data::InputError);
}

}  // namespace
}  // namespace stribeck
