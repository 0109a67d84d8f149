// `stribeck map`: the point reader (sweep files and ensembles), the map
// builder (grid cells, bins, reductions, scales, refusals) and the SVG/CSV
// writer. Expected cells are computed here from the points written, by plain
// loops, not by the code under test.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/point_file.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/data/svg_heat_map.hpp"
#include "stribeck/workloads/heat_map.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) { return test::temp_dir() + "map_" + name; }
bool exists(const std::string& p) { return static_cast<bool>(std::ifstream(p)); }
std::string slurp(const std::string& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Point {
  std::vector<double> x;  // coordinates
  double m;               // the metric
  double status;          // 0 ok
};

// An ensemble-layout file (group `ensemble`: `points`, metric columns,
// `status`) holding `pts`, in the layout of ensemble format_version 1 (the
// coordinates as one 2-D table), which the readers still read.
void write_ensemble(const std::string& path, const std::string& names, int dims, const std::vector<Point>& pts) {
  std::remove(path.c_str());
  data::Provenance p;
  p.command_line = "test";
  auto s = data::ResultsStream::create(
      path, "ensemble", {{"points", static_cast<std::uint64_t>(dims), "", ""}, {"m", 0, "", ""}, {"status", 0, "", ""}},
      {{"names", names}, {"count", std::to_string(pts.size())}}, p);
  std::vector<double> xs, ms, st;
  for (const auto& q : pts) {
    xs.insert(xs.end(), q.x.begin(), q.x.end());
    ms.push_back(q.m);
    st.push_back(q.status);
  }
  s->append(pts.size(), {xs.data(), ms.data(), st.data()});
  s->checkpoint({pts.size(), {}});
  s->finish();
}

// a = 1, 2, 3 (linear), b = 1, 10, 100 (log), c = 0, 1; m = a + 10 log10(b) + 100 c.
// The point a = 2, b = 10, c = 0 did not finish (status 2).
std::vector<Point> grid_points() {
  std::vector<Point> pts;
  for (double c : {0.0, 1.0})
    for (double b : {1.0, 10.0, 100.0})
      for (double a : {1.0, 2.0, 3.0})
        pts.push_back({{a, b, c}, a + 10 * std::log10(b) + 100 * c, (a == 2 && b == 10 && c == 0) ? 2.0 : 0.0});
  return pts;
}

TEST(HeatMap, GridCellsReduceTheirPointsThatFinished) {
  const std::string path = tmp("grid.h5");
  const auto pts = grid_points();
  write_ensemble(path, "a,b,c", 3, pts);
  const data::PointFile f(path);
  EXPECT_EQ(f.kind(), "ensemble");
  EXPECT_EQ(f.rows(), pts.size());
  for (const std::string reduce : {"min", "max", "mean"}) {
    workloads::HeatMapOptions o;
    o.metric = "m";
    o.reduce = reduce;
    o.block_rows = 5;  // several blocks per pass
    workloads::HeatMapSummary s;
    const data::HeatMap map = workloads::build_heat_map(f, o, &s);
    ASSERT_EQ(map.x.centers, (std::vector<double>{1, 2, 3}));
    ASSERT_EQ(map.y.centers, (std::vector<double>{1, 10, 100}));
    EXPECT_FALSE(map.x.log);
    EXPECT_TRUE(map.y.log);  // evenly spaced in log
    EXPECT_NEAR(map.y.edges[1], std::sqrt(10.0), 1e-12);
    EXPECT_NEAR(map.x.edges[0], 0.5, 1e-12);
    EXPECT_EQ(s.not_ok, 1u);
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        std::vector<double> v;
        std::uint64_t n = 0;
        for (const auto& q : pts)
          if (q.x[0] == map.x.centers[i] && q.x[1] == map.y.centers[j]) {
            ++n;
            if (q.status == 0) v.push_back(q.m);
          }
        double want = v[0];
        for (double x : v) want = reduce == "min" ? std::min(want, x) : reduce == "max" ? std::max(want, x) : want;
        if (reduce == "mean") want = v.size() == 1 ? v[0] : (v[0] + v[1]) / 2;
        EXPECT_DOUBLE_EQ(map.values[j * 3 + i], want) << reduce << " cell " << i << "," << j;
        EXPECT_EQ(map.points[j * 3 + i], n);
      }
    if (reduce == "min") {
      EXPECT_DOUBLE_EQ(s.min, 1.0);
      EXPECT_DOUBLE_EQ(s.min_x, 1.0);
      EXPECT_DOUBLE_EQ(s.min_y, 1.0);
      EXPECT_DOUBLE_EQ(map.values[1 * 3 + 1], 2 + 10 + 100.0);  // only c = 1 finished
      EXPECT_DOUBLE_EQ(s.max, 112.0);
      EXPECT_DOUBLE_EQ(s.max_x, 2.0);
      EXPECT_DOUBLE_EQ(s.max_y, 10.0);
    }
  }
}

