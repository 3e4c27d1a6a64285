// sf::boolean_mask and sf::where(condition) (graph/masking.hpp, backend/cpu/masking.hpp): results
// whose size is data (where's own examples: test_masking_where.cpp; repeat: test_masking_repeat.cpp). TF's examples, masks of rank 1 and 2 at axis 0 and inner axes, fused masks
// and tensors, later ops reading the run-time extent, all-false and empty input, 2 threads, eager
// mode, inside cond, the listing, and TF's shape error before any effect.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// boolean_mask written out: x as [outer, mask size, inner], the rows where mask is true.
template <class T, class X, class M>
std::vector<T> reference(const X& x, const M& mask, std::size_t outer) {
  const std::size_t n = mask.size(), inner = outer * n > 0 ? x.size() / (outer * n) : 0;
  std::vector<T> out;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t p = 0; p < n; ++p)
      if (mask.data()[p])
        for (std::size_t k = 0; k < inner; ++k) out.push_back(x.data()[(o * n + p) * inner + k]);
  return out;
}
template <class X, class T>
bool equals(const X& x, const std::vector<T>& want) {
  return x.size() == want.size() && std::equal(want.begin(), want.end(), x.data());
}
template <std::size_t R>
xt::xtensor<bool, R> random_mask(std::array<std::size_t, R> shape, std::mt19937& rng) {
  auto m = xt::xtensor<bool, R>::from_shape(shape);
  for (auto& v : m) v = rng() % 3 != 0;
  return m;
}
template <class T, std::size_t R>
xt::xtensor<T, R> random_values(std::array<std::size_t, R> shape, std::mt19937& rng) {
  auto x = xt::xtensor<T, R>::from_shape(shape);
  std::uniform_int_distribution<int> u(-50, 50);
  for (auto& v : x) v = static_cast<T>(u(rng));
  return x;
}
std::size_t trues(const auto& m) { return static_cast<std::size_t>(std::count(m.begin(), m.end(), true)); }
}  // namespace

TEST_CASE("boolean_mask: TF's examples", "[graph][masking]") {
  auto f = sf::function([](auto t, auto m) { return sf::boolean_mask(t, m); });
  CHECK((f(xt::xtensor<int, 1>{0, 1, 2, 3}, xt::xtensor<bool, 1>{true, false, true, false}) == xt::xtensor<int, 1>{0, 2}));
  CHECK((f(xt::xtensor<float, 2>{{1, 2}, {3, 4}, {5, 6}}, xt::xtensor<bool, 1>{true, false, true}) ==
         xt::xtensor<float, 2>{{1, 2}, {5, 6}}));
  // a mask of rank 2 over a matrix: the kept elements, flattened
  CHECK((f(xt::xtensor<double, 2>{{1, 2}, {3, 4}}, xt::xtensor<bool, 2>{{true, false}, {false, true}}) ==
         xt::xtensor<double, 1>{1, 4}));
}

TEST_CASE("boolean_mask: masks of rank 1 and 2, at axis 0 and inner axes, random shapes", "[graph][masking]") {
  std::mt19937 rng(31);
  for (int round = 0; round < 4; ++round) {
    const std::size_t a = 1 + rng() % 6, b = 1 + rng() % 5, c = 1 + rng() % 4;
    const auto x = random_values<float, 3>({a, b, c}, rng);
    const auto rows = random_mask<1>({a}, rng);
    const auto pairs = random_mask<2>({a, b}, rng);
    const auto columns = random_mask<1>({b}, rng);
    const auto last = random_mask<2>({b, c}, rng);
    auto f = sf::function([](auto t, auto r, auto p, auto k, auto l) {
      return std::tuple{sf::boolean_mask(t, r), sf::boolean_mask(t, p), sf::boolean_mask(t, k, sf::axes<1>{}),
                        sf::boolean_mask(t, l, sf::axes<-2>{})};
    });
    const auto [by_rows, by_pairs, by_columns, by_last] = f(x, rows, pairs, columns, last);
    CHECK((by_rows.shape() == std::array<std::size_t, 3>{trues(rows), b, c}));
    CHECK((by_pairs.shape() == std::array<std::size_t, 2>{trues(pairs), c}));
    CHECK((by_columns.shape() == std::array<std::size_t, 3>{a, trues(columns), c}));
    CHECK((by_last.shape() == std::array<std::size_t, 2>{a, trues(last)}));
    CHECK(equals(by_rows, reference<float>(x, rows, 1)));
    CHECK(equals(by_pairs, reference<float>(x, pairs, 1)));
    CHECK(equals(by_columns, reference<float>(x, columns, a)));
    CHECK(equals(by_last, reference<float>(x, last, a)));
  }
}

