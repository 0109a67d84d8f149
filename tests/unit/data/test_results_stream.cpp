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

const std::vector<data::StreamColumn> kColumns{{"xy", 2, "m", "two coordinates"}, {"f", 0, "N", ""}};
const std::map<std::string, std::string> kAttributes{{"identity", "abc"}, {"count", "5"}};

data::Provenance provenance(const std::string& device) {
  data::Provenance p;
  p.command_line = "test";
  p.device = device;
  return p;
}

// Rows i = 0..n-1 of the two columns: xy = (i, -i), f = 10 i.
void append_rows(data::ResultsStream& s, int from, int to) {
  std::vector<double> xy, f;
  for (int i = from; i < to; ++i) xy.push_back(i), xy.push_back(-i), f.push_back(10.0 * i);
  s.append(static_cast<std::uint64_t>(to - from), {xy.data(), f.data()});
}

TEST(ResultsStream, FinishedStreamReadsBackAsOneResultsGroup) {
  const std::string out = tmp("whole.h5");
  std::remove(out.c_str());
  auto s = data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
  EXPECT_TRUE(exists(out + ".partial"));
  EXPECT_FALSE(exists(out));  // never a partial OUT
  append_rows(*s, 0, 2);
  s->checkpoint({2, {{"ok", "2"}}});
  append_rows(*s, 2, 5);
  s->checkpoint({5, {{"ok", "5"}}});
  s->finish();
  EXPECT_TRUE(exists(out));
  EXPECT_FALSE(exists(out + ".partial"));

  const data::Results r = data::read_results(out, "ensemble");
  EXPECT_EQ(r.attributes, kAttributes);  // no checkpoint attributes are left
  EXPECT_EQ(r.provenance.device, "cpu");
  ASSERT_EQ(r.datasets.size(), 2u);
  const data::ResultDataset& f = r.datasets[0].name == "f" ? r.datasets[0] : r.datasets[1];
  const data::ResultDataset& xy = r.datasets[0].name == "xy" ? r.datasets[0] : r.datasets[1];
  EXPECT_EQ(xy.shape, (std::vector<unsigned long long>{5, 2}));
  EXPECT_EQ(xy.values, (std::vector<double>{0, 0, 1, -1, 2, -2, 3, -3, 4, -4}));
  EXPECT_EQ(xy.units, "m");
  EXPECT_EQ(xy.description, "two coordinates");
  EXPECT_EQ(f.shape, (std::vector<unsigned long long>{5}));
  EXPECT_EQ(f.values, (std::vector<double>{0, 10, 20, 30, 40}));
  {
    const data::h5::File file = data::h5::open_file(out);
    const data::h5::Group g = data::h5::open_group(file.id(), "ensemble", out);
    EXPECT_FALSE(data::h5::has_attribute(g.id(), "checkpoint_rows"));
    // Rows from the middle of a table.
    std::vector<double> rows(4);
    data::h5::read_rows(data::h5::open_dataset(g.id(), "xy", out), H5T_NATIVE_DOUBLE, 3, 2, rows.data(), out);
    EXPECT_EQ(rows, (std::vector<double>{3, -3, 4, -4}));
    EXPECT_THROW(
        data::h5::read_rows(data::h5::open_dataset(g.id(), "f", out), H5T_NATIVE_DOUBLE, 4, 2, rows.data(), out),
        data::InputError);
  }
}

// Rows appended after the last checkpoint (a run killed between the two) are
// cut off on resume and written again: the result equals an uninterrupted one.
TEST(ResultsStream, ResumeCutsRowsPastTheCheckpointAndKeepsTheState) {
  const std::string out = tmp("resumed.h5");
  std::remove(out.c_str());
  {
    auto s = data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 2);
    s->checkpoint({2, {{"ok", "2"}, {"example", "point 1: x = -1 must be > 0"}}});
    append_rows(*s, 2, 4);  // no checkpoint: lost with the "kill"
  }
  data::StreamCheckpoint cp;
  auto s = data::ResultsStream::resume(out, "ensemble", kColumns, kAttributes, provenance("cuda:0 GPU"), cp);
  EXPECT_EQ(cp.rows, 2u);
  EXPECT_EQ(cp.state, (std::map<std::string, std::string>{{"ok", "2"}, {"example", "point 1: x = -1 must be > 0"}}));
  append_rows(*s, 2, 5);
  s->checkpoint({5, {}});
  s->finish();
  const data::Results r = data::read_results(out, "ensemble");
  const std::vector<double> f{0, 10, 20, 30, 40}, xy{0, 0, 1, -1, 2, -2, 3, -3, 4, -4};
  for (const auto& d : r.datasets) EXPECT_EQ(d.values, d.name == "f" ? f : xy) << d.name;
  EXPECT_EQ(r.provenance.device, "cpu; resumed on cuda:0 GPU");
}

