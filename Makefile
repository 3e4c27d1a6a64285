# staticflow developer entry points.
#
#   make deps           install missing build dependencies (Debian/Ubuntu + pip)
#   make demo           build and run every example
#   make test           configure (preset release), build, run the CTest suite (CI's)
#   make test-extended  make test plus the checks CI has no time for (each header compiled on
#                       its own, compile-cost bounds, libFuzzer runs, the benchmarks' and clang's
#                       syntax checks), then make test-sanitize
#   make test-sanitize  ASan+UBSan build (preset asan) of the run-time machinery's tests (make
#                       test sanitizes the kernels' and plans' part of them: ctest -L sanitized)
#   make bench          build and run the benchmarks
#   make bench-summary  rerun one size of each capability's benchmarks and rewrite the summary
#                       table at the top of docs/benchmarks.md and docs/benchmarks_summary.png
#   make bench-anchors  pip-install TensorFlow and JAX (bench/requirements.txt) and run the scripts
#                       of BENCH_ANCHORS (bench/small_call.py, bench/training_step.py, bench/checkpoint.py, bench/conv.py, bench/conv3d.py, bench/pool.py, bench/gather.py, bench/unique.py, bench/random.py, bench/jvp.py, bench/loop_gradient.py, bench/strings.py, bench/stencil.py,
#                       bench/compile_time_anchor.py),
#                       the same computations timed with tf.function / jax.jit (never in CI)
#   make cuda-build     nvcc builds (compile + link, nothing run) of the CUDA example, the Thrust
#                       backend's suite, the NCCL communicator's test and the GPU benchmarks for
#                       sm_80 and sm_90 (build-cuda/)
#   make fuzz SEED=n    the differential graph fuzzer at scale (build-fuzz/): FUZZ_GRAPHS forward
#                       graphs x FUZZ_CASES inputs (10^6 cases by default) and FUZZ_GRAPHS / 4
#                       gradient graphs, seeds n*100000+1...; CI runs seeds 1-12 (tests/fuzz/)
#   make clean          remove the build trees

JOBS       ?= 2
CMAKE      ?= cmake
CTEST      ?= ctest
BUILD_DIR  ?= build
ASAN_DIR   ?= build-asan
BENCH_ARGS ?= --benchmark_min_time=0.2
# The Python anchors of the benchmarks (TensorFlow, JAX), run by make bench-anchors
BENCH_ANCHORS ?= bench/small_call.py bench/training_step.py bench/gradients.py bench/checkpoint.py bench/conv.py bench/conv3d.py bench/pool.py bench/gather.py bench/unique.py bench/random.py bench/jvp.py bench/loop_gradient.py bench/strings.py bench/stencil.py bench/compile_time_anchor.py

DEB_PACKAGES := cmake ninja-build g++ libboost-dev xtensor-dev libxsimd-dev \
                xtl-dev catch2 libbenchmark-dev libeigen3-dev graphviz gnuplot-nox ccache \
                clang-14 libclang-rt-14-dev libonnx-dev libprotobuf-dev openmpi-bin libopenmpi-dev \
                python3-pip

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

.PHONY: all deps configure build demo test test-extended test-sanitize bench bench-summary bench-anchors cuda-build fuzz clean

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  st=$$(dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null || true); \
	  case "$$st" in *"install ok installed"*) ;; *) missing="$$missing $$p" ;; esac; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi; \
	if ! python3 -c 'import onnxruntime, numpy' >/dev/null 2>&1; then \
	  echo "deps: installing onnxruntime with pip (io.onnx_runtime runs the exported models in it)"; \
	  python3 -m pip install --quiet --disable-pip-version-check onnxruntime numpy 2>/dev/null \
	    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages onnxruntime numpy \
	    || echo "deps: warning: onnxruntime could not be installed; io.onnx_runtime will be skipped"; \
	fi; \
	if ! command -v conan >/dev/null 2>&1; then \
	  echo "deps: installing conan with pip"; \
	  python3 -m pip install --quiet --disable-pip-version-check conan 2>/dev/null \
	    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages conan; \
	  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi; \
	  command -v conan >/dev/null 2>&1 \
	    || echo "deps: warning: conan installed but not on PATH (add ~/.local/bin); packaging.conan_create will be skipped"; \
	fi

