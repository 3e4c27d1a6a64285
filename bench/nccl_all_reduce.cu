// bench_nccl_all_reduce -- NCCL through staticflow against ncclAllReduce called directly, on this
// process's GPU (a group of one, bootstrapped by sf::distributed::local; issue 24's overhead target
// is at most 1.05x), float32, 1M to 64M elements:
//
//   direct    ncclAllReduce(p, p, n) on the communicator's stream, then a wait (what the
//             communicator does for each call)
//   into      sf::all_reduce_into(t, t, comm): in place on a device tensor
//   traced    a function traced for the Thrust backend returning sf::all_reduce(x, comm) of a
//             device argument, call_into a preallocated device tensor (the collective reads the
//             argument in place; the result is copied into the caller's tensor)
//
// Wall time per call (each call waits for NCCL), best of five runs of 20 calls after warm-up.
// In a group of one NCCL moves no data between GPUs: what is measured is what staticflow adds to
// a call. Usage: bench_nccl_all_reduce
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>

#include <staticflow/backend/thrust/thrust.hpp>
#include <staticflow/distributed/nccl.hpp>
#include <staticflow/staticflow.hpp>

#include "cuda_timing.hpp"

namespace sf = staticflow;

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("bench_nccl_all_reduce: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  int version = 0;
  ncclGetVersion(&version);
  std::printf("device: %s, NCCL %d, a group of one\n", prop.name, version);
  sf::distributed::local boot;
  sf::distributed::nccl comm(boot, 0);
  auto traced = sf::function([&](auto x) { return sf::all_reduce(x, comm); }, sf::backend::thrust);
  std::printf("%10s %12s %12s %12s %10s %10s\n", "floats", "direct ms", "into ms", "traced ms", "into/dir", "traced/dir");
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 22, std::size_t{1} << 24, std::size_t{1} << 26}) {
    sf::device_tensor<float, 1> t(sf::extents<1>{n}), out(sf::extents<1>{n});
    cudaMemset(t.data(), 0, n * sizeof(float));
    const int reps = 20;
    const double direct = sf_bench::best_wall_ms_per_call([&] {
      ncclAllReduce(t.data(), t.data(), n, ncclFloat32, ncclSum, comm.native(), comm.stream());
      cudaStreamSynchronize(comm.stream());
    }, reps);
    const double into = sf_bench::best_wall_ms_per_call([&] { sf::all_reduce_into(t, t, comm); }, reps);
    sf::device_view<float, 1> in_view(t.data(), sf::extents<1>{n}), out_view(out.data(), sf::extents<1>{n});
    const double through_function = sf_bench::best_wall_ms_per_call([&] { traced.call_into(out_view, in_view); }, reps);
    std::printf("%10zu %12.4f %12.4f %12.4f %9.2fx %9.2fx\n", n, direct, into, through_function, into / direct,
                through_function / direct);
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("a call failed\n");
    return 1;
  }
  return 0;
}
