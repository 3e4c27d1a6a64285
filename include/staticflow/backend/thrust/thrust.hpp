// staticflow/backend/thrust/thrust.hpp -- the Thrust backend: the same traced graphs as the CPU
// backend, run by Thrust on CUDA GPUs or on a host device system (OpenMP, TBB, serial).
//
//   auto f = sf::function([](auto x, auto y) { return sf::tanh(x * x + y); }, sf::backend::thrust);
//   thrust::device_vector<float> x(n, 2.f), y(n, 1.f);
//   auto r = f(sf::device_view(x), sf::device_view(y));   // one fused kernel; r lives on the device
//   xt::xtensor<float, 1> h = r.to_host();                 // an explicit copy back
//
// Any function also runs a call on this backend when its arguments are device tensors, or when
// the call names it: f(sf::backend::thrust, args...).
//
// Build: g++ with THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP (-fopenmp) or _CPP and the CCCL
// headers on the include path; nvcc (-std=c++20 --expt-relaxed-constexpr) for CUDA.
#pragma once

#include "staticflow/backend/backend.hpp"
#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/concrete_function.hpp"
#include "staticflow/backend/thrust/conv.hpp"
#include "staticflow/backend/thrust/cumulative.hpp"
#include "staticflow/backend/thrust/conv3d.hpp"
#include "staticflow/backend/thrust/depthwise_conv.hpp"
#include "staticflow/backend/thrust/expr.hpp"
#include "staticflow/backend/thrust/data_movement.hpp"
#include "staticflow/backend/thrust/diagonal.hpp"
#include "staticflow/backend/thrust/gather.hpp"
#include "staticflow/backend/thrust/masking.hpp"
#include "staticflow/backend/thrust/scatter.hpp"
#include "staticflow/backend/thrust/segment.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/backend/thrust/linalg.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/pool.hpp"
#include "staticflow/backend/thrust/reduce.hpp"
#include "staticflow/backend/thrust/random.hpp"
#include "staticflow/backend/thrust/sequence.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/sorting.hpp"
#include "staticflow/backend/thrust/unique.hpp"
#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/interop/device.hpp"

namespace staticflow::thrust_backend {
struct enabled {};
}  // namespace staticflow::thrust_backend
