// sf::gather_nd, sf::scatter_nd and sf::tensor_scatter_nd_update / _add / _sub (graph/scatter.hpp,
// backend/cpu/scatter.hpp) as TF's: index tuples of every depth, random shapes with extents 0 and 1,
// repeated tuples (added in order, the last update winning), static shapes, integer tensors,
// threads, eager mode, the listing, and TF's out-of-range error thrown before any effect.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
using I1 = sf::spec<std::int32_t, sf::dyn, 1>;
using I2 = sf::spec<std::int32_t, sf::dyn, 2>;
using I3 = sf::spec<std::int32_t, sf::dyn, 3>;
using F3 = sf::spec<float, sf::dyn, sf::dyn, sf::dyn>;

xt::xtensor<float, 3> random_x(std::size_t a, std::size_t b, std::size_t c, std::mt19937& rng) {
  xt::xtensor<float, 3> x = xt::zeros<float>({a, b, c});
  std::uniform_int_distribution<int> u(-50, 50);
  for (auto& v : x) v = static_cast<float>(u(rng));
  return x;
}

/// `count` index tuples of depth K into x's first K extents (each extent at least 1).
template <std::size_t K>
xt::xtensor<std::int32_t, 2> random_tuples(const xt::xtensor<float, 3>& x, std::size_t count, std::mt19937& rng) {
  xt::xtensor<std::int32_t, 2> t = xt::zeros<std::int32_t>({count, K});
  for (std::size_t p = 0; p < count; ++p)
    for (std::size_t k = 0; k < K; ++k) t(p, k) = static_cast<std::int32_t>(rng() % x.shape(k));
  return t;
}

/// The slice of x (rank 3) that tuple p of depth K names, as a flat offset and a length.
template <std::size_t K>
std::pair<std::size_t, std::size_t> slice(const xt::xtensor<float, 3>& x, const xt::xtensor<std::int32_t, 2>& t, std::size_t p) {
  std::size_t offset = 0, inner = 1;
  for (std::size_t k = 0; k < 3; ++k) {
    if (k < K) offset = offset * x.shape(k) + static_cast<std::size_t>(t(p, k));
    else inner *= x.shape(k);
  }
  return {offset * inner, inner};
}

/// tf.gather_nd written out: the slices one after another.
template <std::size_t K>
std::vector<float> gathered(const xt::xtensor<float, 3>& x, const xt::xtensor<std::int32_t, 2>& t) {
  std::vector<float> out;
  for (std::size_t p = 0; p < t.shape(0); ++p) {
    const auto [offset, inner] = slice<K>(x, t, p);
    for (std::size_t e = 0; e < inner; ++e) out.push_back(x.data()[offset + e]);
  }
  return out;
}

/// tf.tensor_scatter_nd_{update,add,sub} written out, tuple 0 first.
template <std::size_t K, class F>
xt::xtensor<float, 3> scattered(xt::xtensor<float, 3> x, const xt::xtensor<std::int32_t, 2>& t, const std::vector<float>& u, F combine) {
  std::size_t read = 0;
  for (std::size_t p = 0; p < t.shape(0); ++p) {
    const auto [offset, inner] = slice<K>(x, t, p);
    for (std::size_t e = 0; e < inner; ++e) x.data()[offset + e] = combine(x.data()[offset + e], u[read++]);
  }
  return x;
}

template <class R>
std::vector<float> flat(const R& r) {
  return std::vector<float>(r.begin(), r.end());
}

template <std::size_t R> struct float_spec;
template <> struct float_spec<1> { using type = sf::spec<float, sf::dyn>; };
template <> struct float_spec<2> { using type = sf::spec<float, sf::dyn, sf::dyn>; };
template <> struct float_spec<3> { using type = F3; };

