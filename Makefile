# The two commands a new user needs: `make demo` and `make test`. Both install
# missing Debian packages first (scripts/install-deps.sh), then build.
BUILD ?= build
JOBS ?= $(shell nproc)
# Shared libraries: the package test builds a consumer against them without
# CUDA or MPI (tests/package/), and an edited library relinks alone.
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DSTRIBECK_PYTHON=ON -DBUILD_SHARED_LIBS=ON
# Ninja (installed by the deps) when a build directory is first configured:
# it starts every object whose inputs are ready, so the CUDA and the GPU
# emulation objects compile beside the rest (bench/RESULTS.md, issue 35).
GENERATOR = $(if $(shell command -v ninja 2>/dev/null),-G Ninja)
STRIBECK := $(BUILD)/bin/stribeck
# The CUDA kernels: AUTO builds them wherever nvcc is found (`make test` does,
# so the PTX/SASS checks run). `make demo` builds them only where nvidia-smi
# lists a GPU: elsewhere they could not run, and they are ~40 % of the CLI's
# compile time (bench/RESULTS.md). STRIBECK_CUDA=ON or OFF decides for both.
STRIBECK_CUDA ?= AUTO
CUDA_CHOICE = $(STRIBECK_CUDA)
demo: CUDA_CHOICE = $(if $(filter AUTO,$(STRIBECK_CUDA)),$(if $(shell nvidia-smi -L 2>/dev/null | grep '^GPU'),AUTO,OFF),$(STRIBECK_CUDA))

.PHONY: all deps build-deps build test demo bench examples python clean

all: build

# Everything `make test` needs; build-deps: what building and the demo need.
deps:
	@bash scripts/install-deps.sh

build-deps:
	@bash scripts/install-deps.sh --build-only

$(BUILD)/CMakeCache.txt: | build-deps
	cmake -S . -B $(BUILD) $(GENERATOR) $(CMAKE_FLAGS) -DSTRIBECK_CUDA=$(CUDA_CHOICE)

build: deps $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DSTRIBECK_CUDA=$(CUDA_CHOICE) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && STRIBECK_MAKE_TEST=1 ctest --output-on-failure -j $(JOBS)

# The Python module alone: build/python/stribeck*.so (PYTHONPATH=build/python python3 -c 'import stribeck').
python: deps $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DSTRIBECK_PYTHON=ON
	cmake --build $(BUILD) -j $(JOBS) --target stribeck_python

# The demo needs the CLI only: tests, benchmarks, the GPU emulation and the
# Python module are left to `make test`, and their packages to `make deps`.
demo: build-deps $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DSTRIBECK_CUDA=$(CUDA_CHOICE) >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target stribeck
	@bash scripts/demo.sh $(STRIBECK)

# Regenerate data/examples/*.h5 with `stribeck generate` (seeded).
examples: build
	@bash scripts/make-examples.sh $(STRIBECK)

bench: deps $(BUILD)/CMakeCache.txt
	@bash scripts/install-deps.sh --bench
	cmake -S . -B $(BUILD) -DSTRIBECK_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	@echo "benchmarks are run one by one; see bench/README.md"

clean:
	rm -rf $(BUILD)
