// bench_thrust_cuda -- the Thrust backend on a CUDA GPU: bandwidth as a fraction of the device's
// own memcpy (cudaMemcpy device to device), measured in the same run.
//
//   chain  out = (a*b + c*d - a/(b+1)) * 0.5   4 reads + 1 write per element (one fused kernel)
//   tanh   out = tanh(x*x + y)                  2 reads + 1 write
//   sum    reduce_sum(a*b)                      2 reads (transform_reduce; one value back)
//   memcpy cudaMemcpyAsync D2D of one array     1 read + 1 write
//
// Beside each staticflow call, the hand-written CUDA equivalent: a grid-stride kernel for chain and
// tanh, and thrust::inner_product (Thrust alone, the C++ peer) for the sum.
//
// Each is timed with CUDA events over `reps` back-to-back calls on the stream staticflow uses,
// after warm-up calls; the best of five such runs is reported. Target: chain >= 0.85 x memcpy.
// Usage: bench_thrust_cuda [elements = 2^26]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>
#include <thrust/sequence.h>

#include <staticflow/staticflow.hpp>
#include <staticflow/backend/thrust/thrust.hpp>

namespace sf = staticflow;

namespace {
template <class F>
double best_ms_per_call(F&& f, int reps) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) f();  // warm-up: traces, allocations, first launches
  cudaStreamSynchronize(sf::thrust_backend::stream());
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    cudaEventRecord(start, sf::thrust_backend::stream());
    for (int i = 0; i < reps; ++i) f();
    cudaEventRecord(stop, sf::thrust_backend::stream());
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    best = std::min(best, double(ms) / reps);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}
double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

// the hand-written kernels: one thread per element of a grid-stride loop
__global__ void hand_chain(float* out, const float* a, const float* b, const float* c, const float* d,
                           std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = (a[i] * b[i] + c[i] * d[i] - a[i] / (b[i] + 1.f)) * 0.5f;
}
__global__ void hand_tanh(float* out, const float* x, const float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = tanhf(x[i] * x[i] + y[i]);
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::size_t{1} << 26);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s, %zu float32 elements (%.0f MB per array)\n", prop.name, n, n * 4 / 1e6);

  thrust::device_vector<float> a(n), b(n), c(n), d(n), out(n);
  thrust::sequence(a.begin(), a.end(), 0.5f, 1e-7f);
  thrust::sequence(b.begin(), b.end(), 1.0f, 1e-7f);
  thrust::sequence(c.begin(), c.end(), 0.25f, 1e-7f);
  thrust::sequence(d.begin(), d.end(), 2.0f, 1e-7f);
  sf::device_view va(a), vb(b), vc(c), vd(d), vo(out);
  const int reps = 20;

  const double memcpy_ms = best_ms_per_call([&] {
    cudaMemcpyAsync(thrust::raw_pointer_cast(out.data()), thrust::raw_pointer_cast(a.data()), n * 4,
                    cudaMemcpyDeviceToDevice, sf::thrust_backend::stream());
  }, reps);
  const double memcpy_bw = gbps(2.0 * n * 4, memcpy_ms);

  auto chain = sf::function([](auto a, auto b, auto c, auto d) { return (a * b + c * d - a / (b + 1.f)) * 0.5f; },
                            sf::backend::thrust);
  const double chain_ms = best_ms_per_call([&] { chain.call_into(vo, va, vb, vc, vd); }, reps);
  auto tanh_fn = sf::function([](auto x, auto y) { return sf::tanh(x * x + y); }, sf::backend::thrust);
  const double tanh_ms = best_ms_per_call([&] { tanh_fn.call_into(vo, va, vb); }, reps);
  auto sum = sf::function([](auto x, auto y) { return sf::reduce_sum(x * y); }, sf::backend::thrust);
  const double sum_ms = best_ms_per_call([&] { (void)sum(va, vb); }, reps);

  const auto raw = [](thrust::device_vector<float>& v) { return thrust::raw_pointer_cast(v.data()); };
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, 65535u * 8));
  const double hand_chain_ms = best_ms_per_call([&] {
    hand_chain<<<blocks, threads, 0, sf::thrust_backend::stream()>>>(raw(out), raw(a), raw(b), raw(c), raw(d), n);
  }, reps);
  const double hand_tanh_ms = best_ms_per_call([&] {
    hand_tanh<<<blocks, threads, 0, sf::thrust_backend::stream()>>>(raw(out), raw(a), raw(b), n);
  }, reps);
  const double thrust_sum_ms = best_ms_per_call([&] {
    (void)thrust::inner_product(thrust::cuda::par.on(sf::thrust_backend::stream()), a.begin(), a.end(),
                                b.begin(), 0.f);
  }, reps);
  if (cudaGetLastError() != cudaSuccess) { std::printf("a hand kernel failed\n"); return 1; }

  std::printf("%-8s %10s %10s %10s\n", "kernel", "ms", "GB/s", "x memcpy");
  std::printf("%-8s %10.3f %10.1f %10.2f\n", "memcpy", memcpy_ms, memcpy_bw, 1.0);
  const auto row = [&](const char* name, double ms, double arrays) {
    const double bw = gbps(arrays * n * 4, ms);
    std::printf("%-8s %10.3f %10.1f %10.2f\n", name, ms, bw, bw / memcpy_bw);
    return bw / memcpy_bw;
  };
  const double chain_ratio = row("chain", chain_ms, 5);
  row("  hand", hand_chain_ms, 5);
  row("tanh", tanh_ms, 3);
  row("  hand", hand_tanh_ms, 3);
  row("sum", sum_ms, 2);
  row("  thrust", thrust_sum_ms, 2);
  std::printf("staticflow / hand time: chain %.2fx, tanh %.2fx, sum %.2fx (Thrust's inner_product)\n",
              chain_ms / hand_chain_ms, tanh_ms / hand_tanh_ms, sum_ms / thrust_sum_ms);
  std::printf("target: chain >= 0.85 x memcpy: %s\n", chain_ratio >= 0.85 ? "met" : "missed");
  return 0;
}
