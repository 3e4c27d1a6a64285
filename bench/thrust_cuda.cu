// bench_thrust_cuda -- the Thrust backend on a CUDA GPU: bandwidth as a fraction of the device's
// own memcpy (cudaMemcpy device to device), measured in the same run.
//
//   chain  out = (a*b + c*d - a/(b+1)) * 0.5   4 reads + 1 write per element (one fused kernel)
//   tanh   out = tanh(x*x + y)                  2 reads + 1 write
//   sum    reduce_sum(a*b)                      2 reads (CUB's device reduction, total left on the device)
//   memcpy cudaMemcpyAsync D2D of one array     1 read + 1 write
//   rows   reduce_sum(m, axes<1>) of m = a as [n/1024, 1024]   1 read (CUB segmented reduction)
//   cols   reduce_sum(m, axes<0>) of the same m                1 read (chunks of rows, then chunks)
//   update w -= 0.01 * (w - t), w an sf::variable (host memory), t on the device   (issue 21)
//   read   reduce_sum(w * t) of the same variable
//
// Beside each staticflow call, the hand-written CUDA equivalent: a grid-stride kernel for chain and
// tanh, a warp per row, a thread per column and a tiled column kernel with atomics for the partial
// sums, and thrust::inner_product (Thrust alone, the C++ peer) for the sum.
//
// Each is timed with CUDA events over `reps` back-to-back calls on the stream staticflow uses,
// after warm-up calls; the best of five such runs is reported. Target: chain >= 0.85 x memcpy.
// The variable rows are timed by the wall clock (their host copies wait), beside the same update
// in place on device memory (a hand kernel) and cudaMemcpy of the variable's bytes each way.
// Usage: bench_thrust_cuda [elements = 2^26]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/sequence.h>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>
#include <staticflow/backend/thrust/thrust.hpp>

