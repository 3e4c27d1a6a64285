// A rank that throws stops the whole job with its error, instead of leaving the others waiting in
// their next collective forever: run by CTest under `mpirun -np 2` with a timeout
// (tests/distributed/run_mpi.py --expect-failure). Rank 1 makes a call with mismatched shapes
// (sf::shape_error) while rank 0 goes on to the next step's all-reduce; sf::distributed::
// mpi_environment::run prints the error and aborts every rank.
#define STATICFLOW_EAGER_MODE 0

#include <iostream>

#include <xtensor/xtensor.hpp>

#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/mpi.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

int main(int argc, char** argv) {
  sf::distributed::mpi_environment env(argc, argv);
  return env.run([&] {
    sf::distributed::mpi comm;
    auto step = sf::function([&](auto x) { return sf::all_reduce(sf::reduce_sum(x), comm); });
    const xt::xtensor<float, 1> ok{1.f, 2.f, 3.f};
    std::cout << "rank " << comm.rank() << ": first step " << step(ok) << std::endl;
    if (comm.rank() == 1) {
      auto add = sf::function([](auto a, auto b) { return a + b; });
      (void)add(xt::xtensor<float, 1>{1.f, 2.f}, ok);  // throws sf::shape_error
    }
    std::cout << "rank " << comm.rank() << ": second step " << step(ok) << std::endl;  // rank 0 waits here
    return 0;
  });
}