TEST_CASE("boolean_mask: static shapes give sf::dyn at the masked axis; the listing", "[graph][masking]") {
  auto f = sf::function([](auto t, auto m) { return sf::boolean_mask(t, m, sf::axes<1>{}); });
  const xt::xtensor_fixed<float, xt::xshape<2, 3>> x{{1, 2, 3}, {4, 5, 6}};
  const xt::xtensor_fixed<bool, xt::xshape<3>> m{false, true, true};
  const auto r = f(x, m);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(r)>, xt::xtensor<float, 2>>);
  CHECK((r == xt::xtensor<float, 2>{{2, 3}, {5, 6}}));
  const auto& cf = f.get_concrete_function(sf::spec<float, 2, 3>{}, sf::spec<bool, 3>{});
  using C = std::remove_cvref_t<decltype(cf)>;
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<typename C::template output_node<0>>, sf::spec<float, 2, sf::dyn>>);
  CHECK(cf.graph_string().find("BooleanMask[axis=1]") != std::string::npos);
  auto w = sf::function([](auto c) { return sf::where(c); });
  const auto& wf = w.get_concrete_function(sf::spec<bool, 4, 5>{});
  using W = std::remove_cvref_t<decltype(wf)>;
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<typename W::template output_node<0>>, sf::spec<std::int64_t, sf::dyn, 2>>);
  CHECK(wf.graph_string().find("Where") != std::string::npos);
}

TEST_CASE("boolean_mask: fused masks and tensors; later ops read the run-time extent", "[graph][masking]") {
  // the mask and the tensor are expressions; the masked values feed a reduction, a product and a
  // second output, each reading the count from the slot's view
  auto f = sf::function([](auto x) {
    auto kept = sf::boolean_mask(x * 2.f, x > 0.f);
    return std::tuple{sf::reduce_sum(kept), kept * kept, sf::reduce_max(kept), kept};
  });
  const xt::xtensor<float, 1> x{-1, 3, 0, 2, -5, 4};
  const auto [sum, squares, largest, kept] = f(x);
  CHECK(sum == 18.f);
  CHECK((squares == xt::xtensor<float, 1>{36, 16, 64}));
  CHECK(largest == 8.f);
  CHECK((kept == xt::xtensor<float, 1>{6, 4, 8}));
  // masks of masks: the second mask is over the first result
  auto twice = sf::function([](auto t) {
    auto positive = sf::boolean_mask(t, t > 0);
    return sf::boolean_mask(positive, positive < 10);
  });
  CHECK((twice(xt::xtensor<int, 1>{5, -2, 12, 7, 0, 30, 1}) == xt::xtensor<int, 1>{5, 7, 1}));
}

TEST_CASE("boolean_mask, where: all false, empty and size-1 input are ordinary", "[graph][masking]") {
  auto f = sf::function([](auto t, auto m) { return sf::boolean_mask(t, m); });
  const xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  CHECK((f(x, xt::xtensor<bool, 1>{false, false}).shape() == std::array<std::size_t, 2>{0, 2}));
  CHECK((f(xt::xtensor<float, 2>::from_shape({0, 3}), xt::xtensor<bool, 1>::from_shape({0})).shape() ==
         std::array<std::size_t, 2>{0, 3}));
  CHECK((f(xt::xtensor<float, 2>::from_shape({2, 0}), xt::xtensor<bool, 1>{true, true}).shape() ==
         std::array<std::size_t, 2>{2, 0}));
  CHECK((f(xt::xtensor<float, 1>{7}, xt::xtensor<bool, 1>{true}) == xt::xtensor<float, 1>{7}));
  auto sum = sf::function([](auto t, auto m) { return sf::reduce_sum(sf::boolean_mask(t, m)); });
  CHECK(sum(x, xt::xtensor<bool, 1>{false, false}) == 0.f);
  auto w = sf::function([](auto c) { return sf::where(c); });
  CHECK((w(xt::xtensor<bool, 2>::from_shape({3, 0})).shape() == std::array<std::size_t, 2>{0, 2}));
}

