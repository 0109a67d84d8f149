#!/usr/bin/env bash
# Installs Stribeck's build and test dependencies from Debian 12's own packages.
# Idempotent: packages already present are skipped, so a second run costs nothing
# and needs no privileges. Nothing is downloaded from anywhere but Debian.
#
#   scripts/install-deps.sh            # build + test dependencies
#   scripts/install-deps.sh --build-only  # what building needs (`make demo`): no test tools,
#                                      # no Chromium, clang-format or Python test packages
#   scripts/install-deps.sh --bench    # also the Python peers used by bench/
#   scripts/install-deps.sh --fuzz     # also clang-14 + libFuzzer (cmake -DSTRIBECK_FUZZ=ON)
# Options combine: scripts/install-deps.sh --bench --fuzz
set -euo pipefail

# What configuring, building (the CLI, the libraries, the Python module, the
# man page) and running the CLI need.
packages=(
  cmake make g++ pkg-config
  ninja-build ccache                # the Makefile's generator; compiles cached across clones (CMakeLists.txt)
  libceres-dev libeigen3-dev        # identification (Ceres 2.1, Eigen 3.4)
  libhdf5-dev                       # HDF5 1.10 (C API and high-level library)
  libmatio-dev                      # MATLAB v5/v7 .mat import (v7.3 is read as HDF5)
  libcli11-dev                      # the stribeck CLI
  libgtest-dev                      # tests (found when configuring)
  nlohmann-json3-dev                # JSON output (models --json, fit reports)
  libtomlplusplus-dev               # TOML configs (sweeps, simulations)
  libopenmpi-dev openmpi-bin        # MPI sweeps (stribeck sweep --mpi; optional at build time)
  help2man                          # the man page stribeck.1, generated from the CLI's help at build time
  pybind11-dev python3-dev          # the Python module (cmake -DSTRIBECK_PYTHON=ON, `import stribeck`)
  gnuplot-nox                       # stribeck plot, at run time (svg, pngcairo, pdfcairo terminals)
)
# What the tests need on top.
test_packages=(
  python3-numpy                     # tests: the benchmark peers' physics check (tests/CMakeLists.txt)
  python3-scipy                     # tests: the dynamic fit's SciPy peer, solve_ivp reference of the stiction form
  python3-xarray                    # tests: every results file opens with xarray (ResultsFormat.*)
  python3-h5netcdf                  # tests: ... through its h5netcdf engine
  clang-format-14                   # the Format.* CTest (libllvm14 + libclang-cpp14, ~165 MB; not the clang compiler)
  python3-pytest                    # tests: the Python module's suite (python/tests)
  chromium                          # tests: reports load in headless Chromium (Report.*, label browser)
  python3-h5py python3-pandas       # tests: stribeck.sweep/simulate against the CLI's HDF5 files, as DataFrames
)
build_only=0
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    --bench) packages+=(python3-h5py python3-numba) ;;     # the benchmarks' Python peers
    --fuzz) packages+=(clang-14 libclang-rt-14-dev) ;;     # libFuzzer target for the log readers (tests/fuzz)
    *) echo "install-deps: unknown option '$arg' (--build-only, --bench, --fuzz)" >&2; exit 2 ;;
  esac
done
[ "$build_only" -eq 1 ] || packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing Debian packages (${missing[*]}) and not root; rerun as root or install sudo" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
