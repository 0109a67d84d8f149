#include "stream_source.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <utility>

#include "noise.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {

PreparedStream::PreparedStream(const std::vector<LogStream>& logs, const ModelInfo& model, const FitOptions& o,
                               std::size_t chunk_rows)
    : chunk_(std::max<std::size_t>(1, chunk_rows)),
      area_a_(o.area_a),
      area_b_(o.area_b),
      mass_(o.mass),
      known_mass_(o.inertia && std::isfinite(o.mass)) {
  if (logs.empty()) throw data::InputError("no experiments to fit");
  const bool needs_p = model.needs(kChannelPressureA) || model.needs(kChannelPressureB);
  const bool pressure_force = o.area_a != 0.0 || o.area_b != 0.0;
  for (const auto& l : logs) {
    Exp x;
    x.reader = std::make_unique<data::LogBlockReader>(l.path, l.experiment);
    const data::LogBlockReader& r = *x.reader;
    x.name = l.name.empty() ? r.experiment() : l.name;
    if (r.length() == 0) throw data::InputError(r.where() + " has no samples");
    for (const char* ch : {"velocity", "force"})
      if (!r.has(ch))
        throw data::InputError(r.where() + " has no channel '" + ch + "'" +
                               (std::string(ch) == "velocity"
                                    ? " (a streamed fit does not derive velocity from position: use --stream never)"
                                    : ""));
    // Derived channels are derived again, with the force filtered alike
    // (prepare_data), which needs the whole log in memory.
    for (const char* ch : {"velocity", "acceleration"})
      if (r.attributes().count(std::string("derived_") + ch) && (ch[0] == 'v' || o.inertia))
        throw data::InputError(r.where() + ": channel '" + ch + "' was derived (derived_" + ch +
                               "); a streamed fit does not derive it again: use --stream never");
    x.channels = {"velocity", "force"};
    x.pa = r.has("pressure_a");
    x.pb = r.has("pressure_b");
    if ((needs_p || pressure_force) && !x.pa && !x.pb)
      throw data::InputError(r.where() + " has no pressure_a or pressure_b channel, but " +
                             (needs_p ? "model " + model.id + " needs chamber pressures"
                                      : std::string("the force balance has piston areas")));
    if (x.pa) x.channels.push_back("pressure_a");
    if (x.pb) x.channels.push_back("pressure_b");
    if (model.needs(kChannelNormalForce)) {
      if (!r.has("normal_force"))
        throw data::InputError(r.where() + " has no normal_force channel, but model " + model.id + " needs it");
      x.fn = true;
      x.channels.push_back("normal_force");
    } else if (r.has("normal_force")) {  // for the missing-term check (missing_terms.hpp)
      x.fn = true;
      x.channels.push_back("normal_force");
    }
    if (o.inertia) {
      if (!r.has("acceleration"))
        throw data::InputError(
            r.where() + " has no channel 'acceleration' (a streamed fit does not derive it: use --stream never)");
      x.acc = true;
      x.channels.push_back("acceleration");
    } else if (r.has("acceleration") && !r.attributes().count("derived_acceleration")) {
      x.acc = true;  // for the missing-term check: does m*a explain the residual?
      x.channels.push_back("acceleration");
    }
    exps_.push_back(std::move(x));
  }
}

long PreparedStream::total() const {
  long n = 0;
  for (const auto& x : exps_) n += static_cast<long>(x.reader->length());
  return n;
}

void PreparedStream::read_chunk(int e, std::size_t b, Prepared& p) const {
  const Exp& x = exps_[e];
  const std::size_t m = std::min(chunk_, x.reader->length() - b);
  p.name = x.name;
  p.v.resize(m);
  p.force.resize(m);
  p.pa.assign(m, 0.0);
  p.pb.assign(m, 0.0);
  p.fn.assign(m, 0.0);
  p.y.resize(m);
  if (x.acc) p.acc.resize(m);
  else p.acc.clear();
  std::vector<double*> out = {p.v.data(), p.force.data()};
  if (x.pa) out.push_back(p.pa.data());
  if (x.pb) out.push_back(p.pb.data());
  if (x.fn) out.push_back(p.fn.data());
  if (x.acc) out.push_back(p.acc.data());
  x.reader->read(x.channels, b, b + m, out.data());
  // As prepare_data: y = force - A_a p_a + A_b p_b [- m a].
  for (std::size_t i = 0; i < m; ++i) {
    double y = p.force[i] - area_a_ * p.pa[i] + area_b_ * p.pb[i];
    if (known_mass_) y -= mass_ * p.acc[i];
    p.y[i] = y;
  }
}

void PreparedStream::for_each(const std::vector<int>& exps,
                              const std::function<void(int, std::size_t, const Prepared&)>& use, bool prefetch) const {
  std::vector<std::pair<int, std::size_t>> chunks;  // (experiment, first row)
  for (int e : exps)
    for (std::size_t b = 0; b < exps_[e].reader->length(); b += chunk_) chunks.emplace_back(e, b);
  if (!prefetch) {
    for (const auto& [e, b] : chunks) {
      read_chunk(e, b, buf_[0]);
      use(e, b, buf_[0]);
    }
    return;
  }
  // The next chunk is read (HDF5, decompression) on its own thread while
  // this one is used; only that thread calls HDF5 meanwhile.
  std::future<void> next;
  if (!chunks.empty())
    next = std::async(std::launch::async, [&] { read_chunk(chunks[0].first, chunks[0].second, buf_[0]); });
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    next.get();
    Prepared& cur = buf_[c % 2];
    if (c + 1 < chunks.size()) {
      Prepared& other = buf_[(c + 1) % 2];
      const auto nx = chunks[c + 1];
      next = std::async(std::launch::async, [this, nx, &other] { read_chunk(nx.first, nx.second, other); });
    }
    try {
      use(chunks[c].first, chunks[c].second, cur);
    } catch (...) {
      if (next.valid()) next.wait();
      throw;
    }
  }
}

