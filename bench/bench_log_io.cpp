// Log I/O throughput: write_log/read_log (HDF5, chunked+shuffle+deflate) and
// CSV export/import, next to h5py and numpy.loadtxt on the same files in the
// same run. Usage: bench_log_io [samples=2000000] [workdir=/tmp]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>

#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/kernels/registry.hpp"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 2000000;
  const std::string dir = argc > 2 ? argv[2] : "/tmp";
  const std::string h5 = dir + "/bench_log_io.h5", csv = dir + "/bench_log_io.csv",
                    peer_h5 = dir + "/bench_log_io_peer.h5";
  stribeck::workloads::GeneratorOptions o;
  o.model = "simscape-cylinder";
  o.params = stribeck::find_model(o.model)->defaults();
  o.profile = "sine-sweep";
  o.rate_hz = 1000;
  o.duration = (n - 1) / 1000.0;
  o.pressure_levels = {3e5};
  o.noise = {{"force", 0.5}, {"position", 1e-6}, {"pressure_a", 1000}};
  const auto exps = stribeck::workloads::generate_log(o);
  const long samples = static_cast<long>(exps[0].size());
  const long channels = static_cast<long>(exps[0].channels.size());
  std::printf("experiment: %ld samples x %ld channels (%.1f MB of float64)\n", samples, channels,
              samples * channels * 8 / 1e6);

  const double w = best_of(3, [&] { stribeck::data::write_log(h5, exps, stribeck::data::Provenance{}); });
  const double r = best_of(3, [&] { stribeck::data::read_log(h5); });
  const double we = best_of(1, [&] { stribeck::data::write_csv(csv, exps[0]); });
  const double re = best_of(1, [&] { stribeck::data::read_any_log(csv); });
  const auto size = [](const std::string& p) {
    FILE* f = std::fopen(p.c_str(), "rb");
    std::fseek(f, 0, SEEK_END);
    const long s = std::ftell(f);
    std::fclose(f);
    return s / 1e6;
  };
  std::printf("stribeck write_log (HDF5)   %8.3f s  %7.1f M samples/s  file %.1f MB\n", w, samples / w / 1e6, size(h5));
  std::printf("stribeck read_log (HDF5)    %8.3f s  %7.1f M samples/s\n", r, samples / r / 1e6);
  std::printf("stribeck export (CSV)       %8.3f s  %7.1f M samples/s  file %.1f MB\n", we, samples / we / 1e6,
              size(csv));
  std::printf("stribeck import (CSV)       %8.3f s  %7.1f M samples/s\n", re, samples / re / 1e6);
  std::fflush(stdout);

  // Peers in the same run: h5py with the same layout (same libhdf5), and
  // numpy.loadtxt on the exported CSV.
  const std::string py = R"(
import sys, time, h5py, numpy as np
src, dst, csv = sys.argv[1], sys.argv[2], sys.argv[3]
with h5py.File(src, 'r') as f:
    g = f[list(f.keys())[0]]
    data = {k: g[k][...] for k in g.keys()}
n = len(data['time'])
def write():
    with h5py.File(dst, 'w') as f:
        g = f.create_group('p3bar')
        for k, v in data.items():
            d = g.create_dataset(k, data=v, chunks=(min(n, 65536),), shuffle=True, compression='gzip', compression_opts=4)
            d.attrs['units'] = 'x'
def read():
    with h5py.File(dst, 'r') as f:
        g = f['p3bar']
        out = {k: g[k][...] for k in g.keys()}
        assert all(np.isfinite(v).all() for v in out.values()) and np.all(np.diff(out['time']) > 0)
best = lambda fn: min((lambda t0: (fn(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
w, r = best(write), best(read)
head = 0
for line in open(csv):
    if not line.startswith('#'):
        break
    head += 1
t0 = time.perf_counter(); a = np.loadtxt(csv, delimiter=',', skiprows=head + 1); lt = time.perf_counter() - t0
assert a.shape[0] == n
print(f"h5py write (same layout)    {w:8.3f} s  {n / w / 1e6:7.1f} M samples/s")
print(f"h5py read + validate        {r:8.3f} s  {n / r / 1e6:7.1f} M samples/s")
print(f"numpy.loadtxt (CSV)         {lt:8.3f} s  {n / lt / 1e6:7.1f} M samples/s")
)";
  const std::string script = dir + "/bench_log_io_peer.py";
  FILE* f = std::fopen(script.c_str(), "w");
  std::fputs(py.c_str(), f);
  std::fclose(f);
  const int rc = std::system(("/usr/bin/python3 " + script + " " + h5 + " " + peer_h5 + " " + csv).c_str());
  for (const auto& p : {h5, csv, peer_h5, script}) std::remove(p.c_str());
  return rc == 0 ? 0 : 1;
}
