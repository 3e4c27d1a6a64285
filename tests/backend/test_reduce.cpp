// Tests for backend/cpu/reduce.hpp and graph/reduce.hpp: every reduction, over all axes, static
// axes (suffix, prefix, interleaved), run-time axes and keepdims, against a scalar reference;
// float sums stay accurate over millions of elements; argmax / argmin take the first best.
#include <catch2/catch.hpp>

#include <type_traits>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// The reference: reduce x (extents 2x3x4 as a flat row-major array) over the axes in `mask`.
template <class T, class Combine>
std::vector<T> reference(const xt::xtensor<T, 3>& x, std::array<bool, 3> mask, T init, Combine combine) {
  const auto& e = x.shape();
  std::array<std::size_t, 3> out_dim{};
  for (std::size_t i = 0; i < 3; ++i) out_dim[i] = mask[i] ? 1 : e[i];
  std::vector<T> out(out_dim[0] * out_dim[1] * out_dim[2], init);
  for (std::size_t i = 0; i < e[0]; ++i)
    for (std::size_t j = 0; j < e[1]; ++j)
      for (std::size_t k = 0; k < e[2]; ++k) {
        const std::size_t o = ((mask[0] ? 0 : i) * out_dim[1] + (mask[1] ? 0 : j)) * out_dim[2] + (mask[2] ? 0 : k);
        out[o] = combine(out[o], x(i, j, k));
      }
  return out;
}

xt::xtensor<int, 3> small_ints() {
  auto x = xt::xtensor<int, 3>::from_shape({2, 3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = static_cast<int>((i * 7) % 11) - 5;
  return x;
}

xt::xtensor<float, 1> random_like(std::size_t n) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-3, 3);
  auto x = xt::xtensor<float, 1>::from_shape({n});
  for (auto& v : x) v = dist(rng);
  return x;
}

template <class R>
std::vector<typename R::value_type> flat(const R& r) {
  return std::vector<typename R::value_type>(r.begin(), r.end());
}
}  // namespace

TEST_CASE("reduce_sum / prod / max / min over every axis set match the reference", "[reduce]") {
  const auto x = small_ints();
  auto f = sf::function([](auto t) {
    return std::tuple{sf::reduce_sum(t, sf::axes<0>{}, sf::keepdims), sf::reduce_sum(t, sf::axes<1>{}, sf::keepdims),
                      sf::reduce_sum(t, sf::axes<2>{}, sf::keepdims), sf::reduce_sum(t, sf::axes<0, 2>{}, sf::keepdims),
                      sf::reduce_sum(t, sf::axes<1, 2>{}, sf::keepdims), sf::reduce_sum(t, sf::axes<0, 1>{}, sf::keepdims),
                      sf::reduce_sum(t, sf::keepdims)};
  });
  const auto [s0, s1, s2, s02, s12, s01, s012] = f(x);
  auto plus = [](int a, int b) { return a + b; };
  CHECK(flat(s0) == reference(x, {true, false, false}, 0, plus));
  CHECK(flat(s1) == reference(x, {false, true, false}, 0, plus));
  CHECK(flat(s2) == reference(x, {false, false, true}, 0, plus));
  CHECK(flat(s02) == reference(x, {true, false, true}, 0, plus));
  CHECK(flat(s12) == reference(x, {false, true, true}, 0, plus));
  CHECK(flat(s01) == reference(x, {true, true, false}, 0, plus));
  CHECK(flat(s012) == reference(x, {true, true, true}, 0, plus));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(s02)>, xt::xtensor<int, 3>>);

  auto g = sf::function([](auto t) {
    return std::tuple{sf::reduce_prod(t, sf::axes<2>{}), sf::reduce_max(t, sf::axes<0, 2>{}), sf::reduce_min(t, sf::axes<1>{}),
                      sf::reduce_max(t), sf::reduce_min(t)};
  });
  const auto [p2, mx02, mn1, mx, mn] = g(x);
  CHECK(flat(p2) == reference(x, {false, false, true}, 1, [](int a, int b) { return a * b; }));
  CHECK(flat(mx02) == reference(x, {true, false, true}, std::numeric_limits<int>::lowest(), [](int a, int b) { return std::max(a, b); }));
  CHECK(flat(mn1) == reference(x, {false, true, false}, std::numeric_limits<int>::max(), [](int a, int b) { return std::min(a, b); }));
  CHECK(mx == 5);
  CHECK(mn == -5);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(p2)>, xt::xtensor<int, 2>>);
}

