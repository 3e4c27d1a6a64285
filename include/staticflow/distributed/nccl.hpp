// staticflow/distributed/nccl.hpp -- the NCCL communicator: collectives between GPUs, one process
// per GPU (opt-in: a CUDA translation unit linking staticflow::nccl, `make cuda-build`). Its
// buffers are device memory: sf::device_tensors, or raw device pointers.
//
//   sf::distributed::mpi_environment env(argc, argv);
//   sf::distributed::mpi boot;                                  // how the processes find each other
//   sf::distributed::nccl comm(boot, boot.rank() % gpus);       // this process's GPU
//   sf::device_tensor<float, 1> g = ...;
//   auto total = sf::all_reduce(g, comm);                       // on the GPUs, NCCL's ring
//   sf::all_reduce_into(g, g, comm, sf::reduce_op::mean);       // in place
//
// The communicator is made from a bootstrap communicator (sf::distributed::mpi, or
// sf::distributed::local for one GPU) that carries NCCL's unique id from rank 0 to the others.
// Each collective is enqueued on the communicator's stream and waited for before the call returns
// (the concept's calls are blocking); NCCL's errors become sf::distributed_error with NCCL's
// message. Inside a function traced for sf::backend::thrust a collective over it combines device
// buffers: the operands are evaluated by the device kernels into memory the communicator
// allocates (a device tensor argument is read where it is), and what follows reads the results
// there (distributed/collectives.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>
#include <nccl.h>

#include "staticflow/distributed/collectives.hpp"
#include "staticflow/distributed/communicator.hpp"
#include "staticflow/interop/device.hpp"

namespace staticflow::distributed {
namespace detail {
inline void cuda_check(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess) throw distributed_error(std::string(call) + " failed: " + cudaGetErrorString(rc));
}

template <class T>
ncclDataType_t nccl_datatype() {
  if constexpr (std::is_same<T, float>::value) return ncclFloat32;
  else if constexpr (std::is_same<T, double>::value) return ncclFloat64;
  else if constexpr (std::is_same<T, std::int32_t>::value) return ncclInt32;
  else return ncclInt64;
}

inline ncclRedOp_t nccl_op(reduce_op op) {
  switch (op) {
    case reduce_op::mean: return ncclAvg;
    case reduce_op::min: return ncclMin;
    case reduce_op::max: return ncclMax;
    default: return ncclSum;
  }
}
}  // namespace detail

class nccl {
 public:
  static constexpr bool device_buffers = true;

