#pragma once
// The 12-point ensemble the shard, MPI and resume tests split, stop and join:
// a Coulomb rig in the stiction form over stiffness (3 levels) x mass
// {-1, 1} x breakaway {0.5, 1.5}, so invalid points (mass -1, breakaway below
// the sliding force) sit in every part and stick-slip in others.
#include <fstream>
#include <string>

namespace stribeck::test {

// Writes the config to `path` (t_end: the simulated time, which also makes
// another ensemble) and returns `path`.
inline std::string write_stiction_grid(const std::string& path, const char* t_end = "2.0") {
  std::ofstream(path) << R"(
[system]
mass = 1.0
drive_velocity = 0.1
[friction]
model = "coulomb-viscous"
form = "stiction"
breakaway = 1.5
[friction.params]
F_C = 1.0
f_v = 0.0
[simulation]
t_end = )" << t_end << R"(
dt = 1e-3
[ensemble]
device = "cpu"
[ensemble.params]
stiffness = "linear:5:20:3"
mass = "list:-1,1"
breakaway = "list:0.5,1.5"
)";
  return path;
}

}  // namespace stribeck::test