TEST_CASE("boolean_mask: TF's shape error before any effect", "[graph][masking]") {
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto t, auto m) {
    counter.assign_add(1.f);
    return sf::boolean_mask(t, m, sf::axes<1>{});
  });
  const xt::xtensor<float, 2> x{{1, 2, 3}, {4, 5, 6}};
  CHECK((f(x, xt::xtensor<bool, 1>{true, false, true}) == xt::xtensor<float, 2>{{1, 3}, {4, 6}}));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(x, xt::xtensor<bool, 1>{true, false}),
                    "staticflow: boolean_mask: mask.shape = [2] does not match tensor.shape[1:2] of tensor.shape = [2,3]");
  CHECK(counter.value() == 1.f);
  // call_into writes the kept rows straight into the caller's container (the direct slot): one of
  // the wrong shape throws before anything is written, whether it is too small or too large
  auto rows = sf::function([](auto t, auto m) { return sf::boolean_mask(t, m); });
  xt::xtensor<float, 2> out = xt::zeros<float>({std::size_t{1}, std::size_t{3}}) + 9.f;
  CHECK_THROWS_WITH(rows.call_into(out, x, xt::xtensor<bool, 1>{true, true}),
                    "staticflow: call_into: output 0 has shape (1, 3), the result has shape (2, 3)");
  CHECK((out == xt::xtensor<float, 2>{{9, 9, 9}}));
  rows.call_into(out, x, xt::xtensor<bool, 1>{false, true});
  CHECK((out == xt::xtensor<float, 2>{{4, 5, 6}}));
  CHECK(rows.get_concrete_function(sf::spec<float, sf::dyn, sf::dyn>{}, sf::spec<bool, sf::dyn>{}).direct_slot == 0);
}

TEST_CASE("boolean_mask: 2 threads, eager mode and a cond branch give the same values", "[graph][masking]") {
  std::mt19937 rng(41);
  const auto x = random_values<float, 2>({5000, 33}, rng);
  const auto m = random_mask<1>({5000}, rng);
  auto f = sf::function([](auto t, auto k) { return sf::boolean_mask(t + 1.f, k); });
  const xt::xtensor<float, 2> one = f(x, m);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const xt::xtensor<float, 2> two = f(x, m);
  sf::set_num_threads(saved);
  CHECK((one == two));
  const xt::xtensor<float, 2> shifted = x + 1.f;
  CHECK(equals(one, reference<float>(shifted, m, 1)));

  auto branch = sf::function([](auto t, auto k) {
    return sf::cond(sf::reduce_any(k), [&] { return sf::reduce_sum(sf::boolean_mask(t, k)); }, [&] { return sf::reduce_sum(t) * 0.f; });
  });
  const xt::xtensor<float, 1> t{1, 2, 3, 4};
  CHECK(branch(t, xt::xtensor<bool, 1>{false, true, false, true}) == 6.f);
  CHECK(branch(t, xt::xtensor<bool, 1>{false, false, false, false}) == 0.f);

  sf::run_functions_eagerly(true);
  auto g = sf::function([](auto t, auto k) { return sf::boolean_mask(t * 2.f, k) + 1.f; });
  CHECK((g(t, xt::xtensor<bool, 1>{true, true, false, true}) == xt::xtensor<float, 1>{3, 5, 9}));
  CHECK((sf::function([](auto c) { return sf::where(c); })(xt::xtensor<bool, 1>{false, true}) == xt::xtensor<std::int64_t, 2>{{1}}));
  CHECK_THROWS_WITH(g(t, xt::xtensor<bool, 1>{true}),
                    "staticflow: boolean_mask: mask.shape = [1] does not match tensor.shape[0:1] of tensor.shape = [4]");
  sf::run_functions_eagerly(false);
}
