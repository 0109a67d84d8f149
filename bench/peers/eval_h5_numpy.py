#!/usr/bin/env python3
"""Peer for bench/eval_io.sh: `stribeck eval` on an HDF5 log (HDF5 -> force ->
HDF5) as a user would write it with h5py and NumPy: read the experiment's
channels whole, evaluate the simscape-cylinder law vectorised, write the
channels and the results group eval/simscape-cylinder/model_force with the
storage Stribeck uses (chunks of 65,536 values, shuffle, deflate level 4).

usage: eval_h5_numpy.py INPUT.h5 EXPERIMENT OUTPUT.h5 [NAME=VALUE ...]
"""
import sys

import h5py
import numpy as np

from eval_numpy import DEFAULTS, simscape_cylinder


def main():
    src, exp, dst = sys.argv[1], sys.argv[2], sys.argv[3]
    params = dict(DEFAULTS)
    for a in sys.argv[4:]:
        name, value = a.split("=", 1)
        params[name] = float(value)
    with h5py.File(src, "r") as f:
        g = f[exp]
        data = {name: g[name][...] for name in g if isinstance(g[name], h5py.Dataset)}
        units = {name: g[name].attrs["units"] for name in data}
    force = simscape_cylinder(data["velocity"], data["pressure_a"], data["pressure_b"], **params)
    opts = dict(chunks=(min(65536, force.size),), shuffle=True, compression="gzip", compression_opts=4)
    with h5py.File(dst, "w") as f:
        g = f.create_group(exp)
        for name, v in data.items():
            d = g.create_dataset(name, data=v, **opts)
            d.attrs["units"] = units[name]
        r = f.create_group("eval/simscape-cylinder")
        r.attrs["kind"] = "results"
        d = r.create_dataset("model_force", data=force, **opts)
        d.attrs["units"] = "N"


if __name__ == "__main__":
    main()
