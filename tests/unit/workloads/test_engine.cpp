// The one batch engine (engine/): the runner's chunk loop, shards,
// resume, totals and double buffering on a toy workload whose results are
// known in closed form; the one PointStatus; records defined once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <stdexcept>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/engine/checkpoint.hpp"
#include "stribeck/engine/merge.hpp"
#include "stribeck/engine/model_rules.hpp"
#include "stribeck/engine/point_status.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/engine/runner.hpp"
#include "stribeck/workloads/sweep.hpp"
#include "stribeck/kernels/cuda/ensemble_cuda.hpp"
#include "stribeck/kernels/cuda/sweep_cuda.hpp"

namespace {

using stribeck::engine::PointStatus;
namespace engine = stribeck::engine;

// Point i computes i*i; every 7th point (i % 7 == 3) is invalid, every 11th
// (i % 11 == 5) non-finite. Writes collect the rows in the order they come.
class Squares : public engine::Workload {
 public:
  std::vector<std::uint64_t> written;      // rows in write order
  std::vector<std::uint64_t> checkpoints;  // totals.completed at each write
  std::uint64_t fail_write_at = 0;         // > 0: the write of the chunk ending there throws
  std::atomic<int> writes_in_flight{0};
  int max_in_flight = 0;

  void compute(int slot, std::uint64_t first, std::uint64_t count,
               const std::function<void(std::uint64_t)>& progress) override {
    rows_[slot].clear();
    for (std::uint64_t i = 0; i < count; ++i) rows_[slot].push_back((first + i) * (first + i));
    progress(count);
  }
  void tally(int slot, std::uint64_t first, std::uint64_t count, engine::Totals& t) override {
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t p = first + i;
      EXPECT_EQ(rows_[slot][i], p * p);
      if (p % 7 == 3) {
        t.add(PointStatus::kInvalid);
        t.add_example(p, "rule " + std::to_string(p % 7));
      } else if (p % 11 == 5) {
        t.add(PointStatus::kNonFinite);
      } else {
        t.add(PointStatus::kOk);
      }
    }
  }
  std::function<void()> write(int slot, std::uint64_t count, const engine::Totals& t) override {
    return [this, slot, count, done = t.completed] {
      max_in_flight = std::max(max_in_flight, ++writes_in_flight);
      if (fail_write_at && done == fail_write_at) {
        --writes_in_flight;
        throw stribeck::data::InputError("disk full at " + std::to_string(done));
      }
      EXPECT_EQ(rows_[slot].size(), count);
      written.insert(written.end(), rows_[slot].begin(), rows_[slot].end());
      checkpoints.push_back(done);
      --writes_in_flight;
    };
  }

 private:
  std::vector<std::uint64_t> rows_[2];
};

std::uint64_t expected_count(std::uint64_t first, std::uint64_t n, PointStatus s) {
  std::uint64_t c = 0;
  for (std::uint64_t p = first; p < first + n; ++p) {
    const PointStatus st = p % 7 == 3    ? PointStatus::kInvalid
                           : p % 11 == 5 ? PointStatus::kNonFinite
                                         : PointStatus::kOk;
    c += st == s;
  }
  return c;
}

TEST(Engine, EveryChunkSizeGivesTheSameRowsAndTotals) {
  for (std::uint64_t points : {1ull, 2ull, 77ull, 1000ull}) {
    for (std::uint64_t chunk : {1ull, 3ull, 7ull, 64ull, 5000ull}) {
      const engine::Range range = engine::split_range("", points);
      Squares w;
      engine::Totals t;
      engine::RunOptions o;
      o.chunk = chunk;
      std::uint64_t last_progress = 0;
      o.progress = [&](std::uint64_t done, std::uint64_t n, double) {
        EXPECT_EQ(n, points);
        EXPECT_GE(done, last_progress);
        last_progress = done;
      };
      const engine::RunStats st = engine::run(range, w, t, o);
      ASSERT_TRUE(st.finished);
      EXPECT_EQ(st.evaluated, points);
      EXPECT_EQ(st.chunks, (points + chunk - 1) / chunk);
      EXPECT_EQ(last_progress, points);
      ASSERT_EQ(w.written.size(), points) << chunk;
      for (std::uint64_t p = 0; p < points; ++p) ASSERT_EQ(w.written[p], p * p) << "chunk " << chunk;
      for (PointStatus s : {PointStatus::kOk, PointStatus::kInvalid, PointStatus::kNonFinite})
        EXPECT_EQ(t.count(s), expected_count(0, points, s));
      EXPECT_EQ(t.count(PointStatus::kStepLimit), 0u);
      const std::size_t examples = std::min<std::uint64_t>(3, expected_count(0, points, PointStatus::kInvalid));
      ASSERT_EQ(t.invalid_examples.size(), examples);
      if (examples) EXPECT_EQ(t.invalid_examples[0], "point 3: rule 3");
      if (examples > 2) EXPECT_EQ(t.invalid_examples[2], "point 17: rule 3");
      // At most one write runs at a time; checkpoints count the rows written so far.
      EXPECT_LE(w.max_in_flight, 1);
      for (std::size_t k = 0; k < w.checkpoints.size(); ++k)
        EXPECT_EQ(w.checkpoints[k], std::min<std::uint64_t>(points, (k + 1) * chunk));
    }
  }
}

