// sf::repeat with a tensor of repeats (graph/masking.hpp: rows selected by data, as boolean_mask):
// TF's examples, scalar and single counts, inner axes, random shapes against a written-out loop,
// zero counts and empty input, later ops reading the run-time extent, the listing, the direct
// call_into, and TF's errors (negative counts, a count vector of the wrong length) before any
// effect.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// repeat written out: x as [outer, n, inner], row p of each block `counts[p]` times.
template <class T, class X, class C>
std::vector<T> reference(const X& x, const C& counts, std::size_t outer) {
  const std::size_t n = counts.size(), inner = outer * n > 0 ? x.size() / (outer * n) : 0;
  std::vector<T> out;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t p = 0; p < n; ++p)
      for (auto c = counts.data()[p]; c > 0; --c)
        for (std::size_t k = 0; k < inner; ++k) out.push_back(x.data()[(o * n + p) * inner + k]);
  return out;
}
template <class X, class T>
bool equals(const X& x, const std::vector<T>& want) {
  return x.size() == want.size() && std::equal(want.begin(), want.end(), x.data());
}
}  // namespace

TEST_CASE("repeat by a tensor: TF's examples", "[graph][masking][repeat]") {
  auto rows = sf::function([](auto x, auto r) { return sf::repeat(x, r, sf::axes<0>{}); });
  auto columns = sf::function([](auto x, auto r) { return sf::repeat(x, r, sf::axes<1>{}); });
  auto flat = sf::function([](auto x, auto r) { return sf::repeat(x, r); });
  CHECK((rows(xt::xtensor<int, 1>{1, 2, 3}, xt::xtensor<std::int32_t, 1>{3, 0, 2}) == xt::xtensor<int, 1>{1, 1, 1, 3, 3}));
  const xt::xtensor<int, 2> x{{1, 2}, {3, 4}};
  CHECK((rows(x, xt::xtensor<std::int64_t, 1>{2, 3}) == xt::xtensor<int, 2>{{1, 2}, {1, 2}, {3, 4}, {3, 4}, {3, 4}}));
  CHECK((columns(x, xt::xtensor<std::int32_t, 1>{2, 3}) == xt::xtensor<int, 2>{{1, 1, 2, 2, 2}, {3, 3, 4, 4, 4}}));
  // a scalar tensor, and a vector of one count: every element as often; no axis flattens first
  CHECK((flat(x, xt::xtensor<std::int32_t, 0>(2)) == xt::xtensor<int, 1>{1, 1, 2, 2, 3, 3, 4, 4}));
  CHECK((columns(x, xt::xtensor<std::int32_t, 1>{2}) == xt::xtensor<int, 2>{{1, 1, 2, 2}, {3, 3, 4, 4}}));
}

TEST_CASE("repeat by a tensor: random shapes and counts at every axis", "[graph][masking][repeat]") {
  std::mt19937 rng(43);
  for (int round = 0; round < 4; ++round) {
    const std::size_t a = 1 + rng() % 5, b = 1 + rng() % 4, c = 1 + rng() % 3;
    auto x = xt::xtensor<double, 3>::from_shape({a, b, c});
    for (auto& v : x) v = static_cast<double>(rng() % 100) - 50;
    auto counts = [&](std::size_t n) {
      auto r = xt::xtensor<std::int32_t, 1>::from_shape({n});
      for (auto& v : r) v = static_cast<std::int32_t>(rng() % 4);
      return r;
    };
    const auto ra = counts(a), rb = counts(b), rc = counts(c);
    auto f = sf::function([](auto t, auto p, auto q, auto s) {
      return std::tuple{sf::repeat(t, p, sf::axes<0>{}), sf::repeat(t, q, sf::axes<1>{}), sf::repeat(t * 2.0, s, sf::axes<-1>{})};
    });
    const auto [first, middle, last] = f(x, ra, rb, rc);
    const auto sum = [](const auto& r) { return static_cast<std::size_t>(std::accumulate(r.begin(), r.end(), 0)); };
    CHECK((first.shape() == std::array<std::size_t, 3>{sum(ra), b, c}));
    CHECK((middle.shape() == std::array<std::size_t, 3>{a, sum(rb), c}));
    CHECK((last.shape() == std::array<std::size_t, 3>{a, b, sum(rc)}));
    CHECK(equals(first, reference<double>(x, ra, 1)));
    CHECK(equals(middle, reference<double>(x, rb, a)));
    const xt::xtensor<double, 3> doubled = x * 2.0;
    CHECK(equals(last, reference<double>(doubled, rc, a * b)));
  }
}

