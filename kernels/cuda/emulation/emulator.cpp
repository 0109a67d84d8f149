// The GPU block emulator's runtime (see cuda_runtime.h beside it).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cuda_runtime.h"

thread_local dim3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0}, blockDim, gridDim;

struct StribeckEmuStream {
  std::deque<std::function<void()>> queue;
  std::uint64_t done = 0;  // operations run so far
};
struct StribeckEmuEvent {
  cudaStream_t stream = nullptr;
  std::uint64_t position = 0;  // operations of `stream` before it
};

namespace stribeck_emu {
namespace {

// One lock for the whole runtime: the launch code is single-threaded per
// call; kernels' threads never call the runtime.
std::recursive_mutex g_mutex;
cudaError_t g_last = cudaSuccess;   // what cudaGetLastError returns
cudaError_t g_async = cudaSuccess;  // a failure of queued work, returned by the next synchronisation
std::string g_message;              // detail of the last error, returned by cudaGetErrorString

struct Allocation {
  std::size_t bytes;
  bool device;
};
std::map<const char*, Allocation> g_allocations;
std::size_t g_device_used = 0;
std::set<cudaStream_t> g_streams;
RuntimeCounts g_counts;

std::size_t parse_bytes(const char* s, std::size_t fallback) {
  if (!s || !*s) return fallback;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  double scale = 1;
  if (*end == 'K' || *end == 'k') scale = 1024.0;
  if (*end == 'M' || *end == 'm') scale = 1024.0 * 1024;
  if (*end == 'G' || *end == 'g') scale = 1024.0 * 1024 * 1024;
  return v > 0 ? static_cast<std::size_t>(v * scale) : fallback;
}
std::size_t device_bytes() { return parse_bytes(std::getenv("STRIBECK_GPU_EMU_MEMORY"), std::size_t(256) << 20); }
double barrier_timeout() {
  const char* s = std::getenv("STRIBECK_GPU_EMU_BARRIER_TIMEOUT_S");
  const double v = s ? std::atof(s) : 0;
  return v > 0 ? v : 20.0;
}

cudaError_t fail(cudaError_t e, std::string message) {
  g_last = e;
  g_message = std::move(message);
  return e;
}
// The error of work that ran on a stream: the synchronisation reports it once.
cudaError_t synchronised() {
  const cudaError_t e = g_async;
  g_async = cudaSuccess;
  return e;
}

// The allocation holding [p, p + bytes) (null when p is in none); `message`
// says what is wrong when p is inside one but the range overruns it.
const Allocation* find(const void* p, std::size_t bytes, std::string& message) {
  const char* c = static_cast<const char*>(p);
  auto it = g_allocations.upper_bound(c);
  if (it == g_allocations.begin()) return nullptr;
  --it;
  const std::size_t offset = static_cast<std::size_t>(c - it->first);
  if (offset >= it->second.bytes && !(offset == 0 && bytes == 0)) return nullptr;
  if (offset + bytes > it->second.bytes)
    message = std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " of a " +
              std::to_string(it->second.bytes) + "-byte " + (it->second.device ? "device" : "pinned") + " allocation";
  return &it->second;
}

// Whether [p, p + bytes) lies in a pinned host allocation.
bool pinned(const void* p, std::size_t bytes) {
  std::string overrun;
  const Allocation* a = find(p, bytes, overrun);
  return a && !a->device && overrun.empty();
}

// Checks a copy's or memset's ranges; empty when they are right.
std::string check_range(const char* call, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  std::string md, ms;
  const Allocation* ad = find(dst, bytes, md);
  const Allocation* as = src ? find(src, bytes, ms) : nullptr;
  if (!md.empty()) return std::string(call) + ": the destination overruns its allocation (" + md + ")";
  if (!ms.empty()) return std::string(call) + ": the source overruns its allocation (" + ms + ")";
  const bool dd = ad && ad->device, sd = as && as->device;
  if ((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice || !src) && !dd)
    return std::string(call) + ": the destination is not device memory";
  if ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) && !sd)
    return std::string(call) + ": the source is not device memory";
  if (kind == cudaMemcpyHostToDevice && sd) return std::string(call) + ": the source is device memory";
  if (kind == cudaMemcpyDeviceToHost && dd) return std::string(call) + ": the destination is device memory";
  return {};
}