TEST(ResultsStream, ResumeRefusesAnotherRunsFileAndAMissingOne) {
  const std::string out = tmp("other.h5");
  std::remove((out + ".partial").c_str());
  data::StreamCheckpoint cp;
  try {
    data::ResultsStream::resume(out, "ensemble", kColumns, kAttributes, provenance("cpu"), cp);
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--resume: nothing to resume (" + out + ".partial does not exist); run without --resume");
  }
  {
    auto s = data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 3);
    s->checkpoint({3, {}});
  }
  auto other = kAttributes;
  other["identity"] = "abd";
  try {
    data::ResultsStream::resume(out, "ensemble", kColumns, other, provenance("cpu"), cp);
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_EQ(std::string(e.what()), out +
                                         ".partial: belongs to a different run (attribute 'identity' is 'abc', this "
                                         "run has 'abd'); remove it or run without --resume");
  }
  auto wider = kColumns;
  wider[0].width = 3;
  EXPECT_THROW(data::ResultsStream::resume(out, "ensemble", wider, kAttributes, provenance("cpu"), cp),
               data::InputError);
  // A new run does not overwrite an unfinished one's work.
  try {
    data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_EQ(std::string(e.what()), out +
                                         ".partial: the checkpointed results of an unfinished run; continue it "
                                         "with --resume, or remove the file to start again");
  }
  // The refused file is untouched: it still resumes.
  auto s = data::ResultsStream::resume(out, "ensemble", kColumns, kAttributes, provenance("cpu"), cp);
  EXPECT_EQ(cp.rows, 3u);
}

// A stream that ends before a checkpoint counted rows holds no work: its
// partial file is removed (it would block the next run), whether it failed
// while being created or later; a merge-like writer advises only removal.
TEST(ResultsStream, StreamWithoutRowsLeavesNoPartialFile) {
  const std::string out = tmp("empty.h5");
  auto twice = kColumns;
  twice[1].name = twice[0].name;
  EXPECT_THROW(data::ResultsStream::create(out, "ensemble", twice, kAttributes, provenance("cpu")), data::InputError);
  EXPECT_FALSE(exists(out + ".partial"));
  {
    auto s = data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 2);  // appended, never checkpointed
    EXPECT_TRUE(exists(out + ".partial"));
  }
  EXPECT_FALSE(exists(out + ".partial"));
  {
    auto s = data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"));
    append_rows(*s, 0, 2);
    s->checkpoint({2, {}});
  }
  EXPECT_TRUE(exists(out + ".partial"));  // checkpointed work is kept
  try {
    data::ResultsStream::create(out, "ensemble", kColumns, kAttributes, provenance("cpu"), 0, /*resumable=*/false);
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_EQ(std::string(e.what()), out + ".partial: left by an unfinished run; remove it and run again");
  }
}

// A table of three columns (uint64 index, float64 value, a flagged uint8
// code) of n rows: index 100 + r, value 0.5 r, code r % 2.
data::StreamTable table(const std::string& name, int n) {
  data::StreamTable t;
  t.name = name;
  t.dimension = "rank";
  t.dimension_long_name = "rank";
  data::StreamColumn index{"index", 0, "1", ""}, value{"value", 0, "N", "a value"}, code{"code", 0, "1", ""};
  index.long_name = "index of the point";
  index.type = data::ColumnType::kUInt64;
  code.long_name = "a code";
  code.type = data::ColumnType::kUInt8;
  code.flags = {{0, "even"}, {1, "odd"}};
  t.columns = {index, value, code};
  t.data.assign(3, {});
  for (int r = 0; r < n; ++r) t.data[0].push_back(100 + r), t.data[1].push_back(0.5 * r), t.data[2].push_back(r % 2);
  return t;
}

