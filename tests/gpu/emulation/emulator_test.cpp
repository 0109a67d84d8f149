// The GPU block emulator itself (stribeck_gpu_emu_tests only): shared tiles
// and block votes behave as on a GPU, a skipped barrier is reported with its
// block and thread, copies out of range and work never waited for show.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../unit/common/temp_dir.hpp"
#include "column.cuh"
#include "gpu_layer.cuh"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck::gpu {
namespace {

// A 1 MiB emulated device for every test of this binary (unless the
// environment says otherwise): the launch code splits every sweep and
// ensemble of the GPU tests into several sub-chunks.
const int kSmallDevice = setenv("STRIBECK_GPU_EMU_MEMORY", "1M", 0);

// Each block reverses its slice of `in` through a shared tile (a thread reads
// what another wrote: wrong without the barrier), and records the votes.
__global__ void reverse_and_vote(const int* in, int* out, int* votes, int n) {
  __shared__ int tile[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : -1;
  __syncthreads();
  const int mirrored = tile[blockDim.x - 1 - threadIdx.x];
  const int any = __syncthreads_or(mirrored > 100);
  const int all = __syncthreads_and(mirrored >= 0);
  const int count = __syncthreads_count(mirrored % 2 == 0);
  if (i < n) out[i] = mirrored;
  if (threadIdx.x == 0) {
    votes[3 * blockIdx.x] = any;
    votes[3 * blockIdx.x + 1] = all;
    votes[3 * blockIdx.x + 2] = count;
  }
}

TEST(Emulator, SharedTilesAndBlockVotesBehaveAsOnAGpu) {
  const int n = 150;  // 3 blocks of 64, the last one partial
  std::vector<int> in(n), out(n), votes(9);
  for (int i = 0; i < n; ++i) in[i] = i;
  DeviceBuffer<int> d_in, d_out, d_votes;
  d_in.ensure(n, "in");
  d_out.ensure(n, "out");
  d_votes.ensure(9, "votes");
  ASSERT_EQ(cudaMemcpy(d_in.get(), in.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  Stream s;
  launch<Policy<64>>(&reverse_and_vote, n, s.get(), "reverse", d_in.get(), d_out.get(), d_votes.get(), n);
  ASSERT_EQ(cudaMemcpyAsync(out.data(), d_out.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s.get()), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(votes.data(), d_votes.get(), 9 * sizeof(int), cudaMemcpyDeviceToHost, s.get()),
            cudaSuccess);
  s.sync("reverse");
  for (int i = 0; i < n; ++i) {
    const int b = i / 64, t = i % 64, j = b * 64 + 63 - t;
    EXPECT_EQ(out[i], j < n ? j : -1) << i;
  }
  // Block 0 holds 0..63, block 1 64..127, block 2 128..149 and 42 threads of -1.
  EXPECT_EQ(votes[0], 0);
  EXPECT_EQ(votes[1], 1);
  EXPECT_EQ(votes[2], 32);
  EXPECT_EQ(votes[3], 1);
  EXPECT_EQ(votes[4], 1);
  EXPECT_EQ(votes[5], 32);
  EXPECT_EQ(votes[6], 1);
  EXPECT_EQ(votes[7], 0);
  EXPECT_EQ(votes[8], 11);  // 128, 130, ..., 148
}

// Thread 5 of block 2 skips the first barrier.
__global__ void skips_a_barrier(int* out) {
  __shared__ int tile[32];
  tile[threadIdx.x] = static_cast<int>(threadIdx.x);
  if (!(blockIdx.x == 2 && threadIdx.x == 5)) __syncthreads();
  __syncthreads();
  out[blockIdx.x * 32 + threadIdx.x] = tile[31 - threadIdx.x];
}

// Thread 7 of block 1 returns before the barrier the others reach.
__global__ void exits_before_a_barrier(int* out) {
  if (blockIdx.x == 1 && threadIdx.x == 7) return;
  __syncthreads();
  out[blockIdx.x * 32 + threadIdx.x] = 1;
}

TEST(Emulator, ASkippedBarrierFailsTheLaunchNamingBlockAndThread) {
  DeviceBuffer<int> d;
  d.ensure(4 * 32, "out");
  Stream s;
  launch<Policy<32>>(&skips_a_barrier, 4 * 32, s.get(), "skip", d.get());
  try {
    s.sync("skip");
    FAIL() << "the skipped barrier went unnoticed";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("block 2"), std::string::npos) << m;
    EXPECT_NE(m.find("thread 5"), std::string::npos) << m;
    EXPECT_NE(m.find("barrier #"), std::string::npos) << m;
  }
  cudaGetLastError();
  launch<Policy<32>>(&exits_before_a_barrier, 2 * 32, s.get(), "exit", d.get());
  try {
    s.sync("exit");
    FAIL() << "the early return went unnoticed";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("block 1"), std::string::npos) << m;
    EXPECT_NE(m.find("thread 7"), std::string::npos) << m;
  }
  cudaGetLastError();
}

TEST(Emulator, CopiesOutsideAnAllocationAreRefused) {
  DeviceBuffer<double> d;
  d.ensure(10, "d");
  std::vector<double> h(11);
  EXPECT_EQ(cudaMemcpy(d.get(), h.data(), 11 * sizeof(double), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_NE(std::string(cudaGetErrorString(cudaErrorInvalidValue)).find("overruns"), std::string::npos);
  cudaGetLastError();
  EXPECT_EQ(cudaMemcpy(d.get() + 1, h.data(), 10 * sizeof(double), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  cudaGetLastError();
  // A host pointer where device memory belongs.
  EXPECT_EQ(cudaMemcpy(h.data(), h.data() + 1, sizeof(double), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaMemcpy(d.get(), h.data(), 10 * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
}

TEST(Emulator, FreeMemoryFollowsAllocationsAndTheDeviceSize) {
  std::size_t free0 = 0, total = 0, free1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  if (std::string(std::getenv("STRIBECK_GPU_EMU_MEMORY")) == "1M") EXPECT_EQ(total, std::size_t(1) << 20);
  {
    DeviceBuffer<char> d;
    d.ensure(1 << 18, "d");
    ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
    EXPECT_EQ(free0 - free1, std::size_t(1) << 18);
    DeviceBuffer<char> too_big;
    EXPECT_THROW(too_big.ensure(free1 + 1, "too big"), std::runtime_error);
    cudaGetLastError();
  }
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  EXPECT_EQ(free1, free0);
}

__global__ void fill(int* out, int value) { out[threadIdx.x] = value; }

TEST(Emulator, StreamWorkRunsOnlyWhenWaitedFor) {
  DeviceBuffer<int> d;
  d.ensure(8, "d");
  PinnedBuffer<int> h;
  h.ensure(8, "h");
  for (int i = 0; i < 8; ++i) h.get()[i] = 0;
  Stream s;
  launch<Policy<8>>(&fill, 8, s.get(), "fill", d.get(), 7);
  ASSERT_EQ(cudaMemcpyAsync(h.get(), d.get(), 8 * sizeof(int), cudaMemcpyDeviceToHost, s.get()), cudaSuccess);
  EXPECT_EQ(h.get()[3], 0);  // not waited for yet: a GPU may not have run it either
  s.sync("fill");
  EXPECT_EQ(h.get()[3], 7);
}

TEST(Emulator, HostSynchronisationsAreCounted) {
  DeviceBuffer<double> d;
  d.ensure(4, "d");
  PinnedBuffer<double> pinned;
  pinned.ensure(4, "pinned");
  std::vector<double> pageable(4);
  Stream s;
  auto syncs = [] { return stribeck_emu::runtime_counts().host_syncs; };
  const long start = syncs();
  // Queued copies into pinned memory and kernels do not wait...
  ASSERT_EQ(cudaMemcpyAsync(pinned.get(), d.get(), 4 * sizeof(double), cudaMemcpyDeviceToHost, s.get()), cudaSuccess);
  launch<Policy<8>>(&fill, 8, s.get(), "fill", reinterpret_cast<int*>(d.get()), 1);
  EXPECT_EQ(syncs(), start);
  // ...a copy into pageable memory does (it returns once the copy is done),
  ASSERT_EQ(cudaMemcpyAsync(pageable.data(), d.get(), 4 * sizeof(double), cudaMemcpyDeviceToHost, s.get()),
            cudaSuccess);
  EXPECT_EQ(syncs(), start + 1);
  // as do a blocking copy to the host, into pinned memory or not, and every wait.
  ASSERT_EQ(cudaMemcpy(pinned.get(), d.get(), 4 * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pageable.data(), d.get(), 4 * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(syncs(), start + 3);
  s.sync("wait");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s.get()), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(syncs(), start + 6);
  // Uploads do not wait for the device.
  ASSERT_EQ(cudaMemcpyAsync(d.get(), pageable.data(), 4 * sizeof(double), cudaMemcpyHostToDevice, s.get()),
            cudaSuccess);
  EXPECT_EQ(syncs(), start + 6);
  s.sync("upload");
}

// The emulated CUB calls the launch code makes (emulation/cub/) keep CUB's
// contract: a first call without storage says how much they need, too little
// is refused, and the work is queued on the stream: a histogram of one
// column of a row table (a value outside the levels falls in no bin) and an
// integer sum of another, read in place through gpu::Column, against counts
// and a sum computed here from the formula that filled the rows.
TEST(Emulator, CubHistogramAndSumOfAColumnRunOnTheStream) {
  const int n = 300, width = 3;
  std::vector<double> rows(n * width);
  for (int i = 0; i < n; ++i) {
    rows[i * width + 1] = i % 6;  // 5 is above the levels
    rows[i * width + 2] = 3.0 * i;
  }
  DeviceBuffer<double> d_rows;
  d_rows.ensure(rows.size(), "rows");
  ASSERT_EQ(cudaMemcpy(d_rows.get(), rows.data(), rows.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  DeviceBuffer<unsigned long long> d_out;
  d_out.ensure(6, "out");
  PinnedBuffer<unsigned long long> h_out;
  h_out.ensure(6, "h_out");
  for (int b = 0; b < 6; ++b) h_out.get()[b] = 0;
  const Column<int> bins = column<int>(d_rows.get(), width, 1);
  const Column<unsigned long long> values = column<unsigned long long>(d_rows.get(), width, 2);
  std::size_t hist_bytes = 0, sum_bytes = 0;
  ASSERT_EQ(cub::DeviceHistogram::HistogramEven(nullptr, hist_bytes, bins, d_out.get(), 6, 0, 5, n), cudaSuccess);
  ASSERT_EQ(cub::DeviceReduce::Sum(nullptr, sum_bytes, values, d_out.get() + 5, n), cudaSuccess);
  ASSERT_GT(hist_bytes, 0u);
  ASSERT_GT(sum_bytes, 0u);
  DeviceBuffer<unsigned char> temp;
  temp.ensure(std::max(hist_bytes, sum_bytes), "temp");
  std::size_t too_little = hist_bytes - 1;
  EXPECT_EQ(cub::DeviceHistogram::HistogramEven(temp.get(), too_little, bins, d_out.get(), 6, 0, 5, n),
            cudaErrorInvalidValue);
  // The emulator keeps the refusal as the last error (as its runtime calls
  // do): cleared here, or the next launch check would report it.
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  Stream s;
  std::size_t bytes = temp.size();
  ASSERT_EQ(cub::DeviceHistogram::HistogramEven(temp.get(), bytes, bins, d_out.get(), 6, 0, 5, n, s.get()),
            cudaSuccess);
  bytes = temp.size();
  ASSERT_EQ(cub::DeviceReduce::Sum(temp.get(), bytes, values, d_out.get() + 5, n, s.get()), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h_out.get(), d_out.get(), 6 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s.get()),
            cudaSuccess);
  EXPECT_EQ(h_out.get()[5], 0u);  // not waited for yet
  s.sync("counts");
  // 300 = 6 x 50: 50 points of each value 0..5, the 50 fives in no bin.
  for (int b = 0; b < 5; ++b) EXPECT_EQ(h_out.get()[b], 50u) << b;
  EXPECT_EQ(h_out.get()[5], 3ull * n * (n - 1) / 2);
}

// The sweep of ASweepRun... below: 70 points of coulomb-viscous over a
// 500-sample trace (a list axis among them).
workloads::SweepConfig small_sweep() {
  workloads::SweepConfig c;
  c.model = "coulomb-viscous";
  for (const char* p : {"F_C=linear:5:40:7", "f_v=linear:0:300:5", "v_eps=list:0.001,0.002"})
    workloads::apply_param_flag(c, p);
  workloads::TraceSource t;
  t.kind = workloads::TraceSource::kProfile;
  t.name = "sine";
  t.profile.amplitude = 0.1;
  t.profile.frequency = 1.0;
  t.profile.samples = 500;
  t.profile.reference = {"F_C=20"};
  t.profile.noise = 0.3;
  c.traces.push_back(t);
  return c;
}

// A run waits for the device a bounded number of times per chunk: once per
// device sub-chunk (its rows are drained to the host once its stream is
// done) and once for the list axis's upload; besides, per run, once for the
// device probe (an empty kernel launched and waited for), once for the trace
// upload (the traces stay on the device across chunks) and once per stream
// when the workspace goes. Nothing else blocks the host: results are copied
// into pinned staging.
TEST(Emulator, ASweepRunWaitsForTheDeviceOncePerSubChunk) {
  workloads::SweepConfig c = small_sweep();
  for (bool top_k_only : {false, true}) {
    c.keep_top_k_only = top_k_only;
    const workloads::SweepPlan p = workloads::plan_sweep(c);
    ASSERT_EQ(p.count, 70u);
    workloads::SweepRunOptions o;
    o.device = "gpu";
    o.chunk = 14;  // 5 chunks
    const stribeck_emu::RuntimeCounts before = stribeck_emu::runtime_counts();
    const workloads::SweepSummary s = workloads::run_sweep(p, c, o);
    const stribeck_emu::RuntimeCounts after = stribeck_emu::runtime_counts();
    ASSERT_EQ(s.completed, 70u);
    // 14 points are one sub-chunk (sub-chunks are whole blocks of 128
    // points): rows mode launches one kernel per sub-chunk besides the probe.
    const long chunks = 5, sub_chunks = 5;
    if (!top_k_only) EXPECT_EQ(after.launches - before.launches - 1, sub_chunks);
    // The top-K selection adds no wait: it is queued on the sub-chunk's
    // stream and its rows come back with the sub-chunk's.
    EXPECT_LE(after.host_syncs - before.host_syncs, sub_chunks + chunks + 1 + 1 + 2) << "top-K only: " << top_k_only;
  }
}

// A run holds one workspace across its chunks (sweep_cuda.hpp): however
// many chunks, its streams are created once and its pinned staging
// allocated once. Before runs held one, each of the 5 chunks below created
// two streams and its own buffers.
TEST(Emulator, ASweepRunAllocatesOneWorkspaceForAllItsChunks) {
  workloads::SweepConfig c = small_sweep();
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  ASSERT_EQ(plan.count, 70u);
  for (bool top_k_only : {false, true}) {
    c.keep_top_k_only = top_k_only;
    const workloads::SweepPlan p = workloads::plan_sweep(c);
    workloads::SweepRunOptions o;
    o.device = "gpu";
    o.chunk = 14;  // 5 chunks
    const stribeck_emu::RuntimeCounts before = stribeck_emu::runtime_counts();
    const workloads::SweepSummary s = workloads::run_sweep(p, c, o);
    const stribeck_emu::RuntimeCounts after = stribeck_emu::runtime_counts();
    ASSERT_EQ(s.completed, 70u);
    EXPECT_EQ(after.streams_created - before.streams_created, 2) << "top-K only: " << top_k_only;
    // Two pinned staging buffers per stream (rows, status), each allocated
    // once: the chunks are of equal size.
    EXPECT_LE(after.host_allocations - before.host_allocations, 4) << "top-K only: " << top_k_only;
  }
}

// An ensemble run holds one workspace across its chunks as a sweep does:
// two streams, and per stream one pinned staging of rows and one of the
// counts the device reduces (CUB), each allocated once. Its counts equal
// the CPU's tally.
TEST(Emulator, AnEnsembleRunAllocatesOneWorkspaceForAllItsChunks) {
  const std::string path = stribeck::test::write_temp_file("emu_ensemble_workspace.toml", R"(
[system]
mass = 1.0
[friction]
model = "coulomb-viscous"
[friction.params]
F_C = 15.0
f_v = 1.0
v_eps = 0.001
[simulation]
t_end = 0.5
dt = 1e-3
[ensemble]
device = "gpu"
[ensemble.params]
stiffness = "log:2e3:2e4:5"
drive_velocity = "linear:0.05:0.2:14"
)");
  const workloads::SimulateConfig c = workloads::read_simulate_config(path);
  workloads::EnsembleRunOptions o;
  o.chunk = 14;  // 5 chunks of the 70 points
  const stribeck_emu::RuntimeCounts before = stribeck_emu::runtime_counts();
  const workloads::EnsembleResult r = workloads::run_ensemble(c, o);
  const stribeck_emu::RuntimeCounts after = stribeck_emu::runtime_counts();
  ASSERT_EQ(r.totals.completed, 70u);
  EXPECT_EQ(after.streams_created - before.streams_created, 2);
  EXPECT_LE(after.host_allocations - before.host_allocations, 4);
  long long steps = 0;
  for (const auto& m : r.metrics) steps += m.steps;
  EXPECT_EQ(r.rk4_steps, steps);
  EXPECT_EQ(r.totals.count(engine::PointStatus::kOk), 70u);
}

}  // namespace
}  // namespace stribeck::gpu