// Runs the operations of `s` up to (not including) position `until`.
void run_stream(cudaStream_t s, std::uint64_t until) {
  while (s->done < until && !s->queue.empty()) {
    std::function<void()> op = std::move(s->queue.front());
    s->queue.pop_front();
    ++s->done;
    op();
  }
}
void run_stream(cudaStream_t s) { run_stream(s, ~std::uint64_t(0)); }

void enqueue(cudaStream_t s, std::function<void()> op) {
  if (!s) op();
  else s->queue.push_back(std::move(op));
}

// A launch failed inside a kernel: every thread of the block unwinds.
struct Abort {};

// The threads of one block meeting at barriers (__syncthreads and its votes).
// Each thread counts the barriers it has passed: all the threads waiting at
// one barrier must have passed the same number, and a thread that ends its
// kernel must have passed every barrier another thread of its block reaches.
class Block {
 public:
  explicit Block(unsigned n) : n_(n), passed_(n, 0), state_(n, kRunning) {}

  void start(unsigned block) {
    std::lock_guard<std::mutex> l(m_);
    block_ = block;
    live_ = n_;
    arrived_ = 0;
    count_ = 0;
    std::fill(passed_.begin(), passed_.end(), 0);
    std::fill(state_.begin(), state_.end(), kRunning);
  }

  int sync(unsigned t, int predicate, const char* file, int line) {
    std::unique_lock<std::mutex> l(m_);
    if (failed_) throw Abort{};
    const long mine = passed_[t];
    const std::string site = std::string(file) + ":" + std::to_string(line);
    if (arrived_ > 0 && (mine != current_ || site != site_))
      return fail(l, "thread " + std::to_string(t) + " reached barrier #" + std::to_string(mine) + " at " + site +
                         " while " + waiting_list() + " wait at barrier #" + std::to_string(current_) + " at " + site_ +
                         " (a barrier skipped by some threads of the block)");
    for (unsigned u = 0; u < n_; ++u)
      if (state_[u] == kExited && passed_[u] <= mine)
        return fail(l, "thread " + std::to_string(t) + " reached barrier #" + std::to_string(mine) + ", which thread " +
                           std::to_string(u) + " skipped: it ended the kernel after " + std::to_string(passed_[u]) +
                           " barrier(s)");
    current_ = mine;
    site_ = site;
    ++arrived_;
    count_ += predicate != 0;
    state_[t] = kWaiting;
    if (arrived_ == live_) return release(t);
    const long gen = generation_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(barrier_timeout());
    while (generation_ == gen && !failed_) {
      if (cv_.wait_until(l, deadline) == std::cv_status::timeout && generation_ == gen && !failed_) {
        std::string missing;
        for (unsigned u = 0; u < n_; ++u)
          if (state_[u] == kRunning) missing += (missing.empty() ? "" : ", ") + std::to_string(u);
        return fail(l, "barrier #" + std::to_string(mine) + " timed out after " + std::to_string(barrier_timeout()) +
                           " s: thread " + std::to_string(t) + " waits, threads " + missing + " never arrived");
      }
    }
    if (failed_) throw Abort{};
    return result_;
  }

  // Thread t returned from the kernel (or unwound).
  void exit(unsigned t) {
    std::unique_lock<std::mutex> l(m_);
    state_[t] = kExited;
    --live_;
    if (failed_ || arrived_ == 0) return;
    // Threads wait at a barrier this thread never reached.
    failed_ = true;
    error_ = "block " + std::to_string(block_) + ": thread " + std::to_string(t) + " ended the kernel after " +
             std::to_string(passed_[t]) + " barrier(s) while " + waiting_list() + " wait at barrier #" +
             std::to_string(current_) + " at " + site_ + " (a barrier skipped by some threads of the block)";
    cv_.notify_all();
  }