// Tables beside the rows: a checkpoint's replace the last one's whole and
// stay after finish; one-off tables keep their attributes; the stored types
// and flags are the columns'; the checkpoint is readable from the file.
TEST(ResultsStream, CheckpointTablesAreReplacedKeptByFinishAndReadBack) {
  const std::string out = tmp("tables.h5");
  std::remove(out.c_str());
  auto s = data::ResultsStream::create(out, "sweep", kColumns, kAttributes, provenance("cpu"));
  append_rows(*s, 0, 2);
  data::StreamCheckpoint cp{2, {{"completed", "2"}}, {table("top", 3)}};
  s->checkpoint(cp);
  data::StreamCheckpoint read;
  ASSERT_TRUE(data::read_stream_checkpoint(out + ".partial", "sweep", read));
  EXPECT_EQ(read.rows, 2u);
  EXPECT_EQ(read.state, cp.state);
  EXPECT_EQ(s->read_table("top").rows(), 3u);
  EXPECT_EQ(s->read_table("none").rows(), 0u);
  append_rows(*s, 2, 5);
  s->checkpoint({5, {}, {table("top", 2)}});
  {
    // The second checkpoint wrote the other slot and named it; the first
    // checkpoint's table stays whole until a third one reuses its slot.
    const data::h5::File f = data::h5::open_file(out + ".partial");
    const data::h5::Group g = data::h5::open_group(f.id(), "sweep", out);
    EXPECT_TRUE(data::h5::has_child(g.id(), "top"));
    EXPECT_TRUE(data::h5::has_child(g.id(), "top_next"));
    EXPECT_EQ(data::h5::read_string_attribute(g.id(), "checkpoint_tables", out), "top=1\n");
  }
  EXPECT_EQ(s->read_table("top").rows(), 2u);
  EXPECT_EQ(data::read_stream_table(out + ".partial", "sweep", "top").rows(), 2u);
  data::StreamTable trace = table("traces/7/slow", 4);
  trace.dimension = "sample";
  trace.attributes = {{"F_C", 12.5}, {"f_v", -3.0}};
  s->add_table(trace);
  s->finish({{"count_ok", "5"}, {"note", "done"}});

  EXPECT_FALSE(data::read_stream_checkpoint(out, "sweep", read));  // finished
  {
    const data::h5::File f = data::h5::open_file(out);
    const data::h5::Group g = data::h5::open_group(f.id(), "sweep", out);
    EXPECT_FALSE(data::h5::has_child(g.id(), "top_next"));  // the current slot under the table's name
    EXPECT_FALSE(data::h5::has_attribute(g.id(), "checkpoint_tables"));
  }
  const data::Results r = data::read_results(out, "sweep");
  EXPECT_EQ(r.attributes.at("count_ok"), "5");
  EXPECT_EQ(r.attributes.at("note"), "done");
  EXPECT_EQ(r.attributes.at("identity"), "abc");  // the earlier attributes are kept
  const data::StreamTable top = data::read_stream_table(out, "sweep", "top");
  EXPECT_EQ(top.dimension, "rank");
  ASSERT_EQ(top.rows(), 2u);  // replaced by the last checkpoint's
  EXPECT_EQ(*top.column("index"), (std::vector<double>{100, 101}));
  EXPECT_EQ(*top.column("value"), (std::vector<double>{0, 0.5}));
  const data::StreamTable back = data::read_stream_table(out, "sweep", "traces/7/slow", {"F_C", "f_v"});
  EXPECT_EQ(back.dimension, "sample");
  EXPECT_EQ(back.attributes, trace.attributes);
  EXPECT_EQ(*back.column("value"), (std::vector<double>{0, 0.5, 1.0, 1.5}));
  EXPECT_THROW(data::read_stream_table(out, "sweep", "traces/7/slow", {"F_brk"}),
               data::InputError);  // a missing attribute
  EXPECT_EQ(data::stream_subgroups(out, "sweep", "traces"), (std::vector<std::string>{"7"}));
  EXPECT_EQ(data::stream_subgroups(out, "sweep", "traces/7"), (std::vector<std::string>{"slow"}));
  EXPECT_TRUE(data::stream_subgroups(out, "sweep", "nothing").empty());
  // Stored types, units and CF flags, read with libhdf5 itself.
  const data::h5::File f = data::h5::open_file(out);
  const data::h5::Group g = data::h5::open_group(f.id(), "sweep/top", out);
  const data::h5::Dataset index = data::h5::open_dataset(g.id(), "index", out),
                          code = data::h5::open_dataset(g.id(), "code", out);
  const data::h5::Datatype it(H5Dget_type(index.id())), ct(H5Dget_type(code.id()));
  EXPECT_EQ(H5Tget_class(it.id()), H5T_INTEGER);
  EXPECT_EQ(H5Tget_size(it.id()), 8u);
  EXPECT_EQ(H5Tget_sign(it.id()), H5T_SGN_NONE);
  EXPECT_EQ(H5Tget_size(ct.id()), 1u);
  EXPECT_EQ(data::h5::read_string_attribute(code.id(), "flag_meanings", out), "even odd");
  const data::h5::Attribute fv(H5Aopen(code.id(), "flag_values", H5P_DEFAULT));
  const data::h5::Datatype ft(H5Aget_type(fv.id()));
  EXPECT_EQ(H5Tget_size(ft.id()), 1u);  // in the column's type, as CF asks
  std::uint8_t flags[2] = {9, 9};
  ASSERT_GE(H5Aread(fv.id(), H5T_NATIVE_UINT8, flags), 0);
  EXPECT_EQ(flags[0], 0);
  EXPECT_EQ(flags[1], 1);
  EXPECT_EQ(data::h5::read_string_attribute(data::h5::open_dataset(g.id(), "value", out).id(), "units", out), "N");
  EXPECT_TRUE(data::h5::is_dimension_scale(g.id(), "rank", out));
}

