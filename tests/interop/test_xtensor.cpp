// Tests for interop/xtensor.hpp: which signature each argument type has, what containers results
// come back in, and xt::adapt views as arguments.
#include <catch2/catch.hpp>

#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using sf::detail::signature_entry_t;

TEST_CASE("argument types map to signature entries", "[interop]") {
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<xt::xtensor_fixed<int, xt::xshape<2, 3>>>, sf::spec<int, 2, 3>>);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<xt::xtensor<float, 2>>, sf::spec<float, sf::dyn, sf::dyn>>);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<const xt::xtensor<double, 1>&>, sf::spec<double, sf::dyn>>);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<int>, sf::spec<int>>);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<long long>, sf::spec<std::int64_t>>);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<bool>, sf::spec<bool>>);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<sf::static_value<4>>, sf::static_value<4>>);
  std::vector<float> raw(6);
  auto view = xt::adapt(raw.data(), raw.size(), xt::no_ownership(), std::array<std::size_t, 2>{2, 3});
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<decltype(view)>, sf::spec<float, sf::dyn, sf::dyn>>);
  auto vec_view = xt::adapt(raw);
  STATIC_REQUIRE(std::is_same_v<signature_entry_t<decltype(vec_view)>, sf::spec<float, sf::dyn>>);
  // column-major containers and unsigned elements are not accepted (a compile error at the call)
  STATIC_REQUIRE_FALSE(sf::argument_traits<xt::xtensor<float, 2, xt::layout_type::column_major>>::supported);
  STATIC_REQUIRE_FALSE(sf::argument_traits<xt::xtensor<unsigned, 1>>::supported);
  STATIC_REQUIRE_FALSE(sf::argument_traits<unsigned>::supported);
}

TEST_CASE("results come back as xtensor_fixed, xtensor or a plain scalar", "[interop]") {
  STATIC_REQUIRE(std::is_same_v<sf::result_container_t<sf::spec<int, 2, 3>>, xt::xtensor_fixed<int, xt::xshape<2, 3>>>);
  STATIC_REQUIRE(std::is_same_v<sf::result_container_t<sf::spec<float, sf::dyn, 3>>, xt::xtensor<float, 2>>);
  STATIC_REQUIRE(std::is_same_v<sf::result_container_t<sf::spec<double>>, double>);

  auto f = sf::function([](auto x, auto y) { return x * y; });
  xt::xtensor_fixed<float, xt::xshape<3>> fixed = {1, 2, 3};
  xt::xtensor<float, 1> dynamic = {4, 5, 6};
  auto a = f(fixed, fixed);
  auto b = f(fixed, dynamic);  // static 3 meets run-time: the result is 3 (checked at run time)
  auto c = f(2.f, 4.f);
  STATIC_REQUIRE(std::is_same_v<decltype(a), xt::xtensor_fixed<float, xt::xshape<3>>>);
  STATIC_REQUIRE(std::is_same_v<decltype(b), xt::xtensor_fixed<float, xt::xshape<3>>>);
  STATIC_REQUIRE(std::is_same_v<decltype(c), float>);
  CHECK((a == xt::xtensor_fixed<float, xt::xshape<3>>{1, 4, 9}));
  CHECK((b == xt::xtensor_fixed<float, xt::xshape<3>>{4, 10, 18}));
  xt::xtensor<float, 1> two = {1, 2};
  CHECK_THROWS_MATCHES(f(fixed, two), sf::shape_error, Catch::Message("staticflow: shapes (3,) and (2,) do not broadcast"));
  xt::xtensor<float, 1> one = {2};
  CHECK((f(fixed, one) == xt::xtensor_fixed<float, xt::xshape<3>>{2, 4, 6}));
  CHECK(c == 8.f);
}

TEST_CASE("xt::adapt views of the caller's memory are arguments like any container", "[interop]") {
  auto f = sf::function([](auto m, auto v) { return m - v; });
  std::vector<double> storage = {1, 2, 3, 4, 5, 6};
  auto m = xt::adapt(storage.data(), storage.size(), xt::no_ownership(), std::array<std::size_t, 2>{2, 3});
  std::vector<double> row = {1, 1, 1};
  auto r = f(m, xt::adapt(row));
  CHECK((r == xt::xtensor<double, 2>{{0, 1, 2}, {3, 4, 5}}));
  CHECK(f.tracing_count() == 1);
  // a different run-time size is the same signature: no retrace
  std::vector<double> longer = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto m3 = xt::adapt(longer.data(), longer.size(), xt::no_ownership(), std::array<std::size_t, 2>{3, 3});
  auto r3 = f(m3, xt::adapt(row));
  CHECK(r3(2, 2) == 8.0);
  CHECK(f.tracing_count() == 1);
}
