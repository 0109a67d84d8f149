// The sweep file in HDF5: streamed columns, checkpoints, resume, read-back.
// Layout in docs/sweep.md.
#include "stribeck/data/sweep_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck {
namespace {

constexpr hsize_t kChunkRows = 65536;

// Sweep metadata lives in root attributes; a missing one means the file was
// not written by SweepWriter.
void require_attribute(hid_t loc, const char* name, const std::string& path) {
  if (!h5::has_attribute(loc, name))
    throw InputError(path + ": not a stribeck sweep file (no attribute '" + std::string(name) + "')");
}
std::string read_string(hid_t loc, const char* name, const std::string& path) {
  require_attribute(loc, name, path);
  return h5::read_string_attribute(loc, name, path);
}
std::uint64_t read_u64(hid_t loc, const char* name, const std::string& path) {
  require_attribute(loc, name, path);
  return h5::read_uint_attribute(loc, name, path);
}
std::int64_t read_i64(hid_t loc, const char* name, const std::string& path) {
  require_attribute(loc, name, path);
  return h5::read_int_attribute(loc, name, path);
}

// The status column holds the engine's one point status (the kernels'
// SimStatus codes: 0 ok, 1 non-finite, 4 invalid) since format_version 2;
// in memory a sweep keeps sweep::Status (0 ok, 1 invalid, 2 non-finite).
constexpr int kFormatVersion = 2;
std::uint8_t file_status(std::uint8_t s) {
  return s == sweep::kStatusOk ? kSimOk : s == sweep::kStatusNonFinite ? kSimNonFinite : kSimInvalid;
}
std::uint8_t memory_status(std::uint8_t s, std::int64_t version) {
  if (version < 2) return s;
  return s == kSimOk ? sweep::kStatusOk : s == kSimNonFinite ? sweep::kStatusNonFinite : sweep::kStatusInvalidParams;
}
constexpr const char* kStatusMeanings = "ok non_finite step_limit event_limit invalid";

// `units`, `long_name` (and `description`) of a quantity.
void describe(hid_t ds, const std::string& units, const std::string& long_name, const std::string& where) {
  h5::write_string_attribute(ds, "units", units.empty() ? "1" : units, where);
  h5::write_string_attribute(ds, "long_name", long_name, where);
}

}  // namespace

struct SweepWriter::Impl {
  PartialOwner owner;  // first: released last, after the partial file is dealt with
  std::string final_path, path;
  SweepMeta meta;
  bool holds_rows = false;  // a checkpoint counted points: the partial file is worth resuming
  bool finished = false;
  bool resumable = true;
  // While the partial file holds no work (or, a merge's, cannot be
  // resumed), a signal that ends the process removes it.
  int signal_slot = -1;
  ~Impl() {
    if (signal_slot >= 0) unregister_temporary(signal_slot);
  }
  void release_signal_slot() {
    if (signal_slot >= 0) unregister_temporary(signal_slot);
    signal_slot = -1;
  }
  h5::File file;
  std::vector<h5::Dataset> param_cols, metric_cols;
  std::vector<std::vector<h5::Dataset>> exp_cols;  // [experiment][kept metric]
  h5::Dataset status_col;
  h5::Dataset point_col;  // the rows' dimension scale (absent in files from before format_version 2)

  // Runs a write; a full disk (or other OS failure) becomes one line naming
  // the output. The partial file is then removed even if it held rows: a
  // failed flush leaves libhdf5's metadata half-written (the superblock
  // claims an end of file that was never written), so the file cannot be
  // resumed from; keeping it would block the next run for nothing.
  bool write_failed = false;
  template <class F>
  void guarded(F&& f) {
    h5::guard_write(final_path, std::forward<F>(f), "", &write_failed);
  }

  // Columns are created by a new sweep and reopened by a resumed one.
  h5::Group group(hid_t loc, const std::string& name, bool create) const {
    return create ? h5::open_or_create_group(loc, name, path) : h5::open_group(loc, name, path);
  }

