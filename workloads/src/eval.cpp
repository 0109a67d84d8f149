// `stribeck eval`: one engine for every input and output kind.
//
// The model is chosen once (visit_model) around the whole loop; inside it a
// source fills blocks of samples (structure of arrays), the block is
// evaluated by the model's own code inlined (static laws: tiles of the block
// on a pool of threads; dynamic models: in order, the state carried from
// block to block), and a sink writes it. Where the job has two threads or
// more, the source reads block k + 1 on a thread of its own while block k is
// evaluated and the sink writes block k - 1 on another (run_blocks), so the
// serial HDF5 calls of reading and writing overlap the parallel parts; the
// pool's idle threads sleep on a condition variable instead of spinning as
// OpenMP's do between regions (which, on a machine with more runnable
// threads than cores, took the CPU from the thread doing the serial work).
// Sources: streamed CSV (CsvReader), one
// experiment of an HDF5 log read by hyperslabs (LogBlockReader), or an
// experiment in memory (MATLAB files, text with units or aliases in its
// header). Sinks: CSV (AtomicFile), HDF5 written block by block
// (LogBlockWriter). Memory is bounded by the block except where the source
// is in memory.
#include "stribeck/workloads/eval.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/threads.hpp"
#include "stribeck/workloads/version.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "lanes/sweep_lanes.hpp"

namespace stribeck::workloads {
namespace {

constexpr size_t kTextBlock = 65536;   // rows per block of a CSV source (each row's text is kept to be written)
constexpr long kThreadedFrom = 16384;  // smaller blocks stay on one thread
constexpr long kScalarTile = 8192;     // samples per job of the scalar law on the pool
// Text of a CSV source's block at most (about): long rows, fewer of them.
constexpr size_t kTextBlockBytes = size_t(16) << 20;
#ifdef H5_HAVE_THREADSAFE
constexpr bool kHdf5ThreadSafe = true;
#else
constexpr bool kHdf5ThreadSafe = false;
#endif

// A pool of threads that run the jobs of run() calls, with the calling
// thread; idle threads wait on a condition variable (they use no CPU between
// blocks). Several threads may call run() at once (the pipeline's reader,
// evaluator and writer): each call is a group of jobs the idle threads join.
// An exception thrown by a job is rethrown by run() on the calling thread
// once every job of the group has ended.
class TaskPool final : public data::BlockExecutor {
 public:
  explicit TaskPool(int workers) {
    try {
      for (int w = 0; w < workers; ++w) threads_.emplace_back([this] { loop(); });
    } catch (...) {
      stop();
      throw;
    }
  }
  ~TaskPool() override { stop(); }
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  void run(long n, const std::function<void(long)>& body) override {
    if (n <= 0) return;
    if (threads_.empty() || n == 1) {
      for (long i = 0; i < n; ++i) body(i);
      return;
    }
    auto g = std::make_shared<Group>();
    g->n = n;
    g->body = &body;
    {
      std::lock_guard<std::mutex> lk(mu_);
      groups_.push_back(g);
    }
    cv_.notify_all();
    work(*g);
    {
      std::lock_guard<std::mutex> lk(mu_);
      groups_.erase(std::remove(groups_.begin(), groups_.end(), g), groups_.end());
    }
    std::unique_lock<std::mutex> lk(g->m);
    g->cv.wait(lk, [&] { return g->done == g->n; });
    if (g->error) std::rethrow_exception(g->error);
  }

