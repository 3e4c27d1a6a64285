// The backend-parameterized suite's collectives (distributed/collectives.hpp) as effects of traced
// functions, over a two-process communicator that logs them (tests/distributed/twin_communicator.hpp):
// in program order, bucketed per dtype, and in a data-parallel training step; on the Thrust
// backend also over a communicator of device buffers (as NCCL's), and data_parallel's staging of
// variables outside traced functions. The other effects: effects_suite.cpp (its own TU: the two
// cases here are 1.9 GB of compiler memory together).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <xtensor/xfixed.hpp>

#include "suite_backend.hpp"
#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/data_parallel.hpp>

#include "../distributed/twin_communicator.hpp"

namespace {
// Comm: sf_test::twin (host buffers), or on the Thrust backend sf_test::twin_device (device buffers,
// as NCCL's: the operands are evaluated into them, an argument is read where it is)
template <class Comm>
void collectives_and_data_parallel() {
  Comm comm;  // two processes holding the same values: a sum doubles, a gather repeats
  sf::variable<std::int32_t, 3> counts{xt::xtensor_fixed<std::int32_t, xt::xshape<3>>{1, 2, 3}};
  auto f = sf::function(
      [&](auto x) {
        auto total = sf::all_reduce(x, comm);          // an argument
        auto gathered = sf::all_gather(counts, comm);  // a variable, read where it lies
        counts.assign_add(sf::cast<std::int32_t>(sf::reduce_sum(total)));
        auto [a, b] = sf::all_reduce(std::tuple{x * 2.f, sf::reduce_sum(gathered)}, comm, sf::reduce_op::mean);
        return std::tuple{total, gathered, a + 0.f, b * 1};
      },
      suite::backend);
  const xt::xtensor<float, 2> x = {{1.f, 2.f}, {3.f, 4.f}};
  const auto [total, gathered, a, b] = suite::host(f(suite::in(x)));
  CHECK(suite::flat(total) == std::vector<float>{2.f, 4.f, 6.f, 8.f});
  CHECK(suite::flat(gathered) == std::vector<std::int32_t>{1, 2, 3, 1, 2, 3});
  CHECK(suite::flat(a) == std::vector<float>{2.f, 4.f, 6.f, 8.f});  // the twin's mean is the value
  CHECK(suite::flat(b) == std::vector<std::int32_t>{12});
  CHECK(suite::flat(counts.value()) == std::vector<std::int32_t>{21, 22, 23});  // after the gather: 1 2 3 + 20
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x4 sum", "all_gather int32 x3",
                                             "all_reduce float32 x4 mean", "all_reduce int32 x1 mean"});
  const xt::xtensor<float, 2> none = xt::xtensor<float, 2>::from_shape({0, 2});  // size 0: ordinary input
  CHECK(suite::host(std::get<0>(f(suite::in(none)))).size() == 0);
  CHECK(suite::flat(counts.value()) == std::vector<std::int32_t>{21, 22, 23});

  // data-parallel training: one collective for the gradients and the loss, then sgd
  comm.log.clear();
  sf::distributed::data_parallel dp{comm};
  sf::variable<double, 2, 1> w{xt::xtensor_fixed<double, xt::xshape<2, 1>>{{0.5}, {-1.}}};
  sf::variable<double, 1> bias{xt::xtensor_fixed<double, xt::xshape<1>>{0.25}};
  sf::sgd<double> opt{0.1};
  auto step = sf::function(
      [&](auto xs, auto ys) { return dp.minimize(opt, sf::reduce_mean(sf::square(sf::matmul(xs, w) + bias - ys)), w, bias); },
      suite::backend);
  const xt::xtensor<double, 2> xs{{1., 2.}, {3., -1.}}, ys{{1.}, {0.}};
  const double r0 = 0.5 - 2. + 0.25 - 1., r1 = 1.5 + 1. + 0.25;  // residuals -2.25, 2.75
  CHECK(suite::flat(suite::host(step(suite::in(xs), suite::in(ys)))).at(0) == Approx((r0 * r0 + r1 * r1) / 2.).epsilon(1e-14));
  CHECK(w.value()(0, 0) == Approx(0.5 - 0.1 * (r0 * 1. + r1 * 3.)).epsilon(1e-14));
  CHECK(w.value()(1, 0) == Approx(-1. - 0.1 * (r0 * 2. + r1 * -1.)).epsilon(1e-14));
  CHECK(bias.value()(0) == Approx(0.25 - 0.1 * (r0 + r1)).epsilon(1e-14));
  CHECK(comm.log == std::vector<std::string>{"all_reduce float64 x4 mean"});
}
}  // namespace

TEST_CASE("suite effects: collectives in program order, bucketed per dtype, in data-parallel training",
          "[suite][effects][distributed]") {
  INFO("backend " << suite::name());
  collectives_and_data_parallel<sf_test::twin>();
}

#if defined(STATICFLOW_SUITE_THRUST)
TEST_CASE("suite effects: collectives over a communicator of device buffers (as NCCL's) in traced functions",
          "[suite][effects][distributed]") {
  INFO("backend " << suite::name());
  collectives_and_data_parallel<sf_test::twin_device>();

  // what data_parallel does outside traced functions stages variables through device memory
  sf_test::twin_device comm;
  sf::distributed::data_parallel dp{comm};
  sf::variable<float, 2> v{xt::xtensor_fixed<float, xt::xshape<2>>{1.5f, -2.f}};
  dp.broadcast_variables(v);
  CHECK(suite::flat(v.value()) == std::vector<float>{1.5f, -2.f});
  CHECK(dp.replicas_identical(v));
  CHECK(comm.log == std::vector<std::string>{"broadcast float32 x2 from 0", "all_gather float32 x2", "all_reduce int32 x1 min"});
  CHECK(comm.live == 0);
}

#endif