  void open_columns(bool create) {
    // Chunks of at most the sweep's rows: HDF5 stores whole chunks.
    const hsize_t chunk = std::max<hsize_t>(1, std::min<hsize_t>(kChunkRows, meta.count));
    // Every column's dimension is `point`, the index of each row in the
    // whole space (a dimension scale: netCDF-4 / xarray name it).
    if (create) {
      point_col = h5::create_column(file.id(), kPointDimension, H5T_STD_U64LE, chunk, path);
      describe(point_col.id(), "1", "index of the point in the whole space", path);
    } else if (h5::has_child(file.id(), kPointDimension)) {
      point_col = h5::open_dataset(file.id(), kPointDimension, path);
    }
    auto attach = [&](const h5::Dataset& ds) {
      if (create) h5::attach_scale(ds, point_col, kPointDimension, path);
    };
    const h5::Group params = group(file.id(), "parameters", create);
    const h5::Group metrics = group(file.id(), "metrics", create);
    for (size_t d = 0; d < meta.param_names.size(); ++d) {
      const std::string& n = meta.param_names[d];
      if (create) {
        param_cols.push_back(h5::create_column(params.id(), n, H5T_IEEE_F64LE, chunk, path));
        describe(param_cols.back().id(), meta.param_units[d], "parameter " + n + " of " + meta.model, path);
        attach(param_cols.back());
      } else {
        param_cols.push_back(h5::open_dataset(params.id(), n, path));
      }
    }
    auto metric_col = [&](hid_t loc, int m) {
      const auto& mi = sweep::kMetricInfo[m];
      if (!create) return h5::open_dataset(loc, mi.name, path);
      h5::Dataset c = h5::create_column(loc, mi.name, H5T_IEEE_F64LE, chunk, path);
      describe(c.id(), mi.unit, mi.description, path);
      h5::write_string_attribute(c.id(), "description", mi.description, path);
      attach(c);
      return c;
    };
    for (int m : meta.metrics) metric_cols.push_back(metric_col(metrics.id(), m));
    if (create) {
      status_col = h5::create_column(file.id(), "status", H5T_STD_U8LE, chunk, path);
      describe(status_col.id(), "1", "point status", path);
      const std::uint8_t flags[] = {kSimOk, kSimNonFinite, kSimStepLimit, kSimEventLimit, kSimInvalid};
      const hsize_t nf = 5;
      h5::Dataspace fs(H5Screate_simple(1, &nf, nullptr));
      h5::Attribute fa(H5Acreate2(status_col.id(), "flag_values", H5T_STD_U8LE, fs.id(), H5P_DEFAULT, H5P_DEFAULT));
      if (!fa.valid() || H5Awrite(fa.id(), H5T_NATIVE_UINT8, flags) < 0)
        h5::fail(path, "cannot write attribute 'flag_values'");
      h5::write_string_attribute(status_col.id(), "flag_meanings", kStatusMeanings, path);
      attach(status_col);
    } else {
      status_col = h5::open_dataset(file.id(), "status", path);
    }
    if (meta.per_experiment) {
      const h5::Group exps = group(file.id(), "experiments", create);
      for (const auto& e : meta.experiments) {
        const h5::Group g = group(exps.id(), e, create);
        const h5::Group gm = group(g.id(), "metrics", create);
        exp_cols.emplace_back();
        for (int m : meta.metrics) exp_cols.back().push_back(metric_col(gm.id(), m));
      }
    }
  }

