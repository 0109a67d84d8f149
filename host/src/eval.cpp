// `stribeck eval`: one engine for every input and output kind.
//
// The model is chosen once (visit_model) around the whole loop; inside it a
// source fills blocks of samples (structure of arrays), the block is
// evaluated by the model's own code inlined (static laws: threads across the
// block with OpenMP; dynamic models: in order, the state carried from block
// to block), and a sink writes it. Sources: streamed CSV (CsvReader), one
// experiment of an HDF5 log read by hyperslabs (LogBlockReader), or an
// experiment in memory (MATLAB files, text with units or aliases in its
// header). Sinks: CSV (AtomicFile), HDF5 written block by block
// (LogBlockWriter). Memory is bounded by the block except where the source
// is in memory.
#include "stribeck/host/eval.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/host/version.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "lanes/sweep_lanes.hpp"

namespace stribeck {
namespace {

constexpr size_t kBlock = 4 * 65536;   // rows per block: four HDF5 chunks, encoded on parallel threads
constexpr long kThreadedFrom = 16384;  // smaller blocks stay on one thread

// The vector-math kernel of a static law at the best instruction-set level
// this processor runs (null: none, or a dynamic model).
lanes::EvalFn vector_kernel(const std::string& model_id) {
#if STRIBECK_LANES_HAVE_x86_64_v4
  if (__builtin_cpu_supports("x86-64-v4")) return lanes::x86_64_v4::kernels(model_id.c_str()).eval64;
#endif
#if STRIBECK_LANES_HAVE_x86_64_v3
  if (__builtin_cpu_supports("x86-64-v3")) return lanes::x86_64_v3::kernels(model_id.c_str()).eval64;
#endif
  return lanes::generic::kernels(model_id.c_str()).eval64;
}

// Samples per call of a vector kernel: a tile's inputs and output (5 x 16
// KiB) stay in L2 while it runs, and a multiple of every vector width, so
// only the last n mod 8 samples of the whole input take a kernel's scalar
// tail and a result never depends on the thread count.
constexpr long kVectorTile = 2048;

// fn over [0, n) in tiles, handed out to the OpenMP threads 8 at a time
// (dynamic: on a shared machine a thread that is not running when the
// loop starts leaves its tiles to the others instead of holding up the
// block); channels not given (null) read a tile of zeros.
void run_vector(lanes::EvalFn fn, const double* p, long n, const double* v, const double* pa, const double* pb,
                const double* fn_in, double* force) {
  const long tiles = (n + kVectorTile - 1) / kVectorTile;
#pragma omp parallel for schedule(dynamic, 8) if (n >= kThreadedFrom)
  for (long k = 0; k < tiles; ++k) {
    alignas(64) static thread_local double zeros[kVectorTile];  // zero-initialised, never written
    const long b = k * kVectorTile, m = std::min(n - b, kVectorTile);
    fn(p, m, v + b, pa ? pa + b : zeros, pb ? pb + b : zeros, fn_in ? fn_in + b : zeros, force + b);
  }
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// One block: the model's inputs (v, p_a, p_b, F_n; zeros where unused), the
// step before each sample (dynamic models), the results, and what the sink
// carries through (CSV rows as text, or numeric columns).
struct Block {
  size_t n = 0;
  std::array<std::vector<double>, 4> in;
  std::vector<double> dt, force, state;
  std::vector<std::string> rows;             // CSV source: input cells joined
  std::vector<std::vector<double>> columns;  // numeric sources: every channel
  void resize(size_t rows_max, size_t n_columns) {
    for (auto& v : in) v.assign(rows_max, 0.0);
    dt.assign(rows_max, 0.0);
    force.assign(rows_max, 0.0);
    state.assign(rows_max, 0.0);
    columns.assign(n_columns, std::vector<double>(rows_max));
  }
};

class Source {
 public:
  virtual ~Source() = default;
  virtual const std::vector<std::string>& columns() const = 0;
  // SI unit per column (numeric sources; "" where unknown).
  virtual std::string units(size_t) const { return ""; }
  // Fills up to kBlock rows; returns the number (0 at the end).
  virtual size_t next(Block& b) = 0;
  // Prefix of messages about the data ("in.csv" or "log.h5: experiment 'e'").
  virtual std::string where() const = 0;
  // Numeric sources fill Block::columns; the CSV source Block::rows.
  virtual bool numeric() const { return true; }
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const Block& b, bool dynamic) = 0;
  virtual void commit() = 0;
};

// ---------------------------------------------------------------------------
// Model inputs: column index of every channel the model reads.
std::array<int, 4> input_columns(const ModelInfo& model, const Source& src, const std::vector<std::string>& cols) {
  std::array<int, 4> col{-1, -1, -1, -1};
  for (size_t k = 0; k < 4; ++k) {
    const Channel ch = kAllChannels[k];
    if (!model.needs(ch)) continue;
    for (size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == channel_name(ch)) col[k] = static_cast<int>(i);
    if (col[k] < 0)
      throw InputError(src.where() + ": model " + model.id + " needs a '" + channel_name(ch) +
                       "' column, the header has none" +
                       (ch == kChannelPressureB ? " (single-chamber rig: import with --constant pressure_b=0)" : ""));
  }
  return col;
}

class CsvSource : public Source {
 public:
  CsvSource(const std::string& path, const ModelInfo& model) : reader_(path) {
    if (model.dynamic) {
      time_col_ = reader_.column("time");
      if (time_col_ < 0)
        throw InputError(path + ": model " + model.id +
                         " is dynamic and needs a 'time' column [s], the header has none");
    }
    col_ = input_columns(model, *this, reader_.columns());
  }
  const std::vector<std::string>& columns() const override { return reader_.columns(); }
  std::string where() const override { return reader_.path(); }
  bool numeric() const override { return false; }
  size_t next(Block& b) override {
    b.rows.resize(kBlock);
    size_t n = 0;
    while (n < kBlock && reader_.next(values_, cells_)) {
      std::string& row = b.rows[n];
      row.clear();
      for (size_t i = 0; i < cells_.size(); ++i) {
        if (i) row += ',';
        if (decimal_comma_) {
          for (char ch : cells_[i]) row += ch == ',' ? '.' : ch;
        } else {
          row.append(cells_[i]);
        }
      }
      for (size_t k = 0; k < 4; ++k) b.in[k][n] = col_[k] >= 0 ? values_[static_cast<size_t>(col_[k])] : 0.0;
      double dt = 0.0;
      if (time_col_ >= 0) {
        const double t = values_[static_cast<size_t>(time_col_)];
        if (rows_ > 0) {
          dt = t - t_prev_;
          if (!(dt > 0.0))
            throw InputError(reader_.path() + ":" + std::to_string(reader_.line()) + ": time " + format_number(t) +
                             " does not increase (previous " + format_number(t_prev_) + ")");
        }
        t_prev_ = t;
      }
      b.dt[n] = dt;
      ++n;
      ++rows_;
    }
    b.n = n;
    return n;
  }

