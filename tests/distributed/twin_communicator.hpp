// tests/distributed/twin_communicator.hpp -- `twin`, a communicator of two processes that hold the
// same values (so a sum doubles, a gather repeats), which logs every collective: what the MPI
// tests (tests/distributed/*mpi*) check with real processes, checked in one process without an
// engine; and `twin_device`, the same over device buffers (as NCCL's). Used by
// tests/distributed/test_collectives.cpp and the backend suite (tests/thrust).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <staticflow/distributed/communicator.hpp>
#include <staticflow/staticflow.hpp>

namespace sf_test {
namespace sf = staticflow;

struct twin {
  std::vector<std::string> log;  // "all_reduce float32 x6 sum", ...
  int rank() const { return 0; }
  int size() const { return 2; }
  template <class T>
  static std::string dtype() {
    return std::string(sf::dtype_name<T>);
  }
  template <class T>
  void all_reduce(const T* in, T* out, std::size_t n, sf::reduce_op op) {
    log.push_back("all_reduce " + dtype<T>() + " x" + std::to_string(n) + " " + sf::reduce_op_name(op));
    for (std::size_t i = 0; i < n; ++i) out[i] = op == sf::reduce_op::sum ? T(in[i] + in[i]) : in[i];
  }
  template <class T>
  void broadcast(T*, std::size_t n, int root) {
    log.push_back("broadcast " + dtype<T>() + " x" + std::to_string(n) + " from " + std::to_string(root));
  }
  template <class T>
  void all_gather(const T* in, std::size_t n, T* out) {
    log.push_back("all_gather " + dtype<T>() + " x" + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i) out[i] = out[n + i] = in[i];
  }
  void barrier() { log.push_back("barrier"); }
};

/// `twin` over device buffers, as sf::distributed::nccl: it allocates and copies device memory
/// (CUDA's under nvcc; host memory elsewhere, as the Thrust backend's host device systems use) and
/// combines on the host. `live` counts its allocations not yet freed.
struct twin_device : twin {
  static constexpr bool device_buffers = true;
  int live = 0;
  void* allocate(std::size_t bytes) {
    ++live;
#if defined(__CUDACC__)
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) throw std::bad_alloc();
    return p;
#else
    return std::malloc(bytes);
#endif
  }
  void deallocate(void* p) {
    --live;
#if defined(__CUDACC__)
    cudaFree(p);
#else
    std::free(p);
#endif
  }
  void copy(void* to, const void* from, std::size_t bytes) {
#if defined(__CUDACC__)
    if (bytes) cudaMemcpy(to, from, bytes, cudaMemcpyDefault);
#else
    if (bytes) std::memcpy(to, from, bytes);
#endif
  }
  template <class T>
  void all_reduce(const T* in, T* out, std::size_t n, sf::reduce_op op) {
    std::vector<T> a(n), b(n);
    copy(a.data(), in, n * sizeof(T));
    twin::all_reduce(a.data(), b.data(), n, op);
    copy(out, b.data(), n * sizeof(T));
  }
  template <class T>
  void all_gather(const T* in, std::size_t n, T* out) {
    std::vector<T> a(n), b(2 * n);
    copy(a.data(), in, n * sizeof(T));
    twin::all_gather(a.data(), n, b.data());
    copy(out, b.data(), 2 * n * sizeof(T));
  }
};

}  // namespace sf_test