TEST_CASE("repeat by a tensor: static shapes give sf::dyn; zero counts, empty input; later ops", "[graph][masking][repeat]") {
  auto f = sf::function([](auto x, auto r) { return sf::repeat(x, r, sf::axes<1>{}); });
  const auto& cf = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<std::int32_t, 3>{});
  using C = std::remove_cvref_t<decltype(cf)>;
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<typename C::template output_node<0>>, sf::spec<float, 2, sf::dyn>>);
  CHECK(cf.graph_string().find("Repeat[axis=1]") != std::string::npos);
  const xt::xtensor<float, 2> x{{1, 2, 3}, {4, 5, 6}};
  CHECK((f(x, xt::xtensor<std::int32_t, 1>{0, 0, 0}).shape() == std::array<std::size_t, 2>{2, 0}));
  CHECK((f(xt::xtensor<float, 2>::from_shape({0, 3}), xt::xtensor<std::int32_t, 1>{1, 2, 3}).shape() ==
         std::array<std::size_t, 2>{0, 6}));
  CHECK((f(xt::xtensor<float, 2>::from_shape({2, 0}), xt::xtensor<std::int32_t, 1>::from_shape({0})).shape() ==
         std::array<std::size_t, 2>{2, 0}));
  // the repeated rows feed a reduction and a second repeat
  auto g = sf::function([](auto t, auto r) {
    auto once = sf::repeat(t, r, sf::axes<0>{});
    return std::tuple{sf::reduce_sum(once, sf::axes<0>{}), sf::repeat(once, r(sf::span(0, 1)), sf::axes<0>{})};
  });
  const auto [sums, twice] = g(xt::xtensor<float, 2>{{1, 10}, {2, 20}}, xt::xtensor<std::int64_t, 1>{2, 1});
  CHECK((sums == xt::xtensor<float, 1>{4, 40}));
  CHECK((twice == xt::xtensor<float, 2>{{1, 10}, {1, 10}, {1, 10}, {1, 10}, {2, 20}, {2, 20}}));
  // call_into writes straight into the caller's container
  xt::xtensor<float, 2> out = xt::zeros<float>({std::size_t{2}, std::size_t{4}});
  f.call_into(out, x, xt::xtensor<std::int32_t, 1>{2, 0, 2});
  CHECK((out == xt::xtensor<float, 2>{{1, 1, 3, 3}, {4, 4, 6, 6}}));
}

TEST_CASE("repeat by a tensor: TF's errors before any effect; eager mode", "[graph][masking][repeat]") {
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto x, auto r) {
    counter.assign_add(1.f);
    return sf::repeat(x, r, sf::axes<0>{});
  });
  const xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  CHECK((f(x, xt::xtensor<std::int32_t, 1>{1, 1}) == x));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 1>{2, -1}), "staticflow: repeat: repeats[1] = -1 is negative");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 1>{1, 2, 3}),
                    "staticflow: repeat: repeats has 3 elements for an axis of 2 (it must have one per element, or one)");
  CHECK(counter.value() == 1.f);
  sf::run_functions_eagerly(true);
  auto g = sf::function([](auto t, auto r) { return sf::repeat(t + 1.f, r, sf::axes<0>{}) * 2.f; });
  CHECK((g(x, xt::xtensor<std::int32_t, 1>{0, 2}) == xt::xtensor<float, 2>{{8, 10}, {8, 10}}));
  CHECK_THROWS_WITH(g(x, xt::xtensor<std::int32_t, 0>(-3)), "staticflow: repeat: repeats[0] = -3 is negative");
  sf::run_functions_eagerly(false);
}