TEST(HeatMap, CombiningPointsNeedsReduceAndNamesWhatElseVaries) {
  const std::string path = tmp("refuse.h5");
  write_ensemble(path, "a,b,c", 3, grid_points());
  const data::PointFile f(path);
  workloads::HeatMapOptions o;
  o.metric = "m";
  try {
    workloads::build_heat_map(f, o);
    FAIL() << "expected a refusal";
  } catch (const data::InputError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("18 points fall on 3 x 3 cells (the file also varies c)"), std::string::npos) << w;
    EXPECT_NE(w.find("--reduce min|max|mean"), std::string::npos) << w;
  }
  // x = c, y = a: still 3 points per cell (b varies).
  o.x = "c";
  o.y = "a";
  EXPECT_THROW(workloads::build_heat_map(f, o), data::InputError);
  // One point per cell needs no reduction: fix c by mapping a file without it.
  std::vector<Point> flat;
  for (const auto& q : grid_points())
    if (q.x[2] == 1) flat.push_back({{q.x[0], q.x[1]}, q.m, q.status});
  write_ensemble(tmp("flat.h5"), "a,b", 2, flat);
  const data::PointFile g(tmp("flat.h5"));
  workloads::HeatMapOptions one;
  one.metric = "m";
  const data::HeatMap map = workloads::build_heat_map(g, one);
  EXPECT_DOUBLE_EQ(map.values[2 * 3 + 2], 3 + 20 + 100.0);
}

TEST(HeatMap, RandomPointsAreBinnedOverTheirRange) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Point> pts;
  for (int k = 0; k < 2000; ++k) {
    const double x = u(rng), y = 2 + 3 * u(rng);
    pts.push_back({{x, y}, x * y, 0});
  }
  write_ensemble(tmp("random.h5"), "x,y", 2, pts);
  const data::PointFile f(tmp("random.h5"));
  workloads::HeatMapOptions o;
  o.metric = "m";
  EXPECT_THROW(workloads::build_heat_map(f, o), data::InputError);  // binning always combines points
  o.reduce = "mean";
  o.bins = 4;
  workloads::HeatMapSummary s;
  const data::HeatMap map = workloads::build_heat_map(f, o, &s);
  EXPECT_TRUE(s.binned);
  ASSERT_EQ(map.x.centers.size(), 4u);
  double lo_x = 1, hi_x = 0, lo_y = 9, hi_y = 0;
  for (const auto& q : pts) {
    lo_x = std::min(lo_x, q.x[0]), hi_x = std::max(hi_x, q.x[0]);
    lo_y = std::min(lo_y, q.x[1]), hi_y = std::max(hi_y, q.x[1]);
  }
  EXPECT_EQ(map.x.edges.front(), lo_x);
  EXPECT_EQ(map.x.edges.back(), hi_x);  // the largest point lands in the last bin
  EXPECT_FALSE(map.x.log);              // uniform from near 0: spans 100x, but not evenly in log
  EXPECT_FALSE(map.y.log);              // 2..5 spans less than 10x
  std::vector<double> sum(16, 0.0);
  std::vector<std::uint64_t> n(16, 0);
  for (const auto& q : pts) {
    const int i = std::min(3, static_cast<int>((q.x[0] - lo_x) / (hi_x - lo_x) * 4));
    const int j = std::min(3, static_cast<int>((q.x[1] - lo_y) / (hi_y - lo_y) * 4));
    sum[j * 4 + i] += q.m;
    ++n[j * 4 + i];
  }
  std::uint64_t total = 0;
  for (int c = 0; c < 16; ++c) {
    total += map.points[c];
    EXPECT_EQ(map.points[c], n[c]) << c;
    EXPECT_NEAR(map.values[c], sum[c] / n[c], 1e-12) << c;
  }
  EXPECT_EQ(total, pts.size());

  // Log-uniform values spread evenly in log: auto picks a log axis.
  std::vector<Point> lg;
  for (int k = 0; k < 500; ++k) lg.push_back({{u(rng), std::pow(10.0, -7 + 2 * u(rng))}, 1.0, 0});
  write_ensemble(tmp("loguniform.h5"), "x,y", 2, lg);
  const data::HeatMap lmap = workloads::build_heat_map(data::PointFile(tmp("loguniform.h5")), o);
  EXPECT_FALSE(lmap.x.log);
  EXPECT_TRUE(lmap.y.log);
}