#include "cuda_timing.hpp"

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
// a row's sum by one warp: lanes stride over the row, then a shuffle reduction
__global__ void hand_row_sums(float* out, const float* m, std::size_t rows, std::size_t cols) {
  const std::size_t warp = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (warp >= rows) return;
  float acc = 0.f;
  for (std::size_t j = lane; j < cols; j += 32) acc += m[warp * cols + j];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (lane == 0) out[warp] = acc;
}
// a column's sum by one thread, reading rows in order (coalesced across the threads of a warp)
__global__ void hand_col_sums(float* out, const float* m, std::size_t rows, std::size_t cols) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= cols) return;
  float acc = 0.f;
  for (std::size_t i = 0; i < rows; ++i) acc += m[i * cols + j];
  out[j] = acc;
}
// the usual hand-written column sums: a block of 256 threads covers 256 columns and a chunk of
// 64 rows (coalesced reads, enough blocks to fill the device), partial sums added atomically
// into the zeroed output
__global__ void hand_col_sums_tiled(float* out, const float* m, std::size_t rows, std::size_t cols) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= cols) return;
  const std::size_t first = blockIdx.y * std::size_t{64}, last = first + 64 < rows ? first + 64 : rows;
  float acc = 0.f;
  for (std::size_t i = first; i < last; ++i) acc += m[i * cols + j];
  atomicAdd(out + j, acc);
}
__global__ void hand_update(float* w, const float* t, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    w[i] -= 0.01f * (w[i] - t[i]);
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
  // partial reductions of a as a [n / 1024, 1024] matrix
  const std::size_t cols = 1024, rows = n / cols;
  sf::device_view<float, 2> vm(raw(a), sf::extents<2>{rows, cols});
  auto row_sums = sf::function([](auto m) { return sf::reduce_sum(m, sf::axes<1>{}); }, sf::backend::thrust);
  auto col_sums = sf::function([](auto m) { return sf::reduce_sum(m, sf::axes<0>{}); }, sf::backend::thrust);
  sf::device_view<float, 1> vrows(raw(out), sf::extents<1>{rows}), vcols(raw(out), sf::extents<1>{cols});
  const double rows_ms = best_ms_per_call([&] { row_sums.call_into(vrows, vm); }, reps);
  const double cols_ms = best_ms_per_call([&] { col_sums.call_into(vcols, vm); }, reps);
  const double hand_rows_ms = best_ms_per_call([&] {
    hand_row_sums<<<static_cast<unsigned>((rows * 32 + threads - 1) / threads), threads, 0, sf::thrust_backend::stream()>>>(
        raw(out), raw(a), rows, cols);
  }, reps);
  const double hand_cols_ms = best_ms_per_call([&] {
    hand_col_sums<<<static_cast<unsigned>((cols + threads - 1) / threads), threads, 0, sf::thrust_backend::stream()>>>(
        raw(out), raw(a), rows, cols);
  }, reps);
  const auto tiled_cols = [&](float* o) {
    cudaMemsetAsync(o, 0, cols * sizeof(float), sf::thrust_backend::stream());
    hand_col_sums_tiled<<<dim3(static_cast<unsigned>((cols + threads - 1) / threads), static_cast<unsigned>((rows + 63) / 64)),
                          threads, 0, sf::thrust_backend::stream()>>>(o, raw(a), rows, cols);
  };
  const double tiled_cols_ms = best_ms_per_call([&] { tiled_cols(raw(out)); }, reps);
  if (cudaGetLastError() != cudaSuccess) { std::printf("a hand kernel failed\n"); return 1; }
  // the partial reductions agree with the hand kernels (float sums in another order: 1e-4)
  const auto largest_difference = [&](auto&& ours, auto&& hand, std::size_t count) {
    thrust::device_vector<float> theirs(count);
    ours();
    hand(raw(theirs));
    cudaStreamSynchronize(sf::thrust_backend::stream());
    thrust::host_vector<float> x(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(count)), y = theirs;
    double worst = 0;
    for (std::size_t i = 0; i < count; ++i)
      worst = std::max(worst, std::abs(double(x[i]) - double(y[i])) / std::max(1.0, std::abs(double(y[i]))));
    return worst;
  };
  const double rows_diff = largest_difference([&] { row_sums.call_into(vrows, vm); }, [&](float* o) {
    hand_row_sums<<<static_cast<unsigned>((rows * 32 + threads - 1) / threads), threads, 0, sf::thrust_backend::stream()>>>(
        o, raw(a), rows, cols);
  }, rows);
  const double cols_diff = largest_difference([&] { col_sums.call_into(vcols, vm); }, [&](float* o) {
    hand_col_sums<<<static_cast<unsigned>((cols + threads - 1) / threads), threads, 0, sf::thrust_backend::stream()>>>(
        o, raw(a), rows, cols);
  }, cols);
  const double tiled_diff = largest_difference([&] { col_sums.call_into(vcols, vm); }, tiled_cols, cols);
  std::printf("largest relative difference from the hand kernels: rows %.1e, cols %.1e, cols tiled %.1e%s\n", rows_diff,
              cols_diff, tiled_diff, rows_diff < 1e-4 && cols_diff < 1e-4 && tiled_diff < 1e-4 ? "" : "  (TOO LARGE)");

  // gradients on the device (issue 18): value_and_grad of sum(tanh(x*w + b)) w.r.t. w (one fused
  // elementwise adjoint), and the gradient w.r.t. a bias broadcast over the rows of m (its adjoint
  // is a column sum), each against its forward call; outputs preallocated (call_into)
  auto loss = [](auto x, auto w, auto b) { return sf::reduce_sum(sf::tanh(x * w + b)); };
  auto loss_fn = sf::function(loss, sf::backend::thrust);
  auto loss_vg = sf::value_and_grad<1>(loss, sf::backend::thrust);
  thrust::device_vector<float> scalar(1);
  sf::device_view<float, 0> vscalar(raw(scalar), sf::extents<0>{});
  const double loss_ms = best_ms_per_call([&] { loss_fn.call_into(vscalar, va, vb, vc); }, reps);
  const double loss_vg_ms = best_ms_per_call([&] { loss_vg.call_into(std::tie(vscalar, vo), va, vb, vc); }, reps);
  sf::device_view<float, 1> vbias(raw(d), sf::extents<1>{cols});
  auto layer = [](auto m, auto bias) { return sf::reduce_sum(sf::tanh(m + bias)); };
  auto layer_fn = sf::function(layer, sf::backend::thrust);
  auto layer_vg = sf::value_and_grad<1>(layer, sf::backend::thrust);
  const double layer_ms = best_ms_per_call([&] { layer_fn.call_into(vscalar, vm, vbias); }, reps);
  const double layer_vg_ms = best_ms_per_call([&] { layer_vg.call_into(std::tie(vscalar, vcols), vm, vbias); }, reps);
  if (cudaGetLastError() != cudaSuccess) { std::printf("a gradient call failed\n"); return 1; }

  // effects (issue 21): a variable lives in host memory; under CUDA a call copies what it reads to
  // the device and each value it assigns back (backend/thrust/effect_graph.hpp)
  const std::size_t vn = std::min<std::size_t>(n, std::size_t{1} << 24);
  xt::xtensor<float, 1> w0 = xt::xtensor<float, 1>::from_shape({vn});
  std::fill(w0.begin(), w0.end(), 1.f);
  sf::variable<float, sf::dyn> w{w0};
  sf::device_view<float, 1> vt(raw(b), sf::extents<1>{vn});
  auto update = sf::function([&](auto t) { w.assign_sub(0.01f * (w - t)); }, sf::backend::thrust);
  auto read_only = sf::function([&](auto t) { return sf::reduce_sum(w * t); }, sf::backend::thrust);
  const int var_reps = 10;
  const double update_ms = sf_bench::best_wall_ms_per_call([&] { update(vt); }, var_reps);
  const double read_ms = sf_bench::best_wall_ms_per_call([&] { (void)read_only(vt); }, var_reps);
  const double hand_update_ms = sf_bench::best_wall_ms_per_call([&] {
    hand_update<<<blocks, threads, 0, sf::thrust_backend::stream()>>>(raw(c), raw(b), vn);
  }, var_reps);
  const double h2d_ms = sf_bench::best_wall_ms_per_call([&] {
    cudaMemcpy(raw(c), w.value().data(), vn * 4, cudaMemcpyHostToDevice);
  }, var_reps);
  const double d2h_ms = sf_bench::best_wall_ms_per_call([&] {
    cudaMemcpy(w0.data(), raw(c), vn * 4, cudaMemcpyDeviceToHost);
  }, var_reps);
  if (cudaGetLastError() != cudaSuccess) { std::printf("a variable call failed\n"); return 1; }
  {  // the update's value: w = 1 - 0.01 * (1 - t) after one call from ones (a fresh variable)
    std::fill(w0.begin(), w0.end(), 1.f);
    sf::variable<float, sf::dyn> v{w0};
    auto once = sf::function([&](auto t) { v.assign_sub(0.01f * (v - t)); }, sf::backend::thrust);
    once(vt);
    thrust::host_vector<float> t_host(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(vn));
    double worst = 0;
    for (std::size_t i = 0; i < vn; ++i)
      worst = std::max(worst, std::abs(double(v.value()[i]) - (1.0 - 0.01 * (1.0 - double(t_host[i])))));
    std::printf("variable update: largest difference from the reference %.1e%s\n", worst, worst < 1e-5 ? "" : "  (TOO LARGE)");
  }

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
  row("rows", rows_ms, 1);
  row("  hand", hand_rows_ms, 1);
  row("cols", cols_ms, 1);
  row("  hand", hand_cols_ms, 1);
  row("  tiled", tiled_cols_ms, 1);
  std::printf("staticflow / hand time: chain %.2fx, tanh %.2fx, sum %.2fx (Thrust's inner_product), rows %.2fx, cols %.2fx "
              "(%.2fx the tiled hand kernel)\n",
              chain_ms / hand_chain_ms, tanh_ms / hand_tanh_ms, sum_ms / thrust_sum_ms, rows_ms / hand_rows_ms,
              cols_ms / hand_cols_ms, cols_ms / tiled_cols_ms);
  std::printf("target: chain >= 0.85 x memcpy: %s\n", chain_ratio >= 0.85 ? "met" : "missed");
  std::printf("gradients: sum(tanh(x*w+b)) forward %.3f ms (%.2fx memcpy), value_and_grad d/dw %.3f ms = %.2fx the forward "
              "(reads 3 + writes 1: %.2fx memcpy)\n",
              loss_ms, gbps(3.0 * n * 4, loss_ms) / memcpy_bw, loss_vg_ms, loss_vg_ms / loss_ms,
              gbps(4.0 * n * 4, loss_vg_ms) / memcpy_bw);
  std::printf("gradients: sum(tanh(m + bias)) over [%zu, %zu] forward %.3f ms, value_and_grad d/dbias (a column sum) %.3f ms "
              "= %.2fx the forward\n",
              rows, cols, layer_ms, layer_vg_ms, layer_vg_ms / layer_ms);
  std::printf("variables, %zu floats (%.0f MB): update w -= 0.01 * (w - t) %.3f ms, read-only reduce_sum(w * t) %.3f ms; "
              "the update in place on the device (hand kernel) %.3f ms: %.1fx; cudaMemcpy of the variable host to device %.3f ms, "
              "device to host %.3f ms\n",
              vn, vn * 4 / 1e6, update_ms, read_ms, hand_update_ms, update_ms / hand_update_ms, h2d_ms, d2h_ms);
  return 0;
}
