#pragma once
// What an ensemble drawn from a fit (simulate [ensemble] from_fit) says about
// the machine: the probability of stick-slip with its Monte Carlo error, and
// quantiles of the breakaway force and the stick-slip metrics with
// distribution-free 95 % intervals (docs/dynamics.md, "Ensembles drawn from a fit").
#include <cstdint>
#include <string>
#include <vector>

#include "stribeck/workloads/ensemble.hpp"

namespace stribeck::workloads {

// The 5 %, 50 % and 95 % quantiles of one metric over the draws that ran
// (status ok), each with the 95 % interval of the order statistics around it
// (binomial: ranks n p -/+ 1.96 sqrt(n p (1 - p))).
struct MetricQuantiles {
  std::string metric, unit;
  static constexpr double kProbabilities[3] = {0.05, 0.5, 0.95};
  double value[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  std::uint64_t draws = 0;
};

struct FitDrawsSummary {
  Probability stick_slip;
  std::uint64_t outside = 0;  // draws outside the model's ranges (counted as not sticking)
  // Empty when the results are neither in memory nor in a finished file
  // (a shard, a stopped run). At most the first kMaxQuantileDraws draws:
  // every draw of a random design is independent, so they are a sample.
  std::vector<MetricQuantiles> quantiles;
};
constexpr std::uint64_t kMaxQuantileDraws = 10'000'000;

// `output`: the finished ensemble file ("" when the results are in r.metrics).
FitDrawsSummary summarize_fit_draws(const EnsembleResult& r, const std::string& output);
// The summary's lines (each starting with two spaces, no trailing newline);
// `draw`: how the fit was drawn (fit_draw_name: "covariance", "profile-intervals").
std::string fit_draws_report(const FitDrawsSummary& s, const std::string& fit_file, const std::string& draw);

}  // namespace stribeck::workloads