  bool failed(std::string& error) {
    std::lock_guard<std::mutex> l(m_);
    error = error_;
    return failed_;
  }
  void fail_with(const std::string& e) {
    std::lock_guard<std::mutex> l(m_);
    if (!failed_) error_ = "block " + std::to_string(block_) + ": " + e;
    failed_ = true;
    cv_.notify_all();
  }

 private:
  enum State : char { kRunning, kWaiting, kExited };

  int release(unsigned t) {
    result_ = count_;
    count_ = 0;
    arrived_ = 0;
    ++generation_;
    for (unsigned u = 0; u < n_; ++u)
      if (state_[u] == kWaiting) {
        state_[u] = kRunning;
        ++passed_[u];
      }
    cv_.notify_all();
    return result_;
  }
  [[noreturn]] int fail(std::unique_lock<std::mutex>&, const std::string& e) {
    if (!failed_) error_ = "block " + std::to_string(block_) + ": " + e;
    failed_ = true;
    cv_.notify_all();
    throw Abort{};
  }
  std::string waiting_list() const {
    std::string s;
    int k = 0;
    for (unsigned u = 0; u < n_; ++u)
      if (state_[u] == kWaiting && k++ < 8) s += (s.empty() ? "" : ", ") + std::to_string(u);
    return (k == 1 ? "thread " : "threads ") + s + (k > 8 ? ", ..." : "");
  }

  std::mutex m_;
  std::condition_variable cv_;
  const unsigned n_;
  unsigned block_ = 0, live_ = 0, arrived_ = 0;
  int count_ = 0, result_ = 0;
  long current_ = 0, generation_ = 0;
  std::string site_;  // where the threads waiting now called the barrier
  std::vector<long> passed_;
  std::vector<State> state_;
  bool failed_ = false;
  std::string error_;
};

// The block and thread the calling kernel thread runs.
thread_local Block* t_block = nullptr;
thread_local unsigned t_thread = 0;

// Rendezvous of a launch's threads at the end of each block.
class EndOfBlock {
 public:
  explicit EndOfBlock(unsigned n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> l(m_);
    const long gen = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(l, [&] { return generation_ != gen; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  const unsigned n_;
  unsigned arrived_ = 0;
  long generation_ = 0;
};

// Threads kept between launches (a launch of the top-K selection is over in
// microseconds; creating its threads would cost more). Never destroyed: the
// workers wait for work until the process ends.
class Pool {
 public:
  // Runs f(0) ... f(n - 1) on n workers and waits for all of them.
  void run(unsigned n, const std::function<void(unsigned)>& f) {
    std::unique_lock<std::mutex> l(m_);
    while (workers_.size() < n) {
      const unsigned i = static_cast<unsigned>(workers_.size());
      workers_.emplace_back([this, i] { work(i); });
      workers_.back().detach();
    }
    job_ = &f;
    threads_ = n;
    finished_ = 0;
    ++id_;
    cv_.notify_all();
    done_.wait(l, [&] { return finished_ == threads_; });
    job_ = nullptr;
  }

 private:
  void work(unsigned i) {
    long seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* job;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return id_ != seen && i < threads_; });
        seen = id_;
        job = job_;
      }
      (*job)(i);
      std::lock_guard<std::mutex> l(m_);
      if (++finished_ == threads_) done_.notify_one();
    }
  }
  std::mutex m_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned threads_ = 0, finished_ = 0;
  long id_ = 0;
};
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

