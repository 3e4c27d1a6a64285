// examples/cuda/tanh_chain.cu -- the same traced graphs on a CUDA GPU through the Thrust backend.
//
// Build (see README.md): cmake -B build-cuda -DSTATICFLOW_CUDA=ON && cmake --build build-cuda
// --target example_cuda_tanh_chain, or by hand:
//   nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_80 -Xcompiler=-march=native \
//        -DXTENSOR_USE_XSIMD -Iinclude examples/cuda/tanh_chain.cu -o tanh_chain
#include <cstdio>

#include <thrust/device_vector.h>

#include <staticflow/staticflow.hpp>
#include <staticflow/backend/thrust/thrust.hpp>

namespace sf = staticflow;

int main() {
  // one fused kernel per call: tanh(x*x + y) is evaluated element by element on the GPU
  auto f = sf::function([](auto x, auto y) { return sf::tanh(x * x + y); }, sf::backend::thrust);
  const std::size_t n = 1 << 20;
  thrust::device_vector<float> x(n, 2.f), y(n, 1.f);
  auto r = f(sf::device_view(x), sf::device_view(y));  // r lives on the device
  xt::xtensor<float, 1> h = r.to_host();               // an explicit copy back (waits for the GPU)
  std::printf("tanh(2*2 + 1) = %f (%zu elements)\n", static_cast<double>(h(0)), h.size());

  // reductions, matmul and shape ops run on the device too; host data goes over explicitly
  auto g = sf::function([](auto m) { return sf::softmax(sf::matmul(m, sf::transpose(m))); });
  const xt::xtensor<float, 2> m = {{1, 2}, {3, 4}, {5, 6}};
  const auto dm = sf::to_device(m);  // a device tensor: the call runs on the Thrust backend
  const auto s = g(dm).to_host();
  std::printf("softmax(m m^T) row 0: %f %f %f\n", double(s(0, 0)), double(s(0, 1)), double(s(0, 2)));
  std::printf("graph:\n%s", g.get_concrete_function(dm).graph_string().c_str());
  return 0;
}
