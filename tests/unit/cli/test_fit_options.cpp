// `stribeck identify` refusing bad options with FitOptions::IsValid's
// message before it opens a log or makes a file (issue 36 item 3; the check
// itself: tests/unit/identification/test_fit_options.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_runner.hpp"
#include "fit_option_cases.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::Invalid;
using test::invalid_options;

// `stribeck identify` checks the options before anything else touches a
// file: with a log that does not exist, the option's message wins over
// "cannot open", exit 2, one line, and no output is made.
TEST(FitOptionsCli, IdentifyRefusesBadOptionsBeforeOpeningTheLog) {
  const std::string dir = test::temp_dir() + "fit_options_cli/";
  std::filesystem::create_directories(dir);
  const std::string missing = dir + "no_such_log.h5";
  const std::string outputs = " -o " + dir + "fit.h5 --json " + dir + "fit.json", table = " --table " + dir + "fit.csv";
  for (const Invalid& c : invalid_options()) {
    if (c.flags.empty()) continue;
    for (const char* batch : {"", " --batch"}) {
      if (*batch && c.model != "simscape-translational") continue;
      const std::string args =
          "identify " + missing + " -m " + c.model + " " + c.flags + batch + outputs + (*batch ? "" : table);
      std::string out;
      EXPECT_EQ(test::run_cli(args, &out), 2) << args << "\n" << out;
      EXPECT_EQ(out, "stribeck: error: " + c.message + "\n") << args;
    }
  }
  std::string out;
  EXPECT_EQ(
      test::run_cli("identify " + missing + " --compare coulomb-viscous,simscape-translational --fix F_brk=-1", &out),
      2);
  EXPECT_EQ(out,
            "stribeck: error: --fix: model coulomb-viscous has no parameter 'F_brk' (parameters: F_C, f_v, v_eps, "
            "and mass, offset for the force balance)\n");
  // Valid options go on to the log, which is then what the message names.
  EXPECT_EQ(test::run_cli("identify " + missing + " -m simscape-translational --fix F_C=1" + outputs, &out), 2);
  EXPECT_NE(out.find(missing), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "an output was made";
}

}  // namespace
}  // namespace stribeck
