#!/usr/bin/python3
"""Every static model `identify` fits: the whole Stribeck fit (bench_identify,
1 and 2 threads) against SciPy least_squares (trf and lm, analytic Jacobians;
bench/peers/scipy_identify.py) on the same samples from the same start,
interleaved model by model and round by round on a shared machine; best of
the rounds (each run itself the median of REPEAT fits). Prints the load
average before and after each round and a markdown table; exit 1 when a
parameter differs from SciPy trf's by more than 1e-4 relative.

    /usr/bin/python3 bench/identify_models.py [BUILD_DIR] [--rounds R] [--repeat N] [--samples N] [--models a,b]
"""
import os
import re
import subprocess
import sys

MODELS = ["simscape-translational", "simscape-rotational", "simscape-cylinder", "simscape-cylinder-il", "20sim-c",
          "20sim-v", "20sim-cv", "20sim-scvs", "coulomb-viscous"]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    pos = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
    build = pos[0] if pos else "build"
    rounds = int(arg("--rounds", "3"))
    repeat = arg("--repeat", "5")
    samples = arg("--samples", "100000")
    models = arg("--models", ",".join(MODELS)).split(",")
    here = os.path.dirname(os.path.abspath(__file__))
    best = {}  # (model, column) -> wall seconds
    cpu = {}  # (model, column) -> CPU seconds (all threads)
    worst_diff = 0.0
    for r in range(rounds):
        print(f"round {r + 1}: load average {open('/proc/loadavg').read().split()[:3]}", flush=True)
        for m in models:
            for t in (1, 2):
                out = subprocess.run(
                    [f"{build}/bin/bench_identify", "--model", m, "--threads", str(t), "--repeat", repeat, "--samples",
                     samples], capture_output=True, text=True).stdout
                print(out, end="", flush=True)
                med = float(re.search(r"median ([0-9.]+) s", out).group(1))
                key = (m, f"stribeck {t}T")
                best[key] = min(best.get(key, 1e9), med)
                c = float(re.search(r"cpu median ([0-9.]+) s", out).group(1))
                cpu[key] = min(cpu.get(key, 1e9), c)
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
            out = subprocess.run(["/usr/bin/python3", f"{here}/peers/scipy_identify.py", m, f"/tmp/stribeck_bench_identify_{m}.csv", repeat],
                                 capture_output=True, text=True, env=env).stdout
            print(out, end="", flush=True)
            for line in out.splitlines():
                g = re.search(r"least_squares (\w+), analytic Jacobian.*?median ([0-9.]+) s.*cpu median ([0-9.]+) s", line)
                if g:
                    key = (m, f"scipy {g.group(1)}")
                    best[key] = min(best.get(key, 1e9), float(g.group(2)))
                    cpu[key] = min(cpu.get(key, 1e9), float(g.group(3)))
                d = re.search(r"least_squares trf.*difference to stribeck ([0-9.e+-]+)", line)
                if d:
                    worst_diff = max(worst_diff, float(d.group(1)))
        print(f"after round {r + 1}: load average {open('/proc/loadavg').read().split()[:3]}", flush=True)
    cols = ["stribeck 1T", "stribeck 2T", "scipy trf", "scipy lm"]
    for what, table in (("wall", best), ("cpu", cpu)):
        print(f"\n{what} seconds, best of the rounds' medians")
        print("| model | " + " | ".join(cols) + " | stribeck 1T / trf | stribeck 1T / lm |")
        print("|---|" + "---|" * (len(cols) + 2))
        for m in models:
            row = [f"{table[(m, c)]:.4f}" for c in cols]
            s1 = table[(m, cols[0])]
            print(f"| {m} | " + " | ".join(row) + f" | {s1 / table[(m, 'scipy trf')]:.2f} | {s1 / table[(m, 'scipy lm')]:.2f} |")
    print(f"\nlargest relative parameter difference, stribeck vs scipy trf: {worst_diff:.2e}")
    return 0 if worst_diff <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