TEST(Engine, ShardsCoverTheSpaceWithoutGapOrOverlap) {
  for (std::uint64_t points : {1ull, 10ull, 97ull, 1000003ull}) {
    for (int shards : {1, 2, 3, 7, 16}) {
      std::uint64_t next = 0;
      for (int i = 0; i < shards; ++i) {
        const engine::Range r = engine::split_range(std::to_string(i) + "/" + std::to_string(shards), points);
        EXPECT_EQ(r.points, points);
        EXPECT_EQ(r.first, next);
        // floor(P i / N) in exact integer arithmetic
        __extension__ typedef unsigned __int128 u128;
        const auto lo = static_cast<std::uint64_t>((static_cast<u128>(points) * i) / shards);
        const auto hi = static_cast<std::uint64_t>((static_cast<u128>(points) * (i + 1)) / shards);
        EXPECT_EQ(r.first, lo);
        EXPECT_EQ(r.count, hi - lo);
        EXPECT_EQ(r.shard_index, i);
        EXPECT_EQ(r.shard_count, shards);
        next = r.first + r.count;
      }
      EXPECT_EQ(next, points);
    }
  }
  EXPECT_THROW(engine::split_range("3/3", 10), stribeck::data::InputError);
  EXPECT_THROW(engine::split_range("a/3", 10), stribeck::data::InputError);
}

TEST(Engine, StoppedAndResumedRunEqualsOneRun) {
  const std::uint64_t points = 500;
  const engine::Range range = engine::split_range("1/3", points);
  Squares whole;
  engine::Totals tw;
  engine::RunOptions o;
  o.chunk = 16;
  engine::run(range, whole, tw, o);

  Squares part;
  engine::Totals t;
  o.max_chunks = 4;
  const engine::RunStats first = engine::run(range, part, t, o);
  EXPECT_FALSE(first.finished);
  EXPECT_EQ(first.chunks, 4u);
  EXPECT_EQ(t.completed, 64u);
  o.max_chunks = 0;
  engine::Totals resumed = t;  // what a checkpoint restores
  const engine::RunStats second = engine::run(range, part, resumed, o);
  EXPECT_TRUE(second.finished);
  EXPECT_EQ(second.evaluated, range.count - 64);
  EXPECT_EQ(part.written, whole.written);
  for (int s = 0; s < engine::kPointStatusCount; ++s) EXPECT_EQ(resumed.status_counts[s], tw.status_counts[s]);
  EXPECT_EQ(resumed.invalid_examples, tw.invalid_examples);
  EXPECT_EQ(resumed.completed, range.count);
}

TEST(Engine, AFailedWriteStopsTheRunWithItsError) {
  Squares w;
  w.fail_write_at = 30;
  engine::Totals t;
  engine::RunOptions o;
  o.chunk = 10;
  try {
    engine::run(engine::split_range("", 100), w, t, o);
    FAIL() << "no error";
  } catch (const stribeck::data::InputError& e) {
    EXPECT_STREQ(e.what(), "disk full at 30");
  }
  EXPECT_EQ(w.written.size(), 20u);  // the chunks before the failed one, nothing after it
  Squares z;
  o.chunk = 0;
  EXPECT_THROW(engine::run(engine::split_range("", 10), z, t, o), stribeck::data::InputError);
}