/// Every op at depth K on random shapes (extents 0-4 after the first K, 1-4 within them) and
/// random tuples (repeats likely), against the definitions above.
template <std::size_t K, class IndexSpec>
void check_depth(std::mt19937& rng) {
  constexpr std::size_t UR = 4 - K;  // the updates' rank: 1 + (3 - K)
  auto ops = sf::function<F3, IndexSpec, typename float_spec<UR>::type>([](auto x, auto t, auto u) {
    return std::tuple{sf::gather_nd(x, t), sf::tensor_scatter_nd_update(x, t, u), sf::tensor_scatter_nd_add(x, t, u),
                      sf::tensor_scatter_nd_sub(x, t, u)};
  });
  std::uniform_int_distribution<int> value(-50, 50);
  for (int round = 0; round < 12; ++round) {
    std::array<std::size_t, 3> e{};
    for (std::size_t k = 0; k < 3; ++k) e[k] = k < K ? 1 + rng() % 4 : rng() % 5;
    const auto x = random_x(e[0], e[1], e[2], rng);
    const std::size_t count = rng() % 6;
    const auto t = random_tuples<K>(x, count, rng);
    std::array<std::size_t, UR> ue{count};
    for (std::size_t k = K; k < 3; ++k) ue[1 + k - K] = e[k];
    xt::xtensor<float, UR> u = xt::zeros<float>(ue);
    for (auto& v : u) v = static_cast<float>(value(rng));
    const std::vector<float> updates = flat(u);
    INFO("depth " << K << ", x " << e[0] << "x" << e[1] << "x" << e[2] << ", " << count << " tuples");
    if (x.size() == 0 && count > 0) {  // TF: "Requested more than 0 entries, but params is empty"
      CHECK_THROWS_WITH(ops(x, t, u), "staticflow: gather_nd: " + std::to_string(count) + " index tuples into a tensor without elements");
      continue;
    }
    const auto [g, up, add, sub] = ops(x, t, u);
    CHECK(g.shape()[0] == count);
    CHECK(flat(g) == gathered<K>(x, t));
    CHECK((up == scattered<K>(x, t, updates, [](float, float v) { return v; })));
    CHECK((add == scattered<K>(x, t, updates, [](float a, float v) { return a + v; })));
    CHECK((sub == scattered<K>(x, t, updates, [](float a, float v) { return a - v; })));
  }
}
}  // namespace

TEST_CASE("gather_nd and the scatters: index tuples of depth 1, 2 and 3 on random shapes", "[graph][scatter]") {
  std::mt19937 rng(21);
  check_depth<1, I1>(rng);
  check_depth<2, I2>(rng);
  check_depth<3, I3>(rng);
}

TEST_CASE("gather_nd and the scatters: TF's documented examples, static shapes, repeated tuples", "[graph][scatter]") {
  // tf.gather_nd's and tf.scatter_nd's documentation
  const xt::xtensor_fixed<float, xt::xshape<2, 2>> m{{1, 2}, {3, 4}};
  const xt::xtensor_fixed<std::int64_t, xt::xshape<2, 2>> corners{{0, 0}, {1, 1}};
  const xt::xtensor_fixed<std::int64_t, xt::xshape<2, 1>> rows{{1}, {0}};
  auto pick = sf::function([](auto a, auto i, auto r) { return std::tuple{sf::gather_nd(a, i), sf::gather_nd(a, r)}; });
  const auto [diagonal, swapped] = pick(m, corners, rows);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(diagonal)>, xt::xtensor_fixed<float, xt::xshape<2>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(swapped)>, xt::xtensor_fixed<float, xt::xshape<2, 2>>>);
  CHECK((diagonal == xt::xtensor<float, 1>{1, 4}));
  CHECK((swapped == xt::xtensor<float, 2>{{3, 4}, {1, 2}}));

  const xt::xtensor_fixed<std::int32_t, xt::xshape<4, 1>> where{{4}, {3}, {1}, {7}};
  const xt::xtensor_fixed<float, xt::xshape<4>> updates{9, 10, 11, 12};
  auto scatter = sf::function([](auto i, auto u) { return sf::scatter_nd(i, u, sf::shape<8>{}); });
  const auto s = scatter(where, updates);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(s)>, xt::xtensor_fixed<float, xt::xshape<8>>>);
  CHECK((s == xt::xtensor<float, 1>{0, 11, 0, 10, 9, 0, 0, 12}));

  // repeated tuples: scatter_nd and add sum them in order, update keeps the last
  const xt::xtensor_fixed<std::int32_t, xt::xshape<3, 1>> twice{{2}, {0}, {2}};
  const xt::xtensor_fixed<double, xt::xshape<3, 2>> rows_in{{1, 2}, {3, 4}, {5, 6}};
  const xt::xtensor_fixed<double, xt::xshape<3, 2>> base{{10, 10}, {20, 20}, {30, 30}};
  auto repeated = sf::function([](auto x, auto i, auto u) {
    return std::tuple{sf::scatter_nd(i, u, sf::shape<3, 2>{}), sf::tensor_scatter_nd_update(x, i, u),
                      sf::tensor_scatter_nd_add(x, i, u)};
  });
  const auto [zeros_plus, last_wins, summed] = repeated(base, twice, rows_in);
  CHECK((zeros_plus == xt::xtensor<double, 2>{{3, 4}, {0, 0}, {6, 8}}));
  CHECK((last_wins == xt::xtensor<double, 2>{{3, 4}, {20, 20}, {5, 6}}));
  CHECK((summed == xt::xtensor<double, 2>{{13, 14}, {20, 20}, {36, 38}}));
  CHECK(repeated.get_concrete_function(sf::spec<double, 3, 2>{}, sf::spec<std::int32_t, 3, 1>{}, sf::spec<double, 3, 2>{})
            .graph_string()
            .find("ScatterNd") != std::string::npos);
  const std::string listing = sf::function<F3, I2, sf::spec<float, sf::dyn, sf::dyn>>([](auto x, auto i, auto u) {
                                return sf::tensor_scatter_nd_sub(sf::tensor_scatter_nd_update(x, i, u), i, sf::gather_nd(x, i));
                              }).get_concrete_function(F3{}, I2{}, sf::spec<float, sf::dyn, sf::dyn>{}).graph_string();
  CHECK(listing.find("TensorScatterUpdate") != std::string::npos);
  CHECK(listing.find("TensorScatterSub") != std::string::npos);
  CHECK(listing.find("GatherNd") != std::string::npos);
}

