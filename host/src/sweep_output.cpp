// HDF5 output of a sweep: streamed columns, checkpoints, resume, read-back
// and merge. Layout in docs/sweep.md.
#include "stribeck/host/sweep_output.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "stribeck/data/error.hpp"
#include "stribeck/host/version.hpp"

namespace stribeck {
namespace {

constexpr hsize_t kChunkRows = 65536;

// Owning hid_t with the right close function.
struct Hid {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Hid() = default;
  Hid(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Hid(Hid&& o) noexcept : id(o.id), close(o.close) { o.id = -1; }
  Hid& operator=(Hid&& o) noexcept {
    reset();
    id = o.id;
    close = o.close;
    o.id = -1;
    return *this;
  }
  ~Hid() { reset(); }
  void reset() {
    if (id >= 0 && close) close(id);
    id = -1;
  }
  operator hid_t() const { return id; }
};

[[noreturn]] void h5fail(const std::string& path, const std::string& what) {
  throw InputError(path + ": HDF5 error while " + what);
}

hid_t check(hid_t id, const std::string& path, const std::string& what) {
  if (id < 0) h5fail(path, what);
  return id;
}

void silence_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

void attr_string(hid_t loc, const char* name, const std::string& value, const std::string& path) {
  if (H5Aexists(loc, name) > 0) H5Adelete(loc, name);
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, value.empty() ? 1 : value.size());
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  H5Tset_cset(type, H5T_CSET_UTF8);
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid a(check(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), path, std::string("writing ") + name),
        H5Aclose);
  if (H5Awrite(a, type, value.empty() ? "" : value.data()) < 0) h5fail(path, std::string("writing ") + name);
}

template <class V>
void attr_number(hid_t loc, const char* name, V value, hid_t type, const std::string& path) {
  if (H5Aexists(loc, name) > 0) H5Adelete(loc, name);
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid a(check(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), path, std::string("writing ") + name),
        H5Aclose);
  if (H5Awrite(a, type, &value) < 0) h5fail(path, std::string("writing ") + name);
}
void attr_u64(hid_t loc, const char* name, std::uint64_t v, const std::string& p) {
  attr_number(loc, name, v, H5T_NATIVE_UINT64, p);
}
void attr_i64(hid_t loc, const char* name, std::int64_t v, const std::string& p) {
  attr_number(loc, name, v, H5T_NATIVE_INT64, p);
}

std::string read_attr_string(hid_t loc, const char* name, const std::string& path) {
  if (H5Aexists(loc, name) <= 0) throw InputError(path + ": not a stribeck sweep file (no attribute '" + std::string(name) + "')");
  Hid a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  Hid ftype(H5Aget_type(a), H5Tclose);
  if (H5Tget_class(ftype) != H5T_STRING || H5Tis_variable_str(ftype) > 0)
    throw InputError(path + ": attribute '" + std::string(name) + "' is not a fixed-length string");
  const size_t n = H5Tget_size(ftype);
  std::string s(n, '\0');
  Hid mtype(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mtype, n);
  H5Tset_strpad(mtype, H5T_STR_NULLPAD);
  H5Tset_cset(mtype, H5Tget_cset(ftype));
  if (H5Aread(a, mtype, s.data()) < 0) h5fail(path, std::string("reading ") + name);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <class V>
V read_attr_number(hid_t loc, const char* name, hid_t type, const std::string& path) {
  if (H5Aexists(loc, name) <= 0) throw InputError(path + ": not a stribeck sweep file (no attribute '" + std::string(name) + "')");
  Hid a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  V v{};
  if (H5Aread(a, type, &v) < 0) h5fail(path, std::string("reading ") + name);
  return v;
}
std::uint64_t read_u64(hid_t loc, const char* name, const std::string& p) {
  return read_attr_number<std::uint64_t>(loc, name, H5T_NATIVE_UINT64, p);
}
std::int64_t read_i64(hid_t loc, const char* name, const std::string& p) {
  return read_attr_number<std::int64_t>(loc, name, H5T_NATIVE_INT64, p);
}

Hid group(hid_t loc, const std::string& name, const std::string& path, bool create) {
  if (!create || H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0)
    return Hid(check(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), path, "opening group " + name), H5Gclose);
  return Hid(check(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), path, "creating group " + name),
             H5Gclose);
}

