#include "stribeck/data/point_file.hpp"

#include <algorithm>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t b = 0;
  for (;;) {
    const auto e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

std::string listed(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

hsize_t row_count(const h5::Dataset& ds, const std::string& where) {
  const auto info = h5::dataset_info(ds, where);
  return info.dims.empty() ? 0 : info.dims[0];
}

}  // namespace

struct PointFile::Impl {
  std::string path, kind;
  h5::File file;
  h5::Group group;  // the ensemble group; unused for sweeps (their columns hang off the root)
  std::vector<std::string> dims, dim_units, metrics, metric_units;
  std::vector<h5::Dataset> dim_cols, metric_cols;  // sweep: one column per dimension
  h5::Dataset points, status;                      // ensemble: the points table; sweep: /status
  std::uint64_t rows = 0;
};

PointFile::PointFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  Impl& f = *impl_;
  f.path = path;
  f.file = h5::open_file(path);
  const hid_t root = f.file.id();
  auto count_rows = [&](const h5::Dataset& ds, const std::string& name) {
    f.rows = std::min<std::uint64_t>(f.rows, row_count(ds, path + ": " + name));
  };
  f.rows = UINT64_MAX;
  if (h5::has_attribute(root, "format") && h5::read_string_attribute(root, "format", path) == "stribeck-sweep") {
    f.kind = "sweep";
    if (!h5::has_child(root, "parameters"))
      throw InputError(path + ": holds only the top-K table of its sweep (top_k_only), no points to read");
    f.dims = split(h5::read_string_attribute(root, "parameter_names", path), '\n');
    f.dim_units = split(h5::read_string_attribute(root, "parameter_units", path), '\n');
    f.dim_units.resize(f.dims.size());
    for (const auto& d : f.dims) {
      f.dim_cols.push_back(h5::open_dataset(root, "parameters/" + d, path));
      count_rows(f.dim_cols.back(), "parameters/" + d);
    }
    const h5::Group metrics = h5::open_group(root, "metrics", path);
    for (const auto& c : h5::children(metrics.id())) {
      if (c.kind != h5::Kind::kDataset) continue;
      f.metrics.push_back(c.name);
      f.metric_cols.push_back(h5::open_dataset(metrics.id(), c.name, path + ": metrics"));
      const hid_t id = f.metric_cols.back().id();
      f.metric_units.push_back(h5::has_attribute(id, "unit") ? h5::read_string_attribute(id, "unit", path) : "");
      count_rows(f.metric_cols.back(), "metrics/" + c.name);
    }
    f.status = h5::open_dataset(root, "status", path);
    count_rows(f.status, "status");
  } else if (h5::has_child(root, "ensemble")) {
    f.kind = "ensemble";
    f.group = h5::open_group(root, "ensemble", path);
    const hid_t g = f.group.id();
    const std::string at = path + ": ensemble";
    if (!h5::has_attribute(g, "names")) throw InputError(at + ": no attribute 'names' (not a stribeck ensemble)");
    f.dims = split(h5::read_string_attribute(g, "names", at), ',');
    f.dim_units.assign(f.dims.size(), "");
    f.points = h5::open_dataset(g, "points", at);
    const auto info = h5::dataset_info(f.points, at + "/points");
    if (info.dims.size() != 2 || info.dims[1] != f.dims.size())
      throw InputError(at + "/points: expected a table of " + std::to_string(f.dims.size()) + " columns (one per name)");
    count_rows(f.points, "ensemble/points");
    for (const auto& c : h5::children(g)) {
      if (c.kind != h5::Kind::kDataset || c.name == "points") continue;
      f.metrics.push_back(c.name);
      f.metric_cols.push_back(h5::open_dataset(g, c.name, at));
      f.metric_units.push_back("");
      count_rows(f.metric_cols.back(), "ensemble/" + c.name);
    }
    const auto st = std::find(f.metrics.begin(), f.metrics.end(), "status");
    if (st == f.metrics.end()) throw InputError(at + ": no 'status' column (not a stribeck ensemble)");
    f.status = h5::open_dataset(g, "status", at);
  } else {
    throw InputError(path + ": neither a sweep file (stribeck sweep) nor an ensemble (stribeck simulate with [ensemble])");
  }
  if (f.dims.empty()) throw InputError(path + ": no quantity varies across its points");
  if (f.rows == UINT64_MAX) f.rows = 0;
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
  if (f.kind == "sweep") {
    h5::read_rows(f.dim_cols[d], H5T_NATIVE_DOUBLE, first, n, out.data(), f.path + ": parameters/" + f.dims[d]);
    return;
  }
  const size_t w = f.dims.size();
  std::vector<double> table(n * w);
  h5::read_rows(f.points, H5T_NATIVE_DOUBLE, first, n, table.data(), f.path + ": ensemble/points");
  for (std::uint64_t i = 0; i < n; ++i) out[i] = table[i * w + static_cast<size_t>(d)];
}

void PointFile::read_metric(int m, std::uint64_t first, std::uint64_t n, std::vector<double>& out) const {
  out.resize(n);
  h5::read_rows(impl_->metric_cols[m], H5T_NATIVE_DOUBLE, first, n, out.data(),
                impl_->path + ": " + impl_->metrics[m]);
}

void PointFile::read_ok(std::uint64_t first, std::uint64_t n, std::vector<std::uint8_t>& out) const {
  std::vector<double> s(n);
  h5::read_rows(impl_->status, H5T_NATIVE_DOUBLE, first, n, s.data(), impl_->path + ": status");
  out.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) out[i] = s[i] == 0;
}

}  // namespace stribeck
