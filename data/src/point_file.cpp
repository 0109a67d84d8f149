#include "stribeck/data/point_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/sweep_file.hpp"

namespace stribeck::data {
namespace {

std::string listed(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

struct PointFile::Impl {
  std::string path, kind;
  h5::File file;
  h5::Group group;  // the results group (sweep, ensemble); unused for sweeps of the root layout
  std::vector<std::string> dims, dim_units, metrics, metric_units;
  std::vector<h5::Dataset> dim_cols, metric_cols;  // one column per dimension (not in ensembles of version 1)
  h5::Dataset points, status;                      // ensemble format_version 1: the points table
  std::uint64_t rows = 0;  // the points every column holds (the checkpointed ones in an unfinished file)
  h5::Dataset fit_status;  // batch fit: a point is ok when its fit converged too
};

PointFile::PointFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  Impl& f = *impl_;
  f.path = path;
  check_input_path(path);
  f.file = h5::open_file(path);
  const hid_t root = f.file.id();
  // How many rows every column must hold: a finished file's point count
  // exactly; an unfinished one's checkpointed rows at least (rows appended
  // after the last checkpoint are not read).
  bool complete = true;
  std::uint64_t expected = 0;
  auto column = [&](h5::Dataset ds, const std::string& name, std::uint64_t width) {
    const auto info = h5::dataset_info(ds, path + ": " + name);
    const bool shape_ok = width == 0 ? info.dims.size() == 1 : info.dims.size() == 2 && info.dims[1] == width;
    if (!shape_ok)
      throw InputError(path + ": dataset '" + name + "' is not " +
                       (width == 0 ? std::string("a column of one value per point")
                                   : "a table of " + std::to_string(width) + " columns (one per name)"));
    if (complete ? info.dims[0] != expected : info.dims[0] < expected)
      throw InputError(path + ": dataset '" + name + "' holds " + std::to_string(info.dims[0]) +
                       " rows, but the file " + (complete ? "has " : "checkpointed ") + std::to_string(expected) +
                       " points");
    return ds;
  };
  auto units_of = [&](const h5::Dataset& ds, const std::string& at) {
    // `units` (CF); sweep files from before format_version 2 say `unit`.
    const char* ua = h5::has_attribute(ds.id(), "units") ? "units" : "unit";
    return h5::has_attribute(ds.id(), ua) ? h5::read_string_attribute(ds.id(), ua, at) : std::string();
  };
  if (h5::has_child(root, kSweepGroup)) {
    // format_version 3: the sweep's results group (sweep_file.hpp).
    f.kind = "sweep";
    f.group = h5::open_group(root, kSweepGroup, path);
    const hid_t g = f.group.id();
    const std::string at = path + ": sweep";
    for (const char* a : {"parameters", "metrics", "count", "top_k_only"})
      if (!h5::has_attribute(g, a)) throw InputError(at + ": no attribute '" + a + "' (not a stribeck sweep)");
    if (h5::read_int_attribute(g, "top_k_only", at) != 0)
      throw InputError(path + ": holds only the top-K table of its sweep (top_k_only), no points to read");
    complete = !h5::has_attribute(g, "checkpoint_rows");
    expected = h5::read_uint_attribute(g, complete ? "count" : "checkpoint_rows", at);
    f.dims = split_names(h5::read_string_attribute(g, "parameters", at), ',');
    if (h5::has_attribute(g, "parameter_units"))
      f.dim_units = split_names(h5::read_string_attribute(g, "parameter_units", at), ',');
    f.dim_units.resize(f.dims.size());
    for (const auto& d : f.dims) {
      if (!h5::has_child(g, d)) throw InputError(at + ": no dataset '" + d + "' for parameter " + d);
      f.dim_cols.push_back(column(h5::open_dataset(g, d, at), "sweep/" + d, 0));
    }
    for (const auto& m : split_names(h5::read_string_attribute(g, "metrics", at), ',')) {
      if (!h5::has_child(g, m)) throw InputError(at + ": no dataset '" + m + "' for metric " + m);
      f.metrics.push_back(m);
      f.metric_cols.push_back(column(h5::open_dataset(g, m, at), "sweep/" + m, 0));
      f.metric_units.push_back(units_of(f.metric_cols.back(), at));
    }
    if (!h5::has_child(g, "status")) throw InputError(at + ": no 'status' column (not a stribeck sweep)");
    f.status = column(h5::open_dataset(g, "status", at), "sweep/status", 0);
  } else if (h5::has_attribute(root, "format") && h5::read_string_attribute(root, "format", path) == "stribeck-sweep") {
    // format_version 1 and 2: the root layout.
    f.kind = "sweep";
    if (!h5::has_child(root, "parameters"))
      throw InputError(path + ": holds only the top-K table of its sweep (top_k_only), no points to read");
    complete = h5::has_attribute(root, "complete") && h5::read_int_attribute(root, "complete", path) == 1;
    expected = h5::read_uint_attribute(root, complete ? "count" : "completed", path);
    // 1-D string arrays (format_version 2), or newline-joined text (1).
    f.dims = h5::read_string_list_attribute(root, "parameter_names", '\n', path);
    f.dim_units = h5::read_string_list_attribute(root, "parameter_units", '\n', path);
    f.dim_units.resize(f.dims.size());
    const h5::Group params = h5::open_group(root, "parameters", path);
    const auto param_kids = h5::children(params.id(), path + ": /parameters");
    for (const auto& c : param_kids) h5::check_child(c, path + ": parameters/" + c.name);
    if (param_kids.size() != f.dims.size())
      throw InputError(path + ": /parameters holds " + std::to_string(param_kids.size()) +
                       " datasets, but parameter_names lists " + std::to_string(f.dims.size()));
    for (const auto& d : f.dims)
      f.dim_cols.push_back(column(h5::open_dataset(params.id(), d, path), "parameters/" + d, 0));
    const h5::Group metrics = h5::open_group(root, "metrics", path);
    for (const auto& c : h5::children(metrics.id(), path + ": /metrics")) {
      h5::check_child(c, path + ": metrics/" + c.name);
      if (c.kind != h5::Kind::kDataset) continue;
      f.metrics.push_back(c.name);
      f.metric_cols.push_back(column(h5::open_dataset(metrics.id(), c.name, path), "metrics/" + c.name, 0));
      f.metric_units.push_back(units_of(f.metric_cols.back(), path));
    }
    f.status = column(h5::open_dataset(root, "status", path), "status", 0);
  } else if (h5::has_child(root, "ensemble")) {
    f.kind = "ensemble";
    f.group = h5::open_group(root, "ensemble", path);
    const hid_t g = f.group.id();
    const std::string at = path + ": ensemble";
    for (const char* a : {"names", "count"})
      if (!h5::has_attribute(g, a)) throw InputError(at + ": no attribute '" + a + "' (not a stribeck ensemble)");
    complete = !h5::has_attribute(g, "checkpoint_rows");
    if (complete) {
      const std::string count = h5::read_string_attribute(g, "count", at);
      char* end = nullptr;
      expected = std::strtoull(count.c_str(), &end, 10);
      if (count.empty() || *end) throw InputError(at + ": attribute 'count' is not a point count: '" + count + "'");
    } else {
      expected = h5::read_uint_attribute(g, "checkpoint_rows", at);
    }
    f.dims = split_names(h5::read_string_attribute(g, "names", at), ',');
    const std::int64_t version =
        h5::has_attribute(g, "format_version") ? h5::read_int_attribute(g, "format_version", at) : 1;
    if (version > kEnsembleFormatVersion)
      throw InputError(path + ": ensemble file format_version " + std::to_string(version) +
                       " is newer than this stribeck (" + std::to_string(kEnsembleFormatVersion) +
                       "); use a newer stribeck");
    if (version >= 2) {
      // One column per coordinate with its units, as a sweep's parameters.
      for (const auto& d : f.dims) {
        if (!h5::has_child(g, d)) throw InputError(at + ": no dataset '" + d + "' for coordinate " + d);
        f.dim_cols.push_back(column(h5::open_dataset(g, d, at), "ensemble/" + d, 0));
        f.dim_units.push_back(units_of(f.dim_cols.back(), at));
      }
    } else {
      // Version 1: the coordinates' units are the `coordinate` scale's units_of_each.
      f.dim_units.assign(f.dims.size(), "");
      if (h5::has_child(g, "coordinate")) {
        const h5::Dataset sc = h5::open_dataset(g, "coordinate", at);
        if (h5::has_attribute(sc.id(), "units_of_each")) {
          std::vector<std::string> u = h5::read_string_list_attribute(sc.id(), "units_of_each", ',', at);
          if (u.size() == f.dims.size()) f.dim_units = std::move(u);
        }
      }
      f.points = column(h5::open_dataset(g, "points", at), "ensemble/points", f.dims.size());
    }
    for (const auto& c : h5::children(g, at)) {
      h5::check_child(c, at + ": " + c.name);
      if (c.kind != h5::Kind::kDataset || h5::is_dimension_scale(g, c.name, at)) continue;
      if (version >= 2 ? std::count(f.dims.begin(), f.dims.end(), c.name) > 0 : c.name == "points") continue;
      f.metrics.push_back(c.name);
      f.metric_cols.push_back(column(h5::open_dataset(g, c.name, at), "ensemble/" + c.name, 0));
      const h5::Dataset ds = h5::open_dataset(g, c.name, at);
      f.metric_units.push_back(h5::has_attribute(ds.id(), "units") ? h5::read_string_attribute(ds.id(), "units", at)
                                                                   : "");
    }
    if (std::find(f.metrics.begin(), f.metrics.end(), "status") == f.metrics.end())
      throw InputError(at + ": no 'status' column (not a stribeck ensemble)");
    f.status = h5::open_dataset(g, "status", at);
  } else if (h5::has_child(root, "batch_fit")) {
    // identify --batch: a fit per experiment; its coordinates are the
    // experiments' operating points (attribute `coordinate_names`), those that
    // some fit has (a log without pressures has none).
    f.kind = "batch-fit";
    f.group = h5::open_group(root, "batch_fit", path);
    const hid_t g = f.group.id();
    const std::string at = path + ": batch_fit";
    if (!h5::has_attribute(g, "count")) throw InputError(at + ": no attribute 'count' (not a stribeck batch fit)");
    complete = !h5::has_attribute(g, "checkpoint_rows");
    expected = h5::read_uint_attribute(g, complete ? "count" : "checkpoint_rows", at);
    if (!h5::has_attribute(g, "coordinate_names"))
      throw InputError(path +
                       ": a batch fit of an older stribeck (no operating points stored); fit it again to map it");
    const std::vector<std::string> coords = split_names(h5::read_string_attribute(g, "coordinate_names", at), ',');
    std::vector<double> v;
    for (const auto& d : coords) {
      if (!h5::has_child(g, d)) throw InputError(at + ": no dataset '" + d + "' for coordinate " + d);
      h5::Dataset ds = column(h5::open_dataset(g, d, at), "batch_fit/" + d, 0);
      bool finite = false;
      for (std::uint64_t first = 0, block = 1 << 20; first < expected && !finite; first += block) {
        v.resize(std::min(block, expected - first));
        h5::read_rows(ds, H5T_NATIVE_DOUBLE, first, v.size(), v.data(), at + ": " + d);
        finite = std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
      }
      if (!finite) continue;
      f.dims.push_back(d);
      f.dim_units.push_back(units_of(ds, at));
      f.dim_cols.push_back(std::move(ds));
    }
    if (f.dims.empty())
      throw InputError(path +
                       ": a batch fit whose experiments have no pressure_a, pressure_b or normal_force channel: a map "
                       "needs fits that differ in two of them (stribeck report draws each parameter over the fits)");
    for (const auto& c : h5::children(g, at)) {
      h5::check_child(c, at + ": " + c.name);
      if (c.kind != h5::Kind::kDataset || h5::is_dimension_scale(g, c.name, at) ||
          std::count(coords.begin(), coords.end(), c.name) > 0)
        continue;
      h5::Dataset ds = h5::open_dataset(g, c.name, at);
      if (h5::dataset_info(ds, at + ": " + c.name).type_class == H5T_STRING) continue;  // the experiment names
      f.metrics.push_back(c.name);
      f.metric_units.push_back(units_of(ds, at));
      f.metric_cols.push_back(column(std::move(ds), "batch_fit/" + c.name, 0));
    }
    for (const char* c : {"status", "fit_status"})
      if (std::find(f.metrics.begin(), f.metrics.end(), c) == f.metrics.end())
        throw InputError(at + ": no '" + c + "' column (not a stribeck batch fit)");
    f.status = h5::open_dataset(g, "status", at);
    f.fit_status = h5::open_dataset(g, "fit_status", at);
  } else {
    throw InputError(path +
                     ": neither a sweep file (stribeck sweep), an ensemble (stribeck simulate with [ensemble]) "
                     "nor a batch fit (stribeck identify --batch)");
  }
  if (f.dims.empty()) throw InputError(path + ": no quantity varies across its points");
  for (size_t i = 0; i < f.dims.size(); ++i)
    if (std::count(f.dims.begin(), f.dims.end(), f.dims[i]) > 1)
      throw InputError(path + ": the coordinate name '" + f.dims[i] + "' appears twice");
  f.rows = expected;
}

PointFile::~PointFile() = default;

const std::string& PointFile::path() const { return impl_->path; }
const std::string& PointFile::kind() const { return impl_->kind; }
const std::vector<std::string>& PointFile::dimensions() const { return impl_->dims; }
const std::vector<std::string>& PointFile::dimension_units() const { return impl_->dim_units; }
const std::vector<std::string>& PointFile::metrics() const { return impl_->metrics; }
std::uint64_t PointFile::rows() const { return impl_->rows; }

std::string PointFile::metric_unit(const std::string& metric) const {
  return impl_->metric_units[static_cast<size_t>(metric_index(metric))];
}

int PointFile::dimension_index(const std::string& name) const {
  const auto& d = impl_->dims;
  const auto it = std::find(d.begin(), d.end(), name);
  if (it == d.end())
    throw InputError(impl_->path + ": no varying quantity '" + name + "' (it varies " + listed(d) + ")");
  return static_cast<int>(it - d.begin());
}

int PointFile::metric_index(const std::string& name) const {
  const auto& m = impl_->metrics;
  const auto it = std::find(m.begin(), m.end(), name);
  if (it == m.end()) throw InputError(impl_->path + ": no metric '" + name + "' (it has " + listed(m) + ")");
  return static_cast<int>(it - m.begin());
}

void PointFile::read_dimension(int d, std::uint64_t first, std::uint64_t n, std::vector<double>& out) const {
  const Impl& f = *impl_;
  out.resize(n);
  if (!f.dim_cols.empty()) {
    h5::read_rows(f.dim_cols[d], H5T_NATIVE_DOUBLE, first, n, out.data(),
                  f.path + (f.kind == "sweep" ? ": parameter " : ": coordinate ") + f.dims[d]);
    return;
  }
  const size_t w = f.dims.size();
  std::vector<double> table(n * w);
  h5::read_rows(f.points, H5T_NATIVE_DOUBLE, first, n, table.data(), f.path + ": ensemble/points");
  for (std::uint64_t i = 0; i < n; ++i) out[i] = table[i * w + static_cast<size_t>(d)];
}

void PointFile::read_metric(int m, std::uint64_t first, std::uint64_t n, std::vector<double>& out) const {
  out.resize(n);
  h5::read_rows(impl_->metric_cols[m], H5T_NATIVE_DOUBLE, first, n, out.data(), impl_->path + ": " + impl_->metrics[m]);
}

void PointFile::read_ok(std::uint64_t first, std::uint64_t n, std::vector<std::uint8_t>& out) const {
  std::vector<double> s(n);
  h5::read_rows(impl_->status, H5T_NATIVE_DOUBLE, first, n, s.data(), impl_->path + ": status");
  out.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) out[i] = s[i] == 0;
  if (!impl_->fit_status.valid()) return;
  h5::read_rows(impl_->fit_status, H5T_NATIVE_DOUBLE, first, n, s.data(), impl_->path + ": fit_status");
  for (std::uint64_t i = 0; i < n; ++i) out[i] = out[i] && s[i] == 0;
}

}  // namespace stribeck::data
