// Tests for backend/cpu/reduce.hpp, how its kernels run a reduction: of broadcast and mixed inputs,
// of a broadcasting input in blocks of whole rows, and of a small static shape in a constant loop,
// each bit for bit against the general kernel. (Every reduction's values: test_reduce.cpp.)
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
template <class R>
std::vector<typename R::value_type> flat(const R& r) {
  return std::vector<typename R::value_type>(r.begin(), r.end());
}
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