TEST_CASE("keepdims, static shapes and negative axes give the expected result types", "[reduce]") {
  auto f = sf::function([](auto m) {
    return std::tuple{sf::reduce_sum(m, sf::axes<-1>{}), sf::reduce_sum(m, sf::axes<-1>{}, sf::keepdims), sf::reduce_mean(m),
                      sf::reduce_sum(m, sf::axes<0>{})};
  });
  xt::xtensor_fixed<double, xt::xshape<2, 3>> m = {{1, 2, 3}, {4, 5, 6}};
  auto [rows, rows_kept, mean, cols] = f(m);
  static_assert(std::is_same_v<decltype(rows), xt::xtensor_fixed<double, xt::xshape<2>>>);
  static_assert(std::is_same_v<decltype(rows_kept), xt::xtensor_fixed<double, xt::xshape<2, 1>>>);
  static_assert(std::is_same_v<decltype(mean), double>);
  CHECK((rows == xt::xtensor_fixed<double, xt::xshape<2>>{6, 15}));
  CHECK((rows_kept == xt::xtensor_fixed<double, xt::xshape<2, 1>>{{6}, {15}}));
  CHECK(mean == 3.5);
  CHECK((cols == xt::xtensor_fixed<double, xt::xshape<3>>{5, 7, 9}));
}

TEST_CASE("a static value as the axis (1_c, -1_c) is sf::axes: static result shapes", "[reduce]") {
  using namespace sf::literals;
  STATIC_REQUIRE(std::is_same_v<decltype(-1_c), std::integral_constant<int, -1>>);  // negation keeps it static
  STATIC_REQUIRE(std::is_same_v<decltype(-(-3_c)), std::integral_constant<int, 3>>);
  auto f = sf::function([](auto m) {
    return std::tuple{sf::reduce_mean(m, -1_c), sf::reduce_sum(m, 0_c, sf::keepdims), sf::reduce_max(m, 1_c), sf::argmax(m, -1_c),
                      sf::argmin(m, 0_c)};
  });
  const xt::xtensor_fixed<double, xt::xshape<2, 3>> m = {{1, 2, 3}, {6, 5, 4}};
  const auto [mean, cols, mx, am, an] = f(m);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(mean)>, xt::xtensor_fixed<double, xt::xshape<2>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(cols)>, xt::xtensor_fixed<double, xt::xshape<1, 3>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(am)>, xt::xtensor_fixed<std::int64_t, xt::xshape<2>>>);
  CHECK((mean == xt::xtensor_fixed<double, xt::xshape<2>>{2, 5}));
  CHECK((cols == xt::xtensor_fixed<double, xt::xshape<1, 3>>{{7, 7, 7}}));
  CHECK((mx == xt::xtensor_fixed<double, xt::xshape<2>>{3, 6}));
  CHECK((am == xt::xtensor_fixed<std::int64_t, xt::xshape<2>>{2, 0}));
  CHECK((an == xt::xtensor_fixed<std::int64_t, xt::xshape<3>>{0, 0, 0}));
}

TEST_CASE("a plain int axis is a run-time value; out of range throws", "[reduce]") {
  auto f = sf::function([](auto m, auto axis) { return sf::reduce_sum(m, 1) + sf::cast<float>(axis) * 0.f; });
  xt::xtensor<float, 2> m = {{1, 2, 3}, {4, 5, 6}};
  CHECK((f(m, 0) == xt::xtensor<float, 1>{6, 15}));
  auto g = sf::function([](auto m) { return std::tuple{sf::reduce_sum(m, 0), sf::reduce_max(m, -1, sf::keepdims)}; });
  auto [s, mx] = g(m);
  CHECK((s == xt::xtensor<float, 1>{5, 7, 9}));
  CHECK((mx == xt::xtensor<float, 2>{{3}, {6}}));
  auto bad = sf::function([](auto t) { return sf::reduce_sum(t, 2); });
  CHECK_THROWS_MATCHES(bad(m), sf::shape_error, Catch::Message("staticflow: axis 2 is out of range for rank 2"));
}