 private:
  CsvReader reader_;
  bool decimal_comma_ = reader_.dialect().decimal_comma;  // cells "0,5" are written "0.5"
  int time_col_ = -1;
  std::array<int, 4> col_{};
  std::vector<double> values_;
  std::vector<std::string_view> cells_;
  long rows_ = 0;
  double t_prev_ = 0.0;
};

// Numeric source: channels of an experiment, read a block at a time by
// `read(columns, begin, end, outs)` (every column of the block in one call:
// an HDF5 log decodes their chunks on all threads).
class ChannelSource : public Source {
 public:
  using Reader = std::function<void(const std::vector<std::string>&, size_t, size_t, double* const*)>;
  ChannelSource(std::string where, std::vector<std::string> names, std::vector<std::string> units, size_t length,
                Reader read, const ModelInfo& model)
      : where_(std::move(where)), length_(length), read_(std::move(read)) {
    cols_ = csv_column_order(names);  // as `export` / write_csv writes them
    for (const auto& c : cols_)
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == c) units_.push_back(units[i]);
    for (const auto& c : cols_) time_col_ = c == "time" ? static_cast<int>(&c - cols_.data()) : time_col_;
    if (model.dynamic && time_col_ < 0)
      throw InputError(where_ + ": model " + model.id +
                       " is dynamic and needs a 'time' column [s], the header has none");
    col_ = input_columns(model, *this, cols_);
  }
  const std::vector<std::string>& columns() const override { return cols_; }
  std::string units(size_t i) const override { return units_[i]; }
  std::string where() const override { return where_; }
  size_t next(Block& b) override {
    const size_t n = std::min(kBlock, length_ - pos_);
    b.n = n;
    if (n == 0) return 0;
    outs_.resize(cols_.size());
    for (size_t c = 0; c < cols_.size(); ++c) outs_[c] = b.columns[c].data();
    read_(cols_, pos_, pos_ + n, outs_.data());
    for (size_t k = 0; k < 4; ++k)
      if (col_[k] >= 0) std::memcpy(b.in[k].data(), b.columns[static_cast<size_t>(col_[k])].data(), n * sizeof(double));
    if (time_col_ >= 0) {
      const double* t = b.columns[static_cast<size_t>(time_col_)].data();
      b.dt[0] = pos_ == 0 ? 0.0 : t[0] - t_prev_;
      for (size_t i = 1; i < n; ++i) b.dt[i] = t[i] - t[i - 1];
      t_prev_ = t[n - 1];
    }
    pos_ += n;
    return n;
  }