 private:
  struct Group {
    long n = 0;
    const std::function<void(long)>* body = nullptr;
    std::atomic<long> next{0};
    std::mutex m;
    std::condition_variable cv;
    long done = 0;  // jobs ended (under m)
    std::exception_ptr error;
  };
  // Claims jobs of g until none is left; a job's exception is kept for run().
  static void work(Group& g) {
    long ran = 0;
    for (long i; (i = g.next.fetch_add(1)) < g.n; ++ran) {
      try {
        (*g.body)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(g.m);
        if (!g.error) g.error = std::current_exception();
      }
    }
    if (ran == 0) return;
    std::lock_guard<std::mutex> lk(g.m);
    g.done += ran;
    if (g.done == g.n) g.cv.notify_all();
  }
  void loop() {
    for (;;) {
      std::shared_ptr<Group> g;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || !groups_.empty(); });
        if (stop_) return;
        g = groups_.front();
        if (g->next.load() >= g->n) {  // every job claimed: the caller takes it off
          groups_.pop_front();
          continue;
        }
      }
      work(*g);
    }
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Group>> groups_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// tile(0), ..., tile(tiles - 1) for a block of n samples: on the pool where
// the block is large enough to be worth threads, else on this thread.
void for_tiles(TaskPool& pool, long n, long tiles, const std::function<void(long)>& tile) {
  if (n >= kThreadedFrom) {
    pool.run(tiles, tile);
  } else {
    for (long k = 0; k < tiles; ++k) tile(k);
  }
}

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
// block), or to `pool`'s threads; channels not given (null) read a tile of
// zeros. The tiles are the same either way: so are the results. (Storing
// the output of large in-memory calls with non-temporal stores, through a
// tile buffer, was measured 1.3x slower on this project's 2-core EPYC VM:
// bench/RESULTS.md.)
void run_vector(lanes::EvalFn fn, const double* p, long n, const double* v, const double* pa, const double* pb,
                const double* fn_in, double* force, TaskPool* pool = nullptr) {
  const long tiles = (n + kVectorTile - 1) / kVectorTile;
  auto tile = [&](long k) {
    alignas(64) static thread_local double zeros[kVectorTile];  // zero-initialised, never written
    const long b = k * kVectorTile, m = std::min(n - b, kVectorTile);
    fn(p, m, v + b, pa ? pa + b : zeros, pb ? pb + b : zeros, fn_in ? fn_in + b : zeros, force + b);
  };
  if (pool) return for_tiles(*pool, n, tiles, tile);
#pragma omp parallel for schedule(dynamic, 8) if (n >= kThreadedFrom)
  for (long k = 0; k < tiles; ++k) tile(k);
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// One block: the model's inputs (v, p_a, p_b, F_n: into the block's columns,
// its own arrays for a CSV source, or a block of zeros where unused), the step
// before each sample and the state (dynamic models), the results, and what
// the sink carries through (CSV rows as text, or numeric columns). `error`:
// what reading it threw (the pipeline's reader thread).
struct Block {
  size_t n = 0;
  std::array<const double*, 4> in{};
  std::array<std::vector<double>, 4> own;  // CSV source: the parsed inputs
  std::vector<double> dt, force, state;
  std::vector<std::string> rows;             // CSV source: input cells joined
  std::vector<std::vector<double>> columns;  // numeric sources: every channel
  std::exception_ptr error;
  void resize(size_t rows_max, size_t n_columns, bool numeric, bool dynamic) {
    if (!numeric)
      for (auto& v : own) v.assign(rows_max, 0.0);
    if (dynamic) {
      dt.assign(rows_max, 0.0);
      state.assign(rows_max, 0.0);
    }
    force.assign(rows_max, 0.0);
    columns.assign(n_columns, std::vector<double>(rows_max));
  }
};

class Source {
 public:
  virtual ~Source() = default;
  virtual const std::vector<std::string>& columns() const = 0;
  // SI unit per column (numeric sources; "" where unknown).
  virtual std::string units(size_t) const { return ""; }
  // Fills up to `rows` rows and points b.in at them (`zeros` where the model
  // reads no channel); returns the number (0 at the end).
  virtual size_t next(Block& b, size_t rows, const double* zeros) = 0;
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
      throw data::InputError(
          src.where() + ": model " + model.id + " needs a '" + channel_name(ch) + "' column, the header has none" +
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
        throw data::InputError(path + ": model " + model.id +
                               " is dynamic and needs a 'time' column [s], the header has none");
    }
    col_ = input_columns(model, *this, reader_.columns());
  }
  const std::vector<std::string>& columns() const override { return reader_.columns(); }
  std::string where() const override { return reader_.path(); }
  bool numeric() const override { return false; }
  size_t next(Block& b, size_t rows, const double* zeros) override {
    b.rows.resize(rows);
    for (size_t k = 0; k < 4; ++k) b.in[k] = col_[k] >= 0 ? b.own[k].data() : zeros;
    size_t n = 0, bytes = 0;
    while (n < rows && bytes < kTextBlockBytes && reader_.next(values_, cells_)) {
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
      for (size_t k = 0; k < 4; ++k)
        if (col_[k] >= 0) b.own[k][n] = values_[static_cast<size_t>(col_[k])];
      if (time_col_ >= 0) {
        double dt = 0.0;
        const double t = values_[static_cast<size_t>(time_col_)];
        if (rows_ > 0) {
          dt = t - t_prev_;
          if (!(dt > 0.0))
            throw data::InputError(reader_.path() + ":" + std::to_string(reader_.line()) + ": time " +
                                   format_number(t) + " does not increase (previous " + format_number(t_prev_) + ")");
        }
        t_prev_ = t;
        b.dt[n] = dt;
      }
      bytes += row.size();
      ++n;
      ++rows_;
    }
    b.n = n;
    return n;
  }

 private:
  data::CsvReader reader_;
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
    cols_ = data::csv_column_order(names);  // as `export` / write_csv writes them
    std::map<std::string, size_t> index;    // a linear pass, not a search per column
    for (size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
    for (const auto& c : cols_) units_.push_back(units[index.at(c)]);
    for (const auto& c : cols_) time_col_ = c == "time" ? static_cast<int>(&c - cols_.data()) : time_col_;
    if (model.dynamic && time_col_ < 0)
      throw data::InputError(where_ + ": model " + model.id +
                             " is dynamic and needs a 'time' column [s], the header has none");
    if (!model.dynamic) time_col_ = -1;  // no steps needed (read_ checks time)
    col_ = input_columns(model, *this, cols_);
  }
  const std::vector<std::string>& columns() const override { return cols_; }
  std::string units(size_t i) const override { return units_[i]; }
  std::string where() const override { return where_; }
  size_t next(Block& b, size_t rows, const double* zeros) override {
    const size_t n = std::min(rows, length_ - pos_);
    b.n = n;
    if (n == 0) return 0;
    outs_.resize(cols_.size());
    for (size_t c = 0; c < cols_.size(); ++c) outs_[c] = b.columns[c].data();
    read_(cols_, pos_, pos_ + n, outs_.data());
    for (size_t k = 0; k < 4; ++k) b.in[k] = col_[k] >= 0 ? b.columns[static_cast<size_t>(col_[k])].data() : zeros;
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
      data::append_csv_field(text_, columns[i]);
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
  data::AtomicFile out_;
  std::string text_;
};

using ChannelAttributes = std::map<std::string, std::map<std::string, std::string>>;

class H5Sink : public Sink {
 public:
  H5Sink(const std::string& path, const Source& src, const std::string& experiment,
         const std::map<std::string, std::string>& attributes, const ChannelAttributes& channel_attributes,
         const ModelInfo& model, const std::string& ptext, const EvalOptions& o, const data::LogBlockReader* copy_from)
      : writer_(path, provenance(o)) {
    writer_.set_deflate_level(o.deflate_level);
    std::vector<data::BlockColumn> chans;
    for (size_t i = 0; i < src.columns().size(); ++i) {
      chans.push_back({src.columns()[i], src.units(i), ""});
      // The input's channel attributes (import --gain) go with the channel.
      if (auto a = channel_attributes.find(src.columns()[i]); a != channel_attributes.end())
        chans.back().attributes = a->second;
    }
    // Channels stored in SI as float64 are copied as stored (no re-encoding);
    // their values are still read and checked by the source.
    exp_ = writer_.add_experiment(experiment, chans, attributes, "", copy_from);
    std::vector<data::BlockColumn> res = {
        {"model_force", model.output_unit, "model force at every sample of experiment '" + experiment + "'"}};
    if (model.dynamic) res.push_back({"model_state", "", "internal state of the dynamic model"});
    res_ = writer_.add_results(
        "eval/" + model.id, res,
        {{"model", model.id}, {"parameters", ptext}, {"experiment", experiment}, {"input", o.input}}, provenance(o));
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
  void set_executor(data::BlockExecutor* e) { writer_.set_executor(e); }

 private:
  static data::Provenance provenance(const EvalOptions& o) {
    data::Provenance p;
    p.toolkit_version = version();
    p.command_line = o.command_line;
    p.device = "cpu";
    return p;
  }
  data::LogBlockWriter writer_;
  size_t exp_ = 0, res_ = 0;
  std::vector<const double*> ptrs_;
};

// ---------------------------------------------------------------------------
// Blocks handed from one stage of the pipeline to the next (no bound of its
// own: the pipeline has three blocks, so at most three are ever queued).
class BlockQueue {
 public:
  void push(Block* b) {
    {
      std::lock_guard<std::mutex> lk(m_);
      q_.push_back(b);
    }
    cv_.notify_one();
  }
  // The next block; null once closed and (drain) empty or (no drain) at once.
  Block* pop() {
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait(lk, [&] { return closed_ || !q_.empty(); });
    if (closed_ && (q_.empty() || !drain_)) return nullptr;
    Block* b = q_.front();
    q_.pop_front();
    return b;
  }
  void close(bool drain) {
    {
      std::lock_guard<std::mutex> lk(m_);
      closed_ = true;
      drain_ = drain;
    }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Block*> q_;
  bool closed_ = false, drain_ = false;
};

// Reads, evaluates and writes the blocks of `src` in order. With `overlap`,
// src.next runs on a reader thread (one block ahead) and sink.write on a
// writer thread (one block behind) while `evaluate` runs on this thread:
// three blocks in flight, so memory stays bounded by the block. Without,
// one block, each step in turn on this thread. Either way the error that
// ends the run is the first one in the sequential order (read k, evaluate
// k, write k, read k + 1, ...): an error of the reader or the evaluation
// waits for the writes of the blocks before it, whose failure comes first.
// Every exception of the other threads is carried here and rethrown.
void run_blocks(Source& src, Sink& sink, bool dynamic, size_t rows, bool overlap,
                const std::function<void(Block&)>& evaluate) {
  const size_t n_columns = src.numeric() ? src.columns().size() : 0;
  // Never written: calloc's pages stay the kernel's shared zero page.
  std::unique_ptr<double, void (*)(void*)> zeros(static_cast<double*>(std::calloc(rows, sizeof(double))), std::free);
  if (!zeros) throw std::bad_alloc();
  if (!overlap) {
    Block b;
    b.resize(rows, n_columns, src.numeric(), dynamic);
    while (src.next(b, rows, zeros.get()) > 0) {
      evaluate(b);
      sink.write(b, dynamic);
    }
    return;
  }
  std::array<Block, 3> blocks;
  BlockQueue free_q, ready_q, write_q;
  for (auto& b : blocks) {
    b.resize(rows, n_columns, src.numeric(), dynamic);
    free_q.push(&b);
  }
  std::exception_ptr write_error;  // the writer's (read after join)
  std::atomic<bool> write_failed{false};
  auto read_loop = [&] {
    data::h5::silence_errors();  // libhdf5 prints error stacks per thread unless told not to
    while (Block* b = free_q.pop()) {
      b->n = 0;
      b->error = nullptr;
      try {
        src.next(*b, rows, zeros.get());
      } catch (...) {
        b->error = std::current_exception();
        b->n = 0;
      }
      const bool last = b->n == 0;  // the end, or an error
      ready_q.push(b);
      if (last) return;
    }
  };
  auto write_loop = [&] {
    data::h5::silence_errors();
    while (Block* b = write_q.pop()) {
      if (!write_error) {
        try {
          sink.write(*b, dynamic);
        } catch (...) {
          write_error = std::current_exception();
          write_failed = true;
        }
      }
      free_q.push(b);  // recycled even after a failure: the reader never waits for ever
    }
  };
  std::thread reader, writer;
  // Ends both threads on every path (an exception included): the writer
  // writes what was queued before, the reader stops at its next block.
  auto finish = [&] {
    write_q.close(true);
    if (writer.joinable()) writer.join();
    free_q.close(false);
    if (reader.joinable()) reader.join();
  };
  std::exception_ptr error;
  try {
    reader = std::thread(read_loop);
    writer = std::thread(write_loop);
    while (!write_failed) {
      Block* b = ready_q.pop();
      if (b->error) std::rethrow_exception(b->error);
      if (b->n == 0) break;
      evaluate(*b);
      write_q.push(b);
    }
  } catch (...) {
    error = std::current_exception();
  }
  finish();
  if (write_error) std::rethrow_exception(write_error);
  if (error) std::rethrow_exception(error);
}

// The block loop around one model type.
template <class M>
void run_model(const std::vector<double>& p, double z0, Source& src, Sink& sink, EvalSummary& summary,
               const ModelInfo& model, lanes::EvalFn vector_fn, TaskPool& pool, size_t rows, bool overlap) {
  const auto c = M::prepare(p.data());
  typename M::template State<double> state{};
  if constexpr (M::kDynamic) state.z = z0;
  long done = 0;
  run_blocks(src, sink, M::kDynamic, rows, overlap, [&](Block& b) {
    const long n = static_cast<long>(b.n);
    const double *v = b.in[0], *pa = b.in[1], *pb = b.in[2], *fn = b.in[3];
    double* force = b.force.data();
    if constexpr (M::kDynamic) {
      for (long i = 0; i < n; ++i) {
        if (done + i == 0) state.v_prev = v[0];  // no interval before the first sample
        force[i] = model_step<M>(c, Sample<double>{v[i], pa[i], pb[i], fn[i]}, state, b.dt[static_cast<size_t>(i)]);
        b.state[static_cast<size_t>(i)] = state.z;
      }
    } else if (vector_fn) {
      run_vector(vector_fn, p.data(), n, v, pa, pb, fn, force, &pool);
    } else {
      auto tile = [&](long k) {
        const long b0 = k * kScalarTile, b1 = std::min(n, b0 + kScalarTile);
        for (long i = b0; i < b1; ++i) force[i] = M::force(c, Sample<double>{v[i], pa[i], pb[i], fn[i]});
      };
      for_tiles(pool, n, (n + kScalarTile - 1) / kScalarTile, tile);
    }
    // Valid parameters and finite inputs can still overflow (pressures of
    // 1e308, a v_th of 1e-320): a force that is not a number is an error,
    // not a row of the output.
    for (long i = 0; i < n; ++i)
      if (!std::isfinite(force[i]) || (M::kDynamic && !std::isfinite(b.state[static_cast<size_t>(i)])))
        throw data::InputError(src.where() + ": data row " + std::to_string(done + i + 1) + ": the " + model.id +
                               " force is " + format_number(force[i]) +
                               " (the inputs and parameters overflow double precision there); nothing written");
    done += n;
  });
  summary.samples = done;
}

void check_no_result_columns(const Source& src) {
  for (const char* name : {"model_force", "model_state"})
    for (const auto& c : src.columns())
      if (c == name) throw data::InputError(src.where() + ": input already has a column named '" + name + "'");
}

}  // namespace

void evaluate_samples(const std::string& model_id, const std::vector<double>& params, const EvalInputs& in,
                      double* force, double* state, double initial_state) {
  const ModelInfo& model = require_model(model_id);
  if (params.size() != model.params.size()) throw data::InputError("evaluate_samples: wrong number of parameters");
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
    throw data::InputError("--initial-state: model " + model.id + " is static and has no state");
  if (o.initial_state && !std::isfinite(*o.initial_state))
    throw data::InputError("--initial-state: not a finite number");
  if (o.deflate_level < 0 || o.deflate_level > 9)
    throw data::InputError("--compression: deflate level " + std::to_string(o.deflate_level) + " is not in 1-9");
  const bool h5_out = ends_with(o.output, ".h5") || ends_with(o.output, ".hdf5");

  std::unique_ptr<Source> src;
  std::unique_ptr<data::LogBlockReader> log;
  std::vector<data::Experiment> held;  // in-memory sources
  std::string exp_name;
  std::map<std::string, std::string> exp_attrs;
  ChannelAttributes chan_attrs;
  // MATLAB files (v7.3 is HDF5 with a MATLAB header, v5 its own format)
  // are read whole: matio reads a variable at once.
  bool is_mat = false;
  data::check_input_path(o.input);
  if (std::FILE* f = std::fopen(o.input.c_str(), "rb")) {
    char head[20] = {0};
    const std::string h(head, std::fread(head, 1, sizeof head, f));
    is_mat = h.rfind("MATLAB 7.3 MAT-file", 0) == 0 || h.rfind("MATLAB 5.0 MAT-file", 0) == 0;
    std::fclose(f);
  }
  if (!is_mat && data::h5::is_hdf5(o.input)) {
    log = std::make_unique<data::LogBlockReader>(o.input, o.experiment);
    std::vector<std::string> units;
    for (const auto& c : log->channels()) units.push_back(log->units(c));
    data::LogBlockReader* r = log.get();
    src = std::make_unique<ChannelSource>(
        log->where(), log->channels(), units, log->length(),
        [r](const std::vector<std::string>& chs, size_t b, size_t e, double* const* out) { r->read(chs, b, e, out); },
        model);
    exp_name = log->experiment();
    exp_attrs = log->attributes();
    for (const auto& c : log->channels())
      if (!log->channel_attributes(c).empty()) chan_attrs[c] = log->channel_attributes(c);
  } else if (is_mat || eval_needs_log_path(o)) {
    held = data::read_any_log(o.input);
    const data::Experiment& e = data::select_experiment(held, o.experiment, o.input);
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
  // The job's threads: this one and the pool's; the reader's and the
  // writer's threads of the pipeline join the pool's jobs while they wait.
  const int threads = job_threads();
  TaskPool pool(threads - 1);
  if (log) log->set_executor(&pool);  // chunks inflate on the pool
  if (auto* h5 = dynamic_cast<H5Sink*>(sink.get())) h5->set_executor(&pool);
  // HDF5 on two threads at once (reading the input, writing the output)
  // needs a thread-safe libhdf5.
  const bool hdf5_both_ends = log && h5_out;
  const bool overlap = o.overlap && threads >= 2 && (kHdf5ThreadSafe || !hdf5_both_ends);
  visit_model(model.id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    run_model<M>(p, o.initial_state.value_or(0.0), *src, *sink, summary, model,
                 o.vector_math ? vector_kernel(model.id) : nullptr, pool,
                 o.block_rows     ? o.block_rows
                 : src->numeric() ? data::stream_block_rows(src->columns().size())  // whole chunks, 64 MiB at most
                                  : kTextBlock,
                 overlap);
  });
  if (summary.samples == 0) throw data::InputError(o.input + ": no data rows after the header");
  sink->commit();
  return summary;
}

}  // namespace stribeck::workloads
