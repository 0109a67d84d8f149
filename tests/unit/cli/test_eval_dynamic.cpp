// `stribeck eval` with dynamic models: time channel, initial state, errors.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/kernels/models/dahl.hpp"

namespace stribeck {
namespace {

std::string temp_path(const char* name) { return stribeck::test::temp_dir() + name; }

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(EvalDynamic, DahlAlongTraceMatchesClosedForm) {
  // Constant velocity 1 mm/s sampled at 1 kHz, from an initial force of -0.5 N:
  // F(x) = F_C - (F_C - F0) exp(-sigma0 x / F_C) (alpha = 1).
  const std::string in = temp_path("dahl_in.csv"), out = temp_path("dahl_out.csv");
  std::ostringstream text;
  text << "time,velocity,extra\n";
  for (int i = 0; i < 30; ++i) text << 0.5 + i * 1e-3 << ",0.001," << i << "\n";
  write_file(in, text.str());
  workloads::EvalOptions o{"dahl", {"sigma0=2e5", "F_C=2"}, in, out, -0.5};
  const workloads::EvalSummary s = workloads::evaluate_file(o);
  EXPECT_EQ(s.samples, 30);
  ASSERT_EQ(s.columns.back(), "model_state");
  data::CsvReader r(out);
  std::vector<double> v;
  std::vector<std::string_view> cells;
  int i = 0;
  while (r.next(v, cells)) {
    const double x = 0.001 * i * 1e-3;
    const double expect = 2.0 - 2.5 * std::exp(-2e5 * x / 2.0);
    EXPECT_NEAR(v[r.column("model_force")], expect, 1e-12) << i;
    EXPECT_EQ(v[r.column("extra")], i);  // other columns carried through
    ++i;
  }
  EXPECT_EQ(i, 30);
}

TEST(EvalDynamic, StateCarriesAcrossBlocks) {
  // 10,000 rows (more than one 4096-row block): LuGre at constant velocity
  // must stay at its steady state, with no restart at block boundaries.
  const std::string in = temp_path("lugre_in.csv"), out = temp_path("lugre_out.csv");
  std::ostringstream text;
  text << "time,velocity\n";
  for (int i = 0; i < 10000; ++i) text << i * 1e-3 << ",0.01\n";
  write_file(in, text.str());
  workloads::evaluate_file(workloads::EvalOptions{"lugre", {}, in, out, std::nullopt});
  data::CsvReader r(out);
  std::vector<double> v;
  std::vector<std::string_view> cells;
  int i = 0;
  const double g = 1.0 + 0.5 * std::exp(-100.0), steady = g + 0.4 * 0.01;
  while (r.next(v, cells)) {
    if (i >= 100) ASSERT_NEAR(v[2], steady, 1e-12) << i;
    ++i;
  }
  EXPECT_EQ(i, 10000);
}

TEST(EvalDynamic, ErrorsAreOneLineAndLeaveNoOutput) {
  const std::string in = temp_path("bad_in.csv"), out = temp_path("bad_out.csv");
  std::remove(out.c_str());
  write_file(in, "velocity\n0.1\n");
  try {
    workloads::evaluate_file(workloads::EvalOptions{"lugre", {}, in, out, std::nullopt});
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a 'time' column"), std::string::npos) << e.what();
  }
  write_file(in, "time,velocity\n0,0.1\n0.001,0.1\n0.001,0.2\n");
  try {
    workloads::evaluate_file(workloads::EvalOptions{"dahl", {}, in, out, std::nullopt});
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":4: time 0.001 does not increase"), std::string::npos) << e.what();
  }
  EXPECT_THROW(workloads::evaluate_file(workloads::EvalOptions{"coulomb-viscous", {}, in, out, 0.0}), data::InputError);
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(EvalDynamic, CliPrintsPassivityWarning) {
  const std::string in = temp_path("cli_in.csv"), out = temp_path("cli_out.csv"), err = temp_path("cli_err.txt");
  write_file(in, "time,velocity\n0,0\n0.001,0.001\n");
  const std::string cmd =
      std::string(STRIBECK_CLI) + " eval -m lugre -i " + in + " -o " + out + " --initial-state 1e-6 2> " + err;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream e(err);
  std::string all((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find("stribeck: warning: lugre: passivity condition"), std::string::npos) << all;
}

}  // namespace
}  // namespace stribeck