 private:
  std::string where_;
  std::vector<std::string> cols_, units_;
  size_t length_ = 0, pos_ = 0;
  Reader read_;
  std::vector<double*> outs_;
  int time_col_ = -1;
  std::array<int, 4> col_{};
  double t_prev_ = 0.0;
};

// ---------------------------------------------------------------------------
class CsvSink : public Sink {
 public:
  CsvSink(const std::string& path, const std::vector<std::string>& columns) : out_(path) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) text_ += ',';
      append_csv_field(text_, columns[i]);
    }
    text_ += '\n';
  }
  void write(const Block& b, bool dynamic) override {
    const bool text_rows = b.columns.empty();
    for (size_t i = 0; i < b.n; ++i) {
      if (text_rows) {
        text_ += b.rows[i];
      } else {
        for (size_t c = 0; c < b.columns.size(); ++c) {
          if (c) text_ += ',';
          append_double(text_, b.columns[c][i]);
        }
      }
      text_ += ',';
      append_double(text_, b.force[i]);
      if (dynamic) {
        text_ += ',';
        append_double(text_, b.state[i]);
      }
      text_ += '\n';
      if (text_.size() > (1u << 20)) flush();
    }
  }
  void commit() override {
    flush();
    out_.commit();
  }

 private:
  void flush() {
    out_.write(text_);  // a failed write: one line naming the file and the cause
    text_.clear();
  }
  AtomicFile out_;
  std::string text_;
};

using ChannelAttributes = std::map<std::string, std::map<std::string, std::string>>;

class H5Sink : public Sink {
 public:
  H5Sink(const std::string& path, const Source& src, const std::string& experiment,
         const std::map<std::string, std::string>& attributes, const ChannelAttributes& channel_attributes,
         const ModelInfo& model, const std::string& ptext, const EvalOptions& o, const LogBlockReader* copy_from)
      : writer_(path, provenance(model, o)) {
    std::vector<BlockColumn> chans;
    for (size_t i = 0; i < src.columns().size(); ++i) {
      chans.push_back({src.columns()[i], src.units(i), ""});
      // The input's channel attributes (import --gain) go with the channel.
      if (auto a = channel_attributes.find(src.columns()[i]); a != channel_attributes.end())
        chans.back().attributes = a->second;
    }
    // Channels stored in SI as float64 are copied as stored (no re-encoding);
    // their values are still read and checked by the source.
    exp_ = writer_.add_experiment(experiment, chans, attributes, "", copy_from);
    std::vector<BlockColumn> res = {
        {"model_force", model.output_unit, "model force at every sample of experiment '" + experiment + "'"}};
    if (model.dynamic) res.push_back({"model_state", "", "internal state of the dynamic model"});
    res_ = writer_.add_results(
        "eval/" + model.id, res,
        {{"model", model.id}, {"parameters", ptext}, {"experiment", experiment}, {"input", o.input}},
        provenance(model, o));
  }
  void write(const Block& b, bool dynamic) override {
    ptrs_.clear();
    for (const auto& c : b.columns) ptrs_.push_back(c.data());
    writer_.append(exp_, ptrs_.data(), b.n);
    const double* r[2] = {b.force.data(), b.state.data()};
    (void)dynamic;
    writer_.append(res_, r, b.n);
  }
  void commit() override { writer_.commit(); }

 private:
  static Provenance provenance(const ModelInfo& model, const EvalOptions& o) {
    Provenance p;
    p.toolkit_version = version();
    p.command_line = "stribeck eval --model " + model.id + " --input " + o.input + " --output " + o.output;
    p.device = "cpu";
    return p;
  }
  LogBlockWriter writer_;
  size_t exp_ = 0, res_ = 0;
  std::vector<const double*> ptrs_;
};

