// The NCCL communicator (distributed/nccl.hpp) on this process's GPU, a group of one bootstrapped by
// sf::distributed::local: every collective on device tensors and raw device pointers, each dtype
// and reduction, size-0 tensors, NCCL's own errors as sf::distributed_error. Built by
// `make cuda-build`; run where a GPU is (exits 77 without one). Several GPUs: one process each,
// bootstrapped by sf::distributed::mpi, as docs/distributed.md shows.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <staticflow/distributed/nccl.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
int failures = 0, checks = 0;
void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) ++failures, std::printf("FAILED: %s\n", what.c_str());
}

template <class T>
std::vector<T> host(const sf::device_tensor<T, 1>& d) {
  thrust::host_vector<T> h(thrust::device_pointer_cast(d.data()), thrust::device_pointer_cast(d.data()) + d.size());
  return std::vector<T>(h.begin(), h.end());
}

template <class T>
void check_dtype(sf::distributed::nccl& comm, const char* name) {
  thrust::device_vector<T> values(std::vector<T>{T(1), T(-2), T(3)});
  const sf::device_tensor<T, 1> x(values, sf::extents<1>{3});
  const std::string at = std::string(" (") + name + ")";
  check(host(sf::all_reduce(x, comm)) == std::vector<T>{T(1), T(-2), T(3)}, "all_reduce sum of one GPU" + at);
  check(host(sf::all_reduce(x, comm, sf::reduce_op::mean)) == std::vector<T>{T(1), T(-2), T(3)}, "all_reduce mean" + at);
  check(host(sf::all_reduce(x, comm, sf::reduce_op::max)) == std::vector<T>{T(1), T(-2), T(3)}, "all_reduce max" + at);
  check(host(sf::broadcast(x, comm, 0)) == std::vector<T>{T(1), T(-2), T(3)}, "broadcast" + at);
  const auto gathered = sf::all_gather(x, comm);
  check(gathered.shape()[0] == 3, "all_gather's extent" + at);
  sf::device_tensor<T, 1> y(sf::extents<1>{3});
  sf::all_reduce_into(y, x, comm);
  check(host(y) == std::vector<T>{T(1), T(-2), T(3)}, "all_reduce_into" + at);
}
}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("nccl_collectives: SKIP: no CUDA device\n");
    return 77;
  }
  sf::distributed::local boot;
  sf::distributed::nccl comm(boot, 0);
  check(comm.rank() == 0 && comm.size() == 1, "rank 0 of 1");
  check_dtype<float>(comm, "float32");
  check_dtype<double>(comm, "float64");
  check_dtype<std::int32_t>(comm, "int32");
  check_dtype<std::int64_t>(comm, "int64");
  const sf::device_tensor<float, 1> none(sf::extents<1>{0});
  check(sf::all_reduce(none, comm).size() == 0, "a size-0 tensor");
  comm.barrier();
  try {
    float* p = nullptr;
    comm.broadcast(p, 1, 5);  // NCCL checks the root
    check(false, "ncclBroadcast with root 5 of 1 throws");
  } catch (const sf::distributed_error& e) {
    check(std::string(e.what()).rfind("staticflow: ncclBroadcast failed: invalid argument", 0) == 0, std::string("NCCL's message: ") + e.what());
  }
  try {
    (void)sf::broadcast(none, comm, 1);
    check(false, "sf::broadcast with root 1 of 1 throws");
  } catch (const sf::distributed_error& e) {
    check(std::string(e.what()) == "staticflow: sf::broadcast: root 1 is not a rank of a group of 1 process", e.what());
  }
  std::printf("nccl_collectives: %s\n", failures == 0 ? ("all " + std::to_string(checks) + " checks passed").c_str()
                                                      : (std::to_string(failures) + " checks FAILED").c_str());
  return failures == 0 ? 0 : 1;
}
