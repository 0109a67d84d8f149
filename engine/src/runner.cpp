// The one chunk loop of every batch workload (runner.hpp).
#include "stribeck/engine/runner.hpp"

#include <algorithm>
#include <chrono>
#include <future>

#include "stribeck/data/error.hpp"

namespace stribeck::engine {

Range split_range(const std::string& shard, std::uint64_t points) {
  Range r;
  r.points = points;
  r.count = points;
  if (shard.empty()) return r;
  // Digits only (no sign, no space): sscanf's %lu would take "-1" as 2^64 - 1.
  auto whole = [&](const std::string& text, unsigned long& v) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    v = std::stoul(text);
    return true;
  };
  const size_t slash = shard.find('/');
  unsigned long i = 0, n = 0;
  if (slash == std::string::npos || !whole(shard.substr(0, slash), i) || !whole(shard.substr(slash + 1), n) || n == 0 ||
      i >= n)
    throw data::InputError("--shard '" + shard + "': expected i/N with 0 <= i < N (whole numbers, N up to 999999999)");
  __extension__ typedef unsigned __int128 u128;
  const u128 total = points;
  r.first = static_cast<std::uint64_t>(total * i / n);
  r.count = static_cast<std::uint64_t>(total * (i + 1) / n) - r.first;
  r.shard_index = static_cast<int>(i);
  r.shard_count = static_cast<int>(n);
  return r;
}

RunStats run(const Range& range, Workload& w, Totals& t, const RunOptions& o) {
  if (o.chunk == 0) throw data::InputError("--chunk must be > 0");
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  RunStats st;
  const std::uint64_t n = range.count;
  // Chunk i is written on this thread while chunk i + 1 computes; chunk
  // i + 2 reuses chunk i's slot once chunk i's write has returned.
  std::future<void> writing;
  try {
    while (t.completed < n) {
      if (o.max_chunks && st.chunks == o.max_chunks) break;
      const int slot = static_cast<int>(st.chunks & 1);
      const std::uint64_t k = std::min(o.chunk, n - t.completed), first = range.first + t.completed;
      const std::uint64_t base = t.completed;
      const auto c0 = clock::now();
      w.compute(slot, first, k, [&](std::uint64_t done) {
        if (o.progress) o.progress(base + done, n, seconds());
      });
      st.compute_seconds += std::chrono::duration<double>(clock::now() - c0).count();
      w.tally(slot, first, k, t);
      t.completed += k;
      st.evaluated += k;
      ++st.chunks;
      if (writing.valid()) writing.get();  // chunk i - 1 is out (or its error is thrown here)
      if (auto job = w.write(slot, k, t)) writing = std::async(std::launch::async, std::move(job));
      if (o.progress) o.progress(t.completed, n, seconds());
    }
    if (writing.valid()) writing.get();
  } catch (...) {
    if (writing.valid()) writing.wait();  // never leave a write running on buffers about to go
    throw;
  }
  st.finished = t.completed == n;
  return st;
}

}  // namespace stribeck::engine
