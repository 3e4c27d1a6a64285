// Collectives (distributed/collectives.hpp) in eager mode: they run as the lambda runs, and read
// static-shape and scalar arguments in place as traced calls do. A TU of its own: the traced
// cases (test_collectives.cpp, test_data_parallel.cpp) compile without eager mode.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/communicator.hpp>
#include <staticflow/distributed/data_parallel.hpp>
#include <staticflow/staticflow.hpp>

#include "twin_communicator.hpp"

namespace sf = staticflow;

using sf_test::twin;

TEST_CASE("collectives: eager mode runs them as the lambda runs") {
  twin comm;
  sf::run_functions_eagerly(true);
  auto f = sf::function([&](auto x) {
    auto y = sf::all_reduce(x, comm);
    comm.log.push_back("after");
    return y * 2.f;
  });
  CHECK(f(1.5f) == 6.f);
  sf::run_functions_eagerly(false);
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x1 sum", "after"});
}

TEST_CASE("collectives: static-shape and scalar arguments read in place, traced and eager") {
  twin comm;
  auto f = sf::function([&](auto x, auto s) { return std::tuple{sf::all_reduce(x, comm), sf::all_reduce(s, comm), sf::all_gather(x, comm)}; });
  const xt::xtensor_fixed<float, xt::xshape<2, 3>> x{{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  for (bool eager : {false, true}) {
    sf::run_functions_eagerly(eager);
    const auto [sum, scalar, gathered] = f(x, 2.5);
    CHECK(sum(1, 2) == 12.f);
    CHECK(scalar == 5.0);
    CHECK(gathered.shape(0) == 4);
    CHECK(gathered.shape(1) == 3);
    CHECK(gathered(3, 2) == 6.f);
  }
  sf::run_functions_eagerly(false);
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x6 sum", "all_reduce float64 x1 sum", "all_gather float32 x6",
                                             "all_reduce float32 x6 sum", "all_reduce float64 x1 sum", "all_gather float32 x6"});
}