TEST_CASE("gather_nd and the scatters: empty input, integer tensors, created updates, threads", "[graph][scatter]") {
  auto add = sf::function<sf::spec<std::int64_t, sf::dyn, sf::dyn>, I1, sf::spec<std::int64_t, sf::dyn, sf::dyn>>(
      [](auto x, auto i, auto u) { return sf::tensor_scatter_nd_add(x, i, u); });
  const xt::xtensor<std::int64_t, 2> x{{1, 2}, {3, 4}};
  CHECK((add(x, xt::xtensor<std::int32_t, 2>::from_shape({0, 1}), xt::xtensor<std::int64_t, 2>::from_shape({0, 2})) == x));
  CHECK((add(x, xt::xtensor<std::int32_t, 2>{{1}}, xt::xtensor<std::int64_t, 2>{{10, 20}}) ==
         xt::xtensor<std::int64_t, 2>{{1, 2}, {13, 24}}));
  // tuples into a tensor without elements: TF's error ("Indices and updates specified for empty output")
  CHECK_THROWS_WITH(add(xt::xtensor<std::int64_t, 2>::from_shape({3, 0}), xt::xtensor<std::int32_t, 2>{{2}, {2}},
                        xt::xtensor<std::int64_t, 2>::from_shape({2, 0})),
                    "staticflow: tensor_scatter_nd_add: 2 index tuples into a tensor without elements");
  const auto empty = add(xt::xtensor<std::int64_t, 2>::from_shape({3, 0}), xt::xtensor<std::int32_t, 2>::from_shape({0, 1}),
                         xt::xtensor<std::int64_t, 2>::from_shape({0, 0}));
  CHECK(empty.shape()[0] == 3);
  CHECK(empty.size() == 0);
  auto gather = sf::function<sf::spec<std::int64_t, sf::dyn, sf::dyn>, I2>([](auto x_, auto i) { return sf::gather_nd(x_, i); });
  CHECK(gather(x, xt::xtensor<std::int32_t, 2>::from_shape({0, 2})).size() == 0);
  // created values as the updates: one scalar per tuple (depth = rank)
  auto fill = sf::function<sf::spec<float, sf::dyn, sf::dyn>, I2>([](auto x_, auto i) {
    return sf::tensor_scatter_nd_update(x_, i, sf::fill(sf::shape<2>{}, -1.f));
  });
  CHECK((fill(xt::xtensor<float, 2>{{1, 2}, {3, 4}}, xt::xtensor<std::int32_t, 2>{{0, 1}, {1, 0}}) ==
         xt::xtensor<float, 2>{{1, -1}, {-1, 4}}));
  // a large scatter split across 2 threads gives the 1-thread bits (repeated tuples add in order)
  std::mt19937 rng(8);
  const auto big = random_x(300, 40, 30, rng);
  const auto tuples = random_tuples<1>(big, 3000, rng);
  xt::xtensor<float, 3> u = xt::zeros<float>({std::size_t{3000}, std::size_t{40}, std::size_t{30}});
  std::uniform_real_distribution<float> real(-1.f, 1.f);
  for (auto& v : u) v = real(rng);
  auto both = sf::function<F3, I1, F3>([](auto x_, auto i, auto w) { return std::tuple{sf::tensor_scatter_nd_add(x_, i, w), sf::gather_nd(x_, i)}; });
  const auto one = both(big, tuples, u);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto two = both(big, tuples, u);
  sf::set_num_threads(saved);
  CHECK((std::get<0>(one) == std::get<0>(two)));
  CHECK((std::get<1>(one) == std::get<1>(two)));
  CHECK((std::get<0>(one) == scattered<1>(big, tuples, flat(u), [](float a, float v) { return a + v; })));
}