namespace {

// |v| histogram: kPerDecade bins per decade from 1e-12 m/s up (1 % resolution).
constexpr int kPerDecade = 200;
constexpr double kLogVMin = -12.0;
constexpr int kSpeedBins = 20 * kPerDecade;  // up to 1e8 m/s
int speed_bin(double s) {
  const double b = std::floor((std::log10(s) - kLogVMin) * kPerDecade);
  return static_cast<int>(std::min<double>(kSpeedBins - 1, std::max(0.0, b)));
}
double bin_lower(int b) { return std::pow(10.0, kLogVMin + static_cast<double>(b) / kPerDecade); }

// A load level (p_a + p_b, F_n) to 1/256 relative: the key of its stratum.
using LevelKey = std::pair<long, long>;
long level_code(double x) {
  if (x == 0.0) return 0;
  int e = 0;
  const double m = std::frexp(std::abs(x), &e);  // m in [0.5, 1)
  const long c = static_cast<long>(e) * 256 + static_cast<long>(m * 256.0);
  return x > 0 ? c + 1 : -(c + 1);
}
LevelKey level_of(const Prepared& p, std::size_t i) { return {level_code(p.pa[i] + p.pb[i]), level_code(p.fn[i])}; }
// More distinct levels than this: the load varies continuously; one stratum.
constexpr std::size_t kMaxLevels = 256;

}  // namespace

StreamScan scan_stream(const PreparedStream& s, const std::vector<int>& exps, long cap) {
  StreamScan sc;
  long total = 0;
  for (int e : exps) total += static_cast<long>(s.length(e));
  sc.whole = total <= cap;
  sc.sample.resize(s.experiments());
  std::vector<long> hist(kSpeedBins, 0);
  std::map<LevelKey, long> levels;
  bool continuous = false;
  NoiseAccumulator noise;
  int last_e = -1;
  // Pass 1: the checks, the noise, the histograms (and the whole log when it fits).
  s.for_each(exps, [&](int e, std::size_t, const Prepared& p) {
    if (e != last_e && last_e >= 0) noise.next_experiment();
    last_e = e;
    Prepared& keep = sc.sample[e];
    keep.name = p.name;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double v = p.v[i];
      ++sc.n;
      sc.npos += v > 0;
      sc.nneg += v < 0;
      sc.vmin = std::min(sc.vmin, v);
      sc.vmax = std::max(sc.vmax, v);
      sc.ysq += p.y[i] * p.y[i];
      sc.fsum += p.force[i];
      if (v != 0) {
        sc.vslow = std::min(sc.vslow, std::abs(v));
        ++hist[speed_bin(std::abs(v))];
      }
      noise.add(p.y[i]);
      if (sc.whole) keep.push_back(p, i);
      else if (!continuous) {
        ++levels[level_of(p, i)];
        if (levels.size() > kMaxLevels) continuous = true, levels.clear();
      }
    }
  });
  if (sc.whole) return sc;
  sc.noise = noise.estimate();
  const long moving = sc.npos + sc.nneg;
  {
    long c = 0;
    for (int b = 0; b < kSpeedBins; ++b)
      if ((c += hist[b]) * 2 > moving) {
        sc.v_median = bin_lower(b) * std::pow(10.0, 0.5 / kPerDecade);
        break;
      }
  }
  // The slow samples: every moving sample below the largest histogram edge
  // with at most a sixteenth of the budget beneath it (rare slow samples, a
  // breakaway, survive; plentiful ones do not crowd the rest out).
  double vslow_keep = 0.0;
  {
    long c = 0;
    for (int b = 0; b < kSpeedBins && c + hist[b] <= cap / 16; ++b) c += hist[b], vslow_keep = bin_lower(b + 1);
  }
  // Half the budget over the load levels, equal shares, each at a stride.
  if (continuous || levels.empty()) levels = {{LevelKey{0, 0}, sc.n}};
  const long quota = std::max<long>(1, (cap / 2) / static_cast<long>(levels.size()));
  std::map<LevelKey, std::pair<long, long>> stride;  // level -> (stride, seen)
  for (const auto& [k, count] : levels) stride[k] = {std::max<long>(1, (count + quota - 1) / quota), 0};
  // Pass 2: the subsample.
  s.for_each(exps, [&](int e, std::size_t, const Prepared& p) {
    Prepared& keep = sc.sample[e];
    for (std::size_t i = 0; i < p.size(); ++i) {
      auto& st = stride[continuous ? LevelKey{0, 0} : level_of(p, i)];
      const bool take = (p.v[i] != 0 && std::abs(p.v[i]) < vslow_keep) || st.second % st.first == 0;
      ++st.second;
      if (take) keep.push_back(p, i);
    }
  });
  return sc;
}

}  // namespace stribeck::ident::detail