// ---------------------------------------------------------------------------
// The block loop around one model type.
template <class M>
void run_model(const std::vector<double>& p, double z0, Source& src, Sink& sink, EvalSummary& summary,
               const ModelInfo& model, lanes::EvalFn vector_fn) {
  const auto c = M::prepare(p.data());
  typename M::template State<double> state{};
  if constexpr (M::kDynamic) state.z = z0;
  Block b;
  b.resize(kBlock, src.numeric() ? src.columns().size() : 0);
  long done = 0;
  while (src.next(b) > 0) {
    const long n = static_cast<long>(b.n);
    const double *v = b.in[0].data(), *pa = b.in[1].data(), *pb = b.in[2].data(), *fn = b.in[3].data();
    double* force = b.force.data();
    if constexpr (M::kDynamic) {
      for (long i = 0; i < n; ++i) {
        if (done + i == 0) state.v_prev = v[0];  // no interval before the first sample
        force[i] = model_step<M>(c, Sample<double>{v[i], pa[i], pb[i], fn[i]}, state, b.dt[static_cast<size_t>(i)]);
        b.state[static_cast<size_t>(i)] = state.z;
      }
    } else if (vector_fn) {
      run_vector(vector_fn, p.data(), n, v, pa, pb, fn, force);
    } else {
#pragma omp parallel for schedule(static) if (n >= kThreadedFrom)
      for (long i = 0; i < n; ++i) force[i] = M::force(c, Sample<double>{v[i], pa[i], pb[i], fn[i]});
    }
    // Valid parameters and finite inputs can still overflow (pressures of
    // 1e308, a v_th of 1e-320): a force that is not a number is an error,
    // not a row of the output.
    for (long i = 0; i < n; ++i)
      if (!std::isfinite(force[i]) || (M::kDynamic && !std::isfinite(b.state[static_cast<size_t>(i)])))
        throw InputError(src.where() + ": data row " + std::to_string(done + i + 1) + ": the " + model.id +
                         " force is " + format_number(force[i]) +
                         " (the inputs and parameters overflow double precision there); nothing written");
    sink.write(b, M::kDynamic);
    done += n;
  }
  summary.samples = done;
}

void check_no_result_columns(const Source& src) {
  for (const char* name : {"model_force", "model_state"})
    for (const auto& c : src.columns())
      if (c == name) throw InputError(src.where() + ": input already has a column named '" + name + "'");
}

}  // namespace

void evaluate_samples(const std::string& model_id, const std::vector<double>& params, const EvalInputs& in,
                      double* force, double* state, double initial_state) {
  const ModelInfo& model = require_model(model_id);
  if (params.size() != model.params.size()) throw InputError("evaluate_samples: wrong number of parameters");
  visit_model(model.id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto c = M::prepare(params.data());
    const long n = static_cast<long>(in.n);
    auto at = [](const double* x, long i) { return x ? x[i] : 0.0; };
    if constexpr (M::kDynamic) {
      typename M::template State<double> st{};
      st.z = initial_state;
      for (long i = 0; i < n; ++i) {
        if (i == 0) st.v_prev = in.velocity[0];
        const double dt = i == 0 ? 0.0 : in.time[i] - in.time[i - 1];
        force[i] = model_step<M>(
            c, Sample<double>{in.velocity[i], at(in.pressure_a, i), at(in.pressure_b, i), at(in.normal_force, i)}, st,
            dt);
        if (state) state[i] = st.z;
      }
    } else if (in.vector_math) {
      run_vector(vector_kernel(model.id), params.data(), n, in.velocity, in.pressure_a, in.pressure_b, in.normal_force,
                 force);
    } else {
      const double *v = in.velocity, *pa = in.pressure_a, *pb = in.pressure_b, *fn = in.normal_force;
      if (pa && pb && fn) {
#pragma omp parallel for schedule(static) if (n >= kThreadedFrom)
        for (long i = 0; i < n; ++i) force[i] = M::force(c, Sample<double>{v[i], pa[i], pb[i], fn[i]});
      } else {
#pragma omp parallel for schedule(static) if (n >= kThreadedFrom)
        for (long i = 0; i < n; ++i) force[i] = M::force(c, Sample<double>{v[i], at(pa, i), at(pb, i), at(fn, i)});
      }
    }
  });
}