TEST_CASE("gather_nd and the scatters: TF's errors before any effect; eager mode", "[graph][scatter]") {
  sf::variable<float> counter(0.f);
  auto f = sf::function<sf::spec<float, sf::dyn, sf::dyn>, I2, sf::spec<float, sf::dyn>>([&](auto x, auto i, auto u) {
    counter.assign_add(1.f);
    return std::tuple{sf::gather_nd(x, i), sf::tensor_scatter_nd_add(x, i, u)};
  });
  const xt::xtensor<float, 2> x{{1, 2, 3}, {4, 5, 6}};
  const auto [g, s] = f(x, xt::xtensor<std::int32_t, 2>{{1, 2}, {0, 0}}, xt::xtensor<float, 1>{10, 20});
  CHECK((g == xt::xtensor<float, 1>{6, 1}));
  CHECK((s == xt::xtensor<float, 2>{{21, 2, 3}, {4, 5, 16}}));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{1, 2}, {0, 3}}, xt::xtensor<float, 1>{1, 1}),
                    "staticflow: gather_nd: indices[1] = [0, 3] is not in [0, 2) x [0, 3)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{-1, 0}}, xt::xtensor<float, 1>{1}),
                    "staticflow: gather_nd: indices[0] = [-1, 0] is not in [0, 2) x [0, 3)");
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{1, 1}}, xt::xtensor<float, 1>{1, 2}),
                    "staticflow: tensor_scatter_nd_add: updates of shape (2,) for indices of shape (1, 2) into shape (2, 3) "
                    "(updates must have shape (1,))");
  CHECK(counter.value() == 1.f);
  // call_into's output is the caller's buffer: a bad tuple leaves it as it was
  auto scatter = sf::function<sf::spec<float, sf::dyn, sf::dyn>, I2, sf::spec<float, sf::dyn>>(
      [](auto x_, auto i, auto u) { return sf::tensor_scatter_nd_update(x_, i, u); });
  xt::xtensor<float, 2> out = xt::zeros<float>({std::size_t{2}, std::size_t{3}}) + 7.f;
  CHECK_THROWS_WITH(scatter.call_into(out, x, xt::xtensor<std::int32_t, 2>{{0, 0}, {1, 5}}, xt::xtensor<float, 1>{1, 2}),
                    "staticflow: tensor_scatter_nd_update: indices[1] = [1, 5] is not in [0, 2) x [0, 3)");
  CHECK((out == xt::xtensor<float, 2>{{7, 7, 7}, {7, 7, 7}}));
  scatter.call_into(out, x, xt::xtensor<std::int32_t, 2>{{0, 0}, {1, 2}}, xt::xtensor<float, 1>{-1, -2});
  CHECK((out == xt::xtensor<float, 2>{{-1, 2, 3}, {4, 5, -2}}));
  sf::run_functions_eagerly(true);
  const auto [ge, se] = f(x, xt::xtensor<std::int32_t, 2>{{1, 0}}, xt::xtensor<float, 1>{0.5f});
  CHECK((ge == xt::xtensor<float, 1>{4}));
  CHECK((se == xt::xtensor<float, 2>{{1, 2, 3}, {4.5f, 5, 6}}));
  CHECK_THROWS_WITH(f(x, xt::xtensor<std::int32_t, 2>{{2, 0}}, xt::xtensor<float, 1>{1}),
                    "staticflow: gather_nd: indices[0] = [2, 0] is not in [0, 2) x [0, 3)");
  sf::run_functions_eagerly(false);
  CHECK(counter.value() == 2.f);
}