TEST(HeatMap, RefusesBadOptionsNamingThem) {
  write_ensemble(tmp("opts.h5"), "a,b,c", 3, grid_points());
  const data::PointFile f(tmp("opts.h5"));
  auto message = [&](workloads::HeatMapOptions o) {
    try {
      workloads::build_heat_map(f, o);
    } catch (const data::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  workloads::HeatMapOptions o;
  o.reduce = "min";
  o.metric = "rmse";
  EXPECT_NE(message(o).find("no metric 'rmse' (it has m, status)"), std::string::npos) << message(o);
  o.metric = "m";
  o.x = "d";
  EXPECT_NE(message(o).find("no varying quantity 'd' (it varies a, b, c)"), std::string::npos);
  o.x = "b";
  o.y = "b";
  EXPECT_NE(message(o).find("--x and --y both name b"), std::string::npos);
  o.y = "";
  o.x = "";
  o.reduce = "median";
  EXPECT_NE(message(o).find("--reduce 'median'"), std::string::npos);
  o.reduce = "min";
  o.x_scale = "log";
  EXPECT_EQ(message(o), "no error");  // a >= 1
  o.x = "c";                          // c = 0, 1
  EXPECT_NE(message(o).find("--x-scale: a log scale needs values > 0 (the smallest is 0)"), std::string::npos)
      << message(o);
  o.x_scale = "auto";
  o.x = "";
  o.value_scale = "log";
  EXPECT_EQ(message(o), "no error");  // every cell > 0
  o.bins = 600;
  EXPECT_NE(message(o).find("--bins 600"), std::string::npos);
}

TEST(HeatMap, SvgColoursCellsFromSmallestToLargestAndGraysEmptyOnes) {
  data::HeatMap m;
  m.title = "m over a & b";
  m.value_label = "m <N>";
  m.x = {"a", false, {0, 1, 2}, {0.5, 1.5}};
  m.y = {"b", true, {1, 10}, {3}};
  m.values = {2.0, NAN};
  m.points = {1, 0};
  std::string svg = data::heat_map_svg(m);
  EXPECT_NE(svg.find("m over a &amp; b"), std::string::npos);
  EXPECT_NE(svg.find("m &lt;N&gt;"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#d0d0d0\"><title>a = 1.5, b = 3: no point"), std::string::npos);
  m.values = {2.0, 5.0};
  svg = data::heat_map_svg(m);
  EXPECT_NE(svg.find("fill=\"#440154\"><title>a = 0.5, b = 3: 2 (1 point)"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#fde725\"><title>a = 1.5"), std::string::npos);
  EXPECT_EQ(data::viridis_hex(0.5), "#21908d");
  // Log colours: 1, 10, 100 sit at 0, 1/2, 1.
  m.x = {"a", false, {0, 1, 2, 3}, {0.5, 1.5, 2.5}};
  m.values = {1, 10, 100};
  m.points = {1, 1, 1};
  m.log_values = true;
  svg = data::heat_map_svg(m);
  EXPECT_NE(svg.find("fill=\"#21908d\"><title>a = 1.5"), std::string::npos);
  m.values[0] = -1;
  EXPECT_THROW(data::heat_map_svg(m), std::invalid_argument);
  m.values[0] = 1;
  m.points.pop_back();
  EXPECT_THROW(data::heat_map_svg(m), std::invalid_argument);
}

TEST(HeatMap, ReadsSweepFilesAndRefusesOtherFiles) {
  // A sweep through the CLI: a 3 x 4 grid of simscape-translational.
  const std::string cfg = test::write_temp_file("map_sweep.toml", R"(model = "simscape-translational"
[design]
type = "grid"
[params]
F_brk = { values = [1.5, 2.0, 3.0] }
F_C = { linear = [0.5, 1.25], count = 4 }
[[trace]]
profile = "sine"
amplitude = 0.05
frequency = 1.0
duration = 1.0
samples = 200
)");
  const std::string sweep = tmp("sweep.h5");
  std::string out;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -o " + sweep + " -q", &out), 0) << out;
  const data::PointFile f(sweep);
  EXPECT_EQ(f.kind(), "sweep");
  workloads::HeatMapOptions o;
  o.metric = "peak_force";
  o.x = "F_C";
  o.y = "F_brk";
  const data::HeatMap map = workloads::build_heat_map(f, o);
  EXPECT_EQ(map.x.label, "F_C [N]");
  // Every cell equals the point's own value, read here straight from the file.
  const data::h5::File h = data::h5::open_file(sweep);
  const auto fc = data::h5::read_array<double>(h.id(), "sweep/F_C", H5T_NATIVE_DOUBLE, sweep);
  const auto fb = data::h5::read_array<double>(h.id(), "sweep/F_brk", H5T_NATIVE_DOUBLE, sweep);
  const auto pk = data::h5::read_array<double>(h.id(), "sweep/peak_force", H5T_NATIVE_DOUBLE, sweep);
  ASSERT_EQ(pk.size(), 12u);
  for (size_t k = 0; k < pk.size(); ++k) {
    const auto i = std::find(map.x.centers.begin(), map.x.centers.end(), fc[k]) - map.x.centers.begin();
    const auto j = std::find(map.y.centers.begin(), map.y.centers.end(), fb[k]) - map.y.centers.begin();
    ASSERT_LT(i, 4);
    ASSERT_LT(j, 3);
    EXPECT_EQ(map.values[j * 4 + i], pk[k]);
  }
  EXPECT_THROW(data::PointFile{cfg}, data::InputError);  // not HDF5
  write_ensemble(tmp("one.h5"), "a", 1, {{{1.0}, 1.0, 0}, {{2.0}, 2.0, 0}});
  const data::PointFile one(tmp("one.h5"));
  workloads::HeatMapOptions m1;
  m1.metric = "m";
  EXPECT_THROW(workloads::build_heat_map(one, m1), data::InputError);  // one varying quantity
  // Fixed coordinates are passed over when choosing the axes.
  write_ensemble(
      tmp("fixed.h5"), "k,a,b", 3,
      {{{7.0, 1.0, 1.0}, 1.0, 0}, {{7.0, 2.0, 1.0}, 2.0, 0}, {{7.0, 1.0, 2.0}, 3.0, 0}, {{7.0, 2.0, 2.0}, 4.0, 2}});
  const data::HeatMap fixed = workloads::build_heat_map(data::PointFile(tmp("fixed.h5")), m1);
  EXPECT_EQ(fixed.x.label, "a");
  EXPECT_EQ(fixed.y.label, "b");
  EXPECT_TRUE(std::isnan(fixed.values[3]));  // a = 2, b = 2: its point did not finish
}

TEST(HeatMap, CliWritesSvgAndCsvAtomicallyAndRefusesInOneLine) {
  write_ensemble(tmp("cli.h5"), "a,b,c", 3, grid_points());
  const std::string svg = tmp("cli.svg"), csv = tmp("cli.csv");
  std::string out;
  ASSERT_EQ(test::run_cli("map " + tmp("cli.h5") + " -m m --reduce max -o " + svg, &out), 0) << out;
  EXPECT_NE(out.find("largest : m = 123 at a = 3, b = 100"), std::string::npos) << out;
  const std::string text = slurp(svg);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  ASSERT_EQ(test::run_cli("map " + tmp("cli.h5") + " -m m --reduce mean --x b --y c -o " + csv, &out), 0) << out;
  std::istringstream rows(slurp(csv));
  std::string line;
  std::getline(rows, line);
  EXPECT_EQ(line, "b,c,m (mean),points");
  std::getline(rows, line);
  EXPECT_EQ(line, "1,0,2,3");  // a = 1, 2, 3 at b = 1, c = 0
  std::getline(rows, line);
  EXPECT_EQ(line, "10,0,12,3");  // a = 2 did not finish at b = 10, c = 0: (11 + 13) / 2
  ASSERT_EQ(test::run_cli("map " + tmp("cli.h5") + " --list", &out), 0);
  EXPECT_NE(out.find("coordinates: a b c"), std::string::npos) << out;
  // Refusals: one line, exit 2, the earlier output untouched and no new file.
  const std::string before = slurp(csv);
  EXPECT_EQ(test::run_cli("map " + tmp("cli.h5") + " -m nope --reduce max -o " + csv, &out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(slurp(csv), before);
  EXPECT_EQ(test::run_cli("map " + tmp("cli.h5") + " -m m -o " + tmp("never.svg"), &out), 2);
  EXPECT_FALSE(exists(tmp("never.svg")));
}

// Found by adversarial runs: each crashed, hung, or drew something other
// than the file holds.
TEST(HeatMap, MalformedFilesAreRefusedNamingTheDataset) {
  const auto pts = grid_points();
  auto refused = [&](const std::string& path, const std::string& expect) {
    try {
      data::PointFile f(path);
      workloads::HeatMapOptions o;
      o.metric = "m";
      o.reduce = "min";
      workloads::build_heat_map(f, o);
      ADD_FAILURE() << path << ": no error";
    } catch (const data::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  };
  // A metric column cut short (or any column longer or shorter than the count).
  write_ensemble(tmp("short.h5"), "a,b,c", 3, pts);
  {
    const data::h5::File h = data::h5::open_file(tmp("short.h5"), true);
    data::h5::resize_column(h.id(), "ensemble/m", 5, "test");
  }
  refused(tmp("short.h5"), "dataset 'ensemble/m' holds 5 rows, but the file has 18 points");
  // A 2-D metric (segfaulted: read as one value per point).
  {
    std::remove(tmp("wide.h5").c_str());
    data::Provenance p;
    auto s = data::ResultsStream::create(tmp("wide.h5"), "ensemble",
                                         {{"points", 2, "", ""}, {"m", 2, "", ""}, {"status", 0, "", ""}},
                                         {{"names", "a,b"}, {"count", "1"}}, p);
    const double x[2] = {1, 2}, m[2] = {3, 4}, st[1] = {0};
    s->append(1, {x, m, st});
    s->checkpoint({1, {}});
    s->finish();
  }
  refused(tmp("wide.h5"), "dataset 'ensemble/m' is not a column of one value per point");
  // A coordinate named twice (x == y passed unnoticed).
  write_ensemble(tmp("twice.h5"), "a,a,c", 3, pts);
  refused(tmp("twice.h5"), "the coordinate name 'a' appears twice");
  // Coordinates whose cells overflow double precision (exit 3 from the renderer).
  write_ensemble(tmp("huge.h5"), "a,b", 2, {{{-1e308, 1.0}, 1.0, 0}, {{1e308, 2.0}, 2.0, 0}});
  refused(tmp("huge.h5"), "too wide (or too close together) for cells in double precision");
  // A pipe (hung reading it) and a directory.
  ASSERT_EQ(::mkfifo(tmp("pipe").c_str(), 0600), 0);
  refused(tmp("pipe"), "is not a regular file");
  refused(test::temp_dir(), "is a directory");
}

TEST(HeatMap, EveryPointIsDrawnOrCountedAsLeftOut) {
  auto pts = grid_points();  // 18 points, 1 not ok
  pts[3].x[0] = NAN;         // ok, metric finite, no place on the map
  pts[5].m = INFINITY;       // ok, metric not finite (pts[4] is the one not ok)
  write_ensemble(tmp("left.h5"), "a,b,c", 3, pts);
  workloads::HeatMapOptions o;
  o.metric = "m";
  o.reduce = "mean";
  workloads::HeatMapSummary s;
  const data::HeatMap map = workloads::build_heat_map(data::PointFile(tmp("left.h5")), o, &s);
  EXPECT_EQ(s.not_ok, 1u);
  EXPECT_EQ(s.non_finite, 1u);
  EXPECT_EQ(s.off_map, 1u);
  std::uint64_t placed = 0;
  for (auto n : map.points) placed += n;
  EXPECT_EQ(placed + 1, pts.size());  // all but the one without a cell
  EXPECT_NE(map.subtitle.find("3 left out"), std::string::npos) << map.subtitle;
  // A mean of values near DBL_MAX stays finite.
  write_ensemble(tmp("big.h5"), "a,b,c", 3,
                 {{{1, 1, 0}, 1.7e308, 0}, {{1, 1, 1}, 1.7e308, 0}, {{2, 1, 0}, 1.0, 0}, {{2, 1, 1}, 1.0, 0}});
  const data::HeatMap big = workloads::build_heat_map(data::PointFile(tmp("big.h5")), o);
  EXPECT_EQ(big.values[0], 1.7e308);
}

TEST(HeatMap, FewRandomPointsAreBinnedNotTakenForAGrid) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Point> pts;
  for (int k = 0; k < 300; ++k) pts.push_back({{u(rng), u(rng)}, 1.0, 0});  // 300 distinct values per axis
  write_ensemble(tmp("few.h5"), "x,y", 2, pts);
  workloads::HeatMapOptions o;
  o.metric = "m";
  EXPECT_THROW(workloads::build_heat_map(data::PointFile(tmp("few.h5")), o),
               data::InputError);  // bins combine points: --reduce
  o.reduce = "mean";
  workloads::HeatMapSummary s;
  const data::HeatMap map = workloads::build_heat_map(data::PointFile(tmp("few.h5")), o, &s);
  EXPECT_TRUE(s.binned);
  EXPECT_EQ(map.x.centers.size(), 48u);
}

TEST(HeatMap, CliRefusesItsInputAsOutputAndZeroBins) {
  write_ensemble(tmp("self.h5"), "a,b,c", 3, grid_points());
  const std::string before = slurp(tmp("self.h5"));
  std::string out;
  EXPECT_EQ(test::run_cli("map " + tmp("self.h5") + " -m m --reduce min -o " + tmp("self.h5"), &out), 2);
  EXPECT_NE(out.find("is the input"), std::string::npos) << out;
  EXPECT_EQ(slurp(tmp("self.h5")), before);
  EXPECT_EQ(test::run_cli("map " + tmp("self.h5") + " -m m --reduce min --bins 0 -o " + tmp("zero.svg"), &out), 1);
  EXPECT_FALSE(exists(tmp("zero.svg")));
}

TEST(HeatMap, CsvQuotesNamesThatNeedIt) {
  data::HeatMap m;
  m.value_label = "m";
  m.x = {"a,b \"x\"", false, {0, 1}, {0.5}};
  m.y = {"y", false, {0, 1}, {0.5}};
  m.values = {2.0};
  m.points = {1};
  data::write_heat_map(tmp("quoted.csv"), m);
  EXPECT_EQ(slurp(tmp("quoted.csv")), "\"a,b \"\"x\"\"\",y,m,points\n0.5,0.5,2,1\n");
}

}  // namespace
}  // namespace stribeck
