// sf::strided_slice, x(spans...) and sf::slice with spans (graph/slicing.hpp): Python's slices
// (list(range(n))[start:stop:step], printed by Python for random bounds, steps and extents 0-7),
// static extents from static spans, a stencil traced at one length and called at another, the
// listing, threads, and the step-0 error.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "tf_reference.hpp"

namespace sf = staticflow;
using tf_reference::as;
using tf_reference::flat;

TEST_CASE("slicing: Python's slices of every extent 0-7, bounds and steps of both signs", "[graph][slicing]") {
  struct python_case {
    std::size_t n;
    sf::span s;
    std::vector<float> picked;  // list(range(n))[s]
  };
  const std::vector<python_case> cases = {
      {3, sf::span(sf::none, 2, 2), {0}},
      {1, sf::span(sf::none, 2, 1), {0}},
      {3, sf::span(6, sf::none, 1), {}},
      {4, sf::span(sf::none, 10, -1), {}},
      {3, sf::span(-5, -1, 1), {0, 1}},
      {5, sf::span(sf::none, sf::none, -3), {4, 1}},
      {4, sf::span(-8, -10, -1), {}},
      {3, sf::span(3, 9, -2), {}},
      {7, sf::span(sf::none, -1, 1), {0, 1, 2, 3, 4, 5}},
      {1, sf::span(-9, 10, -3), {}},
      {5, sf::span(sf::none, -8, 3), {}},
      {7, sf::span(sf::none, 1, -1), {6, 5, 4, 3, 2}},
      {3, sf::span(sf::none, sf::none, -1), {2, 1, 0}},
      {3, sf::span(-7, -5, -3), {}},
      {0, sf::span(-9, -8, -1), {}},
      {0, sf::span(0, sf::none, -2), {}},
      {1, sf::span(sf::none, 4, 2), {0}},
      {4, sf::span(sf::none, sf::none, -1), {3, 2, 1, 0}},
      {0, sf::span(sf::none, 1, -1), {}},
      {1, sf::span(sf::none, sf::none, 1), {0}},
      {7, sf::span(sf::none, sf::none, 1), {0, 1, 2, 3, 4, 5, 6}},
      {4, sf::span(sf::none, sf::none, 3), {0, 3}},
      {7, sf::span(3, sf::none, -2), {3, 1}},
      {6, sf::span(-2, 0, -1), {4, 3, 2, 1}},
      {6, sf::span(1, -1, 2), {1, 3}},
      {5, sf::span(10, -10, -2), {4, 2, 0}},
      // the extreme steps (Python: [0] and [4]; lengths computed without overflow)
      {5, sf::span(sf::none, sf::none, std::numeric_limits<std::ptrdiff_t>::max()), {0}},
      {5, sf::span(sf::none, sf::none, std::numeric_limits<std::ptrdiff_t>::min()), {4}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.n, c.s.text());
    xt::xtensor<float, 1> x = xt::zeros<float>({c.n});
    for (std::size_t i = 0; i < c.n; ++i) x(i) = static_cast<float>(i);
    // the span is read when the function is traced (a C++ value captured by the lambda)
    auto f = sf::function([&](auto a) { return std::tuple{a(c.s), sf::strided_slice(a * 2.f, sf::axes<0>{}, c.s)}; });
    const auto [picked, doubled] = f(x);
    CHECK(flat(picked) == c.picked);
    std::vector<float> twice = c.picked;
    for (auto& v : twice) v *= 2;
    CHECK(flat(doubled) == twice);
  }
}

TEST_CASE("slicing: static spans give static extents; several axes; sf::slice with spans", "[graph][slicing]") {
  xt::xtensor_fixed<float, xt::xshape<3, 4>> x;
  for (std::size_t i = 0; i < 12; ++i) x.flat(i) = static_cast<float>(i + 1);
  auto f = sf::function([](auto a) {
    return std::tuple{a(sf::static_span<1, sf::open_index>{}), a(sf::whole, sf::static_span<sf::open_index, sf::open_index, -2>{}),
                      sf::strided_slice(a, sf::axes<1, 0>{}, sf::span(1, -1), sf::span(sf::none, sf::none, -1)),
                      sf::slice(a, sf::axes<-1>{}, sf::static_span<-1, sf::open_index>{})};
  });
  const auto [tail, odd_columns, inner, last_column] = f(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(tail)>, xt::xtensor_fixed<float, xt::xshape<2, 4>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(odd_columns)>, xt::xtensor_fixed<float, xt::xshape<3, 2>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(last_column)>, xt::xtensor_fixed<float, xt::xshape<3, 1>>>);
  STATIC_REQUIRE(std::remove_cvref_t<decltype(inner)>::rank == 2);  // run-time spans: run-time extents
  CHECK(flat(tail) == as<float>({5, 6, 7, 8, 9, 10, 11, 12}));
  CHECK(flat(odd_columns) == as<float>({4, 2, 8, 6, 12, 10}));
  CHECK(flat(inner) == as<float>({10, 11, 6, 7, 2, 3}));  // x[::-1, 1:-1]
  CHECK(flat(last_column) == as<float>({4, 8, 12}));
  const std::string listing = f.get_concrete_function(sf::spec<float, 3, 4>{}).graph_string();
  CHECK(listing.find("StridedSlice[axis=(1,0) slices=(1:-1, ::-1)]") != std::string::npos);
}

