// ResultsStream: a results group written block by block into OUT.partial
// with checkpoints, resumed after an interruption, renamed when complete; and
// the h5 tables and row reads under it.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/results_stream.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) { return test::temp_dir() + "stream_" + name; }
bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

const std::vector<StreamColumn> kColumns{{"xy", 2, "m", "two coordinates"}, {"f", 0, "N", ""}};
const std::map<std::string, std::string> kAttributes{{"identity", "abc"}, {"count", "5"}};

Provenance provenance(const std::string& device) {
  Provenance p;
  p.command_line = "test";
  p.device = device;
  return p;
}

// Rows i = 0..n-1 of the two columns: xy = (i, -i), f = 10 i.
void append_rows(ResultsStream& s, int from, int to) {
  std::vector<double> xy, f;
  for (int i = from; i < to; ++i) xy.push_back(i), xy.push_back(-i), f.push_back(10.0 * i);
  s.append(static_cast<std::uint64_t>(to - from), {xy.data(), f.data()});
}

TEST(ResultsStream, FinishedStreamReadsBackAsOneResultsGroup) {
  const std::string out = tmp("whole.h5");
  std::remove(out.c_str());
  auto s = ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
  EXPECT_TRUE(exists(out + ".partial"));
  EXPECT_FALSE(exists(out));  // never a partial OUT
  append_rows(*s, 0, 2);
  s->checkpoint({2, {{"ok", "2"}}});
  append_rows(*s, 2, 5);
  s->checkpoint({5, {{"ok", "5"}}});
  s->finish();
  EXPECT_TRUE(exists(out));
  EXPECT_FALSE(exists(out + ".partial"));

  const Results r = read_results(out, "ensemble");
  EXPECT_EQ(r.attributes, kAttributes);  // no checkpoint attributes are left
  EXPECT_EQ(r.provenance.device, "cpu");
  ASSERT_EQ(r.datasets.size(), 2u);
  const ResultDataset& f = r.datasets[0].name == "f" ? r.datasets[0] : r.datasets[1];
  const ResultDataset& xy = r.datasets[0].name == "xy" ? r.datasets[0] : r.datasets[1];
  EXPECT_EQ(xy.shape, (std::vector<unsigned long long>{5, 2}));
  EXPECT_EQ(xy.values, (std::vector<double>{0, 0, 1, -1, 2, -2, 3, -3, 4, -4}));
  EXPECT_EQ(xy.units, "m");
  EXPECT_EQ(xy.description, "two coordinates");
  EXPECT_EQ(f.shape, (std::vector<unsigned long long>{5}));
  EXPECT_EQ(f.values, (std::vector<double>{0, 10, 20, 30, 40}));
  {
    const h5::File file = h5::open_file(out);
    const h5::Group g = h5::open_group(file.id(), "ensemble", out);
    EXPECT_FALSE(h5::has_attribute(g.id(), "checkpoint_rows"));
    // Rows from the middle of a table.
    std::vector<double> rows(4);
    h5::read_rows(h5::open_dataset(g.id(), "xy", out), H5T_NATIVE_DOUBLE, 3, 2, rows.data(), out);
    EXPECT_EQ(rows, (std::vector<double>{3, -3, 4, -4}));
    EXPECT_THROW(h5::read_rows(h5::open_dataset(g.id(), "f", out), H5T_NATIVE_DOUBLE, 4, 2, rows.data(), out),
                 InputError);
  }
}

// Rows appended after the last checkpoint (a run killed between the two) are
// cut off on resume and written again: the result equals an uninterrupted one.
TEST(ResultsStream, ResumeCutsRowsPastTheCheckpointAndKeepsTheState) {
  const std::string out = tmp("resumed.h5");
  std::remove(out.c_str());
  {
    auto s = ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 2);
    s->checkpoint({2, {{"ok", "2"}, {"example", "point 1: x = -1 must be > 0"}}});
    append_rows(*s, 2, 4);  // no checkpoint: lost with the "kill"
  }
  StreamCheckpoint cp;
  auto s = ResultsStream::resume(out, "ensemble", kColumns, kAttributes, provenance("cuda:0 GPU"), cp);
  EXPECT_EQ(cp.rows, 2u);
  EXPECT_EQ(cp.state, (std::map<std::string, std::string>{{"ok", "2"}, {"example", "point 1: x = -1 must be > 0"}}));
  append_rows(*s, 2, 5);
  s->checkpoint({5, {}});
  s->finish();
  const Results r = read_results(out, "ensemble");
  const std::vector<double> f{0, 10, 20, 30, 40}, xy{0, 0, 1, -1, 2, -2, 3, -3, 4, -4};
  for (const auto& d : r.datasets) EXPECT_EQ(d.values, d.name == "f" ? f : xy) << d.name;
  EXPECT_EQ(r.provenance.device, "cpu; resumed on cuda:0 GPU");
}

TEST(ResultsStream, ResumeRefusesAnotherRunsFileAndAMissingOne) {
  const std::string out = tmp("other.h5");
  std::remove((out + ".partial").c_str());
  StreamCheckpoint cp;
  try {
    ResultsStream::resume(out, "ensemble", kColumns, kAttributes, provenance("cpu"), cp);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--resume: nothing to resume (" + out + ".partial does not exist); run without --resume");
  }
  {
    auto s = ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 3);
    s->checkpoint({3, {}});
  }
  auto other = kAttributes;
  other["identity"] = "abd";
  try {
    ResultsStream::resume(out, "ensemble", kColumns, other, provenance("cpu"), cp);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), out +
                                         ".partial: belongs to a different run (attribute 'identity' is 'abc', this "
                                         "run has 'abd'); remove it or run without --resume");
  }
  auto wider = kColumns;
  wider[0].width = 3;
  EXPECT_THROW(ResultsStream::resume(out, "ensemble", wider, kAttributes, provenance("cpu"), cp), InputError);
  // A new run does not overwrite an unfinished one's work.
  try {
    ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), out +
                                         ".partial: the checkpointed results of an unfinished run; continue it "
                                         "with --resume, or remove the file to start again");
  }
  // The refused file is untouched: it still resumes.
  auto s = ResultsStream::resume(out, "ensemble", kColumns, kAttributes, provenance("cpu"), cp);
  EXPECT_EQ(cp.rows, 3u);
}

// A stream that ends before a checkpoint counted rows holds no work: its
// partial file is removed (it would block the next run), whether it failed
// while being created or later; a merge-like writer advises only removal.
TEST(ResultsStream, StreamWithoutRowsLeavesNoPartialFile) {
  const std::string out = tmp("empty.h5");
  auto twice = kColumns;
  twice[1].name = twice[0].name;
  EXPECT_THROW(ResultsStream::create(out, "ensemble", twice, kAttributes, provenance("cpu")), InputError);
  EXPECT_FALSE(exists(out + ".partial"));
  {
    auto s = ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 2);  // appended, never checkpointed
    EXPECT_TRUE(exists(out + ".partial"));
  }
  EXPECT_FALSE(exists(out + ".partial"));
  {
    auto s = ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 2);
    s->checkpoint({2, {}});
  }
  EXPECT_TRUE(exists(out + ".partial"));  // checkpointed work is kept
  try {
    ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"), 0, /*resumable=*/false);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), out + ".partial: left by an unfinished run; remove it and run again");
  }
}

}  // namespace
}  // namespace stribeck