// Runs a whole launch: blockDim threads, each running its thread of every
// block in turn. Returns the error (empty when none).
std::string run_launch(dim3 grid, dim3 block, const std::function<void()>& body) {
  const unsigned threads = block.x * block.y * block.z;
  const unsigned blocks = grid.x * grid.y * grid.z;
  Block b(threads);
  EndOfBlock end(threads);
  std::string error;
  bool stop = false;
  b.start(0);
  const std::function<void(unsigned)> worker = [&](unsigned t) {
    t_block = &b;
    t_thread = t;
    blockDim = block;
    gridDim = grid;
    threadIdx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
    for (unsigned k = 0; k < blocks; ++k) {
      blockIdx = dim3(k % grid.x, k / grid.x % grid.y, k / (grid.x * grid.y));
      try {
        body();
      } catch (const Abort&) {
      } catch (const std::exception& e) {
        b.fail_with("thread " + std::to_string(t) + " threw: " + e.what());
      }
      b.exit(t);
      end.arrive_and_wait();  // every thread is done with block k
      if (t == 0) {
        stop = b.failed(error);
        if (!stop && k + 1 < blocks) b.start(k + 1);
      }
      end.arrive_and_wait();  // the next block is set up (or the launch stops)
      if (stop) break;
    }
    t_block = nullptr;
  };
  pool().run(threads, worker);
  return error;
}

Block& current_block() {
  if (!t_block) {
    std::fprintf(stderr, "stribeck GPU emulator: a barrier called outside a kernel\n");
    std::abort();
  }
  return *t_block;
}

}  // namespace

void enqueue_launch(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535) {
    fail(cudaErrorInvalidConfiguration, "invalid configuration argument (grid " + std::to_string(grid.x) + "x" +
                                            std::to_string(grid.y) + "x" + std::to_string(grid.z) + ", block of " +
                                            std::to_string(threads) + " threads)");
    return;
  }
  ++g_counts.launches;
  enqueue(stream, [grid, block, body = std::move(body)] {
    const std::string error = run_launch(grid, block, body);
    if (!error.empty()) g_async = fail(cudaErrorLaunchFailure, "kernel failed: " + error);
  });
}

void enqueue_device_work(cudaStream_t stream, std::function<void()> work) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  enqueue(stream, std::move(work));
}

cudaError_t check_device_range(const char* call, const void* p, std::size_t bytes) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  std::string overrun;
  const Allocation* a = find(p, bytes, overrun);
  if (!overrun.empty())
    return fail(cudaErrorInvalidValue, std::string(call) + ": the range overruns its allocation (" + overrun + ")");
  if (!a || !a->device) return fail(cudaErrorInvalidValue, std::string(call) + ": not device memory");
  return cudaSuccess;
}

cudaError_t invalid_value(const char* message) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  return fail(cudaErrorInvalidValue, message);
}

}  // namespace stribeck_emu

using namespace stribeck_emu;

void __syncthreads(const char* file, int line) { current_block().sync(t_thread, 0, file, line); }
int __syncthreads_count(int predicate, const char* file, int line) {
  return current_block().sync(t_thread, predicate, file, line);
}
int __syncthreads_or(int predicate, const char* file, int line) {
  return current_block().sync(t_thread, predicate, file, line) != 0;
}
int __syncthreads_and(int predicate, const char* file, int line) {
  return current_block().sync(t_thread, predicate, file, line) ==
         static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}

cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice, "invalid device ordinal");
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "Stribeck GPU block emulator");
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 1;
  p->maxThreadsPerBlock = 1024;
  p->warpSize = 32;
  p->totalGlobalMem = device_bytes();
  p->sharedMemPerBlock = 48 * 1024;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice, "invalid device ordinal");
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  ++g_counts.host_syncs;
  for (cudaStream_t s : g_streams) run_stream(s);
  return synchronised();
}
cudaError_t cudaGetLastError() {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  const cudaError_t e = g_last;
  g_last = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return g_last; }
const char* cudaGetErrorString(cudaError_t e) {
  if (e == cudaSuccess) return "no error";
  static thread_local std::string s;
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  s = g_message.empty() ? "emulated CUDA error " + std::to_string(static_cast<int>(e)) : g_message;
  return s.c_str();
}