TEST(Engine, OnePointStatusForSweepsAndSimulations) {
  EXPECT_EQ(engine::kPointStatusCount, 5);
  EXPECT_EQ(engine::from_sim_status(stribeck::kSimOk), PointStatus::kOk);
  EXPECT_EQ(engine::from_sim_status(stribeck::kSimNonFinite), PointStatus::kNonFinite);
  EXPECT_EQ(engine::from_sim_status(stribeck::kSimStepLimit), PointStatus::kStepLimit);
  EXPECT_EQ(engine::from_sim_status(stribeck::kSimEventLimit), PointStatus::kEventLimit);
  EXPECT_EQ(engine::from_sim_status(stribeck::kSimInvalid), PointStatus::kInvalid);
  EXPECT_EQ(engine::from_sim_status(99), PointStatus::kInvalid);
  EXPECT_EQ(engine::from_sim_status(-1), PointStatus::kInvalid);
  std::map<std::string, int> names;
  for (int s = 0; s < engine::kPointStatusCount; ++s) ++names[engine::point_status_name(static_cast<PointStatus>(s))];
  EXPECT_EQ(names.size(), 5u);  // distinct names
  EXPECT_EQ(names.count("unknown"), 0u);
}

// The one checkpoint format: the engine's totals survive a round trip through
// the state text beside a workload's own keys; a state whose counts do not
// add up, or that misses the engine's keys, is refused in one line; a
// checkpoint from before the `completed` key counts its rows.
TEST(Engine, CheckpointStateRoundTripsAndRefusesCorruptCounts) {
  engine::Totals t;
  t.completed = 10;
  t.add(PointStatus::kOk, 6);
  t.add(PointStatus::kInvalid, 3);
  t.add(PointStatus::kNonFinite, 1);
  t.add_example(4, "F_C = 30 must be <= F_brk = 20");
  const stribeck::data::StreamCheckpoint cp = engine::make_checkpoint(0, t, {{"stick_slip", "2"}});
  EXPECT_EQ(cp.rows, 0u);  // a run that keeps only tables
  EXPECT_EQ(cp.completed, 10u);
  EXPECT_EQ(cp.state.at("status_counts"), "6,1,0,0,3");
  engine::Totals back;
  engine::restore_totals(cp, 10, back, "f.partial");
  EXPECT_EQ(back.completed, 10u);
  for (int s = 0; s < engine::kPointStatusCount; ++s) EXPECT_EQ(back.status_counts[s], t.status_counts[s]) << s;
  EXPECT_EQ(back.invalid_examples, t.invalid_examples);
  EXPECT_EQ(engine::state_count(cp, "stick_slip", "f.partial"), 2u);
  // Killed before its first chunk: nothing to restore.
  engine::restore_totals(stribeck::data::StreamCheckpoint{}, 10, back, "f.partial");
  EXPECT_EQ(back.completed, 0u);
  // From before the `completed` key: the rows are the points done.
  stribeck::data::StreamCheckpoint old{10, {{"status_counts", "6,1,0,0,3"}}};
  engine::restore_totals(old, 10, back, "f.partial");
  EXPECT_EQ(back.completed, 10u);
  const std::string corrupt = "f.partial: corrupt checkpoint; remove it and run without --resume";
  auto refused = [&](stribeck::data::StreamCheckpoint c, std::uint64_t count) {
    try {
      engine::restore_totals(c, count, back, "f.partial");
    } catch (const stribeck::data::InputError& e) {
      return std::string(e.what()) == corrupt;
    }
    return false;
  };
  EXPECT_TRUE(refused(cp, 9));  // more points than the range
  auto bad = cp;
  bad.state["status_counts"] = "6,1,0,0,2";  // 9 counted, 10 completed
  EXPECT_TRUE(refused(bad, 10));
  bad.state["status_counts"] = "6,1,0,3";  // four counts
  EXPECT_TRUE(refused(bad, 10));
  bad.state["status_counts"] = "6,1,0,x,3";
  EXPECT_TRUE(refused(bad, 10));
  bad = cp;
  bad.state.erase("status_counts");
  EXPECT_TRUE(refused(bad, 10));
  EXPECT_THROW(engine::state_count(cp, "missing", "f.partial"), stribeck::data::InputError);
  // The status column and the counts name the statuses in one spelling.
  const auto col = engine::status_column();
  EXPECT_EQ(col.name, "status");
  EXPECT_EQ(col.type, stribeck::data::ColumnType::kUInt8);
  ASSERT_EQ(col.flags.size(), 5u);
  const auto counts = engine::count_attributes(t);
  for (int s = 0; s < engine::kPointStatusCount; ++s) {
    EXPECT_EQ(col.flags[s].first, s);
    EXPECT_EQ(counts.at("count_" + col.flags[s].second), std::to_string(t.status_counts[s]));
  }
  EXPECT_EQ(col.flags[1].second, "non_finite");
  EXPECT_EQ(col.flags[4].second, "invalid");
}

