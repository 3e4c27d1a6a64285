#!/usr/bin/env bash
# The checks that need a GPU, run over a CUDA build made on another machine (make cuda-build, or
# the CMake line of README's CUDA section): the Thrust suite on CUDA, the NCCL communicator's test
# and benchmark, the CUDA example, the GPU benchmark at two sizes, its JAX anchor, and the suite's
# cases tagged MEMCHECK_TAGS (default [effects]) again under compute-sanitizer's memcheck. Each
# program's output goes to a log in LOGS (8 files); a line per program says its exit status. Libraries the build machine linked that this one keeps elsewhere (NCCL
# and the CUDA runtime as Python packages, say) are looked up by name.
#
#   bash tests/thrust/gpu_checks.sh [BUILD=build-cuda] [LOGS=gpu-logs]
set -u
build=${1:-build-cuda}
logs=${2:-gpu-logs}
mkdir -p "$logs"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1

# a shared library a program needs that the loader cannot find: its folder joins LD_LIBRARY_PATH
for lib in $(ldd "$build"/tests/thrust/* "$build"/bench/* "$build"/examples/* 2>/dev/null |
             awk '/not found/ {print $1}' | sort -u); do
  found=$(find /usr /opt /lib* -name "$lib" 2>/dev/null | head -1)
  if [ -n "$found" ]; then
    echo "$lib: $found"
    export LD_LIBRARY_PATH="$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  else
    echo "$lib: not found on this machine"
  fi
done

check() {  # check NAME SECONDS COMMAND...: runs COMMAND into LOGS/NAME.log
  local name=$1 seconds=$2
  shift 2
  local start=$SECONDS
  timeout "$seconds" "$@" > "$logs/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc, $((SECONDS - start)) s"
  tail -n 4 "$logs/$name.log"
}

check suite 300 "$build"/tests/thrust/test_suite_thrust_cuda
check nccl 120 "$build"/tests/thrust/test_nccl_collectives
check nccl_bench 120 "$build"/bench/bench_nccl_all_reduce
check example 60 "$build"/examples/example_cuda_tanh_chain
check bench 180 "$build"/bench/bench_thrust_cuda
check bench_2e20 60 "$build"/bench/bench_thrust_cuda 1048576
check jax 180 python3 bench/thrust_cuda.py
if [ "${MEMCHECK:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  check memcheck "${MEMCHECK_SECONDS:-200}" compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$build"/tests/thrust/test_suite_thrust_cuda "${MEMCHECK_TAGS:-[effects]}"
fi