TEST_CASE("slicing: a stencil traced at one length runs at another (bounds resolved per call)", "[graph][slicing]") {
  // the heat equation's second difference, u[2:] - 2 u[1:-1] + u[:-2], written once
  auto laplacian = sf::function([](auto u) { return u(sf::span(2, sf::none)) - 2.f * u(sf::span(1, -1)) + u(sf::span(sf::none, -2)); });
  for (const std::size_t n : {8, 16, 3, 2}) {
    CAPTURE(n);
    xt::xtensor<float, 1> u = xt::zeros<float>({n});
    for (std::size_t i = 0; i < n; ++i) u(i) = static_cast<float>(i * i);
    const auto d = laplacian(u);
    REQUIRE(d.size() == n - 2);
    for (std::size_t i = 0; i < n - 2; ++i) CHECK(d(i) == 2.f);  // (i+2)^2 - 2 (i+1)^2 + i^2
  }
  CHECK(laplacian.tracing_count() == 1);
}

TEST_CASE("slicing: sf::placeholders::end is the extent (end - k is Python's -k)", "[graph][slicing]") {
  using sf::placeholders::end;
  // each form against the Python slice it stands for, at every extent 0-7 (as the case above)
  const std::vector<std::pair<sf::span, sf::span>> same = {
      {sf::span(end - 3, end), sf::span(-3, sf::none)},    {sf::span(1, end - 1), sf::span(1, -1)},
      {sf::span(sf::none, end), sf::span(sf::none, sf::none)}, {sf::span(end, sf::none, -1), sf::span(sf::none, sf::none, -1)},
      {sf::span(end - 1, 0, -1), sf::span(-1, 0, -1)},         {sf::span(end - 10, end - 2, 2), sf::span(-10, -2, 2)}};
  for (std::size_t n = 0; n < 8; ++n)
    for (const auto& [with_end, python] : same) {
      CAPTURE(n, with_end.text(), python.text());
      const auto a = with_end.resolve(n), b = python.resolve(n);
      CHECK(a.length == b.length);
      if (a.length) CHECK((a.start == b.start && a.step == b.step));
    }
  // end as a start with a positive step, end + k, and end as a stop walking backwards: empty,
  // the whole axis, empty (Python's x[n:], x[:n + k], x[:n:-1])
  for (std::size_t n = 0; n < 8; ++n) {
    CHECK(sf::span(end, sf::none).resolve(n).length == 0);
    CHECK(sf::span(0, end + 4).resolve(n).length == n);
    CHECK(sf::span(sf::none, end, -1).resolve(n).length == 0);
  }
  auto inner = sf::function([](auto u) { return u(sf::span(1, end - 1)) * 2.f; });
  const xt::xtensor<float, 1> u = {1.f, 2.f, 3.f, 4.f, 5.f};
  CHECK((inner(u) == xt::xtensor<float, 1>{4.f, 6.f, 8.f}));
  CHECK(inner(xt::xtensor<float, 1>{7.f, 8.f}).size() == 0);
  CHECK(sf::span(end - 2, end).text() == "-2:end");
}

TEST_CASE("slicing: threads, integers, and a step of 0", "[graph][slicing]") {
  xt::xtensor<std::int32_t, 2> big = xt::zeros<std::int32_t>({900, 333});
  for (std::size_t i = 0; i < big.size(); ++i) big.flat(i) = static_cast<std::int32_t>(i);
  auto f = sf::function([](auto a) { return a(sf::span(sf::none, sf::none, -3), sf::span(5, -7, 2)); });
  const auto one = f(big);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto two = f(big);
  sf::set_num_threads(saved);
  CHECK((one == two));
  REQUIRE(one.shape() == std::array<std::size_t, 2>{300, 161});
  CHECK(one(0, 0) == big(899, 5));
  CHECK(one(299, 160) == big(2, 325));

  sf::variable<float> counter(0.f);
  std::ptrdiff_t step = 0;
  auto g = sf::function([&](auto a) {
    counter.assign_add(1.f);
    return a(sf::span(sf::none, sf::none, step));
  });
  CHECK_THROWS_WITH(g(xt::xtensor<float, 1>{1, 2}), "staticflow: strided_slice: the step must not be 0");
  CHECK(counter.value() == 0.f);
}