TEST_CASE("reduce_mean truncates integers; any / all reduce bools", "[reduce]") {
  auto f = sf::function([](auto i, auto b) {
    return std::tuple{sf::reduce_mean(i), sf::reduce_mean(sf::cast<float>(i)), sf::reduce_any(b, sf::axes<1>{}),
                      sf::reduce_all(b, sf::axes<1>{}), sf::reduce_any(i > 100)};
  });
  xt::xtensor<int, 1> i = {1, 2, 4};
  xt::xtensor<bool, 2> b = {{true, false}, {true, true}, {false, false}};
  auto [mi, mf, any, all, none] = f(i, b);
  CHECK(mi == 2);  // 7 / 3 truncates
  CHECK(mf == Approx(7.f / 3.f));
  CHECK((any == xt::xtensor<bool, 1>{true, true, false}));
  CHECK((all == xt::xtensor<bool, 1>{false, true, false}));
  CHECK_FALSE(none);
}

TEST_CASE("reduce_max propagates NaN; empty reductions give the identity", "[reduce]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::reduce_max(x), sf::reduce_sum(x), sf::reduce_min(x)}; });
  xt::xtensor<float, 1> x = random_like(40);
  x(17) = std::numeric_limits<float>::quiet_NaN();
  auto [mx, s, mn] = f(x);
  CHECK(std::isnan(mx));
  CHECK(std::isnan(s));
  CHECK(std::isnan(mn));
  auto empty = xt::xtensor<float, 1>::from_shape({0});
  auto [emx, es, emn] = f(empty);
  CHECK(emx == -std::numeric_limits<float>::infinity());
  CHECK(es == 0.f);
  CHECK(emn == std::numeric_limits<float>::infinity());
}

TEST_CASE("float sums are accurate over millions of elements", "[reduce][accuracy]") {
  // 2^24 values of 0.1f: a single running float sum stalls at 2^21 (about 2e6); the blocked,
  // pairwise order stays within a few ulps of the exact sum.
  const std::size_t n = std::size_t{1} << 24;
  auto x = xt::xtensor<float, 1>::from_shape({n});
  x.fill(0.1f);
  auto f = sf::function([](auto t) { return sf::reduce_sum(t); });
  const double exact = static_cast<double>(0.1f) * static_cast<double>(n);
  const float s = f(x);
  CHECK(std::abs(s - exact) / exact < 1e-6);
  float naive = 0.f;
  for (std::size_t i = 0; i < n; ++i) naive += 0.1f;
  CHECK(std::abs(naive - exact) / exact > 0.1);  // what the order above avoids

  // fused input: sum(a * b) equals the double-precision dot product closely
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto a = xt::xtensor<float, 1>::from_shape({100003});
  auto b = xt::xtensor<float, 1>::from_shape({100003});
  double dot = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    a(i) = dist(rng);
    b(i) = dist(rng);
    dot += double(a(i)) * double(b(i));
  }
  auto g = sf::function([](auto p, auto q) { return sf::reduce_sum(p * q); });
  CHECK(g(a, b) == Approx(dot).epsilon(1e-5));
}

TEST_CASE("argmax / argmin give the first best index as int64", "[reduce]") {
  auto f = sf::function([](auto m) {
    return std::tuple{sf::argmax(m, sf::axes<1>{}), sf::argmin(m, 0), sf::argmax(m, -1)};
  });
  xt::xtensor<float, 2> m = {{1, 5, 5, 2}, {7, 0, 7, -1}, {3, 3, 3, 3}};
  auto [amax, amin, last] = f(m);
  static_assert(std::is_same_v<decltype(amax), xt::xtensor<std::int64_t, 1>>);
  CHECK((amax == xt::xtensor<std::int64_t, 1>{1, 0, 0}));
  CHECK((amin == xt::xtensor<std::int64_t, 1>{0, 1, 2, 1}));
  CHECK((last == amax));
}

TEST_CASE("reductions of broadcast and mixed inputs", "[reduce]") {
  // the input of the reduction broadcasts: it is evaluated once into a temporary, then reduced
  auto f = sf::function([](auto col, auto row) { return sf::reduce_sum(col * row, sf::axes<0>{}); });
  xt::xtensor<double, 2> col = {{1}, {2}, {3}};
  xt::xtensor<double, 1> row = {10, 100};
  CHECK((f(col, row) == xt::xtensor<double, 1>{60, 600}));
  // a long contiguous reduction per row, with a vector body and a scalar tail per row
  auto g = sf::function([](auto t) { return sf::reduce_sum(t, sf::axes<1>{}); });
  auto big = xt::xtensor<float, 2>::from_shape({3, 1001});
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 1001; ++j) big(i, j) = static_cast<float>(j % 7) + static_cast<float>(i);
  const auto r = g(big);
  for (std::size_t i = 0; i < 3; ++i) {
    double want = 0;
    for (std::size_t j = 0; j < 1001; ++j) want += static_cast<double>(j % 7) + static_cast<double>(i);
    CHECK(r(i) == static_cast<float>(want));
  }
}

