// The typed calls the CLI's identify and import make into their layers:
// ident::check_identify_request decides which options go together before any
// I/O, and import_logs writes a log and says what each experiment came from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_import.hpp"
#include "stribeck/identification/identify_run.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

std::string refusal(const ident::IdentifyRequest& r) {
  try {
    ident::check_identify_request(r);
  } catch (const data::InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(IdentifyRequest, OptionsThatDoNotGoTogetherAreRefusedBeforeAnyLogIsRead) {
  ident::IdentifyRequest r;
  r.logs = {"no_such_log.h5"};  // never opened by the check
  EXPECT_EQ(refusal(r), "give exactly one of --model ID or --compare ID,ID,...");
  r.model = "simscape-cylinder";
  EXPECT_EQ(refusal(r), "accepted");
  r.shard = "0/2";
  EXPECT_EQ(refusal(r), "--shard applies to --batch (one fit per experiment); a joint fit is not split");
  r.batch = true;
  EXPECT_EQ(refusal(r), "--shard with --batch needs an HDF5 results file (-o OUT.h5)");
  r.output = "fits.h5";
  EXPECT_EQ(refusal(r), "accepted");
  r.table = "fits.csv";
  EXPECT_EQ(refusal(r), "--table with --batch -o: the fits are rows of fits.h5 (write one or the other)");
  r = {};
  r.compare = ",";
  EXPECT_EQ(refusal(r), "--compare ',': no model id (give ID,ID,...)");
  r.compare = "lugre,,dahl";
  EXPECT_EQ(r.models(), (std::vector<std::string>{"lugre", "dahl"}));
  r.report = "fit.html";
  EXPECT_EQ(refusal(r), "--report draws from the fit's HDF5 results: give --output too (it may be the log itself)");
}

TEST(LogImport, ReportsWhatEachExperimentCameFromAndWritesTheLog) {
  const std::string dir = test::temp_dir() + "log_import/";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "run.csv") << "Rig 2\ntime [ms],velocity [mm/s],force [N]\n0,1,5\n1,2,6\n2,3,7\n";
  data::ImportRequest q;
  q.files = {dir + "run.csv"};
  q.output = dir + "run.h5";
  q.constants = {"pressure_b=2bar"};
  q.time_shifts = {0.5};
  const std::vector<data::ImportedExperiment> done = data::import_logs(q);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].name, "run");
  EXPECT_EQ(done[0].file, dir + "run.csv");
  EXPECT_EQ(done[0].samples, 3u);
  EXPECT_EQ(done[0].channels, (std::vector<std::string>{"force", "pressure_b", "time", "velocity"}));
  EXPECT_EQ(done[0].attributes.at("header_line"), "2");
  EXPECT_EQ(done[0].attributes.at("time_shift"), "0.5");
  EXPECT_TRUE(done[0].derived.derived.empty());
  const std::vector<data::Experiment> log = data::read_log(q.output);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].channels.at("time"), (std::vector<double>{0.5, 0.501, 0.502}));
  EXPECT_EQ(log[0].channels.at("velocity"), (std::vector<double>{0.001, 0.002, 0.003}));
  EXPECT_EQ(log[0].channels.at("pressure_b"), (std::vector<double>{2e5, 2e5, 2e5}));
}

TEST(LogImport, SettingsOutOfRangeAreRefusedBeforeAnythingIsWritten) {
  const std::string dir = test::temp_dir() + "log_import_refused/";
  std::filesystem::create_directories(dir);
  data::ImportRequest q;
  q.files = {dir + "absent.csv", dir + "absent2.csv"};  // never opened
  q.output = dir + "never.h5";
  q.names = {"one"};
  auto refusal = [&] {
    try {
      data::import_logs(q);
    } catch (const data::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(), "--name given 1 times for 2 files; give one per file, in the same order");
  q.names.clear();
  q.cutoff = 0.0;
  EXPECT_EQ(refusal(), "--cutoff 0: the cut-off must be a frequency > 0 [Hz]");
  q.cutoff.reset();
  q.align = "rate=-1";
  EXPECT_EQ(refusal(), "--align 'rate=-1': give first (the first file's time) or rate=HZ (a grid of HZ > 0)");
  EXPECT_FALSE(std::filesystem::exists(q.output));
}

}  // namespace
}  // namespace stribeck