namespace {
cudaError_t allocate(void** p, std::size_t bytes, bool device) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  ++(device ? g_counts.device_allocations : g_counts.host_allocations);
  if (device && bytes > device_bytes() - std::min(device_bytes(), g_device_used))
    return fail(cudaErrorMemoryAllocation, "out of memory: " + std::to_string(bytes) + " bytes requested, " +
                                               std::to_string(device_bytes() - g_device_used) + " free");
  void* m = std::malloc(bytes ? bytes : 1);
  if (!m) return fail(cudaErrorMemoryAllocation, "out of memory");
  std::memset(m, 0xff, bytes);  // never-written values read as NaN
  g_allocations[static_cast<const char*>(m)] = Allocation{bytes, device};
  if (device) g_device_used += bytes;
  *p = m;
  return cudaSuccess;
}
cudaError_t release(void* p, bool device) {
  if (!p) return cudaSuccess;
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  for (cudaStream_t s : g_streams) run_stream(s);  // cudaFree synchronises the device
  auto it = g_allocations.find(static_cast<const char*>(p));
  if (it == g_allocations.end() || it->second.device != device)
    return fail(cudaErrorInvalidValue, std::string(device ? "cudaFree" : "cudaFreeHost") +
                                           ": not the start of a live allocation of that kind");
  if (device) g_device_used -= it->second.bytes;
  g_allocations.erase(it);
  std::free(p);
  return cudaSuccess;
}
}  // namespace

stribeck_emu::RuntimeCounts stribeck_emu::runtime_counts() {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  return g_counts;
}

cudaError_t cudaMalloc(void** p, std::size_t bytes) { return allocate(p, bytes, true); }
cudaError_t cudaFree(void* p) { return release(p, true); }
cudaError_t cudaMallocHost(void** p, std::size_t bytes) { return allocate(p, bytes, false); }
cudaError_t cudaFreeHost(void* p) { return release(p, false); }
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  *total_bytes = device_bytes();
  *free_bytes = *total_bytes - std::min(*total_bytes, g_device_used);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  if (bytes == 0) return cudaSuccess;
  const std::string error = check_range("cudaMemcpy", dst, src, bytes, kind);
  if (!error.empty()) return fail(cudaErrorInvalidValue, error);
  // To pageable memory the call returns once the copy is done: it waits.
  if (kind == cudaMemcpyDeviceToHost && !pinned(dst, bytes)) ++g_counts.host_syncs;
  enqueue(s, [dst, src, bytes] { std::memcpy(dst, src, bytes); });
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, nullptr);
  // Blocking into pinned memory too (cudaMemcpyAsync counted pageable memory).
  if (e == cudaSuccess && bytes && kind == cudaMemcpyDeviceToHost && pinned(dst, bytes)) ++g_counts.host_syncs;
  return e;
}
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  if (bytes == 0) return cudaSuccess;
  const std::string error = check_range("cudaMemset", dst, nullptr, bytes, cudaMemcpyHostToDevice);
  if (!error.empty()) return fail(cudaErrorInvalidValue, error);
  enqueue(s, [dst, value, bytes] { std::memset(dst, value, bytes); });
  return cudaSuccess;
}
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) { return cudaMemsetAsync(dst, value, bytes, nullptr); }

cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamDefault); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  ++g_counts.streams_created;
  *s = new StribeckEmuStream;
  g_streams.insert(*s);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  if (!g_streams.count(s)) return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a live stream");
  run_stream(s);  // queued work completes, as on a GPU
  g_streams.erase(s);
  delete s;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  ++g_counts.host_syncs;
  if (s && !g_streams.count(s)) return fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: not a live stream");
  if (s) run_stream(s);
  return synchronised();
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new StribeckEmuEvent;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  e->stream = s;
  e->position = s ? s->done + s->queue.size() : 0;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  ++g_counts.host_syncs;
  if (e->stream) run_stream(e->stream, e->position);
  return synchronised();
}
cudaError_t cudaEventQuery(cudaEvent_t e) { return cudaEventSynchronize(e); }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mutex);
  const cudaStream_t other = e->stream;
  const std::uint64_t position = e->position;
  enqueue(s, [other, position] {
    if (other) run_stream(other, position);
  });
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0;  // the emulator has no device clock
  return cudaSuccess;
}