// Sweeps and ensembles check points against one filling of the rules, bounded
// the same way (issue 16: the ensemble once filled rel_a[] unbounded).
TEST(Engine, ModelRulesAreTheModelTablesBounded) {
  for (const stribeck::ModelInfo& m : stribeck::all_models()) {
    const stribeck::sweep::ParamRules r = engine::model_rules(m);
    ASSERT_EQ(r.n, static_cast<int>(m.params.size())) << m.id;
    for (int d = 0; d < r.n; ++d) {
      EXPECT_EQ(r.lo[d], m.params[d].lo) << m.id << " " << d;
      EXPECT_EQ(r.hi[d], m.params[d].hi) << m.id << " " << d;
      EXPECT_EQ(r.lo_open[d], m.params[d].lo_open) << m.id;
      EXPECT_EQ(r.hi_open[d], m.params[d].hi_open) << m.id;
    }
    ASSERT_EQ(r.n_relations, static_cast<int>(m.relations.size())) << m.id;
    for (int k = 0; k < r.n_relations; ++k) {
      EXPECT_EQ(r.rel_a[k], m.relations[k].a);
      EXPECT_EQ(r.rel_b[k], m.relations[k].b);
    }
  }
  stribeck::ModelInfo wide = stribeck::all_models().front();
  wide.relations.assign(stribeck::sweep::kMaxRelations, {0, 0, "x"});
  EXPECT_EQ(engine::model_rules(wide).n_relations, stribeck::sweep::kMaxRelations);  // the bound itself is fine
  wide.relations.push_back({0, 0, "one too many"});
  try {
    engine::model_rules(wide);
    FAIL() << "no error";
  } catch (const stribeck::data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more relations"), std::string::npos) << e.what();
  }
  stribeck::ModelInfo many = stribeck::all_models().front();
  many.params.resize(stribeck::sweep::kMaxParams + 1, many.params.front());
  EXPECT_THROW(engine::model_rules(many), stribeck::data::InputError);
}

// The trace channels are one table: SweepTrace::point_view fills every
// channel pointer of the CPU's TraceView and of the GPU request's HostTrace,
// each with its own channel, in the table's order (the order the sweep
// identity hashes them in).
TEST(Records, TraceChannelsComeFromOneTable) {
  stribeck::workloads::SweepTrace t;
  std::vector<std::vector<double>*> channels = {&t.v,      &t.p_a,   &t.p_b,   &t.f_n,      &t.dt,
                                                &t.f_meas, &t.w_pos, &t.w_neg, &t.w_energy, &t.w_loop};
  ASSERT_EQ(static_cast<int>(channels.size()), stribeck::sweep::kTraceChannels);
  for (std::size_t c = 0; c < channels.size(); ++c) channels[c]->assign(7, static_cast<double>(c));
  std::vector<const double*> order;
  stribeck::sweep::TraceView<double> view;
  t.point_view(view, [&](const std::vector<double>& ch) {
    order.push_back(ch.data());
    return ch.data();
  });
  ASSERT_EQ(order.size(), channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) EXPECT_EQ(order[c], channels[c]->data()) << c;
  EXPECT_EQ(view.n, 7);
  const double* seen[] = {view.v,      view.p_a,   view.p_b,   view.f_n,      view.dt,
                          view.f_meas, view.w_pos, view.w_neg, view.w_energy, view.w_loop};
  for (std::size_t c = 0; c < channels.size(); ++c) EXPECT_EQ(seen[c][0], static_cast<double>(c)) << c;
  stribeck::gpu::HostTrace h;  // the GPU request's view: same members, all filled
  t.point_view(h, [](const std::vector<double>& ch) { return ch.empty() ? nullptr : ch.data(); });
  const double* gpu[] = {h.v, h.p_a, h.p_b, h.f_n, h.dt, h.f_meas, h.w_pos, h.w_neg, h.w_energy, h.w_loop};
  for (std::size_t c = 0; c < channels.size(); ++c) EXPECT_EQ(gpu[c], channels[c]->data()) << c;
  t.p_b.clear();  // an absent channel stays null
  t.point_view(h, [](const std::vector<double>& ch) { return ch.empty() ? nullptr : ch.data(); });
  EXPECT_EQ(h.p_b, nullptr);
}

