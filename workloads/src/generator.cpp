#include "stribeck/workloads/generator.hpp"

#include <algorithm>
#include <cmath>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck::workloads {
namespace {

constexpr double kPi = 3.14159265358979323846;

// xoshiro256** seeded by splitmix64: the same stream on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  double uniform() {  // (0, 1)
    return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }
  double normal() {  // Box-Muller, one value per call (the pair's second half is dropped for simplicity)
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  std::uint64_t s_[4];
};

// Piecewise-constant velocity levels joined by raised-cosine (smooth) or
// linear transitions; gives v and a analytically.
struct Levels {
  std::vector<double> level;  // level k held during segment k
  double segment = 1;         // [s] per level, transition included
  double transition = 0.1;    // [s] at the start of each segment
  bool linear = false;
  void eval(double t, double& v, double& a) const {
    size_t k = static_cast<size_t>(std::floor(t / segment));
    if (k >= level.size()) k = level.size() - 1;
    const double from = k == 0 ? 0.0 : level[k - 1], to = level[k];
    const double s = (t - static_cast<double>(k) * segment) / transition;
    if (s >= 1) {
      v = to;
      a = 0;
    } else if (linear) {
      v = from + (to - from) * s;
      a = (to - from) / transition;
    } else {
      v = from + (to - from) * 0.5 * (1 - std::cos(kPi * s));
      a = (to - from) * 0.5 * kPi / transition * std::sin(kPi * s);
    }
  }
};

double default_duration(const std::string& p) {
  if (p == "sine-sweep" || p == "creep" || p == "multisine") return 20;
  if (p == "plateaus") return 24;
  return 8;
}

// Velocity and acceleration of the profile at time t in [0, T].
struct Profile {
  std::string name;
  double T, vmax;
  Levels levels;
  Profile(const std::string& n, double duration, double v) : name(n), T(duration), vmax(v) {
    if (n == "steps") {
      const double f[] = {0.1, 0.25, 0.5, 1.0, -0.1, -0.25, -0.5, -1.0};
      for (double x : f) levels.level.push_back(x * vmax);
      levels.segment = T / 8;
      levels.transition = 0.02 * levels.segment;
    } else if (n == "plateaus") {
      // 12 log-spaced levels from vmax/1000 to vmax, each in both directions.
      for (int k = 0; k < 12; ++k) {
        const double v = vmax * std::pow(10.0, -3.0 + 3.0 * k / 11.0);
        levels.level.push_back(v);
        levels.level.push_back(-v);
      }
      levels.segment = T / 24;
      levels.transition = 0.15 * levels.segment;
    } else if (n == "ramps") {
      levels.level = {vmax, 0, -vmax, 0, vmax, 0, -vmax, 0};
      levels.segment = T / 8;
      levels.transition = 0.8 * levels.segment;
      levels.linear = true;
    } else if (n == "creep") {
      levels.level = {vmax, -vmax, vmax, -vmax};
      levels.segment = T / 4;
      levels.transition = 0.1 * levels.segment;
    }
  }
  void eval(double t, double& v, double& a) const {
    if (name == "triangle") {                           // 4 periods of a symmetric triangle in velocity
      const double P = T / 4, x = std::fmod(t, P) / P;  // 0..1
      const double slope = 4 * vmax / P;
      if (x < 0.25) {
        v = slope * x * P;
        a = slope;
      } else if (x < 0.75) {
        v = vmax - slope * (x - 0.25) * P;
        a = -slope;
      } else {
        v = -vmax + slope * (x - 0.75) * P;
        a = slope;
      }
    } else if (name == "sine-sweep") {  // 0.1 Hz to 5 Hz linear chirp
      const double f0 = 0.1, f1 = 5.0;
      const double phase = 2 * kPi * (f0 * t + 0.5 * (f1 - f0) * t * t / T);
      const double dphase = 2 * kPi * (f0 + (f1 - f0) * t / T);
      v = vmax * std::sin(phase);
      a = vmax * std::cos(phase) * dphase;
    } else {
      levels.eval(t, v, a);
    }
  }
};

