// sf::all_reduce, sf::broadcast, sf::all_gather (distributed/collectives.hpp) and the local
// communicator (distributed/communicator.hpp), on one process: outside traced functions, inside
// them as effects in program order, bucketed per dtype, in cond branches and loop bodies, and
// refused where effects are. `twin` is a communicator of two processes that hold the same values
// (so a sum doubles, a gather repeats) and logs every collective: what the MPI tests
// (tests/distributed/*mpi*) check with real processes, checked here without an engine. Eager mode:
// test_collectives_eager.cpp; sf::distributed::data_parallel: test_data_parallel.cpp.
// staticflow-test: loop effects (a collective in a loop body; tests/CMakeLists.txt)
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

namespace {
using sf_test::twin;
static_assert(sf::distributed::communicator<twin>);
static_assert(!sf::distributed::communicator<int>);
}  // namespace

TEST_CASE("collectives: the local communicator returns its input") {
  sf::distributed::local comm;
  CHECK(comm.rank() == 0);
  CHECK(comm.size() == 1);
  const xt::xtensor<float, 2> x{{1.f, 2.f}, {3.f, 4.f}};
  const xt::xtensor<float, 2> reduced = sf::all_reduce(x, comm);
  CHECK(reduced == x);
  CHECK(sf::all_reduce(2.5, comm, sf::reduce_op::mean) == 2.5);
  const xt::xarray<float> gathered = sf::all_gather(x, comm);
  CHECK(gathered == x);
  CHECK_THROWS_WITH(sf::broadcast(x, comm, 1),
                    "staticflow: sf::broadcast: root 1 is not a rank of a group of 1 process");
  auto f = sf::function([&](auto a) { return sf::all_reduce(a * 2.f, comm, sf::reduce_op::max); });
  const xt::xtensor<float, 2> y = f(x);
  CHECK(y == 2.f * x);
}

TEST_CASE("collectives outside traced functions: numbers, containers, sf::tensor") {
  twin comm;
  CHECK(sf::all_reduce(3, comm) == 6);
  CHECK(sf::all_reduce(1.5f, comm, sf::reduce_op::mean) == 1.5f);
  const xt::xtensor_fixed<double, xt::xshape<3>> v{1., -2., 0.5};
  const auto sum = sf::all_reduce(v, comm);
  CHECK(sum == xt::xtensor_fixed<double, xt::xshape<3>>{2., -4., 1.});
  const xt::xarray<double> gathered = sf::all_gather(v, comm);
  CHECK(gathered.shape(0) == 6);
  CHECK(gathered == xt::xarray<double>{1., -2., 0.5, 1., -2., 0.5});
  const auto scalars = sf::all_gather(std::int64_t{7}, comm);
  CHECK(scalars == xt::xtensor<std::int64_t, 1>{7, 7});
  const sf::tensor t(xt::xtensor<std::int32_t, 1>{4, 5});
  const sf::tensor doubled = sf::all_reduce(t, comm);
  CHECK(doubled.data<std::int32_t>()[0] == 8);
  CHECK(doubled.data<std::int32_t>()[1] == 10);
  const sf::tensor flags(xt::xtensor<bool, 1>{true, false});
  CHECK_THROWS_WITH(sf::all_reduce(flags, comm), "staticflow: sf::all_reduce: a bool[2] cannot be carried; cast it to int32 first");
  CHECK(comm.log == std::vector<std::string>{"all_reduce int32 x1 sum", "all_reduce float32 x1 mean", "all_reduce float64 x3 sum",
                                             "all_gather float64 x3", "all_gather int64 x1", "all_reduce int32 x2 sum"});
}

