// Instrument files as they come (issue 31 item 7): `stribeck import` of raw
// exports without editing them. A DAQ file with a vendor preamble above the
// header, a servo-amplifier export whose first line is a title, a
// spreadsheet's unnamed columns, two Timestamp columns, a time shift, and two
// files on two clocks merged onto one time base (--align). Every fixture is
// written here; merged channels are checked against the analytic signals
// they were sampled from. Refusals: exit 2, one line, no output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "stribeck/data/log.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::run_cli;
using test::temp_dir;
using test::write_temp_file;

constexpr double kPi = 3.14159265358979323846;

std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// 20 rows of time [s], position [mm] and force [N] as plain CSV rows.
std::string rows(size_t n = 20, const std::string& tail = "") {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += num(0.001 * i) + "," + num(0.5 * i) + "," + num(10.0 + i) + tail + "\n";
  return s;
}

data::Experiment only_experiment(const std::string& log) {
  const auto exps = data::read_log(log);
  EXPECT_EQ(exps.size(), 1u);
  return exps.at(0);
}

// The import is refused with exit 2 and one line naming every `expect`,
// and writes nothing.
void expect_refused(const std::string& args, const std::vector<std::string>& expect) {
  const std::string out = temp_dir() + "refused.h5";
  std::string text;
  EXPECT_EQ(run_cli("import " + args + " -o " + out, &text), 2) << args << "\n" << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_EQ(text.rfind("stribeck: error: ", 0), 0u) << text;
  for (const auto& e : expect) EXPECT_NE(text.find(e), std::string::npos) << "'" << e << "' not in: " << text;
  EXPECT_FALSE(std::filesystem::exists(out)) << args;
}

TEST(ImportInstrumentsCli, VendorPreambleAboveTheHeaderIsSkippedAndReported) {
  // Colons, commas and numbers in the preamble, as a DAQ writes it.
  const std::string in = write_temp_file("daq.csv",
                                         "Acme DAQ 3000, firmware 2.1\n"
                                         "Date: 2026-11-28, 09:15:02\n"
                                         "Sample rate: 1000 Hz, channels: 3\n"
                                         "Gain,10,Offset,0.5\n"
                                         "time [s],position [mm],force [N]\n" +
                                             rows());
  const std::string log = temp_dir() + "daq.h5";
  std::string text;
  ASSERT_EQ(run_cli("import " + in + " -o " + log, &text), 0) << text;
  EXPECT_NE(text.find("header on line 5"), std::string::npos) << text;
  const data::Experiment e = only_experiment(log);
  ASSERT_EQ(e.size(), 20u);
  EXPECT_EQ(e.channels.size(), 3u);
  EXPECT_DOUBLE_EQ(e.channels.at("position")[4], 0.002);
  EXPECT_DOUBLE_EQ(e.channels.at("force")[19], 29.0);
  EXPECT_EQ(e.attributes.at("header_line"), "5");

  // Said explicitly, the same log; a header row past the end is refused.
  for (const std::string opt : {"--header-row 5", "--skip-rows 4"}) {
    ASSERT_EQ(run_cli("import " + in + " " + opt + " -o " + log, &text), 0) << opt << "\n" << text;
    const data::Experiment f = only_experiment(log);
    EXPECT_EQ(f.channels.at("force"), e.channels.at("force")) << opt;
  }
  expect_refused(in + " --header-row 40", {in, "header row 40", "past the end"});
}