// A killed run resumes with the table of its last checkpoint whichever slot
// holds it, and keeps alternating slots from there.
TEST(ResultsStream, ResumedTablesComeFromTheCheckpointsSlot) {
  const std::string out = tmp("slots.h5");
  std::remove(out.c_str());
  std::remove((out + ".partial").c_str());
  for (int checkpoints : {1, 2, 3}) {
    {
      auto s = data::ResultsStream::create(out, "sweep", kColumns, kAttributes, provenance("cpu"));
      for (int k = 1; k <= checkpoints; ++k) {
        append_rows(*s, k - 1, k);
        s->checkpoint({static_cast<std::uint64_t>(k), {}, {table("top", k)}});
      }
      append_rows(*s, checkpoints, checkpoints + 1);  // killed before its checkpoint
    }
    data::StreamCheckpoint cp;
    auto s = data::ResultsStream::resume(out, "sweep", kColumns, kAttributes, provenance("cpu"), cp);
    EXPECT_EQ(cp.rows, static_cast<std::uint64_t>(checkpoints));
    EXPECT_EQ(s->read_table("top").rows(), static_cast<std::uint64_t>(checkpoints)) << checkpoints;
    append_rows(*s, checkpoints, 5);
    s->checkpoint({5, {}, {table("top", 5)}});
    EXPECT_EQ(s->read_table("top").rows(), 5u);
    s->finish();
    EXPECT_EQ(data::read_stream_table(out, "sweep", "top").rows(), 5u) << checkpoints;
    std::remove(out.c_str());
  }
}

// A run that keeps only tables (a sweep's top_k_only) writes no rows: its
// partial file is kept once a checkpoint counts completed points, and
// resumes with the table.
TEST(ResultsStream, StreamOfTablesOnlyIsKeptOnceACheckpointCountsPoints) {
  const std::string out = tmp("tables_only.h5");
  std::remove(out.c_str());
  std::remove((out + ".partial").c_str());
  {
    auto s = data::ResultsStream::create(out, "sweep", {}, kAttributes, provenance("cpu"));
    data::StreamCheckpoint cp{0, {{"completed", "7"}}, {table("top", 1)}};
    cp.completed = 7;
    s->checkpoint(cp);
  }
  ASSERT_TRUE(exists(out + ".partial"));
  data::StreamCheckpoint cp;
  auto s = data::ResultsStream::resume(out, "sweep", {}, kAttributes, provenance("cpu"), cp);
  EXPECT_EQ(cp.rows, 0u);
  EXPECT_EQ(cp.state.at("completed"), "7");
  EXPECT_EQ(s->read_table("top").rows(), 1u);
}

}  // namespace
}  // namespace stribeck