// Extendible 1-D dataset, chunked (parameters, metrics, status).
Hid create_column(hid_t loc, const std::string& name, hid_t type, const std::string& path) {
  const hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = kChunkRows;
  Hid space(H5Screate_simple(1, &dims, &maxdims), H5Sclose);
  Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_chunk(dcpl, 1, &chunk);
  return Hid(check(H5Dcreate2(loc, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), path,
                   "creating " + name),
             H5Dclose);
}

void append_column(hid_t dset, hid_t type, const void* data, hsize_t n, const std::string& path) {
  if (n == 0) return;
  Hid fspace0(H5Dget_space(dset), H5Sclose);
  hsize_t cur = 0;
  H5Sget_simple_extent_dims(fspace0, &cur, nullptr);
  const hsize_t total = cur + n;
  if (H5Dset_extent(dset, &total) < 0) h5fail(path, "extending a column");
  Hid fspace(H5Dget_space(dset), H5Sclose);
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &cur, nullptr, &n, nullptr);
  Hid mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
  if (H5Dwrite(dset, type, mspace, fspace, H5P_DEFAULT, data) < 0) h5fail(path, "writing a column");
}

void write_array(hid_t loc, const std::string& name, hid_t type, const void* data, hsize_t n, const std::string& path) {
  if (H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(loc, name.c_str(), H5P_DEFAULT);
  Hid space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hid d(check(H5Dcreate2(loc, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), path,
              "creating " + name),
        H5Dclose);
  if (n && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) h5fail(path, "writing " + name);
}

template <class V>
std::vector<V> read_array(hid_t loc, const std::string& name, hid_t type, const std::string& path) {
  Hid d(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), path, "opening " + name), H5Dclose);
  Hid s(H5Dget_space(d), H5Sclose);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(s, &n, nullptr);
  std::vector<V> v(n);
  if (n && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) h5fail(path, "reading " + name);
  return v;
}

