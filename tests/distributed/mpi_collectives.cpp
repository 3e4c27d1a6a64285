// The MPI communicator (distributed/mpi.hpp) with real processes: run by CTest under
// `mpirun -np 2` and `-np 4` (tests/distributed/run_mpi.py). Every collective on every dtype and
// reduction, plain and traced (one bucket per dtype), size-0 tensors, the same bits on every
// rank, and MPI's own errors as sf::distributed_error. Prints one line per rank; exits 1 when a
// check fails.
#define STATICFLOW_EAGER_MODE 0

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/mpi.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
int failures = 0, checks = 0;
void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::cerr << "rank " << sf::distributed::mpi_environment::world_rank() << ": FAILED: " << what << "\n";
  }
}

template <class T>
void check_reductions(sf::distributed::mpi& comm, const char* dtype) {
  const int p = comm.size(), r = comm.rank();
  const std::string at = std::string(" (") + dtype + ")";
  // element i of rank r: (r + 1) * (i + 1)
  std::vector<T> in(5), out(5);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>((r + 1) * static_cast<int>(i + 1));
  const T ranks_sum = static_cast<T>(p * (p + 1) / 2);
  comm.all_reduce(in.data(), out.data(), in.size(), sf::reduce_op::sum);
  check(out[3] == static_cast<T>(4) * ranks_sum, "all_reduce sum" + at);
  comm.all_reduce(in.data(), out.data(), in.size(), sf::reduce_op::max);
  check(out[1] == static_cast<T>(2 * p), "all_reduce max" + at);
  comm.all_reduce(in.data(), out.data(), in.size(), sf::reduce_op::min);
  check(out[4] == static_cast<T>(5), "all_reduce min" + at);
  comm.all_reduce(in.data(), out.data(), in.size(), sf::reduce_op::mean);
  check(out[0] == static_cast<T>(ranks_sum / static_cast<T>(p)), "all_reduce mean" + at);
  std::vector<T> same = in;
  comm.all_reduce(same.data(), same.data(), same.size(), sf::reduce_op::sum);  // in place
  check(same[2] == static_cast<T>(3) * ranks_sum, "all_reduce in place" + at);
  std::vector<T> gathered(in.size() * static_cast<std::size_t>(p));
  comm.all_gather(in.data(), in.size(), gathered.data());
  check(gathered[static_cast<std::size_t>(p - 1) * 5 + 1] == static_cast<T>(2 * p), "all_gather" + at);
  std::vector<T> b = in;
  comm.broadcast(b.data(), b.size(), p - 1);
  check(b[0] == static_cast<T>(p), "broadcast from the last rank" + at);
}
}  // namespace

int main(int argc, char** argv) {
  sf::distributed::mpi_environment env(argc, argv);
  return env.run([&] {
    sf::distributed::mpi comm;
    const int p = comm.size(), r = comm.rank();
    check(p == sf::distributed::mpi_environment::world_size() && r == sf::distributed::mpi_environment::world_rank(),
          "rank and size are MPI_COMM_WORLD's");

    check_reductions<float>(comm, "float32");
    check_reductions<double>(comm, "float64");
    check_reductions<std::int32_t>(comm, "int32");
    check_reductions<std::int64_t>(comm, "int64");

    // every rank gets the same bits of a float sum (MPI's advice, staticflow's promise)
    std::mt19937 rng(100u + static_cast<unsigned>(r));
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    xt::xtensor<float, 1> noise = xt::xtensor<float, 1>::from_shape({1000});
    for (auto& e : noise) e = u(rng) * 1e3f;
    const xt::xtensor<float, 1> total = sf::all_reduce(noise, comm);
    const xt::xarray<float> everyone = sf::all_gather(total, comm);
    bool same_bits = true;
    for (int q = 0; q < p; ++q)
      same_bits = same_bits && std::memcmp(everyone.data() + q * 1000, total.data(), 1000 * sizeof(float)) == 0;
    check(same_bits, "every rank has the same bits of a float sum");

    // traced: a tuple is one collective per dtype; results feed what follows
    auto f = sf::function([&](auto x, auto k) {
      auto [sum, count] = sf::all_reduce(std::tuple{x * 2.0, k}, comm);
      auto gathered = sf::all_gather(sf::reduce_sum(x), comm);
      return std::tuple{sum, count, gathered, sf::broadcast(x, comm, 0)};
    });
    xt::xtensor<double, 1> x{double(r), 1.0, -0.5};
    const xt::xtensor<std::int64_t, 1> k{std::int64_t{1}};
    for (int call = 0; call < 3; ++call) {
      const auto [sum, count, gathered, from_root] = f(x, k);
      check(sum(0) == double(p * (p - 1)) && sum(1) == 2.0 * p && sum(2) == -1.0 * p, "traced all_reduce of a tuple");
      check(count(0) == p, "traced all_reduce of an int64 tensor in the same tuple");
      check(gathered.shape(0) == std::size_t(p) && gathered(std::size_t(p - 1)) == double(p - 1) + 0.5, "traced all_gather of a scalar");
      check(from_root(0) == 0.0 && from_root(1) == 1.0, "traced broadcast from rank 0");
    }
    check(f.tracing_count() == 1, "traced once");
    const xt::xtensor<double, 1> none = xt::xtensor<double, 1>::from_shape({0});
    const auto [empty_sum, empty_count, empty_gathered, empty_root] = f(none, k);
    check(empty_sum.size() == 0 && empty_count(0) == p && empty_gathered.size() == std::size_t(p) && empty_root.size() == 0,
          "size-0 tensors");

    // sf::tensor, outside traced functions
    const sf::tensor t(xt::xtensor<std::int32_t, 2>{{r, 1}, {2, 3}});
    const sf::tensor m = sf::all_reduce(t, comm, sf::reduce_op::max);
    check(m.data<std::int32_t>()[0] == p - 1 && m.data<std::int32_t>()[3] == 3, "sf::tensor all_reduce max");

    // MPI's own errors: a root outside the group, found by MPI on every rank
    try {
      float v = 1.f;
      comm.broadcast(&v, 1, p + 3);
      check(false, "MPI_Bcast with an invalid root throws");
    } catch (const sf::distributed_error& e) {
      check(std::string(e.what()).rfind("staticflow: MPI_Bcast failed: MPI_ERR_ROOT: invalid root", 0) == 0,
            std::string("MPI's message: ") + e.what());
    }
    try {
      (void)sf::broadcast(1.f, comm, -1);
      check(false, "sf::broadcast with root -1 throws");
    } catch (const sf::distributed_error& e) {
      check(std::string(e.what()) == "staticflow: sf::broadcast: root -1 is not a rank of a group of " + std::to_string(p) + " processes",
            std::string("root check: ") + e.what());
    }
    comm.barrier();  // the communicator still works after an error

    std::cout << "mpi_collectives: rank " << r << " of " << p << ": "
              << (failures == 0 ? "all " + std::to_string(checks) + " checks passed" : std::to_string(failures) + " checks FAILED")
              << "\n";
    return failures == 0 ? 0 : 1;
  });
}
