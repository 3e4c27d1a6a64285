// The NCCL communicator (distributed/nccl.hpp) on this process's GPU, a group of one bootstrapped by
// sf::distributed::local: every collective on device tensors and raw device pointers, each dtype
// and reduction, size-0 tensors, NCCL's own errors as sf::distributed_error; collectives inside
// functions traced for the Thrust backend (operands in NCCL's device memory, a bucket of two
// tensors, an argument read in place) and a data-parallel sgd step, against values worked out by
// hand. Built by `make cuda-build`; run where a GPU is (exits 77 without one). Several GPUs: one
// process each, bootstrapped by sf::distributed::mpi, as docs/distributed.md shows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <staticflow/backend/thrust/thrust.hpp>
#include <staticflow/distributed/data_parallel.hpp>
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
template <class T, std::size_t R>
std::vector<T> host(const sf::device_tensor<T, R>& d) {
  const auto h = d.to_host();
  return std::vector<T>(h.begin(), h.end());
}

// collectives traced for the Thrust backend over NCCL: in a group of one a sum, a mean and a gather
// return the operand
void check_traced(sf::distributed::nccl& comm) {
  sf::variable<float, 3> counts{xt::xtensor_fixed<float, xt::xshape<3>>{1.f, 2.f, 3.f}};
  auto f = sf::function(
      [&](auto x) {
        auto total = sf::all_reduce(x, comm);          // an argument: read in place on the device
        auto gathered = sf::all_gather(counts, comm);  // a variable: evaluated into NCCL's memory
        counts.assign_add(sf::reduce_sum(total));
        auto [a, b] = sf::all_reduce(std::tuple{x * 2.f, sf::reduce_sum(gathered)}, comm, sf::reduce_op::mean);  // one bucket
        return std::tuple{total, gathered, a + 0.f, b * 1.f};
      },
      sf::backend::thrust);
  const auto x = sf::to_device(xt::xtensor<float, 1>{1.f, -2.f, 4.f});
  const auto [total, gathered, a, b] = f(x);
  check(host(total) == std::vector<float>{1.f, -2.f, 4.f}, "traced all_reduce of an argument");
  check(host(gathered) == std::vector<float>{1.f, 2.f, 3.f}, "traced all_gather of a variable");
  check(host(a) == std::vector<float>{2.f, -4.f, 8.f}, "traced all_reduce of a bucket (first tensor)");
  check(host(b) == std::vector<float>{6.f}, "traced all_reduce of a bucket (second tensor)");
  check(std::vector<float>(counts.value().begin(), counts.value().end()) == std::vector<float>{4.f, 5.f, 6.f}, "the variable after the call");
  const auto [total2, gathered2, a2, b2] = f(x);  // every call runs the collectives again
  check(host(gathered2) == std::vector<float>{4.f, 5.f, 6.f} && host(b2) == std::vector<float>{15.f}, "the second call");
  const auto none = sf::to_device(xt::xtensor<float, 1>::from_shape({0}));
  check(std::get<0>(f(none)).size() == 0, "a traced collective of a size-0 argument");

  // data-parallel sgd on the GPU: gradients and loss in one NCCL all-reduce, then the update
  sf::distributed::data_parallel dp{comm};
  sf::variable<double, 2, 1> w{xt::xtensor_fixed<double, xt::xshape<2, 1>>{{0.5}, {-1.}}};
  sf::variable<double, 1> bias{xt::xtensor_fixed<double, xt::xshape<1>>{0.25}};
  sf::sgd<double> opt{0.1};
  dp.broadcast_variables(w, bias);
  auto step = sf::function(
      [&](auto xs, auto ys) { return dp.minimize(opt, sf::reduce_mean(sf::square(sf::matmul(xs, w) + bias - ys)), w, bias); },
      sf::backend::thrust);
  const double r0 = 0.5 - 2. + 0.25 - 1., r1 = 1.5 + 1. + 0.25;  // residuals of the rows below
  const double loss = host(step(sf::to_device(xt::xtensor<double, 2>{{1., 2.}, {3., -1.}}), sf::to_device(xt::xtensor<double, 2>{{1.}, {0.}})))[0];
  const auto near = [](double x, double y) { return std::abs(x - y) <= 1e-12 * std::max(1.0, std::abs(y)); };
  check(near(loss, (r0 * r0 + r1 * r1) / 2.), "data_parallel.minimize's loss: " + std::to_string(loss));
  check(near(w.value()(0, 0), 0.5 - 0.1 * (r0 * 1. + r1 * 3.)) && near(w.value()(1, 0), -1. - 0.1 * (r0 * 2. + r1 * -1.)),
        "data_parallel.minimize's update of w");
  check(near(bias.value()(0), 0.25 - 0.1 * (r0 + r1)), "data_parallel.minimize's update of bias");
  check(dp.replicas_identical(w, bias), "replicas_identical over NCCL");

  // a function traced for the CPU backend cannot hand NCCL host buffers
  auto on_cpu = sf::function([&](auto y) { return sf::all_reduce(y, comm); });
  try {
    (void)on_cpu(xt::xtensor<float, 1>{1.f});
    check(false, "a collective over NCCL traced for the CPU backend throws");
  } catch (const sf::trace_error& e) {
    check(std::string(e.what()) == "staticflow: sf::all_reduce: this communicator combines device memory (sf::distributed::nccl): "
                                   "trace the function for sf::backend::thrust, whose kernels write there",
          e.what());
  }
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
  check_traced(comm);
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