TEST_CASE("a reduction of a broadcasting input is reduced in blocks of whole rows, bit for bit", "[reduce]") {
  // reduce_sum(x - m, axes) with m broadcast along rows: the input is evaluated a block of
  // reduce_range's order at a time (at most 4096 elements, whole rows) instead of into a temporary
  // as large as x; the values must be those of reducing the materialized difference.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2, 2);
  auto check = [&](std::size_t rows, std::size_t cols) {
    auto x = xt::xtensor<float, 2>::from_shape({rows, cols});
    auto m = xt::xtensor<float, 2>::from_shape({rows, 1});
    auto n = xt::xtensor<int, 1>::from_shape({3});
    for (auto& v : x) v = dist(rng);
    for (auto& v : m) v = dist(rng);
    n = {1, 2, 4};  // reduce_sum(n) = 7, an int scalar cast inside the loop (a uniform value)
    auto diff = sf::function([](auto a, auto b, auto k) { return (a - b) * sf::cast<float>(sf::reduce_sum(k)); });
    auto fused = sf::function([](auto a, auto b, auto k) {
      const auto d = (a - b) * sf::cast<float>(sf::reduce_sum(k));
      return std::tuple{sf::reduce_sum(d, -1), sf::reduce_mean(d, sf::axes<1>{}, sf::keepdims), sf::reduce_sum(d),
                        sf::reduce_max(d, -1)};
    });
    auto from_temporary = sf::function([](auto d) {
      return std::tuple{sf::reduce_sum(d, -1), sf::reduce_mean(d, sf::axes<1>{}, sf::keepdims), sf::reduce_sum(d),
                        sf::reduce_max(d, -1)};
    });
    const xt::xtensor<float, 2> d = diff(x, m, n);
    const auto [s, mean, total, mx] = fused(x, m, n);
    const auto [s0, mean0, total0, mx0] = from_temporary(d);
    INFO(rows << "x" << cols);
    auto same_bits = [](const auto& a, const auto& b) {  // (memcmp of a null pointer is UB, even for 0 bytes)
      return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    };
    CHECK(same_bits(s, s0));
    CHECK(same_bits(mean, mean0));
    CHECK(std::memcmp(&total, &total0, sizeof(float)) == 0);
    CHECK((mx == mx0));
    if (rows * cols > 0) {
      double want = 0;  // and the first row's sum is the sum
      for (std::size_t j = 0; j < cols; ++j) want += static_cast<double>(d(0, j));
      CHECK(s(0) == Approx(want).margin(1e-3));
    }
  };
  check(64, 1024);   // rows divide the 4096-element blocks: the whole sum is blocks of 4 rows
  check(7, 1000);    // one row per output; the whole sum (7000) falls back to the temporary
  check(300, 3);     // short rows
  check(1, 5000);    // a row longer than a block: the temporary
  check(1, 1);
  check(0, 8);
  check(4, 0);
  // the last axis kept, the reduced axis of extent 1: one element per output, not a whole row
  auto kept = sf::function([](auto a, auto b) { return sf::reduce_sum(a * b, sf::axes<0>{}); });
  xt::xtensor<float, 3> a = {{{1, 2}, {3, 4}, {5, 6}}};  // [1, 3, 2]
  xt::xtensor<float, 1> b = {10, 100};
  CHECK((kept(a, b) == xt::xtensor<float, 2>{{10, 200}, {30, 400}, {50, 600}}));
  {
    sf::set_num_threads(2);  // outputs (and the whole sum's blocks) split across threads: same bits
    check(256, 1024);
    sf::set_num_threads(1);
    check(256, 1024);
  }
}

namespace {
// f over a static-shaped x (xtensor_fixed: the static loop of a small static reduction) and over
// the same values with run-time extents (the general kernel): the bits must be equal.
template <class Fixed, class F>
void check_static_loop_matches(F f, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3, 3);
  Fixed x;
  for (auto& v : x) v = dist(rng);
  if (x.size() > 2) x.flat(1) = std::numeric_limits<float>::quiet_NaN();  // max / min propagate it
  xt::xtensor<float, Fixed::rank> y = x;
  const auto got = f(x), want = f(y);
  const auto gs = flat(got), ws = flat(want);
  REQUIRE(gs.size() == ws.size());
  if (!gs.empty()) CHECK(std::memcmp(gs.data(), ws.data(), gs.size() * sizeof(float)) == 0);  // (memcmp of null is UB)
}
}  // namespace