void truncate_column(hid_t loc, const std::string& name, hsize_t n, const std::string& path) {
  Hid d(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), path, "opening " + name), H5Dclose);
  if (H5Dset_extent(d, &n) < 0) h5fail(path, "truncating " + name);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "\n") + x;
  return s;
}
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t b = 0;
  for (;;) {
    auto e = s.find('\n', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

const char* design_name(sweep::Design d) {
  switch (d) {
    case sweep::Design::kGrid: return "grid";
    case sweep::Design::kRandom: return "random";
    case sweep::Design::kLatinHypercube: return "lhs";
    case sweep::Design::kSobol: return "sobol";
  }
  return "?";
}

std::string now_utc() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

SweepMeta make_sweep_meta(const SweepPlan& plan, const SweepConfig& config, const std::string& device,
                          Precision precision) {
  SweepMeta m;
  m.model = plan.model->id;
  m.design = design_name(plan.space.design);
  m.precision = precision == Precision::kFp32 ? "fp32" : "fp64";
  m.device = device;
  m.config = config.text;
  m.created = now_utc();
  m.points = plan.space.points;
  m.first = plan.first;
  m.count = plan.count;
  m.shard_index = plan.shard_index;
  m.shard_count = plan.shard_count;
  for (const auto& p : plan.model->params) {
    m.param_names.push_back(p.name);
    m.param_units.push_back(p.unit);
  }
  m.metrics = plan.metrics;
  for (const auto& t : plan.traces) m.experiments.push_back(t.name);
  m.objective = plan.objective;
  m.maximize = plan.maximize;
  m.top_k = plan.top_k;
  m.per_experiment = plan.per_experiment;
  m.top_k_only = config.keep_top_k_only;
  return m;
}

struct SweepWriter::Impl {
  std::string final_path, path;
  SweepMeta meta;
  Hid file;
  std::vector<Hid> param_cols, metric_cols;
  std::vector<std::vector<Hid>> exp_cols;  // [experiment][kept metric]
  Hid status_col;

  void open_columns(bool create) {
    Hid params = group(file, "parameters", path, create);
    Hid metrics = group(file, "metrics", path, create);
    for (size_t d = 0; d < meta.param_names.size(); ++d) {
      const std::string& n = meta.param_names[d];
      if (create) {
        param_cols.push_back(create_column(params, n, H5T_NATIVE_DOUBLE, path));
        attr_string(param_cols.back(), "unit", meta.param_units[d], path);
      } else {
        param_cols.emplace_back(check(H5Dopen2(params, n.c_str(), H5P_DEFAULT), path, "opening " + n), H5Dclose);
      }
    }
    auto metric_col = [&](hid_t loc, int m) {
      const auto& mi = sweep::kMetricInfo[m];
      if (!create) return Hid(check(H5Dopen2(loc, mi.name, H5P_DEFAULT), path, "opening metric"), H5Dclose);
      Hid c = create_column(loc, mi.name, H5T_NATIVE_DOUBLE, path);
      attr_string(c, "unit", mi.unit, path);
      attr_string(c, "description", mi.description, path);
      return c;
    };
    for (int m : meta.metrics) metric_cols.push_back(metric_col(metrics, m));
    if (create) {
      status_col = create_column(file, "status", H5T_NATIVE_UINT8, path);
      attr_string(status_col, "meaning", "0 ok, 1 invalid parameters (not computed), 2 non-finite force", path);
    } else {
      status_col = Hid(check(H5Dopen2(file, "status", H5P_DEFAULT), path, "opening status"), H5Dclose);
    }
    if (meta.per_experiment) {
      Hid exps = group(file, "experiments", path, create);
      for (const auto& e : meta.experiments) {
        Hid g = group(exps, e, path, create);
        Hid gm = group(g, "metrics", path, create);
        exp_cols.emplace_back();
        for (int m : meta.metrics) exp_cols.back().push_back(metric_col(gm, m));
      }
    }
  }

  void write_meta() {
    attr_string(file, "format", "stribeck-sweep", path);
    attr_i64(file, "format_version", 1, path);
    attr_string(file, "toolkit_version", version(), path);
    attr_string(file, "model", meta.model, path);
    attr_string(file, "design", meta.design, path);
    attr_string(file, "precision", meta.precision, path);
    attr_string(file, "device", meta.device, path);
    attr_string(file, "config", meta.config, path);
    attr_string(file, "date", meta.created, path);
    attr_u64(file, "points", meta.points, path);
    attr_u64(file, "first", meta.first, path);
    attr_u64(file, "count", meta.count, path);
    attr_i64(file, "shard_index", meta.shard_index, path);
    attr_i64(file, "shard_count", meta.shard_count, path);
    attr_string(file, "parameter_names", join(meta.param_names), path);
    attr_string(file, "parameter_units", join(meta.param_units), path);
    std::vector<std::string> mn;
    for (int m : meta.metrics) mn.push_back(sweep::kMetricInfo[m].name);
    attr_string(file, "metric_names", join(mn), path);
    attr_string(file, "experiments", join(meta.experiments), path);
    attr_string(file, "objective", sweep::kMetricInfo[meta.objective].name, path);
    attr_i64(file, "maximize", meta.maximize, path);
    attr_i64(file, "top_k", meta.top_k, path);
    attr_i64(file, "per_experiment", meta.per_experiment, path);
    attr_i64(file, "top_k_only", meta.top_k_only, path);
  }

  void write_progress(const SweepProgress& p) {
    attr_u64(file, "completed", p.completed, path);
    attr_u64(file, "invalid", p.invalid, path);
    attr_u64(file, "nonfinite", p.nonfinite, path);
    Hid top = group(file, "top_k", path, true);
    std::vector<std::uint64_t> idx;
    std::vector<double> obj;
    for (const auto& e : p.top) idx.push_back(e.index), obj.push_back(e.objective);
    write_array(top, "index", H5T_NATIVE_UINT64, idx.data(), idx.size(), path);
    write_array(top, "objective", H5T_NATIVE_DOUBLE, obj.data(), obj.size(), path);
    Hid tp = group(top, "parameters", path, true);
    for (size_t d = 0; d < meta.param_names.size(); ++d) {
      std::vector<double> v;
      for (const auto& e : p.top) v.push_back(e.params[d]);
      write_array(tp, meta.param_names[d], H5T_NATIVE_DOUBLE, v.data(), v.size(), path);
    }
    Hid tm = group(top, "metrics", path, true);
    for (int m = 0; m < sweep::kNumMetrics; ++m) {  // all metrics: the table is small
      std::vector<double> v;
      for (const auto& e : p.top) v.push_back(e.metrics[m]);
      write_array(tm, sweep::kMetricInfo[m].name, H5T_NATIVE_DOUBLE, v.data(), v.size(), path);
    }
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) h5fail(path, "flushing a checkpoint");
  }
};

SweepWriter::SweepWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SweepWriter::~SweepWriter() = default;

std::unique_ptr<SweepWriter> SweepWriter::create(const std::string& path, const SweepMeta& meta) {
  silence_hdf5();
  auto impl = std::make_unique<Impl>();
  impl->final_path = path;
  impl->path = path + ".partial";
  impl->meta = meta;
  impl->file = Hid(H5Fcreate(impl->path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (impl->file.id < 0) throw InputError(impl->path + ": cannot create the output file");
  impl->write_meta();
  if (!meta.top_k_only) impl->open_columns(true);
  impl->write_progress(SweepProgress{});
  return std::unique_ptr<SweepWriter>(new SweepWriter(std::move(impl)));
}

std::unique_ptr<SweepWriter> SweepWriter::resume(const std::string& path, const SweepMeta& meta,
                                                 SweepProgress& progress) {
  silence_hdf5();
  const std::string partial = path + ".partial";
  SweepFile f = read_sweep_file(partial);  // checks the format
  if (f.meta.config != meta.config || f.meta.first != meta.first || f.meta.count != meta.count ||
      f.meta.precision != meta.precision || f.meta.top_k_only != meta.top_k_only || f.meta.model != meta.model)
    throw InputError(partial + ": belongs to a different sweep (config, shard, precision or output options differ); "
                               "remove it or run without --resume");
  progress = f.progress;
  auto impl = std::make_unique<Impl>();
  impl->final_path = path;
  impl->path = partial;
  impl->meta = meta;
  impl->meta.created = f.meta.created;
  impl->file = Hid(H5Fopen(partial.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (impl->file.id < 0) throw InputError(partial + ": cannot reopen for --resume");
  if (!meta.top_k_only) {
    // Rows written after the last checkpoint are dropped and recomputed.
    const hsize_t n = progress.completed;
    for (const auto& name : meta.param_names) truncate_column(impl->file, "parameters/" + name, n, partial);
    for (int m : meta.metrics) truncate_column(impl->file, std::string("metrics/") + sweep::kMetricInfo[m].name, n, partial);
    truncate_column(impl->file, "status", n, partial);
    if (meta.per_experiment)
      for (const auto& e : meta.experiments)
        for (int m : meta.metrics)
          truncate_column(impl->file, "experiments/" + e + "/metrics/" + sweep::kMetricInfo[m].name, n, partial);
    impl->open_columns(false);
  }
  return std::unique_ptr<SweepWriter>(new SweepWriter(std::move(impl)));
}

void SweepWriter::append(const SweepChunk& c, int n_exp) {
  Impl& w = *impl_;
  if (w.meta.top_k_only) return;
  const int dims = static_cast<int>(w.meta.param_names.size());
  std::vector<double> col(c.count);
  for (int d = 0; d < dims; ++d) {
    for (std::uint64_t j = 0; j < c.count; ++j) col[j] = c.params[j * dims + d];
    append_column(w.param_cols[d], H5T_NATIVE_DOUBLE, col.data(), c.count, w.path);
  }
  for (size_t k = 0; k < w.meta.metrics.size(); ++k) {
    for (std::uint64_t j = 0; j < c.count; ++j) col[j] = c.metrics[j * sweep::kNumMetrics + w.meta.metrics[k]];
    append_column(w.metric_cols[k], H5T_NATIVE_DOUBLE, col.data(), c.count, w.path);
  }
  append_column(w.status_col, H5T_NATIVE_UINT8, c.status.data(), c.count, w.path);
  if (w.meta.per_experiment)
    for (int e = 0; e < n_exp; ++e)
      for (size_t k = 0; k < w.meta.metrics.size(); ++k) {
        for (std::uint64_t j = 0; j < c.count; ++j)
          col[j] = c.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + w.meta.metrics[k]];
        append_column(w.exp_cols[e][k], H5T_NATIVE_DOUBLE, col.data(), c.count, w.path);
      }
}

void SweepWriter::checkpoint(const SweepProgress& p) { impl_->write_progress(p); }

void SweepWriter::add_trajectory(std::uint64_t index, const std::vector<double>& params,
                                 const std::vector<std::string>& experiments,
                                 const std::vector<std::vector<double>>& forces) {
  Impl& w = *impl_;
  Hid tr = group(w.file, "trajectories", w.path, true);
  Hid g = group(tr, std::to_string(index), w.path, true);
  Hid gp = group(g, "parameters", w.path, true);
  for (size_t d = 0; d < params.size(); ++d) attr_number(gp, w.meta.param_names[d].c_str(), params[d], H5T_NATIVE_DOUBLE, w.path);
  for (size_t e = 0; e < experiments.size(); ++e) {
    Hid ge = group(g, experiments[e], w.path, true);
    write_array(ge, "force", H5T_NATIVE_DOUBLE, forces[e].data(), forces[e].size(), w.path);
  }
}

void SweepWriter::copy_trajectories_from(const std::string& src_path) {
  Impl& w = *impl_;
  Hid src(H5Fopen(src_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (src.id < 0) throw InputError(src_path + ": cannot open");
  if (H5Lexists(src, "trajectories", H5P_DEFAULT) <= 0) return;
  Hid from = group(src, "trajectories", src_path, false);
  Hid to = group(w.file, "trajectories", w.path, true);
  H5G_info_t info;
  H5Gget_info(from, &info);
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[64];
    if (H5Lget_name_by_idx(from, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT) < 0)
      h5fail(src_path, "listing trajectories");
    if (H5Lexists(to, name, H5P_DEFAULT) > 0) continue;
    if (H5Ocopy(from, name, to, name, H5P_DEFAULT, H5P_DEFAULT) < 0) h5fail(w.path, "copying trajectories");
  }
}

void SweepWriter::finish(const SweepProgress& p, double seconds) {
  Impl& w = *impl_;
  w.write_progress(p);
  attr_number(w.file, "seconds", seconds, H5T_NATIVE_DOUBLE, w.path);
  attr_i64(w.file, "complete", 1, w.path);
  w.param_cols.clear();
  w.metric_cols.clear();
  w.exp_cols.clear();
  w.status_col.reset();
  w.file.reset();
  if (std::rename(w.path.c_str(), w.final_path.c_str()) != 0)
    throw InputError(w.final_path + ": cannot move the finished sweep into place");
}

SweepFile read_sweep_file(const std::string& path) {
  silence_hdf5();
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(path + ": not an HDF5 file");
  Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.id < 0) throw InputError(path + ": cannot open");
  if (H5Aexists(file, "format") <= 0 || read_attr_string(file, "format", path) != "stribeck-sweep")
    throw InputError(path + ": not a stribeck sweep file");
  SweepFile f;
  SweepMeta& m = f.meta;
  m.model = read_attr_string(file, "model", path);
  m.design = read_attr_string(file, "design", path);
  m.precision = read_attr_string(file, "precision", path);
  m.device = read_attr_string(file, "device", path);
  m.config = read_attr_string(file, "config", path);
  m.created = read_attr_string(file, "date", path);
  m.points = read_u64(file, "points", path);
  m.first = read_u64(file, "first", path);
  m.count = read_u64(file, "count", path);
  m.shard_index = static_cast<int>(read_i64(file, "shard_index", path));
  m.shard_count = static_cast<int>(read_i64(file, "shard_count", path));
  m.param_names = split(read_attr_string(file, "parameter_names", path));
  m.param_units = split(read_attr_string(file, "parameter_units", path));
  for (const auto& name : split(read_attr_string(file, "metric_names", path)))
    for (int k = 0; k < sweep::kNumMetrics; ++k)
      if (name == sweep::kMetricInfo[k].name) m.metrics.push_back(k);
  m.experiments = split(read_attr_string(file, "experiments", path));
  const std::string obj = read_attr_string(file, "objective", path);
  for (int k = 0; k < sweep::kNumMetrics; ++k)
    if (obj == sweep::kMetricInfo[k].name) m.objective = k;
  m.maximize = read_i64(file, "maximize", path) != 0;
  m.top_k = static_cast<int>(read_i64(file, "top_k", path));
  m.per_experiment = read_i64(file, "per_experiment", path) != 0;
  m.top_k_only = read_i64(file, "top_k_only", path) != 0;
  f.complete = H5Aexists(file, "complete") > 0 && read_i64(file, "complete", path) == 1;
  if (H5Aexists(file, "seconds") > 0) f.seconds = read_attr_number<double>(file, "seconds", H5T_NATIVE_DOUBLE, path);

  SweepProgress& p = f.progress;
  p.completed = read_u64(file, "completed", path);
  p.invalid = read_u64(file, "invalid", path);
  p.nonfinite = read_u64(file, "nonfinite", path);
  const auto idx = read_array<std::uint64_t>(file, "top_k/index", H5T_NATIVE_UINT64, path);
  const auto obj_v = read_array<double>(file, "top_k/objective", H5T_NATIVE_DOUBLE, path);
  p.top.resize(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    p.top[i].index = idx[i];
    p.top[i].objective = obj_v[i];
    p.top[i].params.resize(m.param_names.size());
    p.top[i].metrics.resize(sweep::kNumMetrics);
  }
  for (size_t d = 0; d < m.param_names.size(); ++d) {
    const auto v = read_array<double>(file, "top_k/parameters/" + m.param_names[d], H5T_NATIVE_DOUBLE, path);
    for (size_t i = 0; i < v.size() && i < p.top.size(); ++i) p.top[i].params[d] = v[i];
  }
  for (int k = 0; k < sweep::kNumMetrics; ++k) {
    const auto v = read_array<double>(file, std::string("top_k/metrics/") + sweep::kMetricInfo[k].name, H5T_NATIVE_DOUBLE, path);
    for (size_t i = 0; i < v.size() && i < p.top.size(); ++i) p.top[i].metrics[k] = v[i];
  }
  if (m.top_k_only) return f;

  SweepChunk& r = f.rows;
  const size_t dims = m.param_names.size(), n_exp = m.experiments.size();
  r.first = m.first;
  r.status = read_array<std::uint8_t>(file, "status", H5T_NATIVE_UINT8, path);
  r.count = r.status.size();
  r.params.assign(r.count * dims, NAN);
  r.metrics.assign(r.count * sweep::kNumMetrics, NAN);
  auto need = [&](const std::vector<double>& v, const std::string& what) {
    if (v.size() != r.count) throw InputError(path + ": " + what + " has " + std::to_string(v.size()) + " rows, status has " + std::to_string(r.count));
  };
  for (size_t d = 0; d < dims; ++d) {
    const auto v = read_array<double>(file, "parameters/" + m.param_names[d], H5T_NATIVE_DOUBLE, path);
    need(v, "parameters/" + m.param_names[d]);
    for (size_t j = 0; j < r.count; ++j) r.params[j * dims + d] = v[j];
  }
  for (int k : m.metrics) {
    const std::string name = std::string("metrics/") + sweep::kMetricInfo[k].name;
    const auto v = read_array<double>(file, name, H5T_NATIVE_DOUBLE, path);
    need(v, name);
    for (size_t j = 0; j < r.count; ++j) r.metrics[j * sweep::kNumMetrics + k] = v[j];
  }
  if (m.per_experiment) {
    r.exp_metrics.assign(r.count * n_exp * sweep::kNumMetrics, NAN);
    for (size_t e = 0; e < n_exp; ++e)
      for (int k : m.metrics) {
        const std::string name = "experiments/" + m.experiments[e] + "/metrics/" + sweep::kMetricInfo[k].name;
        const auto v = read_array<double>(file, name, H5T_NATIVE_DOUBLE, path);
        need(v, name);
        for (size_t j = 0; j < r.count; ++j) r.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + k] = v[j];
      }
  }
  return f;
}

void merge_sweep_files(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.empty()) throw InputError("merge: no input files");
  std::vector<SweepFile> files;
  for (const auto& in : inputs) {
    files.push_back(read_sweep_file(in));
    if (!files.back().complete) throw InputError(in + ": the shard is not complete (resume it first)");
  }
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return files[a].meta.first < files[b].meta.first; });
  const SweepMeta& m0 = files[order[0]].meta;
  std::uint64_t next = 0;
  for (size_t i : order) {
    const SweepMeta& m = files[i].meta;
    if (m.config != m0.config || m.precision != m0.precision || m.points != m0.points || m.top_k_only != m0.top_k_only)
      throw InputError(inputs[i] + ": belongs to a different sweep than " + inputs[order[0]] + " (config or precision differ)");
    if (m.first != next)
      throw InputError(inputs[i] + ": shard starts at point " + std::to_string(m.first) + ", expected " + std::to_string(next) +
                       (m.first < next ? " (overlapping shards)" : " (a shard is missing)"));
    next = m.first + m.count;
  }
  if (next != m0.points)
    throw InputError("merge: the shards cover points 0.." + std::to_string(next) + " of " + std::to_string(m0.points) +
                     " (a shard is missing)");
  SweepMeta meta = m0;
  meta.first = 0;
  meta.count = m0.points;
  meta.shard_index = 0;
  meta.shard_count = 1;
  SweepProgress progress;
  TopK top(meta.top_k, meta.objective, meta.maximize);
  double seconds = 0;
  auto writer = SweepWriter::create(output, meta);
  for (size_t i : order) {
    const SweepFile& f = files[i];
    writer->append(f.rows, static_cast<int>(meta.experiments.size()));
    progress.invalid += f.progress.invalid;
    progress.nonfinite += f.progress.nonfinite;
    seconds += f.seconds;
    for (const auto& e : f.progress.top) top.add(e);
    writer->copy_trajectories_from(inputs[i]);
  }
  progress.completed = meta.count;
  progress.top = top.entries();
  writer->finish(progress, seconds);
}

}  // namespace stribeck