  void write_meta() {
    h5::write_string_attribute(file.id(), "format", "stribeck-sweep", path);
    h5::write_int_attribute(file.id(), "format_version", kFormatVersion, path);
    h5::write_string_attribute(file.id(), "toolkit_version", meta.toolkit_version, path);
    h5::write_string_attribute(file.id(), "model", meta.model, path);
    h5::write_string_attribute(file.id(), "design", meta.design, path);
    h5::write_string_attribute(file.id(), "precision", meta.precision, path);
    h5::write_string_attribute(file.id(), "device", meta.device, path);
    h5::write_string_attribute(file.id(), "config", meta.config, path);
    h5::write_string_attribute(file.id(), "sweep_identity", meta.identity, path);
    h5::write_string_attribute(file.id(), "command_line", meta.command_line, path);
    h5::write_string_attribute(file.id(), "date", meta.created, path);
    h5::write_uint_attribute(file.id(), "points", meta.points, path);
    h5::write_uint_attribute(file.id(), "first", meta.first, path);
    h5::write_uint_attribute(file.id(), "count", meta.count, path);
    h5::write_int_attribute(file.id(), "shard_index", meta.shard_index, path);
    h5::write_int_attribute(file.id(), "shard_count", meta.shard_count, path);
    h5::write_string_list_attribute(file.id(), "parameter_names", meta.param_names, path);
    h5::write_string_list_attribute(file.id(), "parameter_units", meta.param_units, path);
    std::vector<std::string> mn;
    for (int m : meta.metrics) mn.push_back(sweep::kMetricInfo[m].name);
    h5::write_string_list_attribute(file.id(), "metric_names", mn, path);
    h5::write_string_list_attribute(file.id(), "experiments", meta.experiments, path);
    h5::write_string_attribute(file.id(), "objective", sweep::kMetricInfo[meta.objective].name, path);
    h5::write_int_attribute(file.id(), "maximize", meta.maximize, path);
    h5::write_int_attribute(file.id(), "top_k", meta.top_k, path);
    h5::write_int_attribute(file.id(), "per_experiment", meta.per_experiment, path);
    h5::write_int_attribute(file.id(), "top_k_only", meta.top_k_only, path);
  }

  void write_progress(const SweepProgress& p) {
    // The rows reach the disk before the progress that counts them: HDF5
    // writes its metadata in no particular order, so with one flush a kill
    // during it could leave the new count with a column's old extent.
    if (H5Fflush(file.id(), H5F_SCOPE_GLOBAL) < 0) h5::fail(path, "cannot flush the rows of a checkpoint");
    h5::write_uint_attribute(file.id(), "completed", p.completed, path);
    h5::write_uint_attribute(file.id(), "invalid", p.invalid, path);
    h5::write_uint_attribute(file.id(), "nonfinite", p.nonfinite, path);
    // The table is rewritten whole (it is small), with its own dimension
    // scale `rank` (0 best), so xarray opens it as it opens the columns.
    if (h5::has_child(file.id(), "top_k") && H5Ldelete(file.id(), "top_k", H5P_DEFAULT) < 0)
      h5::fail(path, "cannot replace the top-K table");
    const h5::Group top = h5::open_or_create_group(file.id(), "top_k", path);
    std::vector<std::uint64_t> idx, rank;
    std::vector<double> obj;
    for (const auto& e : p.top) idx.push_back(e.index), obj.push_back(e.objective), rank.push_back(rank.size());
    h5::write_array(top.id(), "rank", H5T_NATIVE_UINT64, rank.data(), rank.size(), path);
    const h5::Dataset rank_ds = h5::open_dataset(top.id(), "rank", path);
    describe(rank_ds.id(), "1", "rank by the objective (0: best)", path);
    auto column = [&](hid_t loc, const std::string& name, hid_t type, const void* data, const std::string& units,
                      const std::string& long_name) {
      h5::write_array(loc, name, type, data, p.top.size(), path);
      const h5::Dataset ds = h5::open_dataset(loc, name, path);
      describe(ds.id(), units, long_name, path);
      h5::attach_scale(ds, rank_ds, "rank", path);
    };
    column(top.id(), "index", H5T_NATIVE_UINT64, idx.data(), "1", "index of the point in the whole space");
    column(top.id(), "objective", H5T_NATIVE_DOUBLE, obj.data(), sweep::kMetricInfo[meta.objective].unit,
           std::string("objective: ") + sweep::kMetricInfo[meta.objective].name);
    const h5::Group tp = h5::open_or_create_group(top.id(), "parameters", path);
    for (size_t d = 0; d < meta.param_names.size(); ++d) {
      std::vector<double> v;
      for (const auto& e : p.top) v.push_back(e.params[d]);
      column(tp.id(), meta.param_names[d], H5T_NATIVE_DOUBLE, v.data(), meta.param_units[d],
             "parameter " + meta.param_names[d] + " of " + meta.model);
    }
    const h5::Group tm = h5::open_or_create_group(top.id(), "metrics", path);
    for (int m = 0; m < sweep::kNumMetrics; ++m) {  // all metrics: the table is small
      std::vector<double> v;
      for (const auto& e : p.top) v.push_back(e.metrics[m]);
      column(tm.id(), sweep::kMetricInfo[m].name, H5T_NATIVE_DOUBLE, v.data(), sweep::kMetricInfo[m].unit,
             sweep::kMetricInfo[m].description);
    }
    if (H5Fflush(file.id(), H5F_SCOPE_GLOBAL) < 0) h5::fail(path, "cannot flush a checkpoint");
  }
};

