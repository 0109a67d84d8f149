#!/usr/bin/python3
"""A robot-joint-like LuGre log for bench/bench_dynamic_fit.sh (the case of
DynamicJointFit.JointLogOptimumFarFromTheTwoStageStart, issue 31): sigma0 10,
sigma1 1, sigma2 0.05, F_C 0.14, F_s 0.3, v_s 0.4, offset -0.22, sines of
period 3 s whose amplitude swings 0.045 ... 0.4 over 7.3 s, N samples over
24 s with time steps jittered +-30 %, Gaussian noise 0.03. Simulated with the
peer's own discretisation (scipy_lugre_fit.simulate, the kernels' bristle
update). Writes a CSV with time, velocity, force.

    /usr/bin/python3 bench/peers/make_joint_log.py N OUT.csv [SEED]
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scipy_lugre_fit import simulate  # noqa: E402


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    h = 24.0 / n
    t = np.concatenate([[0.0], np.cumsum(h * rng.uniform(0.7, 1.3, n - 1))])
    v = 0.3 * (0.75 + 0.6 * np.sin(2 * math.pi * t / 7.3)) * np.sin(2 * math.pi * t / 3.0)
    f = simulate([10.0, 1.0, 0.05, 0.14, 0.3, 0.4], t, v) - 0.22 + rng.normal(0.0, 0.03, n)
    with open(out, "w") as fh:
        fh.write("time,velocity,force\n")
        for row in zip(t, v, f):
            fh.write("%.17g,%.17g,%.17g\n" % row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