// The levels profile: linear ramps at `accel` from each speed to the next
// (from rest, and back to rest at the end), each level held for its time.
struct LevelSchedule {
  std::vector<double> start, from, to, ramp;  // per level: ramp start [s], speeds, ramp time [s]
  double accel = 0;
  LevelSchedule(const GeneratorOptions& o, double T) : accel(o.ramp_accel) {
    if (o.levels.empty() || o.levels.size() != o.holds.size() || !(o.ramp_accel > 0) || !std::isfinite(o.ramp_accel))
      throw data::InputError("generate: profile 'levels' needs as many levels as holds and a ramp acceleration > 0");
    double t = 0, last = 0;
    for (size_t k = 0; k <= o.levels.size(); ++k) {
      const double v = k < o.levels.size() ? o.levels[k] : 0.0;
      const double hold = k < o.levels.size() ? o.holds[k] : 0.0;
      if (!std::isfinite(v) || !(hold >= 0) || !std::isfinite(hold))
        throw data::InputError("generate: level " + std::to_string(k + 1) +
                               " of profile 'levels': its speed and hold must be finite, the hold >= 0");
      start.push_back(t);
      from.push_back(last);
      to.push_back(v);
      ramp.push_back(std::abs(v - last) / accel);
      t += ramp.back() + hold;
      last = v;
    }
    if (t > T * (1 + 1e-12))
      throw data::InputError("generate: profile 'levels' takes " + format_number(t) + " s, more than the " +
                             format_number(T) + " s of the experiment");
  }
  void eval(double t, double& v, double& a) const {
    size_t k = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), t) - start.begin());
    k = k == 0 ? 0 : k - 1;
    const double s = t - start[k];
    if (s < ramp[k]) {
      a = to[k] > from[k] ? accel : -accel;
      v = from[k] + a * s;
    } else {
      a = 0;
      v = to[k];
    }
  }
};

double quantise(double x, double q) { return q > 0 ? q * std::round(x / q) : x; }

std::string settings_text(const std::map<std::string, double>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ",") + k + "=" + format_number(v);
  return s;
}

}  // namespace

const std::vector<std::string>& generator_profiles() {
  static const std::vector<std::string> p = {"triangle", "sine-sweep", "ramps",    "steps",
                                             "plateaus", "creep",      "multisine"};
  return p;
}

