// Throughput of `stribeck eval` (CSV -> simscape-cylinder force -> CSV) on a
// generated trace, next to the NumPy peer bench/peers/eval_numpy.py doing the
// same pipeline, in one run. Also checks that both outputs agree.
//
//   build/bin/bench_eval [--samples N] [--repeat R] [--no-peer] [--keep DIR]
//
// The input (time, velocity, pressure_a, pressure_b; 9 significant digits, as
// a rig logger writes them) is generated in a temporary directory, never in
// the repository, and removed afterwards unless --keep is given.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const char* const kParams = "K_brk=1.5 F_pr=50";  // same for stribeck and the peer

// CPU seconds (user + system) used so far by waited-for children.
double children_cpu() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Timing {
  double wall;  // elapsed seconds
  double cpu;   // CPU seconds of the command: less sensitive to other load on the machine
};

Timing time_of(const std::string& cmd) {
  const double c0 = children_cpu();
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  const auto t1 = std::chrono::steady_clock::now();
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_eval: command failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return {std::chrono::duration<double>(t1 - t0).count(), children_cpu() - c0};
}

void append(std::string& s, double x) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 9);
  s.append(buf, r.ptr);
}

// A 1 kHz trace: a slow velocity sweep through zero with pressures following it.
void write_input(const fs::path& path, long n) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::string s = "time,velocity,pressure_a,pressure_b\n";
  for (long i = 0; i < n; ++i) {
    const double t = i * 1e-3;
    const double v = 0.2 * std::sin(2 * M_PI * 0.05 * t) * (1 + 0.1 * std::sin(7.0 * t));
    append(s, t);
    s += ',';
    append(s, v);
    s += ',';
    append(s, 5e6 + 2e6 * v);
    s += ',';
    append(s, 3e6 - 1e6 * v);
    s += '\n';
    if (s.size() > (1 << 20)) {
      std::fwrite(s.data(), 1, s.size(), f);
      s.clear();
    }
  }
  std::fwrite(s.data(), 1, s.size(), f);
  std::fclose(f);
}

// Largest |a - b| / max(|b|, 1 N) over the model_force columns (last column).
double compare_forces(const fs::path& a, const fs::path& b, long* rows) {
  std::FILE* fa = std::fopen(a.c_str(), "rb");
  std::FILE* fb = std::fopen(b.c_str(), "rb");
  char* la = nullptr;
  char* lb = nullptr;
  size_t ca = 0, cb = 0;
  double worst = 0;
  *rows = 0;
  getline(&la, &ca, fa);
  getline(&lb, &cb, fb);  // headers
  while (getline(&la, &ca, fa) > 0 && getline(&lb, &cb, fb) > 0) {
    const double x = std::strtod(std::strrchr(la, ',') + 1, nullptr);
    const double y = std::strtod(std::strrchr(lb, ',') + 1, nullptr);
    worst = std::max(worst, std::abs(x - y) / std::max(std::abs(y), 1.0));
    ++*rows;
  }
  std::free(la);
  std::free(lb);
  std::fclose(fa);
  std::fclose(fb);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 10'000'000;
  int repeat = 3;
  bool peer = true;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--samples" && i + 1 < argc) n = std::atol(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--no-peer") peer = false;
    else if (a == "--keep" && i + 1 < argc) keep = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_eval [--samples N] [--repeat R] [--no-peer] [--keep DIR]\n");
      return 2;
    }
  }
  fs::path dir;
  if (keep.empty()) {
    std::string pattern = (fs::temp_directory_path() / "stribeck_bench_eval_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      return 1;
    }
    dir = pattern;
  } else {
    dir = keep;
    fs::create_directories(dir);
  }
  const fs::path in = dir / "in.csv", out = dir / "out.csv", out_peer = dir / "out_numpy.csv";
  std::printf("bench_eval: %ld samples, simscape-cylinder %s, files in %s\n", n, kParams, dir.c_str());
  write_input(in, n);
  std::printf("input: %.1f MB\n", fs::file_size(in) / 1e6);

  std::string params;
  for (std::string p = kParams; !p.empty();) {
    const size_t sp = p.find(' ');
    params += " --param " + p.substr(0, sp);
    p = sp == std::string::npos ? "" : p.substr(sp + 1);
  }
  const std::string cmd = std::string("'") + STRIBECK_CLI + "' eval --model simscape-cylinder" + params + " --input '" +
                          in.string() + "' --output '" + out.string() + "' 2>/dev/null";
  std::vector<Timing> t;
  for (int r = 0; r < repeat; ++r) t.push_back(time_of(cmd));
  std::sort(t.begin(), t.end(), [](const Timing& a, const Timing& b) { return a.wall < b.wall; });
  std::printf("output: %.1f MB\n", fs::file_size(out) / 1e6);
  std::printf("%-24s wall best %6.2f s median %6.2f s, cpu %6.2f s: %6.2f Msamples/s (best of %d)\n", "stribeck eval",
              t.front().wall, t[t.size() / 2].wall, t.front().cpu, n / t.front().wall / 1e6, repeat);

  if (peer) {
    const std::string pcmd = std::string("/usr/bin/python3 '") + STRIBECK_SOURCE_DIR + "/bench/peers/eval_numpy.py' '" +
                             in.string() + "' '" + out_peer.string() + "' " + kParams;
    const Timing tp = time_of(pcmd);
    std::printf("%-24s wall      %6.2f s                 cpu %6.2f s: %6.2f Msamples/s (1 run)\n",
                "numpy loadtxt/savetxt", tp.wall, tp.cpu, n / tp.wall / 1e6);
    std::printf("stribeck is %.1fx faster (wall), %.1fx (cpu)\n", tp.wall / t.front().wall, tp.cpu / t.front().cpu);
    long rows = 0;
    const double worst = compare_forces(out, out_peer, &rows);
    std::printf("agreement: %ld rows, max |F_stribeck - F_numpy| / max(|F|, 1 N) = %.2e\n", rows, worst);
    if (rows != n || !(worst < 1e-12)) {
      std::fprintf(stderr, "bench_eval: outputs disagree\n");
      return 1;
    }
  }
  if (keep.empty()) fs::remove_all(dir);
  return 0;
}