SweepWriter::SweepWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// A partial file that no checkpoint counted points in holds no work: an
// error before the first chunk removes it, so that it blocks no rerun.
SweepWriter::~SweepWriter() {
  Impl& w = *impl_;
  w.release_signal_slot();
  set_interrupt_note("");
  if (w.finished || (w.holds_rows && !w.write_failed)) return;
  w.param_cols.clear();
  w.metric_cols.clear();
  w.exp_cols.clear();
  w.status_col.reset();
  w.point_col.reset();
  w.file.reset();
  std::remove(w.path.c_str());
}

std::unique_ptr<SweepWriter> SweepWriter::create(const std::string& path, const SweepMeta& meta, bool resumable) {
  auto impl = std::make_unique<Impl>();
  impl->final_path = path;
  impl->path = path + ".partial";
  impl->meta = meta;
  check_output_path(path);
  check_output_path(impl->path);
  impl->owner = PartialOwner(impl->path, resumable);
  refuse_unfinished(impl->path, resumable);
  impl->resumable = resumable;
  impl->signal_slot = register_temporary(impl->path);
  impl->file = h5::create_file(impl->path);
  std::unique_ptr<SweepWriter> w(new SweepWriter(std::move(impl)));  // from here on an error removes the file
  w->impl_->guarded([&] {
    w->impl_->write_meta();
    if (!meta.top_k_only) w->impl_->open_columns(true);
    w->impl_->write_progress(SweepProgress{});
  });
  return w;
}

