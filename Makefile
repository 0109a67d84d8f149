# The two commands a new user needs: `make demo` and `make test`. Both install
# missing Debian packages first (scripts/install-deps.sh), then build.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DSTRIBECK_PYTHON=ON
STRIBECK := $(BUILD)/bin/stribeck

.PHONY: all deps build test demo bench examples python clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && STRIBECK_MAKE_TEST=1 ctest --output-on-failure -j $(JOBS)

# The Python module alone: build/python/stribeck*.so (PYTHONPATH=build/python python3 -c 'import stribeck').
python: deps $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DSTRIBECK_PYTHON=ON
	cmake --build $(BUILD) -j $(JOBS) --target stribeck_python

# The demo needs the CLI only: tests, benchmarks, the GPU emulation and the
# Python module are left to `make test`.
demo: deps $(BUILD)/CMakeCache.txt
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