TEST_CASE("collectives in a traced function: effects in program order, run on every call") {
  twin comm;
  sf::variable<float, 2> v{xt::xtensor_fixed<float, xt::xshape<2>>{1.f, 2.f}};
  auto f = sf::function([&](auto x) {
    auto total = sf::all_reduce(x + v, comm);  // reads v before the assignment below
    v.assign(total);
    auto gathered = sf::all_gather(v, comm);  // reads v after it
    return sf::reduce_sum(gathered) + sf::reduce_sum(total);
  });
  const xt::xtensor_fixed<float, xt::xshape<2>> x{10.f, 20.f};
  // total = 2 * (x + v) = {22, 44}; v = total; gathered = {22, 44, 22, 44}
  CHECK(f(x) == Approx(132.f + 66.f));
  CHECK(v.value() == xt::xtensor_fixed<float, xt::xshape<2>>{22.f, 44.f});
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x2 sum", "all_gather float32 x2"});
  CHECK(f(x) == Approx(3.f * 2.f * (32.f + 64.f)));  // second call: v = {22, 44} at the start
  CHECK(comm.log.size() == 4);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("collectives: a std::tuple is one collective per dtype (tensor fusion)") {
  twin comm;
  auto f = sf::function([&](auto a, auto b, auto c) {
    auto [ra, rb, rc] = sf::all_reduce(std::tuple{a, b * 2.f, c}, comm, sf::reduce_op::sum);
    return std::tuple{ra, rb, rc};
  });
  const xt::xtensor_fixed<float, xt::xshape<2, 3>> a{{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  const xt::xtensor_fixed<float, xt::xshape<4>> b{1.f, 0.f, -1.f, 0.5f};
  const xt::xtensor_fixed<std::int64_t, xt::xshape<1>> c{21};
  const auto [ra, rb, rc] = f(a, b, c);
  CHECK(ra == 2.f * a);
  CHECK(rb == 4.f * b);
  CHECK(rc(0) == 42);
  // the two float32 tensors in one flat buffer of 10, the int64 one on its own
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x10 sum", "all_reduce int64 x1 sum"});
}

TEST_CASE("collectives: broadcast, run-time shapes, empty tensors") {
  twin comm;
  auto f = sf::function([&](auto x) { return sf::broadcast(x * 3., comm, 1); });
  const xt::xtensor<double, 1> x{1., 2., 3.};
  const xt::xtensor<double, 1> tripled = f(x);
  CHECK(tripled == xt::xtensor<double, 1>{3., 6., 9.});
  const xt::xtensor<double, 1> none = xt::xtensor<double, 1>::from_shape({0});
  CHECK(f(none).size() == 0);
  CHECK(comm.log == std::vector<std::string>{"broadcast float64 x3 from 1", "broadcast float64 x0 from 1"});
  CHECK_THROWS_WITH(sf::broadcast(1.0, comm, 2), "staticflow: sf::broadcast: root 2 is not a rank of a group of 2 processes");
  auto g = sf::function([&](auto m) { return sf::all_gather(m, comm); });
  const xt::xtensor<std::int32_t, 2> m{{1, 2}, {3, 4}, {5, 6}};
  const xt::xtensor<std::int32_t, 2> gathered = g(m);
  CHECK(gathered.shape(0) == 6);
  CHECK(gathered.shape(1) == 2);
  const xt::xtensor<std::int32_t, 2> second = xt::view(gathered, xt::range(3, 6));
  CHECK(second == m);
}

TEST_CASE("collectives: in cond branches and loop bodies; refused outside traces for variables") {
  twin comm;
  sf::variable<float> v{1.f};
  // a branch's collective runs when its branch is picked (every process must pick the same, as in TF)
  auto branchy = sf::function([&](auto x) {
    return sf::cond(x > 0.f, [&] { return sf::all_reduce(x, comm); }, [&] { return x; });
  });
  CHECK(branchy(1.5f) == 3.f);
  CHECK(branchy(-1.f) == -1.f);
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x1 sum"});
  // a loop body's collective runs on every iteration
  auto loopy = sf::function([&](auto x) {
    return sf::while_loop([](auto k) { return k < 3.f; }, [&](auto k) { return k + sf::all_reduce(x, comm); }, 0.f);
  });
  CHECK(loopy(1.f) == 4.f);  // 0 -> 2 -> 4
  CHECK(comm.log.size() == 3);
  comm.log.clear();
  CHECK_THROWS_WITH(sf::all_reduce(v, comm), "staticflow: reading an sf::variable as a symbolic tensor (use value() outside) "
                                             "is only possible inside a traced function");
  CHECK(sf::all_reduce(v.value(), comm) == 2.f);
  CHECK(comm.log.size() == 1);
}

TEST_CASE("collectives: an argument or a variable is read where it lies; all_reduce_into reuses its output") {
  twin comm;
  sf::variable<std::int32_t, 3> counts{xt::xtensor_fixed<std::int32_t, xt::xshape<3>>{1, 2, 3}};
  auto f = sf::function([&](auto x) { return std::tuple{sf::all_reduce(x, comm, sf::reduce_op::mean), sf::all_gather(counts, comm)}; });
  const xt::xtensor<float, 2> x{{1.f, 2.f}, {3.f, 4.f}};
  const auto [mean, gathered] = f(x);
  CHECK(mean == x);
  const xt::xtensor<std::int32_t, 1> twice{1, 2, 3, 1, 2, 3};
  CHECK(gathered == twice);
  CHECK(comm.log == std::vector<std::string>{"all_reduce float32 x4 mean", "all_gather int32 x3"});
  const xt::xtensor<float, 2> none = xt::xtensor<float, 2>::from_shape({0, 2});
  CHECK(std::get<0>(f(none)).shape(0) == 0);

  xt::xtensor<double, 1> out = xt::xtensor<double, 1>::from_shape({3});
  const xt::xtensor<double, 1> v{1., 2., 4.};
  sf::all_reduce_into(out, v, comm);
  const xt::xtensor<double, 1> doubled{2., 4., 8.}, quadrupled{4., 8., 16.};
  CHECK((out == doubled));
  sf::all_reduce_into(out, out, comm);  // in place
  CHECK((out == quadrupled));
  xt::xtensor<double, 1> short_out = xt::xtensor<double, 1>::from_shape({2});
  CHECK_THROWS_WITH(sf::all_reduce_into(short_out, v, comm), "staticflow: sf::all_reduce_into: out has shape (2,), x has shape (3,)");
}

TEST_CASE("collectives: a communicator of device buffers (as NCCL's) in a function traced for the CPU backend") {
  sf_test::twin_device comm;
  auto f = sf::function([&](auto x) { return sf::all_reduce(x, comm); });
  const xt::xtensor<float, 1> x = {1.f, 2.f};
  CHECK_THROWS_WITH(f(x), "staticflow: sf::all_reduce: this communicator combines device memory (sf::distributed::nccl): "
                          "trace the function for sf::backend::thrust, whose kernels write there");
  CHECK(comm.log.empty());
  // outside traced functions data_parallel stages variables through its device memory
  sf::distributed::data_parallel dp{comm};
  sf::variable<double, 3> v{xt::xtensor_fixed<double, xt::xshape<3>>{1., -2., 0.5}};
  dp.broadcast_variables(v);
  CHECK(dp.replicas_identical(v));
  CHECK(v.value()(1) == -2.);
  CHECK(comm.log == std::vector<std::string>{"broadcast float64 x3 from 0", "all_gather float64 x3", "all_reduce int32 x1 min"});
  CHECK(comm.live == 0);
}
