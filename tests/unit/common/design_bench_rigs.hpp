#pragma once
// The rigs of bench/design_mc (bench/design_mc/*_rig.toml) at the truths of
// bench/peers/design_mc.py, as a design request of the levels family: the
// servo (50 rad, 20 rad/s, 100 rad/s^2, 30 s at 1 kHz, 0.2 N*m, one
// experiment) and the cylinder (0.2 m, 0.2 m/s, 5 m/s^2, pressures 20, 60
// and 100 bar, 50 N, three experiments).
#include <vector>

#include "stribeck/identification/design.hpp"

namespace stribeck::test {

inline ident::DesignRequest design_bench_rig(bool servo) {
  ident::DesignRequest r;
  r.model = servo ? "simscape-rotational" : "simscape-cylinder";
  r.prior = servo ? std::vector<double>{1.2, 0.1, 0.8, 0.05} : std::vector<double>{100, 1e-5, 1.8, 1000, 50, 1e-4};
  r.rig.stroke = servo ? 50 : 0.2;
  r.rig.v_max = servo ? 20 : 0.2;
  r.rig.a_max = servo ? 100 : 5;
  r.rig.duration = 30;
  r.rig.rate_hz = 1000;
  r.rig.force_noise = servo ? 0.2 : 50;
  if (!servo) r.rig.pressure_levels = {2e6, 6e6, 10e6};
  r.rig.max_experiments = r.experiments = servo ? 1 : 3;
  r.profiles = {"levels"};
  return r;
}

}  // namespace stribeck::test