// The column names and their order are the ensemble file's layout
// (docs/dynamics.md); written out here, not taken from the table.
TEST(Records, StickSlipFieldTableGivesTheColumns) {
  const char* names[] = {
      "stick_slip",    "stick_fraction", "amp_spring_force", "amp_velocity",   "period",      "breakaway_force",
      "peak_velocity", "dissipated",     "final_elongation", "final_velocity", "final_state", "final_mode",
      "status",        "steps"};
  ASSERT_EQ(engine::kStickSlipFieldCount, std::size(names));
  for (std::size_t k = 0; k < std::size(names); ++k) {
    EXPECT_STREQ(engine::kStickSlipFields[k].name, names[k]);
    EXPECT_GT(std::string(engine::kStickSlipFields[k].long_name).size(), 5u) << names[k];
    EXPECT_FALSE(std::string(engine::kStickSlipFields[k].units).empty()) << names[k];
    const bool integer = k == 0 || k == 11 || k == 12 || k == 13;
    EXPECT_EQ(engine::kStickSlipFields[k].integer, integer) << names[k];
    // Stored as the file says (docs/dynamics.md): steps int64, the status the
    // engine's uint8 status column, the other integers int32, the rest float64.
    const auto storage = k == 13   ? engine::FieldStorage::kInt64
                         : k == 12 ? engine::FieldStorage::kStatus
                         : integer ? engine::FieldStorage::kInt32
                                   : engine::FieldStorage::kFloat64;
    EXPECT_EQ(engine::kStickSlipFields[k].storage, storage) << names[k];
  }
  EXPECT_STREQ(engine::kStickSlipFields[2].units, "N");
  EXPECT_STREQ(engine::kStickSlipFields[3].units, "m/s");
  EXPECT_STREQ(engine::kStickSlipFields[7].units, "J");
  EXPECT_EQ(engine::rotational_units("N"), "N*m");
  EXPECT_EQ(engine::rotational_units("m/s"), "rad/s");
  EXPECT_EQ(engine::rotational_units("J"), "J");
}

stribeck::StickSlipMetrics<double> sample_metrics(int seed) {
  stribeck::StickSlipMetrics<double> m;
  m.stick_slip = seed & 1;
  m.stick_fraction = 0.25 + seed;
  m.amp_spring_force = 1.5e3 * seed;
  m.amp_velocity = -2e-3;
  m.period = std::nextafter(0.1, 1.0);
  m.breakaway_force = 7.0 / 3.0;
  m.peak_velocity = std::numeric_limits<double>::denorm_min();
  m.dissipated = std::numeric_limits<double>::quiet_NaN();
  m.final_s = 1e300;
  m.final_v = -0.0;
  m.final_z = 3e-9;
  m.final_mode = -1;
  m.status = seed % 5;
  m.steps = 2147483647L + seed;
  return m;
}

TEST(Records, StickSlipPackingMatchesTheGpuStaging) {
  for (int seed = 0; seed < 6; ++seed) {
    const auto m = sample_metrics(seed);
    double mine[engine::kStickSlipFieldCount], gpu[stribeck::gpu::kEnsembleMetrics];
    ASSERT_EQ(static_cast<int>(engine::kStickSlipFieldCount), stribeck::gpu::kEnsembleMetrics);
    engine::pack(m, mine);
    stribeck::gpu::ensemble_metric_values(m, gpu);  // what the GPU stages, field by field
    for (int k = 0; k < stribeck::gpu::kEnsembleMetrics; ++k) {
      if (std::isnan(gpu[k])) {
        EXPECT_TRUE(std::isnan(mine[k])) << k;
      } else {
        EXPECT_EQ(std::signbit(mine[k]), std::signbit(gpu[k])) << k;
        EXPECT_EQ(mine[k], gpu[k]) << k;
      }
    }
    stribeck::StickSlipMetrics<double> back;
    engine::unpack(gpu, back);
    double again[engine::kStickSlipFieldCount];
    engine::pack(back, again);
    for (std::size_t k = 0; k < engine::kStickSlipFieldCount; ++k)
      EXPECT_TRUE(again[k] == mine[k] || (std::isnan(again[k]) && std::isnan(mine[k]))) << k;
    EXPECT_EQ(back.steps, m.steps);
    EXPECT_EQ(back.final_mode, -1);
    const auto named = engine::named_values(m);
    ASSERT_EQ(named.size(), engine::kStickSlipFieldCount);
    EXPECT_EQ(named[13].first, "steps");
    EXPECT_EQ(named[13].second, static_cast<double>(m.steps));
  }
}

