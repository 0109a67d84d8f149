#!/usr/bin/python3
"""Parameters of bench/batch_fit.sh compared: the truths make_batch_log.py
kept, Stribeck's batch-fit file (group batch_fit, rows in the log's
experiment order) and the SciPy peer's estimates (.npz). Prints, per
parameter, the median and 95th-percentile relative error against the truth
of each, and the share of experiments where the two agree to 1e-3.

    /usr/bin/python3 bench/peers/compare_batch_fits.py LOG.h5 FITS.h5 SCIPY.npz [LABEL]
"""
import sys

import h5py
import numpy as np

NAMES = ("F_pr", "f_cfr", "K_brk", "f_vfr", "c_v")


def main():
    log, fits, peer = sys.argv[1:4]
    label = sys.argv[4] if len(sys.argv) > 4 else "stribeck"
    with h5py.File(log, "r") as f:
        groups = sorted(k for k in f.keys() if isinstance(f[k], h5py.Group))
        truth = np.array([[float(f[g].attrs["true_" + n]) for n in NAMES] for g in groups])
    with h5py.File(fits, "r") as f:
        g = f["batch_fit"]
        order = np.argsort(g["experiment"][...])
        # param_NAME since batch-fit format_version 2, NAME before
        ours = np.column_stack([g["param_" + n if "param_" + n in g else n][...][order] for n in NAMES])
        status = g["fit_status" if "fit_status" in g else "status"][...][order]
    p = np.load(peer)
    theirs = p["x"]
    print(f"{len(groups)} experiments; {label} status: " +
          ", ".join(f"{k}: {int((status == c).sum())}"
                    for c, k in enumerate(("converged", "max-iterations", "singular", "failed", "bad-data"))) +
          f"; scipy status > 0 (converged by a tolerance): {int((p['status'] > 0).sum())}")
    print(f"{'parameter':10} {label + ' median':>16} {'p95':>10} {'scipy median':>14} {'p95':>10} {'agree 1e-3':>11}")
    for k, n in enumerate(NAMES):
        eo = np.abs(ours[:, k] - truth[:, k]) / np.abs(truth[:, k])
        et = np.abs(theirs[:, k] - truth[:, k]) / np.abs(truth[:, k])
        agree = np.abs(ours[:, k] - theirs[:, k]) <= 1e-3 * np.abs(truth[:, k])
        print(f"{n:10} {np.nanmedian(eo):16.3g} {np.nanpercentile(eo, 95):10.3g} {np.median(et):14.3g} "
              f"{np.percentile(et, 95):10.3g} {agree.mean():11.3f}")


if __name__ == "__main__":
    main()