std::vector<data::Experiment> generate_log(const GeneratorOptions& o) {
  const ModelInfo* model = find_model(o.model);
  if (!model) throw data::InputError("generate: unknown model '" + o.model + "' (see `stribeck models`)");
  if (o.params.size() != model->params.size())
    throw data::InputError("generate: model " + o.model + " takes " + std::to_string(model->params.size()) +
                           " parameters");
  bool known = false;
  for (const auto& p : generator_profiles()) known |= p == o.profile;
  known |= o.profile == "levels" && !o.levels.empty();  // a design's plateau test
  if (!known) {
    std::string list;
    for (const auto& p : generator_profiles()) list += (list.empty() ? "" : ", ") + p;
    throw data::InputError("generate: unknown profile '" + o.profile + "' (choose " + list + ")");
  }
  if (!(o.rate_hz > 0) || !std::isfinite(o.rate_hz)) throw data::InputError("generate: --rate must be positive");
  const double T = o.duration > 0 ? o.duration : default_duration(o.profile);
  // Each experiment is held in memory (~10 channels of doubles): 5e7 samples,
  // as for a simulation, is about 4 GB.
  if (!std::isfinite(T) || T * o.rate_hz > 5e7)
    throw data::InputError("generate: --rate " + format_number(o.rate_hz) + " Hz x " + format_number(T) +
                           " s = " + format_number(T * o.rate_hz) + " samples per experiment; at most 5e7");
  if (!(o.v_max > 0) || !std::isfinite(o.v_max)) throw data::InputError("generate: --vmax must be positive");
  const char* kChannels[] = {"position",   "velocity",   "acceleration", "force",
                             "pressure_a", "pressure_b", "normal_force"};
  for (const auto* m : {&o.noise, &o.offset, &o.quantisation})
    for (const auto& [ch, v] : *m) {
      bool ok = false;
      for (const char* c : kChannels) ok |= ch == c;
      if (!ok)
        throw data::InputError(
            "generate: no channel '" + ch +
            "' for noise/offset/quantisation (choose position, velocity, acceleration, force, pressure_a, "
            "pressure_b, normal_force)");
      if (!std::isfinite(v) || (m != &o.offset && v < 0))
        throw data::InputError("generate: bad value for '" + ch + "'");
    }

  for (const auto& ch : o.omit) {
    bool ok = false;
    for (const char* c : kChannels) ok |= ch == c;
    if (!ok)
      throw data::InputError(
          "generate: --omit: no channel '" + ch +
          "' (choose position, velocity, acceleration, force, pressure_a, pressure_b, normal_force)");
  }
  const bool rotational = model->output_unit == "N*m";
  const size_t n = static_cast<size_t>(std::floor(T * o.rate_hz)) + 1;
  const double dt = 1.0 / o.rate_hz;
  const Profile profile(o.profile, T, o.v_max);
  std::vector<double> t(n), v(n), a(n), x(n);
  if (o.profile == "multisine") {
    if (!(o.band_lo_hz > 0) || !(o.band_hi_hz >= o.band_lo_hz) || !std::isfinite(o.band_hi_hz))
      throw data::InputError("generate: --band LO:HI needs 0 < LO <= HI [Hz]");
    if (o.band_hi_hz >= 0.5 * o.rate_hz)
      throw data::InputError("generate: --band upper frequency " + format_number(o.band_hi_hz) +
                             " Hz is not below the Nyquist frequency " + format_number(0.5 * o.rate_hz) + " Hz");
    if (o.tones < 1 || o.tones > 1000) throw data::InputError("generate: --tones must be 1..1000");
    // Phases from their own stream, so the sensor noise stream is the same
    // for every profile.
    Rng phases((o.phase_seed != 0 ? o.phase_seed : o.seed) ^ 0x6D756C746973696Eull);
    std::vector<double> w(static_cast<size_t>(o.tones)), phi(w.size());
    for (size_t k = 0; k < w.size(); ++k) {
      const double f =
          o.tones == 1 ? o.band_lo_hz
                       : o.band_lo_hz * std::pow(o.band_hi_hz / o.band_lo_hz, static_cast<double>(k) / (o.tones - 1));
      w[k] = 2 * kPi * f;
      phi[k] = 2 * kPi * phases.uniform();
    }
    // Unit velocity amplitude per tone: x = sum sin(w t + phi) / w.
    double peak = 0;
    for (size_t i = 0; i < n; ++i) {
      t[i] = static_cast<double>(i) * dt;
      double xi = 0, vi = 0, ai = 0;
      for (size_t k = 0; k < w.size(); ++k) {
        const double s = std::sin(w[k] * t[i] + phi[k]), c = std::cos(w[k] * t[i] + phi[k]);
        xi += s / w[k];
        vi += c;
        ai -= w[k] * s;
      }
      x[i] = xi;
      v[i] = vi;
      a[i] = ai;
      peak = std::max(peak, std::abs(vi));
    }
    const double scale = o.v_max / peak, x0 = x[0] * scale;
    for (size_t i = 0; i < n; ++i) {
      x[i] = x[i] * scale - x0;
      v[i] *= scale;
      a[i] *= scale;
    }
  } else if (o.profile == "levels") {
    const LevelSchedule schedule(o, T);
    for (size_t i = 0; i < n; ++i) {
      t[i] = static_cast<double>(i) * dt;
      schedule.eval(t[i], v[i], a[i]);
      x[i] = i == 0 ? 0.0 : x[i - 1] + 0.5 * (v[i] + v[i - 1]) * dt;  // trapezoid
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      t[i] = static_cast<double>(i) * dt;
      profile.eval(t[i], v[i], a[i]);
      x[i] = i == 0 ? 0.0 : x[i - 1] + 0.5 * (v[i] + v[i - 1]) * dt;  // trapezoid
    }
  }
  const bool pressures =
      model->needs(kChannelPressureA) || model->needs(kChannelPressureB) || !o.pressure_levels.empty();
  const bool normal = model->needs(kChannelNormalForce);
  std::vector<double> levels = o.pressure_levels.empty() ? std::vector<double>{0.0} : o.pressure_levels;

  std::vector<data::Experiment> out;
  Rng rng(o.seed);
  for (double p_a : levels) {
    std::vector<double> F(n);
    visit_model(o.model.c_str(), [&](auto tag) {
      using M = typename decltype(tag)::type;
      const auto c = M::prepare(o.params.data());
      typename M::template State<double> state{};
      for (size_t i = 0; i < n; ++i)
        F[i] = model_step<M>(c, Sample<double>{v[i], p_a, o.pressure_b, o.normal_force}, state, i == 0 ? 0.0 : dt);
    });
    data::Experiment e;
    e.name = o.pressure_levels.empty() ? "run" : "p" + format_number(p_a / 1e5) + "bar";
    e.source = "generator";
    std::map<std::string, std::vector<double>> truth = {{"position", x}, {"velocity", v}, {"acceleration", a}};
    std::vector<double> force(n);
    for (size_t i = 0; i < n; ++i) force[i] = F[i] + o.mass * a[i] + (p_a * o.area_a - o.pressure_b * o.area_b);
    truth["force"] = force;
    if (pressures) {
      truth["pressure_a"] = std::vector<double>(n, p_a);
      truth["pressure_b"] = std::vector<double>(n, o.pressure_b);
    }
    if (normal) truth["normal_force"] = std::vector<double>(n, o.normal_force);
    // Sensor effects, channel by channel in a fixed order (map order), so the
    // random stream does not depend on which options are given.
    for (auto& [ch, values] : truth) {
      const double sd = o.noise.count(ch) ? o.noise.at(ch) : 0.0;
      const double off = o.offset.count(ch) ? o.offset.at(ch) : 0.0;
      const double q = o.quantisation.count(ch) ? o.quantisation.at(ch) : 0.0;
      for (double& y : values) y = quantise(y + off + (sd > 0 ? sd * rng.normal() : 0.0), q);
      e.channels[ch] = std::move(values);
    }
    e.channels["time"] = t;
    e.channels["friction_true"] = std::move(F);
    e.units = {{"time", "s"},
               {"position", rotational ? "rad" : "m"},
               {"velocity", rotational ? "rad/s" : "m/s"},
               {"acceleration", rotational ? "rad/s^2" : "m/s^2"},
               {"force", rotational ? "N*m" : "N"},
               {"friction_true", rotational ? "N*m" : "N"}};
    if (pressures) e.units["pressure_a"] = e.units["pressure_b"] = "Pa";
    if (normal) e.units["normal_force"] = "N";
    std::string params;
    for (size_t k = 0; k < model->params.size(); ++k)
      params += (k ? "," : "") + std::string(model->params[k].name) + "=" + format_number(o.params[k]);
    e.attributes = {{"description", "synthetic log: " + o.model + " along a " + o.profile + " profile"},
                    {"rig", "stribeck generate"},
                    {"generator_model", o.model},
                    {"generator_params", params},
                    {"generator_profile", o.profile},
                    {"generator_seed", std::to_string(o.seed)},
                    {"generator_noise", settings_text(o.noise)},
                    {"generator_offset", settings_text(o.offset)},
                    {"generator_quantisation", settings_text(o.quantisation)},
                    {"generator_mass", format_number(o.mass)},
                    {"generator_area_a", format_number(o.area_a)},
                    {"generator_area_b", format_number(o.area_b)}};
    if (o.profile == "multisine")
      e.attributes["generator_band"] = format_number(o.band_lo_hz) + ":" + format_number(o.band_hi_hz) + " Hz, " +
                                       std::to_string(o.tones) + " tones";
    for (const auto& ch : o.omit) {
      e.channels.erase(ch);
      e.units.erase(ch);
    }
    if (!o.omit.empty()) {
      std::string list;
      for (const auto& ch : o.omit) list += (list.empty() ? "" : ",") + ch;
      e.attributes["generator_omitted"] = list;
    }
    if (rotational) e.attributes["motion"] = "rotational";
    if (pressures) e.attributes["pressure_reference"] = "gauge";
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace stribeck::workloads
