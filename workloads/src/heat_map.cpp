#include "stribeck/workloads/heat_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::workloads {
namespace {

constexpr int kDefaultBins = 48;

// One axis as read in the first pass: its finite values' range, the mean of
// their logarithms (where the values sit between the ends, on a log scale)
// and, while there are few enough, the distinct values (a grid's).
struct AxisScan {
  double lo = INFINITY, hi = -INFINITY, sum_log = 0;
  std::uint64_t n = 0;
  std::set<double> distinct;
  bool too_many = false;
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (v > 0) sum_log += std::log(v);
    ++n;
    if (too_many) return;
    distinct.insert(v);
    if (distinct.size() > static_cast<size_t>(kMaxGridCells)) {
      too_many = true;
      distinct.clear();
    }
  }
};

// Spread of the steps between sorted values (max/min step), linearly or in log.
double step_spread(const std::vector<double>& v, bool log) {
  double smin = INFINITY, smax = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    const double d = log ? std::log(v[i]) - std::log(v[i - 1]) : v[i] - v[i - 1];
    smin = std::min(smin, d);
    smax = std::max(smax, d);
  }
  return smax / smin;
}

bool choose_log(const std::string& scale, const AxisScan& s, const std::vector<double>& grid, const std::string& at) {
  if (scale == "linear") return false;
  if (scale == "log") {
    if (!(s.lo > 0))
      throw data::InputError(at + ": a log scale needs values > 0 (the smallest is " + format_number(s.lo) + ")");
    return true;
  }
  if (scale != "auto") throw data::InputError(at + ": scale '" + scale + "': choose auto, linear or log");
  if (!(s.lo > 0)) return false;
  if (!grid.empty()) return grid.size() >= 3 && step_spread(grid, true) < step_spread(grid, false);
  // Binned: log when the values span 10x or more and spread evenly in log,
  // their mean log near the middle of the log range (0.5 for a log-uniform
  // sample), not high up (0.68 for a uniform one over 0.1..1, more for wider).
  if (s.hi / s.lo < 10) return false;
  const double t = (s.sum_log / static_cast<double>(s.n) - std::log(s.lo)) / (std::log(s.hi) - std::log(s.lo));
  return t < 0.62;
}

// Cell edges of a grid axis: halfway between neighbouring values (in the
// axis's scale), the outer cells as wide as their neighbours.
data::HeatMapAxis grid_axis(const std::vector<double>& v, bool log, const std::string& label) {
  data::HeatMapAxis a;
  a.label = label;
  a.log = log;
  a.centers = v;
  auto fwd = [&](double x) { return log ? std::log(x) : x; };
  auto back = [&](double x) { return log ? std::exp(x) : x; };
  const size_t n = v.size();
  a.edges.resize(n + 1);
  if (n == 1) {
    const double w = log ? 0.1 : (v[0] != 0 ? 0.1 * std::abs(v[0]) : 0.5);
    a.edges[0] = back(fwd(v[0]) - w);
    a.edges[1] = back(fwd(v[0]) + w);
    return a;
  }
  for (size_t i = 1; i < n; ++i) a.edges[i] = back(0.5 * (fwd(v[i - 1]) + fwd(v[i])));
  a.edges[0] = back(2 * fwd(v[0]) - fwd(a.edges[1]));
  a.edges[n] = back(2 * fwd(v[n - 1]) - fwd(a.edges[n - 1]));
  return a;
}

data::HeatMapAxis binned_axis(double lo, double hi, int bins, bool log, const std::string& label) {
  data::HeatMapAxis a;
  a.label = label;
  a.log = log;
  if (!(hi > lo)) {  // one value: one cell around it
    const double w = log ? 1.1 : (lo != 0 ? 0.1 * std::abs(lo) : 0.5);
    lo = log ? lo / w : lo - w;
    hi = log ? hi * w : hi + w;
    bins = 1;
  }
  for (int i = 0; i <= bins; ++i) {
    const double t = static_cast<double>(i) / bins;
    a.edges.push_back(log ? std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))) : lo + t * (hi - lo));
  }
  a.edges.front() = lo;
  a.edges.back() = hi;
  for (int i = 0; i < bins; ++i)
    a.centers.push_back(log ? std::sqrt(a.edges[i] * a.edges[i + 1]) : 0.5 * (a.edges[i] + a.edges[i + 1]));
  return a;
}

