// Collectives and data-parallel training over MPI (issue 24 item 6). An MPI program, not a
// Google Benchmark one (every rank must make the same calls, so the iteration counts are fixed):
// `make bench` runs it under `mpirun -np 2` and again with `-np 1` (bench/CMakeLists.txt).
//
// 1. All-reduce (sum) of 1M to 64M floats, each way in one run, interleaved, min over the
//    repetitions of the slowest rank's time per call:
//      MPI_Allreduce      the engine called directly (out of place, on the same communicator)
//      communicator       sf::distributed::mpi::all_reduce (the lock, the chunking)
//      all_reduce_into    sf::all_reduce_into(out, x, comm): the plain call into a kept buffer
//      sf::all_reduce     the plain call returning a new xt::xtensor (its allocation included)
//      traced             an sf::function returning sf::all_reduce(x), called with call_into: the
//                         argument read in place, the result copied into the caller's buffer
//    and the ratio of each to MPI_Allreduce (issue 24's target: at most 1.05).
// 2. A data-parallel training step (a linear layer, mean squared error, sgd; global batch 8192 x
//    256 -> 64) on this run's processes, each on its share: milliseconds per step. Run with
//    `-np 1` and `-np 2`: the ratio of the two is the scaling (2 cores here).
#define STATICFLOW_EAGER_MODE 0

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/data_parallel.hpp>
#include <staticflow/distributed/mpi.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// The slowest rank's seconds for f(), after a barrier.
template <class F>
double timed(sf::distributed::mpi& comm, F&& f) {
  comm.barrier();
  const double start = MPI_Wtime();
  f();
  double took = MPI_Wtime() - start, slowest = 0;
  MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm.native());
  return slowest;
}

void all_reduce_table(sf::distributed::mpi& comm) {
  const bool lead = comm.rank() == 0;
  auto traced = sf::function([&](auto x) { return sf::all_reduce(x, comm); });
  if (lead)
    std::printf("all-reduce (sum) of float32 on %d processes: ms per call (min of the repetitions), ratio to MPI_Allreduce\n"
                "%10s %14s %14s %16s %16s %14s\n",
                comm.size(), "elements", "MPI_Allreduce", "communicator", "all_reduce_into", "sf::all_reduce", "traced");
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 22, std::size_t{1} << 24, std::size_t{1} << 26}) {
    xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({n});
    std::fill(x.begin(), x.end(), 1.f + float(comm.rank()));
    xt::xtensor<float, 1> out = xt::xtensor<float, 1>::from_shape({n});
    xt::xtensor<float, 1> result = traced(x);  // traced, and its buffers made, before timing
    const int reps = n <= (std::size_t{1} << 22) ? 15 : 5;
    double best[5];
    std::fill(best, best + 5, std::numeric_limits<double>::max());
    float check = 0;
    for (int r = 0; r < reps; ++r) {
      best[0] = std::min(best[0], timed(comm, [&] {
        MPI_Allreduce(x.data(), out.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, comm.native());
      }));
      best[1] = std::min(best[1], timed(comm, [&] { comm.all_reduce(x.data(), out.data(), n, sf::reduce_op::sum); }));
      best[2] = std::min(best[2], timed(comm, [&] {
        sf::all_reduce_into(out, x, comm);
        check += out(0);
      }));
      best[3] = std::min(best[3], timed(comm, [&] {
        xt::xtensor<float, 1> y = sf::all_reduce(x, comm);
        check += y(n - 1);
      }));
      best[4] = std::min(best[4], timed(comm, [&] {
        traced.call_into(result, x);
        check += result(0);
      }));
    }
    if (lead)
      std::printf("%10zu %11.3f ms %8.3f (%4.2f) %10.3f (%4.2f) %10.3f (%4.2f) %8.3f (%4.2f)%s\n", n, best[0] * 1e3, best[1] * 1e3,
                  best[1] / best[0], best[2] * 1e3, best[2] / best[0], best[3] * 1e3, best[3] / best[0], best[4] * 1e3,
                  best[4] / best[0], check > 0 ? "" : " (?)");
  }
}

void data_parallel_step(sf::distributed::mpi& comm) {
  constexpr std::size_t batch = 8192, features = 256, outputs = 64;
  sf::distributed::data_parallel dp{comm};
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 1.f);
  xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({batch, features});
  xt::xtensor<float, 2> y = xt::xtensor<float, 2>::from_shape({batch, outputs});
  for (auto& e : x) e = normal(rng);
  for (auto& e : y) e = normal(rng);
  const xt::xtensor<float, 2> x_share = dp.shard(x), y_share = dp.shard(y);
  xt::xtensor_fixed<float, xt::xshape<features, outputs>> w0;
  for (auto& e : w0) e = 0.05f * normal(rng);
  sf::variable<float, features, outputs> w{w0};
  sf::variable<float, outputs> b;
  sf::sgd opt{0.01f};
  auto step = sf::function([&](auto xs, auto ys) {
    return dp.minimize(opt, sf::reduce_mean(sf::square(sf::matmul(xs, w) + b - ys)), w, b);
  });
  float loss = step(x_share, y_share);  // traced before timing
  double best = std::numeric_limits<double>::max();
  for (int r = 0; r < 5; ++r)
    best = std::min(best, timed(comm, [&] {
      for (int k = 0; k < 10; ++k) loss = step(x_share, y_share);
    }) / 10);
  if (comm.rank() == 0)
    std::printf("data-parallel step (batch %zu x %zu -> %zu, sgd) on %d process(es), %zu rows each: %.3f ms per step "
                "(loss %.4f)\n",
                batch, features, outputs, comm.size(), x_share.shape(0), best * 1e3, double(loss));
}
}  // namespace

int main(int argc, char** argv) {
  sf::distributed::mpi_environment env(argc, argv);
  return env.run([&] {
    sf::distributed::mpi comm;
    if (comm.size() > 1) all_reduce_table(comm);
    data_parallel_step(comm);
    return 0;
  });
}