TEST(Records, FloatRecordsConvertFieldByField) {
  stribeck::StickSlipMetrics<float> f;
  f.stick_fraction = 0.1f;
  f.period = 3.0e-3f;
  f.final_mode = 1;
  f.steps = 12345;
  f.status = 2;
  const auto d = engine::convert<double>(f);
  EXPECT_EQ(d.stick_fraction, static_cast<double>(0.1f));  // widened, not rounded to 0.1
  EXPECT_EQ(d.period, static_cast<double>(3.0e-3f));
  EXPECT_EQ(d.final_mode, 1);
  EXPECT_EQ(d.steps, 12345);
  EXPECT_EQ(d.status, 2);
}

// --- The one merge's shard order (engine/merge.hpp) ---------------------------

// The shards split_range makes of P points, as spans (path "s<i>").
std::vector<engine::ShardSpan> spans_of(std::uint64_t points, int shards) {
  std::vector<engine::ShardSpan> s;
  for (int i = 0; i < shards; ++i) {
    const engine::Range r = engine::split_range(std::to_string(i) + "/" + std::to_string(shards), points);
    s.push_back({"s" + std::to_string(i), r.points, r.first, r.count});
  }
  return s;
}

const engine::ShardWords kWords{"toy", "its seed differs", "point"};

std::string refusal(
    const std::vector<engine::ShardSpan>& s,
    const std::function<bool(std::size_t, std::size_t)>& same = [](std::size_t, std::size_t) { return true; }) {
  try {
    engine::order_shards(s, kWords, same);
  } catch (const stribeck::data::InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(MergeOrder, AnyArgumentOrderGivesTheShardsInPointOrder) {
  std::mt19937 rng(7);
  // More shards than points (empty shards) included.
  for (std::uint64_t points : {0ull, 1ull, 2ull, 5ull, 12ull, 1000003ull})
    for (int shards : {1, 2, 3, 7, 16}) {
      std::vector<engine::ShardSpan> s = spans_of(points, shards);
      for (int trial = 0; trial < 4; ++trial) {
        std::shuffle(s.begin(), s.end(), rng);
        const std::vector<std::size_t> order =
            engine::order_shards(s, kWords, [](std::size_t, std::size_t) { return true; });
        ASSERT_EQ(order.size(), s.size());
        // The order tiles [0, points) and, at a point where an empty shard
        // and a non-empty one start, puts the empty one first.
        std::uint64_t next = 0;
        for (std::size_t k = 0; k < order.size(); ++k) {
          const engine::ShardSpan& sh = s[order[k]];
          EXPECT_EQ(sh.first, next) << points << " points, " << shards << " shards";
          if (k > 0 && s[order[k - 1]].first == sh.first) EXPECT_EQ(s[order[k - 1]].count, 0u);
          next += sh.count;
        }
        EXPECT_EQ(next, points);
      }
    }
}

TEST(MergeOrder, RefusesAMissingAnOverlappingAndAForeignShard) {
  const std::vector<engine::ShardSpan> all = spans_of(12, 3);  // [0,4) [4,8) [8,12)
  EXPECT_EQ(refusal({all[0], all[2]}), "s2: shard starts at point 8, expected 4 (a shard is missing)");
  EXPECT_EQ(refusal({all[1], all[2]}), "s1: shard starts at point 4, expected 0 (a shard is missing)");
  EXPECT_EQ(refusal({all[0], all[1]}), "s1: the last shard ends at point 8 of 12 (a shard is missing)");
  EXPECT_EQ(refusal({all[0], all[1], all[1], all[2]}), "s1: shard starts at point 4, expected 8 (overlapping shards)");
  EXPECT_EQ(refusal({}), "merge: no input files");
  // A shard of another run, named against the first shard in point order.
  EXPECT_EQ(refusal({all[2], all[0], all[1]}, [](std::size_t i, std::size_t) { return i != 0; }),
            "s2: belongs to a different toy than s0 (its seed differs)");
  EXPECT_EQ(refusal(all), "accepted");
}

}  // namespace