  /// This process's GPU `device` in a group of boot.size() processes (rank boot.rank()).
  template <communicator Bootstrap>
  nccl(Bootstrap& boot, int device) : rank_(boot.rank()), size_(boot.size()) {
    detail::cuda_check(cudaSetDevice(device), "cudaSetDevice");
    // NCCL's unique id, rank 0's, as int32 words (what every communicator carries)
    std::int32_t id_words[sizeof(ncclUniqueId) / sizeof(std::int32_t)] = {};
    ncclUniqueId id{};
    if (rank_ == 0) {
      check(ncclGetUniqueId(&id), "ncclGetUniqueId");
      std::memcpy(id_words, &id, sizeof id);
    }
    boot.broadcast(id_words, sizeof id_words / sizeof id_words[0], 0);
    std::memcpy(&id, id_words, sizeof id);
    detail::cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(ncclCommInitRank(&comm_, size_, id, rank_), "ncclCommInitRank");
  }
  nccl(const nccl&) = delete;
  nccl& operator=(const nccl&) = delete;
  ~nccl() {
    if (comm_) ncclCommDestroy(comm_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  int rank() const { return rank_; }
  int size() const { return size_; }
  ncclComm_t native() const { return comm_; }
  cudaStream_t stream() const { return stream_; }

  /// Device pointers. `mean` is NCCL's average (ncclAvg).
  template <class T>
    requires detail::collective_dtype<T>
  void all_reduce(const T* in, T* out, std::size_t count, reduce_op op) {
    check(ncclAllReduce(in, out, count, detail::nccl_datatype<T>(), detail::nccl_op(op), comm_, stream_), "ncclAllReduce");
    wait();
  }
  template <class T>
    requires detail::collective_dtype<T>
  void broadcast(T* data, std::size_t count, int root) {
    check(ncclBroadcast(data, data, count, detail::nccl_datatype<T>(), root, comm_, stream_), "ncclBroadcast");
    wait();
  }
  template <class T>
    requires detail::collective_dtype<T>
  void all_gather(const T* in, std::size_t count, T* out) {
    check(ncclAllGather(in, out, count, detail::nccl_datatype<T>(), comm_, stream_), "ncclAllGather");
    wait();
  }
  /// Device memory for collectives' buffers (device_memory_communicator), on this process's GPU.
  void* allocate(std::size_t bytes) {
    void* p = nullptr;
    detail::cuda_check(cudaMalloc(&p, bytes), "cudaMalloc");
    return p;
  }
  void deallocate(void* p) { cudaFree(p); }
  /// Host or device memory on either side, a blocking copy (a traced collective has waited for the
  /// kernels that wrote its operands before it copies them).
  void copy(void* to, const void* from, std::size_t bytes) {
    if (bytes) detail::cuda_check(cudaMemcpy(to, from, bytes, cudaMemcpyDefault), "cudaMemcpy");
  }
  void barrier() {
    std::int32_t* one = nullptr;
    detail::cuda_check(cudaMallocAsync(reinterpret_cast<void**>(&one), sizeof *one, stream_), "cudaMallocAsync");
    check(ncclAllReduce(one, one, 1, ncclInt32, ncclSum, comm_, stream_), "ncclAllReduce");
    detail::cuda_check(cudaFreeAsync(one, stream_), "cudaFreeAsync");
    wait();
  }

 private:
  void check(ncclResult_t rc, const char* call) const {
    if (rc == ncclSuccess) return;
    std::string what = std::string(call) + " failed: " + ncclGetErrorString(rc);
    if (comm_) {
      const char* last = ncclGetLastError(comm_);
      if (last && *last) what += std::string(" (") + last + ")";
    }
    throw distributed_error(what);
  }
  void wait() { detail::cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

  int rank_ = 0;
  int size_ = 1;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

static_assert(device_memory_communicator<nccl>);

}  // namespace staticflow::distributed

namespace staticflow {

/// The reduction over the GPUs of comm of a device tensor: a new device tensor.
template <class T, std::size_t R>
device_tensor<T, R> all_reduce(const device_tensor<T, R>& x, distributed::nccl& comm, reduce_op op = reduce_op::sum) {
  static_assert(distributed::detail::collective_dtype<T>, "staticflow: NCCL carries float32, float64, int32 and int64 tensors");
  device_tensor<T, R> out(x.shape());
  comm.all_reduce(x.data(), out.data(), x.size(), op);
  return out;
}

/// Into a device tensor of x's shape (x itself for in place).
template <class T, std::size_t R>
void all_reduce_into(device_tensor<T, R>& out, const device_tensor<T, R>& x, distributed::nccl& comm, reduce_op op = reduce_op::sum) {
  if (out.shape() != x.shape())
    throw shape_error("sf::all_reduce_into: out has shape " + detail::extents_string(out.shape()) + ", x has shape " +
                      detail::extents_string(x.shape()));
  comm.all_reduce(x.data(), out.data(), x.size(), op);
}

/// Root's x on every GPU.
template <class T, std::size_t R>
device_tensor<T, R> broadcast(const device_tensor<T, R>& x, distributed::nccl& comm, int root = 0) {
  distributed::detail::check_root("sf::broadcast", root, comm.size());
  device_tensor<T, R> out(x.shape());
  distributed::detail::cuda_check(cudaMemcpyAsync(out.data(), x.data(), x.size() * sizeof(T), cudaMemcpyDeviceToDevice, comm.stream()),
                                  "cudaMemcpyAsync");
  comm.broadcast(out.data(), out.size(), root);
  return out;
}

/// The GPUs' x stacked along axis 0 by rank.
template <class T, std::size_t R>
auto all_gather(const device_tensor<T, R>& x, distributed::nccl& comm) {
  constexpr std::size_t RR = R == 0 ? 1 : R;
  extents<RR> ext{};
  if constexpr (R == 0) {
    ext[0] = static_cast<std::size_t>(comm.size());
  } else {
    ext = x.shape();
    ext[0] *= static_cast<std::size_t>(comm.size());
  }
  device_tensor<T, RR> out(ext);
  comm.all_gather(x.data(), x.size(), out.data());
  return out;
}

}  // namespace staticflow
