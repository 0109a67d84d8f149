#pragma once
// One experiment of a rig log in memory: equal-length channels in SI units,
// keyed by their schema names (time, position, velocity, acceleration, force,
// pressure_a, pressure_b, normal_force, temperature), plus attributes.
// Everything that reads logs (eval, sweeps, identification) works on this.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"

namespace stribeck::data {

struct Experiment {
  std::string name;                                     // group name in the log, or the source file's stem
  std::string source;                                   // file it was read from (for messages)
  std::map<std::string, std::vector<double>> channels;  // SI values
  std::map<std::string, std::string> units;             // SI unit per channel, e.g. "m/s"
  std::map<std::string, std::string> attributes;        // description, rig, specimen, ...
  // Attributes of single channels (import --gain: gain, gain_unit, offset,
  // raw_unit, scaling), written on the channel's dataset.
  std::map<std::string, std::map<std::string, std::string>> channel_attributes;

  bool has(const std::string& channel) const { return channels.count(channel) != 0; }
  // The channel's samples; throws InputError naming source, experiment and channel.
  const std::vector<double>& channel(const std::string& channel) const {
    auto it = channels.find(channel);
    if (it == channels.end()) throw InputError(source + ": experiment '" + name + "' has no channel '" + channel + "'");
    return it->second;
  }
  // Number of samples (all channels have the same length).
  std::size_t size() const { return channels.empty() ? 0 : channels.begin()->second.size(); }
};

}  // namespace stribeck::data