TEST_CASE("small static reductions run a constant loop with the general kernel's bits", "[reduce]") {
  using namespace sf::literals;
  using sum_23 = sf::cpu::detail::static_reduction<std::tuple<sf::spec<float, 2, 3>>, sf::op::reduce_sum,
                                                   sf::graph::argument<0, float, sf::shape<2, 3>>, sf::axes<-1>>;
  STATIC_REQUIRE(sum_23::applies);
  STATIC_REQUIRE(sum_23::out_size == 2);
  STATIC_REQUIRE(sum_23::count == 3);
  // leading axes reduced: the row order of reduce_rows, not this loop
  STATIC_REQUIRE(!sf::cpu::detail::static_reduction<std::tuple<sf::spec<float, 2, 3>>, sf::op::reduce_sum,
                                                    sf::graph::argument<0, float, sf::shape<2, 3>>, sf::axes<0>>::applies);
  // a reduction whose input broadcasts an argument is not one flat loop
  STATIC_REQUIRE(!sf::cpu::detail::static_reduction<
                 std::tuple<sf::spec<float, 2, 3>, sf::spec<float, 3>>, sf::op::reduce_sum,
                 sf::graph::binary<sf::op::add, sf::graph::argument<0, float, sf::shape<2, 3>>,
                                   sf::graph::argument<1, float, sf::shape<3>>>,
                 sf::axes<-1>>::applies);

  auto last = sf::function([](auto x) {
    return std::tuple{sf::reduce_sum(x, -1_c), sf::reduce_mean(x, sf::axes<-1>{}, sf::keepdims), sf::reduce_max(x, -1_c),
                      sf::reduce_min(x * 2.f - 1.f, -1_c), sf::reduce_prod(x, -1_c)};
  });
  auto all = sf::function([](auto x) { return sf::reduce_sum(sf::exp(x) * 0.5f); });
  auto plain = [](int axis) { return sf::function([axis](auto x) { return sf::reduce_sum(x, axis); }); };
  auto each = [](const auto& t) {  // the tuple's results, one flat vector
    std::vector<float> v;
    std::apply([&](const auto&... r) { (v.insert(v.end(), r.begin(), r.end()), ...); }, t);
    return xt::xtensor<float, 1>(xt::adapt(v, std::array<std::size_t, 1>{v.size()}));
  };
  auto last_flat = [&](const auto& x) { return each(last(x)); };
  auto all_flat = [&](const auto& x) { return xt::xtensor<float, 1>{all(x)}; };
  std::uint32_t seed = 1;
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<2, 3>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<5, 17>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<3, 63>>>(last_flat, seed++);  // just under 4 AVX-512 batches
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<2, 200>>>(last_flat, seed++);  // the vector kernel
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<4, 1>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<1, 7>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<0, 3>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<3, 0>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<2, 3, 4>>>(last_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<7>>>(all_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<3, 5>>>(all_flat, seed++);
  check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<100, 3>>>(all_flat, seed++);  // 300: the vector kernel
  for (int axis : {0, 1, -1, -2}) {  // a plain int axis over a static shape: the loop of that axis where it has one
    INFO("axis " << axis);
    auto f = plain(axis);
    check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<3, 5>>>([&](const auto& x) { return f(x); }, seed++);
    check_static_loop_matches<xt::xtensor_fixed<float, xt::xshape<1, 5>>>([&](const auto& x) { return f(x); }, seed++);
  }
  xt::xtensor_fixed<float, xt::xshape<2, 3>> x = {{1, 2, 3}, {4, 5, 6}};
  CHECK_THROWS_MATCHES(plain(2)(x), sf::shape_error, Catch::Message("staticflow: axis 2 is out of range for rank 2"));
  // integers: the mean truncates, as the general kernel's
  auto int_mean = sf::function([](auto v) { return sf::reduce_mean(v, -1_c); });
  xt::xtensor_fixed<int, xt::xshape<2, 3>> iv = {{1, 2, 4}, {-7, 0, 0}};
  CHECK((int_mean(iv) == xt::xtensor<int, 1>{2, -2}));
}