std::unique_ptr<SweepWriter> SweepWriter::resume(const std::string& path, const SweepMeta& meta,
                                                 SweepProgress& progress) {
  const std::string partial = path + ".partial";
  if (!std::ifstream(partial).good())
    throw InputError("--resume: nothing to resume (" + partial + " does not exist); run without --resume");
  SweepFile f = read_sweep_file(partial);  // checks the format
  {
    const h5::File f5 = h5::open_file(partial);
    if (read_i64(f5.id(), "format_version", partial) != kFormatVersion)
      throw InputError(partial + ": written by an older stribeck (sweep format_version " +
                       std::to_string(read_i64(f5.id(), "format_version", partial)) +
                       "); it cannot be continued: remove it and run without --resume");
  }
  if (f.meta.identity != meta.identity || f.meta.first != meta.first || f.meta.count != meta.count ||
      f.meta.precision != meta.precision || f.meta.top_k_only != meta.top_k_only || f.meta.model != meta.model)
    throw InputError(partial +
                     ": belongs to a different sweep (space, traces, shard, precision or output options differ); "
                     "remove it or run without --resume");
  progress = f.progress;
  auto impl = std::make_unique<Impl>();
  impl->holds_rows = true;  // a resumed file is kept, whatever happens next
  set_interrupt_note(partial + " keeps the completed points; continue with --resume");
  impl->final_path = path;
  impl->path = partial;
  impl->meta = meta;
  impl->meta.created = f.meta.created;
  impl->owner = PartialOwner(partial, /*resumable=*/true);
  impl->file = h5::open_file(partial, /*write=*/true);
  if (!meta.top_k_only) {
    // Rows written after the last checkpoint are dropped and recomputed.
    const hsize_t n = progress.completed;
    for (const auto& name : meta.param_names) h5::resize_column(impl->file.id(), "parameters/" + name, n, partial);
    for (int m : meta.metrics)
      h5::resize_column(impl->file.id(), std::string("metrics/") + sweep::kMetricInfo[m].name, n, partial);
    h5::resize_column(impl->file.id(), "status", n, partial);
    if (h5::has_child(impl->file.id(), kPointDimension))
      h5::resize_column(impl->file.id(), kPointDimension, n, partial);
    if (meta.per_experiment)
      for (const auto& e : meta.experiments)
        for (int m : meta.metrics)
          h5::resize_column(impl->file.id(), "experiments/" + e + "/metrics/" + sweep::kMetricInfo[m].name, n, partial);
    impl->open_columns(false);
  }
  return std::unique_ptr<SweepWriter>(new SweepWriter(std::move(impl)));
}

void SweepWriter::append(const SweepChunk& c, int n_exp) {
  Impl& w = *impl_;
  if (!w.meta.top_k_only) {  // a full disk stops the run here, its checkpoint intact (reserve_space)
    std::uint64_t bytes = h5::append_bytes(w.status_col, c.count);
    for (const auto* cols : {&w.param_cols, &w.metric_cols})
      for (const auto& d : *cols) bytes += h5::append_bytes(d, c.count);
    for (const auto& e : w.exp_cols)
      for (const auto& d : e) bytes += h5::append_bytes(d, c.count);
    reserve_space(w.path, bytes, w.final_path,
                  w.holds_rows && w.resumable
                      ? w.path + " keeps the completed points; continue with --resume once there is room"
                      : "");
  }
  impl_->guarded([&] { append_rows(c, n_exp); });
}

void SweepWriter::append_rows(const SweepChunk& c, int n_exp) {
  Impl& w = *impl_;
  if (w.meta.top_k_only) return;
  const int dims = static_cast<int>(w.meta.param_names.size());
  std::vector<double> col(c.count);
  for (int d = 0; d < dims; ++d) {
    for (std::uint64_t j = 0; j < c.count; ++j) col[j] = c.params[j * dims + d];
    h5::append_column(w.param_cols[d], H5T_NATIVE_DOUBLE, col.data(), c.count, w.path);
  }
  for (size_t k = 0; k < w.meta.metrics.size(); ++k) {
    for (std::uint64_t j = 0; j < c.count; ++j) col[j] = c.metrics[j * sweep::kNumMetrics + w.meta.metrics[k]];
    h5::append_column(w.metric_cols[k], H5T_NATIVE_DOUBLE, col.data(), c.count, w.path);
  }
  std::vector<std::uint8_t> status(c.status.size());
  for (size_t j = 0; j < status.size(); ++j) status[j] = file_status(c.status[j]);
  h5::append_column(w.status_col, H5T_NATIVE_UINT8, status.data(), c.count, w.path);
  if (w.point_col.valid()) {
    std::vector<std::uint64_t> index(c.count);
    for (std::uint64_t j = 0; j < c.count; ++j) index[j] = c.index.empty() ? c.first + j : c.index[j];
    h5::append_column(w.point_col, H5T_NATIVE_UINT64, index.data(), c.count, w.path);
  }
  if (w.meta.per_experiment)
    for (int e = 0; e < n_exp; ++e)
      for (size_t k = 0; k < w.meta.metrics.size(); ++k) {
        for (std::uint64_t j = 0; j < c.count; ++j)
          col[j] = c.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + w.meta.metrics[k]];
        h5::append_column(w.exp_cols[e][k], H5T_NATIVE_DOUBLE, col.data(), c.count, w.path);
      }
}