// Cell of value v on an axis (-1 outside or not finite).
int cell_of(const data::HeatMapAxis& a, bool binned, double v) {
  if (!std::isfinite(v)) return -1;
  if (!binned) {
    const auto it = std::lower_bound(a.centers.begin(), a.centers.end(), v);
    return it != a.centers.end() && *it == v ? static_cast<int>(it - a.centers.begin()) : -1;
  }
  if (v < a.edges.front() || v > a.edges.back()) return -1;
  const auto it = std::upper_bound(a.edges.begin(), a.edges.end(), v);
  const int i = static_cast<int>(it - a.edges.begin()) - 1;
  return std::min(i, static_cast<int>(a.centers.size()) - 1);
}

std::string label(const data::PointFile& f, int d) {
  const std::string& u = f.dimension_units()[static_cast<size_t>(d)];
  return f.dimensions()[static_cast<size_t>(d)] + (u.empty() ? "" : " [" + u + "]");
}

// Whether dimension d takes more than one value (reads until it does).
bool varies(const data::PointFile& f, int d, std::uint64_t block) {
  std::vector<double> v;
  double first = NAN;
  for (std::uint64_t b = 0; b < f.rows(); b += block) {
    f.read_dimension(d, b, std::min(block, f.rows() - b), v);
    if (b == 0) first = v[0];
    for (double x : v)
      if (!(x == first)) return true;
  }
  return false;
}

// " (the file also varies A, B)": the quantities besides x and y that take
// more than one value (read only for this message, on the way to an error).
std::string varying_others(const data::PointFile& f, int dx, int dy, std::uint64_t block) {
  std::string names;
  for (int d = 0; d < static_cast<int>(f.dimensions().size()); ++d)
    if (d != dx && d != dy && varies(f, d, block))
      names += (names.empty() ? "" : ", ") + f.dimensions()[static_cast<size_t>(d)];
  return names.empty() ? "" : " (the file also varies " + names + ")";
}

// The axes: as named, else the first quantities that vary (a sweep file
// lists its fixed parameters among its coordinates too).
std::pair<int, int> choose_axes(const data::PointFile& f, const HeatMapOptions& o, std::uint64_t block) {
  std::vector<int> free;
  if (o.x.empty() || o.y.empty())
    for (int d = 0; d < static_cast<int>(f.dimensions().size()) && free.size() < 3; ++d)
      if (varies(f, d, block)) free.push_back(d);
  int dx = o.x.empty() ? -1 : f.dimension_index(o.x);
  int dy = o.y.empty() ? -1 : f.dimension_index(o.y);
  for (int d : free) {
    if (dx < 0 && d != dy) dx = d;
    else if (dy < 0 && d != dx) dy = d;
  }
  if (dx < 0 || dy < 0)
    throw data::InputError(f.path() + ": " +
                           (free.empty() ? std::string("no quantity varies")
                                         : "only " + f.dimensions()[static_cast<size_t>(free[0])] + " varies") +
                           "; a map needs two varying quantities (name them with --x and --y)");
  if (dx == dy) throw data::InputError("map: --x and --y both name " + f.dimensions()[static_cast<size_t>(dx)]);
  return {dx, dy};
}

}  // namespace

