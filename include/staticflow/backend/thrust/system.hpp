// staticflow/backend/thrust/system.hpp -- where the Thrust backend runs: the device system Thrust
// was built for, the execution policy every algorithm of the backend takes, the CUDA stream
// (CUDA only) and how to wait for it.
//
// One header set serves g++ with a host device system (THRUST_DEVICE_SYSTEM_OMP, _TBB, _CPP) and
// nvcc with CUDA. Under CUDA every kernel goes on the calling thread's stream (by default
// cudaStreamPerThread, which orders itself with the legacy default stream that thrust::
// device_vector uses for allocation and copies), algorithms that need not wait use
// `par_nosync`, and results synchronize when read on the host (to_host, block_until_ready).
#pragma once

#include <thrust/execution_policy.h>
#include <thrust/version.h>

#include "staticflow/core/config.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#define STATICFLOW_THRUST_CUDA 1
#include <cuda_runtime_api.h>
#include <thrust/system/cuda/execution_policy.h>
#include <stdexcept>
#include <string>
#else
#define STATICFLOW_THRUST_CUDA 0
#endif

#if STATICFLOW_THRUST_CUDA && !defined(__CUDACC__)
#error "staticflow: the Thrust backend's CUDA device system needs nvcc (compile the TU as CUDA)"
#endif

namespace staticflow::thrust_backend {
namespace detail {
/// Whether fused kernels come in two builds, one for flat reads of tensors shaped like the result
/// and one that may read broadcast blocks (expr.hpp's block_index): under CUDA only, where the
/// block-reading kernel cost the plain case 15 %; host systems compile one.
inline constexpr bool separate_plain_kernels = STATICFLOW_THRUST_CUDA;
}  // namespace detail

/// The device system's name: "cuda", "omp", "tbb" or "cpp".
constexpr const char* device_system_name() {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  return "cuda";
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
  return "omp";
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
  return "tbb";
#else
  return "cpp";
#endif
}

#if STATICFLOW_THRUST_CUDA
namespace detail {
inline cudaStream_t& stream_slot() {
  thread_local cudaStream_t s = cudaStreamPerThread;
  return s;
}
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("staticflow: ") + what + ": " + cudaGetErrorString(e));
}
}  // namespace detail

/// The stream this thread's calls run on (cudaStreamPerThread unless set_stream was called).
inline cudaStream_t stream() { return detail::stream_slot(); }
/// Runs this thread's later calls on `s` (the caller keeps it alive).
inline void set_stream(cudaStream_t s) { detail::stream_slot() = s; }
/// Waits until every call this thread made so far has finished.
inline void synchronize() { detail::check_cuda(cudaStreamSynchronize(stream()), "cudaStreamSynchronize"); }

/// The policy of kernels whose results stay on the device: no wait after the launch.
inline auto async_policy() { return ::thrust::cuda::par_nosync.on(stream()); }
/// The policy of algorithms that hand a value back to the host (they wait for it).
inline auto sync_policy() { return ::thrust::cuda::par.on(stream()); }
#else
/// Host device systems run every algorithm to completion: there is nothing to wait for.
inline void synchronize() {}
inline auto async_policy() { return ::thrust::device; }
inline auto sync_policy() { return ::thrust::device; }
#endif

}  // namespace staticflow::thrust_backend