TEST(ImportInstrumentsCli, TitleLineAboveTheHeaderIsSkipped) {
  // A servo amplifier's export: a title, then the header; "Interval" is an
  // extra channel, not a data row.
  std::string body = "Servo drive XS-200 trace export\nTimestamp,Interval,Velocity [mm/s],Current\n";
  for (int i = 0; i < 12; ++i) body += num(0.002 * i) + ",0.002," + num(3.0 * i) + ",1.5\n";
  const std::string in = write_temp_file("servo.csv", body);
  const std::string log = temp_dir() + "servo.h5";
  std::string text;
  ASSERT_EQ(run_cli("import " + in + " -o " + log, &text), 0) << text;
  EXPECT_NE(text.find("header on line 2"), std::string::npos) << text;
  const data::Experiment e = only_experiment(log);
  ASSERT_EQ(e.size(), 12u);
  EXPECT_DOUBLE_EQ(e.channels.at("time")[11], 0.022);
  EXPECT_DOUBLE_EQ(e.channels.at("velocity")[11], 0.033);
  EXPECT_TRUE(e.has("Interval"));

  // A title above a table without a header is told apart from a header by
  // the user: refused naming --skip-rows, then imported with it.
  const std::string bare = write_temp_file("bare.csv", "Servo drive XS-200 trace export\n" + rows(5));
  expect_refused(bare + " --columns time=0,force=2", {bare + ":1:", "one cell above rows of 3", "--skip-rows 1"});
  ASSERT_EQ(run_cli("import " + bare + " --skip-rows 1 --columns time=0,force=2 -o " + log, &text), 0) << text;
  EXPECT_NE(text.find("1 lines skipped above the table"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(only_experiment(log).channels.at("force")[4], 14.0);
}

TEST(ImportInstrumentsCli, UnnamedSpreadsheetColumnsAreLeftOutUnlessMapped) {
  // Excel's used range: empty trailing columns ",,,"; pandas' "Unnamed: 3"
  // for a column without a name.
  const std::string excel = write_temp_file("excel.csv", "time [s],position [mm],force [N],,,\n" + rows(20, ",,,"));
  std::string pandas_body = "time [s],position [mm],force [N],Unnamed: 3\n";
  for (int i = 0; i < 10; ++i) pandas_body += num(0.01 * i) + ",1," + num(2.0 * i) + "," + (i % 2 ? "" : "7") + "\n";
  const std::string pandas = write_temp_file("pandas.csv", pandas_body);
  const std::string log = temp_dir() + "excel.h5";
  std::string text;
  for (const std::string& in : {excel, pandas}) {
    ASSERT_EQ(run_cli("import " + in + " -o " + log, &text), 0) << in << "\n" << text;
    const data::Experiment e = only_experiment(log);
    EXPECT_EQ(e.channels.size(), 3u) << in;
    EXPECT_TRUE(e.has("time") && e.has("position") && e.has("force")) << in;
    // --columns mapping only named columns takes them too.
    ASSERT_EQ(run_cli("import " + in + " --columns time=time,force=force -o " + log, &text), 0) << in << "\n" << text;
    EXPECT_EQ(only_experiment(log).channels.size(), 2u) << in;
  }
  // Mapped, an unnamed column is read like any other: its empty cells are refused.
  expect_refused(excel + " --columns time=0,force=4", {excel + ":2:", "column 5", "empty"});
  expect_refused(pandas + " --columns time=0,temperature=3", {pandas + ":3:", "column 4 'Unnamed: 3'", "empty"});
}

// eval reads the same spreadsheet export: a trailing unnamed column of
// empty cells is carried through as written, not refused as an empty cell
// (the shapes campaign's open case: import accepted the file, eval did not).
TEST(ImportInstrumentsCli, EvalCarriesATrailingUnnamedColumnThrough) {
  std::string with, without;
  for (size_t i = 0; i < 20; ++i) {
    const std::string row = num(0.001 * i) + "," + num(0.01 * (double(i) - 10.0)) + "," + num(10.0 + i);
    with += row + ",\n";
    without += row + "\n";
  }
  const std::string a = write_temp_file("unnamed_eval.csv", "time,velocity,force,\n" + with);
  const std::string b = write_temp_file("named_eval.csv", "time,velocity,force\n" + without);
  std::string text;
  for (const std::string ext : {".csv", ".h5"}) {
    const std::string out_a = temp_dir() + "unnamed_eval_out" + ext, out_b = temp_dir() + "named_eval_out" + ext;
    ASSERT_EQ(run_cli("eval -m coulomb-viscous -i " + a + " -o " + out_a, &text), 0) << ext << ": " << text;
    ASSERT_EQ(run_cli("eval -m coulomb-viscous -i " + b + " -o " + out_b, &text), 0) << ext << ": " << text;
    if (ext == std::string(".csv")) {
      std::ifstream fa(out_a), fb(out_b);
      const auto count = [](std::ifstream& f) {
        return std::count(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>(), '\n');
      };
      EXPECT_EQ(count(fa), count(fb));
    }
  }
}

TEST(ImportInstrumentsCli, DuplicateNamesAreResolvedByColumns) {
  // Two channel groups, each with its own Timestamp column.
  std::string body = "Timestamp,Force [N],Timestamp,Position [mm]\n";
  for (int i = 0; i < 10; ++i) body += num(0.01 * i) + "," + num(i + 0.5) + "," + num(0.01 * i + 0.005) + ",2\n";
  const std::string in = write_temp_file("dup.csv", body);
  expect_refused(in, {"column 0 'Timestamp' and column 2 'Timestamp' both map to channel 'time'", "--columns time=0"});
  expect_refused(in + " --columns time=Timestamp,force=Force",
                 {"column 0 'Timestamp' and column 2 'Timestamp'", "time=0 or time=2"});
  const std::string log = temp_dir() + "dup.h5";
  std::string text;
  ASSERT_EQ(run_cli("import " + in + " --columns time=2 --keep-unmapped -o " + log, &text), 0) << text;
  const data::Experiment e = only_experiment(log);
  EXPECT_EQ(e.channels.size(), 3u);
  EXPECT_DOUBLE_EQ(e.channels.at("time")[3], 0.035);
  EXPECT_DOUBLE_EQ(e.channels.at("force")[3], 3.5);
  ASSERT_EQ(run_cli("import " + in + " --columns time=0,force=Force,position=Position -o " + log, &text), 0) << text;
  EXPECT_DOUBLE_EQ(only_experiment(log).channels.at("time")[3], 0.03);
}

TEST(ImportInstrumentsCli, TimeShiftMovesAFilesTime) {
  const std::string in = write_temp_file("shift.csv", "time [s],position [mm],force [N]\n" + rows());
  const std::string log = temp_dir() + "shift.h5";
  std::string text;
  ASSERT_EQ(run_cli("import " + in + " --time-shift 1.5 -o " + log, &text), 0) << text;
  EXPECT_NE(text.find("time shifted by 1.5 s"), std::string::npos) << text;
  const data::Experiment e = only_experiment(log);
  EXPECT_DOUBLE_EQ(e.channels.at("time")[0], 1.5);
  EXPECT_DOUBLE_EQ(e.channels.at("time")[10], 1.51);
  EXPECT_EQ(e.attributes.at("time_shift"), "1.5");
  // Read whole (--resample) the same.
  ASSERT_EQ(run_cli("import " + in + " --time-shift -0.25 --resample 0 -o " + log, &text), 0) << text;
  EXPECT_NEAR(only_experiment(log).channels.at("time")[0], -0.25, 1e-12);
  expect_refused(in + " " + in + " --name a --name b --time-shift 1", {"--time-shift given 1 times for 2 files"});
}

// Two clocks: A logs position at 200 Hz from its t = 0; B logs force at
// 500 Hz on a clock that started 0.3 s later (its t = 0 is A's 0.3 s).
double position_at(double t) { return 0.01 * std::sin(2 * kPi * 1.5 * t); }
double force_at(double t) { return 3.0 + 2.0 * std::sin(2 * kPi * t); }

TEST(ImportInstrumentsCli, TwoClocksAreMergedOverTheirOverlap) {
  std::string a = "time [s],position [m]\n", b = "t [s],force [N]\n";
  for (int i = 0; i <= 400; ++i) a += num(i / 200.0) + "," + num(position_at(i / 200.0)) + "\n";
  for (int i = 0; i <= 1000; ++i) b += num(i / 500.0) + "," + num(force_at(i / 500.0 + 0.3)) + "\n";
  const std::string fa = write_temp_file("clock_a.csv", a), fb = write_temp_file("clock_b.csv", b);
  const std::string log = temp_dir() + "aligned.h5";
  std::string text;
  // Onto A's time: A's samples in the overlap [0.3, 2] s, B interpolated.
  ASSERT_EQ(
      run_cli("import " + fa + " " + fb + " --time-shift 0 --time-shift 0.3 --align first -n rig -o " + log, &text), 0)
      << text;
  EXPECT_NE(text.find("overlap 0.3 to 2 s"), std::string::npos) << text;
  data::Experiment e = only_experiment(log);
  EXPECT_EQ(e.name, "rig");
  ASSERT_EQ(e.size(), 341u);
  EXPECT_DOUBLE_EQ(e.channels.at("time").front(), 0.3);
  EXPECT_DOUBLE_EQ(e.channels.at("time").back(), 2.0);
  double worst_f = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const double t = e.channels.at("time")[i];
    EXPECT_DOUBLE_EQ(e.channels.at("position")[i], position_at(t));
    worst_f = std::max(worst_f, std::abs(e.channels.at("force")[i] - force_at(t)));
  }
  // Linear interpolation at B's 2 ms step: h^2/8 * max|f''| = 4e-5 N.
  EXPECT_LT(worst_f, 5e-5);
  EXPECT_GT(worst_f, 0.0);  // B was interpolated, not copied
  EXPECT_EQ(e.attributes.at("align"), "first");

  // Onto a 1 kHz grid from the overlap's start.
  ASSERT_EQ(run_cli("import " + fa + " " + fb + " --time-shift 0 --time-shift 0.3 --align rate=1000 -o " + log, &text),
            0)
      << text;
  EXPECT_NE(text.find("1000 Hz grid"), std::string::npos) << text;
  e = only_experiment(log);
  ASSERT_EQ(e.size(), 1701u);
  double worst_p = 0;
  worst_f = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const double t = e.channels.at("time")[i];
    EXPECT_NEAR(t, 0.3 + i / 1000.0, 1e-12);
    worst_p = std::max(worst_p, std::abs(e.channels.at("position")[i] - position_at(t)));
    worst_f = std::max(worst_f, std::abs(e.channels.at("force")[i] - force_at(t)));
  }
  EXPECT_LT(worst_p, 3e-6);  // A's 5 ms step: h^2/8 * 0.01 * (3 pi)^2
  EXPECT_LT(worst_f, 5e-5);

  // Clocks that never overlap, a channel in both files, one file.
  expect_refused(fa + " " + fb + " --time-shift 0 --time-shift 5 --align first",
                 {"do not overlap", "clock_a.csv 0 to 2 s", "clock_b.csv 5 to 7 s"});
  expect_refused(fa + " " + fa + " --align first", {"channel 'position' is in both"});
  expect_refused(fa + " --align first", {"two or more files"});
  expect_refused(fa + " " + fb + " --align rate=-3", {"--align 'rate=-3'"});
}

}  // namespace
}  // namespace stribeck