EvalSummary evaluate_file(const EvalOptions& o) {
  const ModelInfo& model = require_model(o.model);
  const std::vector<double> p = resolve_params(model, o.params);  // fail before reading a large log
  if (o.initial_state && !model.dynamic)
    throw InputError("--initial-state: model " + model.id + " is static and has no state");
  if (o.initial_state && !std::isfinite(*o.initial_state)) throw InputError("--initial-state: not a finite number");
  const bool h5_out = ends_with(o.output, ".h5") || ends_with(o.output, ".hdf5");

  std::unique_ptr<Source> src;
  std::unique_ptr<LogBlockReader> log;
  std::vector<Experiment> held;  // in-memory sources
  std::string exp_name;
  std::map<std::string, std::string> exp_attrs;
  ChannelAttributes chan_attrs;
  // MATLAB files (v7.3 is HDF5 with a MATLAB header, v5 its own format)
  // are read whole: matio reads a variable at once.
  bool is_mat = false;
  check_input_path(o.input);
  if (std::FILE* f = std::fopen(o.input.c_str(), "rb")) {
    char head[20] = {0};
    const std::string h(head, std::fread(head, 1, sizeof head, f));
    is_mat = h.rfind("MATLAB 7.3 MAT-file", 0) == 0 || h.rfind("MATLAB 5.0 MAT-file", 0) == 0;
    std::fclose(f);
  }
  if (!is_mat && h5::is_hdf5(o.input)) {
    log = std::make_unique<LogBlockReader>(o.input, o.experiment);
    log->set_parallel_decode(true);  // the block loop waits for the read: chunks inflate on every thread
    std::vector<std::string> units;
    for (const auto& c : log->channels()) units.push_back(log->units(c));
    LogBlockReader* r = log.get();
    src = std::make_unique<ChannelSource>(
        log->where(), log->channels(), units, log->length(),
        [r](const std::vector<std::string>& chs, size_t b, size_t e, double* const* out) { r->read(chs, b, e, out); },
        model);
    exp_name = log->experiment();
    exp_attrs = log->attributes();
    for (const auto& c : log->channels())
      if (!log->channel_attributes(c).empty()) chan_attrs[c] = log->channel_attributes(c);
  } else if (is_mat || eval_needs_log_path(o)) {
    held = read_any_log(o.input);
    const Experiment& e = select_experiment(held, o.experiment, o.input);
    std::vector<std::string> names, units;
    for (const auto& [ch, v] : e.channels) {
      names.push_back(ch);
      units.push_back(e.units.at(ch));
    }
    src = std::make_unique<ChannelSource>(
        o.input + ": experiment '" + e.name + "'", names, units, e.size(),
        [&e](const std::vector<std::string>& chs, size_t b, size_t end, double* const* out) {
          for (size_t k = 0; k < chs.size(); ++k)
            std::memcpy(out[k], e.channels.at(chs[k]).data() + b, (end - b) * sizeof(double));
        },
        model);
    exp_name = e.name;
    exp_attrs = e.attributes;
    chan_attrs = e.channel_attributes;
  } else {
    src = std::make_unique<CsvSource>(o.input, model);
  }
  check_no_result_columns(*src);

  EvalSummary summary;
  summary.columns = src->columns();
  summary.columns.push_back("model_force");
  if (model.dynamic) summary.columns.push_back("model_state");
  summary.warnings = param_warnings(model, p.data());
  std::unique_ptr<Sink> sink;
  if (h5_out) {
    std::string ptext;
    for (size_t k = 0; k < model.params.size(); ++k)
      ptext += (k ? "," : "") + std::string(model.params[k].name) + "=" + format_number(p[k]);
    sink = std::make_unique<H5Sink>(o.output, *src, exp_name, exp_attrs, chan_attrs, model, ptext, o, log.get());
  } else {
    sink = std::make_unique<CsvSink>(o.output, summary.columns);
  }
  visit_model(model.id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    run_model<M>(p, o.initial_state.value_or(0.0), *src, *sink, summary, model,
                 o.vector_math ? vector_kernel(model.id) : nullptr);
  });
  if (summary.samples == 0) throw InputError(o.input + ": no data rows after the header");
  sink->commit();
  return summary;
}

}  // namespace stribeck