# `make test` and `make demo` do not build the benchmarks (`make test-extended` syntax-checks their
# sources instead); `make bench` turns them on in the same build tree.
BUILD_BENCHMARKS ?= OFF
EXTENDED_TESTS ?= OFF
configure: deps
	$(CMAKE) --preset release -DSTATICFLOW_BUILD_BENCHMARKS=$(BUILD_BENCHMARKS) -DSTATICFLOW_EXTENDED_TESTS=$(EXTENDED_TESTS)

build: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS)

demo: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target run_examples

# The build keeps going past errors (ninja -k 0) so that one broken test source
# does not hide the results of all the others; the target still fails.
test: configure
	@build_rc=0; \
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) -- -k 0 || build_rc=$$?; \
	if [ $$build_rc -ne 0 ]; then \
	  echo "make test: BUILD FAILED (exit $$build_rc), see errors above; running the tests that were built"; \
	fi; \
	test_rc=0; \
	$(CTEST) --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) || test_rc=$$?; \
	[ $$build_rc -eq 0 ] && [ $$test_rc -eq 0 ]

# The checks CI's two cores have no time for (tests/CMakeLists.txt, STATICFLOW_EXTENDED_TESTS):
# every header compiled on its own, the compile-cost bounds, the libFuzzer runs, the benchmarks' and
# clang's syntax checks; then the whole sanitizer list in its own build. The next `make test`
# configures the release build tree back without them.
test-extended:
	$(MAKE) test EXTENDED_TESTS=ON
	$(MAKE) test-sanitize

test-sanitize: deps
	$(CMAKE) --preset asan
	@build_rc=0; \
	$(CMAKE) --build $(ASAN_DIR) -j $(JOBS) -- -k 0 || build_rc=$$?; \
	if [ $$build_rc -ne 0 ]; then \
	  echo "make test-sanitize: BUILD FAILED (exit $$build_rc), see errors above; running the tests that were built"; \
	fi; \
	test_rc=0; \
	$(CTEST) --preset asan -j $(JOBS) || test_rc=$$?; \
	[ $$build_rc -eq 0 ] && [ $$test_rc -eq 0 ]

bench: deps
	$(CMAKE) --preset release -DSTATICFLOW_BUILD_BENCHMARKS=ON -DSTATICFLOW_BENCH_ARGS="$(BENCH_ARGS)"
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target run_benchmarks

bench-summary: deps
	python3 bench/summary.py --write

bench-anchors:
	python3 -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt 2>/dev/null \
	  || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages -r bench/requirements.txt
	for script in $(BENCH_ANCHORS); do echo "==================== $$script ===================="; python3 "$$script"; done

CUDA_DIR ?= build-cuda
cuda-build: deps
	$(CMAKE) --preset release -B $(CUDA_DIR) -DSTATICFLOW_CUDA=ON \
	  -DCMAKE_CUDA_COMPILER=$${CUDACXX:-/usr/local/cuda/bin/nvcc}
	$(CMAKE) --build $(CUDA_DIR) -j $(JOBS) --target example_cuda_tanh_chain test_suite_thrust_cuda test_suite_thrust_cuda_a test_suite_thrust_cuda_b test_nccl_collectives bench_thrust_cuda bench_nccl_all_reduce

# A failing graph prints its seed: add `graph SEED` (or `gradient SEED`) to
# tests/fuzz/graph_regressions.txt and CI checks it from then on.
FUZZ_DIR    ?= build-fuzz
SEED        ?= 1
FUZZ_GRAPHS ?= 200
FUZZ_CASES  ?= 5000
fuzz: deps
	first=$$(( $(SEED) * 100000 + 1 )); \
	$(CMAKE) --preset release -B $(FUZZ_DIR) -DSTATICFLOW_FUZZ_SEEDS=$$first-$$(( first + $(FUZZ_GRAPHS) - 1 )) \
	  -DSTATICFLOW_FUZZ_CASES=$(FUZZ_CASES) -DSTATICFLOW_FUZZ_PARTS=$$(( ($(FUZZ_GRAPHS) + 2) / 3 )) \
	  -DSTATICFLOW_FUZZ_GRADIENT_SEEDS=$$first-$$(( first + ($(FUZZ_GRAPHS) + 3) / 4 - 1 )) \
	  -DSTATICFLOW_FUZZ_GRADIENT_CASES=100 -DSTATICFLOW_FUZZ_GRADIENT_PARTS=$$(( ($(FUZZ_GRAPHS) + 7) / 8 ))
	$(CMAKE) --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_graphs
	$(CTEST) --test-dir $(FUZZ_DIR) -L graph_fuzz --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(CUDA_DIR) $(FUZZ_DIR) build-debug test_package/build