data::HeatMap build_heat_map(const data::PointFile& f, const HeatMapOptions& o, HeatMapSummary* summary) {
  const std::string& path = f.path();
  if (o.metric.empty())
    throw data::InputError("map: --metric is needed (" + path + " has its metrics listed by --list)");
  const int m = f.metric_index(o.metric);
  if (!o.reduce.empty() && o.reduce != "min" && o.reduce != "max" && o.reduce != "mean")
    throw data::InputError("map: --reduce '" + o.reduce + "': choose min, max or mean");
  if (o.bins < 0 || o.bins > kMaxBins)
    throw data::InputError("map: --bins " + std::to_string(o.bins) + ": choose 1 to " + std::to_string(kMaxBins));
  const std::uint64_t rows = f.rows();
  if (rows == 0) throw data::InputError(path + ": holds no points yet");
  const std::uint64_t block = std::max<std::uint64_t>(1, o.block_rows);
  const auto [dx, dy] = choose_axes(f, o, block);

  // Pass 1: the axes, and whether the points fill the grid of their
  // distinct values (a grid design does; 300 random points have 300
  // distinct values per axis but fill 300 of the 90,000 pairs: binned).
  AxisScan scan_x, scan_y;
  std::set<std::pair<double, double>> pairs;
  std::vector<double> bx, by, bv;
  std::vector<std::uint8_t> ok;
  for (std::uint64_t first = 0; first < rows; first += block) {
    const std::uint64_t n = std::min(block, rows - first);
    f.read_dimension(dx, first, n, bx);
    f.read_dimension(dy, first, n, by);
    for (std::uint64_t i = 0; i < n; ++i) {
      scan_x.add(bx[i]);
      scan_y.add(by[i]);
      if (!scan_x.too_many && !scan_y.too_many && std::isfinite(bx[i]) && std::isfinite(by[i]))
        pairs.emplace(bx[i], by[i]);
    }
  }
  if (!(scan_x.lo <= scan_x.hi) || !(scan_y.lo <= scan_y.hi))
    throw data::InputError(path + ": the coordinates hold no finite value");
  const bool grid =
      !scan_x.too_many && !scan_y.too_many && pairs.size() == scan_x.distinct.size() * scan_y.distinct.size();
  pairs.clear();
  const bool binned = o.bins > 0 || !grid;
  const std::vector<double> gx(scan_x.distinct.begin(), scan_x.distinct.end());
  const std::vector<double> gy(scan_y.distinct.begin(), scan_y.distinct.end());
  const std::string lx = label(f, dx), ly = label(f, dy);
  const bool log_x = choose_log(o.x_scale, scan_x, binned ? std::vector<double>{} : gx, "map: --x-scale");
  const bool log_y = choose_log(o.y_scale, scan_y, binned ? std::vector<double>{} : gy, "map: --y-scale");
  data::HeatMap map;
  const int bins = o.bins > 0 ? o.bins : kDefaultBins;
  map.x = binned ? binned_axis(scan_x.lo, scan_x.hi, bins, log_x, lx) : grid_axis(gx, log_x, lx);
  map.y = binned ? binned_axis(scan_y.lo, scan_y.hi, bins, log_y, ly) : grid_axis(gy, log_y, ly);
  for (const data::HeatMapAxis* a : {&map.x, &map.y})
    for (size_t i = 0; i < a->edges.size(); ++i)
      if (!std::isfinite(a->edges[i]) || (i > 0 && !(a->edges[i] > a->edges[i - 1])) || (a->log && !(a->edges[i] > 0)))
        throw data::InputError("map: the coordinate " + a->label + " spans " +
                               format_number(a == &map.x ? scan_x.lo : scan_y.lo) + " .. " +
                               format_number(a == &map.x ? scan_x.hi : scan_y.hi) +
                               ", too wide (or too close together) for cells in double precision");
  const size_t nx = map.x.centers.size(), ny = map.y.centers.size(), cells = nx * ny;
  if (o.reduce.empty() && (binned || rows > cells))
    throw data::InputError("map: " + std::to_string(rows) + " points fall on " + std::to_string(nx) + " x " +
                           std::to_string(ny) + (binned ? " bins" : " cells") + varying_others(f, dx, dy, block) +
                           ": choose how a cell combines them with --reduce min|max|mean");
  if (o.value_scale != "linear" && o.value_scale != "log")
    throw data::InputError("map: --value-scale '" + o.value_scale + "': choose linear or log");

  // Pass 2: the cells.
  map.points.assign(cells, 0);
  std::vector<double> acc(cells, o.reduce == "max" ? -INFINITY : o.reduce == "mean" ? 0.0 : INFINITY);
  std::vector<std::uint64_t> used(cells, 0);
  HeatMapSummary s;
  s.points = rows;
  s.binned = binned;
  s.cells_x = static_cast<int>(nx);
  s.cells_y = static_cast<int>(ny);
  for (std::uint64_t first = 0; first < rows; first += block) {
    const std::uint64_t n = std::min(block, rows - first);
    f.read_dimension(dx, first, n, bx);
    f.read_dimension(dy, first, n, by);
    f.read_metric(m, first, n, bv);
    f.read_ok(first, n, ok);
    for (std::uint64_t i = 0; i < n; ++i) {
      // Each point is drawn or counted once as left out: not ok, metric not
      // finite, or coordinates not finite (no cell to put it in).
      const int cx = cell_of(map.x, binned, bx[i]), cy = cell_of(map.y, binned, by[i]);
      if (!ok[i]) ++s.not_ok;
      else if (!std::isfinite(bv[i])) ++s.non_finite;
      else if (cx < 0 || cy < 0) ++s.off_map;
      if (cx < 0 || cy < 0) continue;
      const size_t c = static_cast<size_t>(cy) * nx + static_cast<size_t>(cx);
      ++map.points[c];
      if (!ok[i] || !std::isfinite(bv[i])) continue;
      ++used[c];
      if (o.reduce == "max") acc[c] = std::max(acc[c], bv[i]);
      else if (o.reduce == "mean")
        acc[c] += (bv[i] - acc[c]) / static_cast<double>(used[c]);  // no overflow near DBL_MAX
      else if (o.reduce == "min") acc[c] = std::min(acc[c], bv[i]);
      else acc[c] = bv[i];  // one point per cell
    }
  }
  map.values.assign(cells, std::numeric_limits<double>::quiet_NaN());
  s.min = s.max = NAN;
  for (size_t c = 0; c < cells; ++c) {
    if (used[c] == 0) continue;
    const double v = map.values[c] = acc[c];
    if (std::isnan(s.min) || v < s.min) {
      s.min = v;
      s.min_x = map.x.centers[c % nx];
      s.min_y = map.y.centers[c / nx];
    }
    if (std::isnan(s.max) || v > s.max) {
      s.max = v;
      s.max_x = map.x.centers[c % nx];
      s.max_y = map.y.centers[c / nx];
    }
  }
  map.log_values = o.value_scale == "log";
  if (map.log_values && !std::isnan(s.min) && !(s.min > 0))
    throw data::InputError("map: --value-scale log needs values > 0; " + o.metric + " reaches " + format_number(s.min) +
                           " at " + map.x.label + " = " + format_number(s.min_x) + ", " + map.y.label + " = " +
                           format_number(s.min_y));

  const std::string unit = f.metric_unit(o.metric);
  map.value_label =
      o.metric + (unit.empty() ? "" : " [" + unit + "]") + (o.reduce.empty() ? "" : " (" + o.reduce + ")");
  map.title =
      o.metric + " over " + f.dimensions()[static_cast<size_t>(dx)] + " and " + f.dimensions()[static_cast<size_t>(dy)];
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  map.subtitle = f.kind() + " " + base + ": " + std::to_string(rows) + " points" +
                 (o.reduce.empty() ? "" : ", " + o.reduce + " per " + (binned ? "bin" : "cell")) +
                 (s.left_out() ? ", " + std::to_string(s.left_out()) + " left out" : "");
  if (summary) *summary = s;
  return map;
}

}  // namespace stribeck::workloads
