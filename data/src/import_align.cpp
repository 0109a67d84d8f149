// Files logged on different clocks merged onto one time base (import --align).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

// `v` sampled at increasing times `t`, linearly interpolated at increasing
// times `at` inside [t.front(), t.back()]: one pass over both.
std::vector<double> interpolate(const std::vector<double>& t, const std::vector<double>& v,
                                const std::vector<double>& at) {
  std::vector<double> out(at.size());
  size_t lo = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    while (lo + 2 < t.size() && t[lo + 1] <= at[i]) ++lo;
    const double span = t[lo + 1] - t[lo];
    const double w = span > 0 ? std::clamp((at[i] - t[lo]) / span, 0.0, 1.0) : 0.0;
    // A time on a sample (w = 0 or 1) takes its value exactly: the first
    // file's own samples keep their values.
    out[i] = w == 1 ? v[lo + 1] : v[lo] + w * (v[lo + 1] - v[lo]);
  }
  return out;
}

std::string file_name(const Experiment& e) {
  const size_t slash = e.source.find_last_of('/');
  return slash == std::string::npos ? e.source : e.source.substr(slash + 1);
}

}  // namespace

Experiment align_experiments(const std::vector<Experiment>& parts, double rate_hz) {
  if (parts.size() < 2) throw InputError("--align needs two or more files, one experiment each");
  double t0 = -std::numeric_limits<double>::infinity(), t1 = std::numeric_limits<double>::infinity();
  std::string spans;
  for (const auto& p : parts) {
    if (!p.has("time") || p.size() < 2)
      throw InputError(p.source + ": experiment '" + p.name +
                       "' has no time channel with two or more samples to align by");
    const auto& t = p.channels.at("time");
    t0 = std::max(t0, t.front());
    t1 = std::min(t1, t.back());
    spans += (spans.empty() ? "" : ", ") + file_name(p) + " " + format_number(t.front()) + " to " +
             format_number(t.back()) + " s";
  }
  if (!(t0 < t1))
    throw InputError("--align: the files' times do not overlap (" + spans + "); shift one with --time-shift");
  std::vector<double> base;
  if (rate_hz > 0) {
    // The grid starts where the overlap does; the last point is the last
    // one inside it (a relative tolerance keeps t1 itself when on the grid).
    const double n = std::floor((t1 - t0) * rate_hz * (1 + 1e-12));
    base.reserve(static_cast<size_t>(n) + 1);
    for (double i = 0; i <= n; ++i) base.push_back(std::min(t0 + i / rate_hz, t1));
  } else {
    for (double t : parts[0].channels.at("time"))
      if (t >= t0 && t <= t1) base.push_back(t);
  }
  if (base.size() < 2)
    throw InputError("--align: the overlap " + format_number(t0) + " to " + format_number(t1) +
                     " s holds fewer than two samples of the time base");
  Experiment e;
  e.name = parts[0].name;
  e.source = parts[0].source;
  e.attributes = parts[0].attributes;
  e.channels["time"] = base;
  e.units["time"] = "s";
  std::map<std::string, std::string> owner;  // channel -> file it came from
  std::string files;
  for (const auto& p : parts) {
    files += (files.empty() ? "" : ", ") + file_name(p);
    const auto& t = p.channels.at("time");
    for (const auto& [name, v] : p.channels) {
      if (name == "time") continue;
      if (auto o = owner.find(name); o != owner.end())
        throw InputError("--align: channel '" + name + "' is in both " + o->second + " and " + file_name(p) +
                         "; give one of them another name with --columns");
      owner[name] = file_name(p);
      e.channels[name] = interpolate(t, v, base);
      e.units[name] = p.units.at(name);
      if (auto a = p.channel_attributes.find(name); a != p.channel_attributes.end())
        e.channel_attributes[name] = a->second;
    }
    for (const auto& [k, v] : p.attributes) e.attributes.emplace(k, v);  // the first file's win
  }
  e.attributes["aligned_files"] = files;
  e.attributes["align"] = rate_hz > 0 ? "rate=" + format_number(rate_hz) : "first";
  e.attributes["align_start"] = format_number(base.front());
  e.attributes["align_end"] = format_number(base.back());
  validate_experiment(e);
  return e;
}

}  // namespace stribeck::data