void SweepWriter::checkpoint(const SweepProgress& p) {
  impl_->guarded([&] { impl_->write_progress(p); });
  impl_->holds_rows = impl_->holds_rows || p.completed > 0;
  if (impl_->holds_rows && impl_->resumable && impl_->signal_slot >= 0) {
    impl_->release_signal_slot();
    set_interrupt_note(impl_->path + " keeps the completed points; continue with --resume");
  }
}

void SweepWriter::add_trajectory(std::uint64_t index, const std::vector<double>& params,
                                 const std::vector<std::string>& experiments,
                                 const std::vector<std::vector<double>>& forces) {
  impl_->guarded([&] { write_trajectory(index, params, experiments, forces); });
}

void SweepWriter::write_trajectory(std::uint64_t index, const std::vector<double>& params,
                                   const std::vector<std::string>& experiments,
                                   const std::vector<std::vector<double>>& forces) {
  Impl& w = *impl_;
  const h5::Group tr = h5::open_or_create_group(w.file.id(), "trajectories", w.path);
  const h5::Group g = h5::open_or_create_group(tr.id(), std::to_string(index), w.path);
  const h5::Group gp = h5::open_or_create_group(g.id(), "parameters", w.path);
  for (size_t d = 0; d < params.size(); ++d)
    h5::write_double_attribute(gp.id(), w.meta.param_names[d], params[d], w.path);
  for (size_t e = 0; e < experiments.size(); ++e) {
    const h5::Group ge = h5::open_or_create_group(g.id(), experiments[e], w.path);
    std::vector<std::uint64_t> sample(forces[e].size());
    for (size_t k = 0; k < sample.size(); ++k) sample[k] = k;
    h5::write_array(ge.id(), "sample", H5T_NATIVE_UINT64, sample.data(), sample.size(), w.path);
    const h5::Dataset sd = h5::open_dataset(ge.id(), "sample", w.path);
    describe(sd.id(), "1", "sample of the experiment's trace", w.path);
    h5::write_array(ge.id(), "force", H5T_NATIVE_DOUBLE, forces[e].data(), forces[e].size(), w.path);
    const h5::Dataset fd = h5::open_dataset(ge.id(), "force", w.path);
    describe(fd.id(), sweep::kMetricInfo[3].unit, "model force along the trace", w.path);
    h5::attach_scale(fd, sd, "sample", w.path);
  }
}

