// sf::distributed::data_parallel (distributed/data_parallel.hpp) on `twin`, a communicator of two
// processes that hold the same values and log every collective (twin_communicator.hpp): averaged
// gradients in one collective with the loss, apply_gradients with a tape, broadcast_optimizer,
// and its errors. The MPI tests (tests/distributed/*mpi*) run it on real processes.
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

TEST_CASE("data_parallel on twin processes: averaged gradients, one collective for gradients and loss") {
  twin comm;
  sf::distributed::data_parallel dp{comm};
  sf::variable<double, 2, 1> w{xt::xtensor_fixed<double, xt::xshape<2, 1>>{{0.5}, {-1.}}};
  sf::variable<double, 1> b{xt::xtensor_fixed<double, xt::xshape<1>>{0.25}};
  sf::sgd<double> opt{0.1};
  auto step = sf::function([&](auto x, auto y) {
    return dp.minimize(opt, sf::reduce_mean(sf::square(sf::matmul(x, w) + b - y)), w, b);
  });
  const xt::xtensor<double, 2> x{{1., 2.}, {3., -1.}};
  const xt::xtensor<double, 2> y{{1.}, {0.}};
  // the twin's mean returns the gradients unchanged: one SGD step of the local batch
  const double pred0 = 0.5 - 2. + 0.25 - 1., pred1 = 1.5 + 1. + 0.25;  // residuals -2.25, 2.75
  const double loss = (pred0 * pred0 + pred1 * pred1) / 2.;
  CHECK(step(x, y) == Approx(loss));
  const double dw0 = (pred0 * 1. + pred1 * 3.), dw1 = (pred0 * 2. + pred1 * -1.), db = pred0 + pred1;
  CHECK(w.value()(0, 0) == Approx(0.5 - 0.1 * dw0));
  CHECK(w.value()(1, 0) == Approx(-1. - 0.1 * dw1));
  CHECK(b.value()(0) == Approx(0.25 - 0.1 * db));
  CHECK(comm.log == std::vector<std::string>{"all_reduce float64 x4 mean"});
  dp.broadcast_variables(w, b);
  CHECK(dp.replicas_identical(w, b));
  CHECK(comm.log.back() == "all_reduce int32 x1 min");
  CHECK(comm.log[1] == "broadcast float64 x2 from 0");
  const xt::xtensor<double, 2> rows{{0., 1.}, {2., 3.}, {4., 5.}, {6., 7.}, {8., 9.}};
  const xt::xtensor<double, 2> mine = dp.shard(rows);  // rank 0 of 2: rows 0 and 1 (5 * 1 / 2 = 2)
  const xt::xtensor<double, 2> first_two = xt::view(rows, xt::range(0, 2));
  CHECK(mine == first_two);
}

TEST_CASE("data_parallel: apply_gradients with a tape, broadcast_optimizer, errors") {
  twin comm;
  sf::distributed::data_parallel dp{comm};
  sf::variable<float, 2> w{xt::xtensor_fixed<float, xt::xshape<2>>{1.f, -1.f}};
  sf::adam opt{0.1f};
  auto step = sf::function([&](auto x) {
    sf::gradient_tape tape;
    auto loss = sf::reduce_sum(w * x);
    dp.apply_gradients(opt, tape.gradient(loss, w), w);  // one gradient: its own collective
    return loss;
  });
  const xt::xtensor_fixed<float, xt::xshape<2>> x{3.f, -2.f};
  CHECK(step(x) == Approx(5.f));
  // adam's first step moves each weight by the learning rate against its gradient's sign
  CHECK(w.value()(0) == Approx(0.9f));
  CHECK(w.value()(1) == Approx(-0.9f));
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x2 mean"});
  dp.broadcast_optimizer(opt);
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x2 mean", "broadcast int64 x1 from 0", "broadcast float32 x1 from 0",
                                             "broadcast float32 x2 from 0", "broadcast float32 x2 from 0"});
  CHECK_THROWS_WITH(dp.broadcast_variables_from(2, w), "staticflow: sf::distributed::data_parallel::broadcast_variables: root 2 is "
                                                       "not a rank of a group of 2 processes");
  auto inside = sf::function([&](auto a) {
    dp.broadcast_variables(w);
    return a;
  });
  CHECK_THROWS_WITH(inside(1.f), "staticflow: data_parallel::broadcast_variables runs outside traced functions (call it once, "
                                 "before the first step)");
}
