#!/usr/bin/env bash
# The checks that need a GPU, run over a CUDA build made on another machine (make cuda-build, or
# the CMake line of README's CUDA section): the Thrust suite on CUDA, the NCCL communicator's test
# and benchmark, the CUDA example, the GPU benchmark at two sizes, its JAX anchor, and the suite's
# cases tagged MEMCHECK_TAGS (default [effects]) again under compute-sanitizer's memcheck. Each
# program's output goes to a log in LOGS (8 files, what a device machine sends back at most; the
# memcheck log also holds the NCCL test's run under memcheck); a line per program says its exit
# status. Libraries the build machine linked that this one keeps elsewhere (NCCL and the CUDA
# runtime as Python packages, say) are looked up by name.
#
#   bash tests/thrust/gpu_checks.sh [BUILD=build-cuda] [LOGS=gpu-logs]
set -u
build=${1:-build-cuda}
logs=${2:-gpu-logs}
mkdir -p "$logs"
rm -f "$logs"/*.log  # a check may run twice into one log (check appends)

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
  timeout "$seconds" "$@" >> "$logs/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc, $((SECONDS - start)) s"
  tail -n 4 "$logs/$name.log"
}

# the whole suite, or its two halves (test_suite_thrust_cuda_a / _b: the whole sm_90 binary is
# larger than the 64 MiB a device machine is sent)
suite=("$build"/tests/thrust/test_suite_thrust_cuda)
[ -x "${suite[0]}" ] || suite=("$build"/tests/thrust/test_suite_thrust_cuda_a "$build"/tests/thrust/test_suite_thrust_cuda_b)

for part in "${suite[@]}"; do check suite 300 "$part"; done
check nccl 120 "$build"/tests/thrust/test_nccl_collectives
check nccl_bench 120 "$build"/bench/bench_nccl_all_reduce
check example 60 "$build"/examples/example_cuda_tanh_chain
check bench 180 "$build"/bench/bench_thrust_cuda
check bench_2e20 60 "$build"/bench/bench_thrust_cuda 1048576
check jax 180 python3 bench/thrust_cuda.py
if [ "${MEMCHECK:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  # the suite's cases tagged MEMCHECK_TAGS, then the NCCL test (whose NCCL probes kernels it has
  # no image for: API errors it handles itself, not reported)
  for part in "${suite[@]}"; do
    check memcheck "${MEMCHECK_SECONDS:-200}" compute-sanitizer --tool memcheck --error-exitcode 3 "$part" "${MEMCHECK_TAGS:-[effects]}"
  done
  check memcheck 90 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
    "$build"/tests/thrust/test_nccl_collectives
fi