void SweepWriter::copy_trajectories_from(const std::string& src_path) {
  Impl& w = *impl_;
  const h5::File src = h5::open_file(src_path);
  if (!h5::has_child(src.id(), "trajectories")) return;
  const h5::Group from = h5::open_group(src.id(), "trajectories", src_path);
  const auto kids = h5::children(from.id(), src_path + ": group 'trajectories'");
  for (const h5::Child& c : kids) h5::check_child(c, src_path + ": trajectory '" + c.name + "'");
  // Read and written again (not H5Ocopy): the copy gets this file's
  // dimension scales, whatever the source's format version.
  for (const h5::Child& c : kids) {
    const std::string at = src_path + ": trajectory '" + c.name + "'";
    if (c.kind != h5::Kind::kGroup || c.name.empty() || c.name.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(at + ": not a trajectory (a point index)");
    const h5::Group g = h5::open_group(from.id(), c.name, at);
    std::vector<double> params;
    {
      const h5::Group gp = h5::open_group(g.id(), "parameters", at);
      for (const auto& n : w.meta.param_names) params.push_back(h5::read_double_attribute(gp.id(), n, at));
    }
    std::vector<std::string> exps;
    std::vector<std::vector<double>> forces;
    for (const h5::Child& e : h5::children(g.id(), at)) {
      if (e.kind != h5::Kind::kGroup || e.name == "parameters") continue;
      exps.push_back(e.name);
      forces.push_back(h5::read_array<double>(g.id(), e.name + "/force", H5T_NATIVE_DOUBLE, at));
    }
    w.guarded([&] {
      const h5::Group to = h5::open_or_create_group(w.file.id(), "trajectories", w.path);
      if (!h5::has_child(to.id(), c.name)) write_trajectory(std::stoull(c.name), params, exps, forces);
    });
  }
}

void SweepWriter::finish(const SweepProgress& p, double seconds) {
  Impl& w = *impl_;
  w.guarded([&] {
    w.write_progress(p);
    h5::write_double_attribute(w.file.id(), "seconds", seconds, w.path);
    h5::write_int_attribute(w.file.id(), "complete", 1, w.path);
    w.param_cols.clear();
    w.metric_cols.clear();
    w.exp_cols.clear();
    w.status_col.reset();
    w.point_col.reset();
    h5::close_file(w.file, w.path);
  });
  w.finished = true;
  if (durable_rename(w.path, w.final_path) != 0)
    throw InputError(w.final_path + ": cannot move the finished sweep into place (" + std::strerror(errno) +
                     "); it is in " + w.path +
                     (w.resumable ? ": run again with --resume once the target can be written" : ""));
  w.release_signal_slot();
  set_interrupt_note("");
}

bool is_sweep_file(const std::string& path) {
  try {
    if (!std::ifstream(path)) return false;
    const h5::File f5 = h5::open_file(path);
    return h5::has_attribute(f5.id(), "format") &&
           h5::read_string_attribute(f5.id(), "format", path) == "stribeck-sweep";
  } catch (const std::exception&) {
    return false;
  }
}

SweepFile read_sweep_file(const std::string& path) {
  const h5::File f5 = h5::open_file(path);
  const hid_t file = f5.id();
  if (!h5::has_attribute(file, "format") || h5::read_string_attribute(file, "format", path) != "stribeck-sweep")
    throw InputError(path + ": not a stribeck sweep file");
  SweepFile f;
  SweepMeta& m = f.meta;
  m.toolkit_version = read_string(file, "toolkit_version", path);
  m.model = read_string(file, "model", path);
  m.design = read_string(file, "design", path);
  m.precision = read_string(file, "precision", path);
  m.device = read_string(file, "device", path);
  m.config = read_string(file, "config", path);
  m.identity = read_string(file, "sweep_identity", path);
  m.command_line = read_string(file, "command_line", path);
  m.created = read_string(file, "date", path);
  m.points = read_u64(file, "points", path);
  m.first = read_u64(file, "first", path);
  m.count = read_u64(file, "count", path);
  m.shard_index = static_cast<int>(read_i64(file, "shard_index", path));
  m.shard_count = static_cast<int>(read_i64(file, "shard_count", path));
  const std::int64_t version = h5::has_attribute(file, "format_version") ? read_i64(file, "format_version", path) : 1;
  if (version > kFormatVersion)
    throw InputError(path + ": sweep file format_version " + std::to_string(version) +
                     " is newer than this stribeck (" + std::to_string(kFormatVersion) + "); use a newer stribeck");
  auto list = [&](const char* name) {
    require_attribute(file, name, path);
    return h5::read_string_list_attribute(file, name, '\n', path);
  };
  m.param_names = list("parameter_names");
  m.param_units = list("parameter_units");
  for (const auto& name : list("metric_names"))
    for (int k = 0; k < sweep::kNumMetrics; ++k)
      if (name == sweep::kMetricInfo[k].name) m.metrics.push_back(k);
  m.experiments = list("experiments");
  const std::string obj = read_string(file, "objective", path);
  for (int k = 0; k < sweep::kNumMetrics; ++k)
    if (obj == sweep::kMetricInfo[k].name) m.objective = k;
  m.maximize = read_i64(file, "maximize", path) != 0;
  m.top_k = static_cast<int>(read_i64(file, "top_k", path));
  m.per_experiment = read_i64(file, "per_experiment", path) != 0;
  m.top_k_only = read_i64(file, "top_k_only", path) != 0;
  f.complete = h5::has_attribute(file, "complete") && read_i64(file, "complete", path) == 1;
  if (h5::has_attribute(file, "seconds")) f.seconds = h5::read_double_attribute(file, "seconds", path);

  SweepProgress& p = f.progress;
  p.completed = read_u64(file, "completed", path);
  p.invalid = read_u64(file, "invalid", path);
  p.nonfinite = read_u64(file, "nonfinite", path);
  const auto idx = h5::read_array<std::uint64_t>(file, "top_k/index", H5T_NATIVE_UINT64, path);
  const auto obj_v = h5::read_array<double>(file, "top_k/objective", H5T_NATIVE_DOUBLE, path);
  p.top.resize(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    p.top[i].index = idx[i];
    p.top[i].objective = obj_v[i];
    p.top[i].params.resize(m.param_names.size());
    p.top[i].metrics.resize(sweep::kNumMetrics);
  }
  for (size_t d = 0; d < m.param_names.size(); ++d) {
    const auto v = h5::read_array<double>(file, "top_k/parameters/" + m.param_names[d], H5T_NATIVE_DOUBLE, path);
    for (size_t i = 0; i < v.size() && i < p.top.size(); ++i) p.top[i].params[d] = v[i];
  }
  for (int k = 0; k < sweep::kNumMetrics; ++k) {
    const auto v = h5::read_array<double>(file, std::string("top_k/metrics/") + sweep::kMetricInfo[k].name,
                                          H5T_NATIVE_DOUBLE, path);
    for (size_t i = 0; i < v.size() && i < p.top.size(); ++i) p.top[i].metrics[k] = v[i];
  }
  if (m.top_k_only) return f;

  SweepChunk& r = f.rows;
  const size_t dims = m.param_names.size(), n_exp = m.experiments.size();
  r.first = m.first;
  r.status = h5::read_array<std::uint8_t>(file, "status", H5T_NATIVE_UINT8, path);
  for (auto& st : r.status) st = memory_status(st, version);
  r.count = r.status.size();
  r.params.assign(r.count * dims, NAN);
  r.metrics.assign(r.count * sweep::kNumMetrics, NAN);
  auto need = [&](const std::vector<double>& v, const std::string& what) {
    if (v.size() != r.count)
      throw InputError(path + ": " + what + " has " + std::to_string(v.size()) + " rows, status has " +
                       std::to_string(r.count));
  };
  for (size_t d = 0; d < dims; ++d) {
    const auto v = h5::read_array<double>(file, "parameters/" + m.param_names[d], H5T_NATIVE_DOUBLE, path);
    need(v, "parameters/" + m.param_names[d]);
    for (size_t j = 0; j < r.count; ++j) r.params[j * dims + d] = v[j];
  }
  for (int k : m.metrics) {
    const std::string name = std::string("metrics/") + sweep::kMetricInfo[k].name;
    const auto v = h5::read_array<double>(file, name, H5T_NATIVE_DOUBLE, path);
    need(v, name);
    for (size_t j = 0; j < r.count; ++j) r.metrics[j * sweep::kNumMetrics + k] = v[j];
  }
  if (m.per_experiment) {
    r.exp_metrics.assign(r.count * n_exp * sweep::kNumMetrics, NAN);
    for (size_t e = 0; e < n_exp; ++e)
      for (int k : m.metrics) {
        const std::string name = "experiments/" + m.experiments[e] + "/metrics/" + sweep::kMetricInfo[k].name;
        const auto v = h5::read_array<double>(file, name, H5T_NATIVE_DOUBLE, path);
        need(v, name);
        for (size_t j = 0; j < r.count; ++j) r.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + k] = v[j];
      }
  }
  return f;
}

}  // namespace stribeck
