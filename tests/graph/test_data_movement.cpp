// sf::reverse, roll, tile, repeat, pad, split and unstack (graph/data_movement.hpp,
// backend/cpu/data_movement.hpp): NumPy's values (np.flip / roll / tile / repeat / pad, whose
// semantics tf.reverse / roll / tile / repeat / pad share), np.flip and np.repeat (xtensor's), np.roll,
// np.tile and np.pad (written out) on random shapes with extents 0 and 1, static and run-time shapes, threads, the listing, and the
// run-time errors thrown before any effect (eager mode: test_eager_parity.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include <xtensor/xfixed.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

#include "tf_reference.hpp"

namespace sf = staticflow;
using tf_reference::as;
using tf_reference::flat;

namespace {
xt::xtensor_fixed<float, xt::xshape<3, 4>> twelve() {
  xt::xtensor_fixed<float, xt::xshape<3, 4>> x;
  for (std::size_t i = 0; i < 12; ++i) x.flat(i) = static_cast<float>(i + 1);
  return x;
}

xt::xtensor<float, 2> random_matrix(std::size_t a, std::size_t b, std::mt19937& rng) {
  xt::xtensor<float, 2> x = xt::zeros<float>({a, b});
  std::uniform_int_distribution<int> u(-99, 99);
  for (auto& v : x) v = static_cast<float>(u(rng));
  return x;
}
/// np.roll(x, (s0, s1), (0, 1)) written out (xtensor 0.24's roll crashes on shifts beyond the extent).
xt::xtensor<float, 2> rolled(const xt::xtensor<float, 2>& x, std::ptrdiff_t s0, std::ptrdiff_t s1) {
  xt::xtensor<float, 2> y = x;
  const auto a = static_cast<std::ptrdiff_t>(x.shape(0)), b = static_cast<std::ptrdiff_t>(x.shape(1));
  for (std::ptrdiff_t i = 0; i < a; ++i)
    for (std::ptrdiff_t j = 0; j < b; ++j)
      y(static_cast<std::size_t>(((i + s0) % a + a) % a), static_cast<std::size_t>(((j + s1) % b + b) % b)) =
          x(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
  return y;
}
/// np.tile(x, (2, 3)) written out (xtensor 0.24's tile corrupts the heap for an xtensor<T, 2>).
xt::xtensor<float, 2> tiled_2_3(const xt::xtensor<float, 2>& x) {
  xt::xtensor<float, 2> y = xt::zeros<float>({2 * x.shape(0), 3 * x.shape(1)});
  for (std::size_t i = 0; i < y.shape(0); ++i)
    for (std::size_t j = 0; j < y.shape(1); ++j) y(i, j) = x(i % x.shape(0), j % x.shape(1));
  return y;
}
/// The result of an op that reads x(row(i), col(j)) at (i, j) of an [m, n] result (fill where either
/// is out of range): NumPy's definitions written out.
template <class Row, class Col>
xt::xtensor<float, 2> mapped(const xt::xtensor<float, 2>& x, std::size_t m, std::size_t n, Row row, Col col, float fill = 0) {
  xt::xtensor<float, 2> y = xt::zeros<float>({m, n});
  const auto a = static_cast<std::ptrdiff_t>(x.shape(0)), b = static_cast<std::ptrdiff_t>(x.shape(1));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const std::ptrdiff_t r = row(static_cast<std::ptrdiff_t>(i)), c = col(static_cast<std::ptrdiff_t>(j));
      y(i, j) = r >= 0 && r < a && c >= 0 && c < b ? x(static_cast<std::size_t>(r), static_cast<std::size_t>(c)) : fill;
    }
  return y;
}
/// np.pad's mirror of position q into [0, n): without the edge (reflect) or with it (symmetric).
std::ptrdiff_t mirror(std::ptrdiff_t q, std::ptrdiff_t n, bool reflect) {
  if (q < 0) return reflect ? -q : -q - 1;
  if (q >= n) return reflect ? 2 * (n - 1) - q : 2 * n - 1 - q;
  return q;
}
}  // namespace

TEST_CASE("data movement: NumPy's values for reverse, roll, tile, repeat and pad; static shapes", "[graph][data_movement]") {
  const auto x = twelve();
  auto f = sf::function([](auto a) {
    return std::tuple{sf::reverse(a, sf::axes<0, -1>{}), sf::roll(a, {5, -1}, sf::axes<0, 1>{}),
                      sf::tile(a, sf::multiples<1, 2>{}), sf::repeat(a, sf::static_value<2>{}, sf::axes<0>{}),
                      sf::repeat(a, 3)};
  });
  const auto [reversed, rolled, tiled, repeated, flat_repeat] = f(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(tiled)>, xt::xtensor_fixed<float, xt::xshape<3, 8>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(repeated)>, xt::xtensor_fixed<float, xt::xshape<6, 4>>>);
  STATIC_REQUIRE(std::remove_cvref_t<decltype(flat_repeat)>::rank == 1);
  CHECK(flat(reversed) == as<float>({12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}));
  CHECK(flat(rolled) == as<float>({6, 7, 8, 5, 10, 11, 12, 9, 2, 3, 4, 1}));
  CHECK(flat(tiled) == as<float>({1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8, 9, 10, 11, 12, 9, 10, 11, 12}));
  CHECK(flat(repeated) == as<float>({1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8, 9, 10, 11, 12, 9, 10, 11, 12}));
  CHECK(flat(flat_repeat) == as<float>({1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6,
                                        7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12}));

  auto padded = sf::function([](auto a) {
    return std::tuple{sf::pad(a, sf::paddings<1, 0, 2, 1>{}, -1), sf::pad(a, sf::paddings<2, 2, 3, 3>{}, sf::pad_mode::reflect),
                      sf::pad(a, sf::paddings<3, 1, 4, 2>{}, sf::pad_mode::symmetric)};
  });
  const auto [constant, reflected, symmetric] = padded(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(constant)>, xt::xtensor_fixed<float, xt::xshape<4, 7>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(reflected)>, xt::xtensor_fixed<float, xt::xshape<7, 10>>>);
  CHECK(flat(constant) == as<float>({-1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, -1,
                                     -1, -1, 5, 6, 7, 8, -1, -1, -1, 9, 10, 11, 12, -1}));
  CHECK(flat(reflected) == as<float>({12, 11, 10, 9, 10, 11, 12, 11, 10, 9, 8, 7, 6, 5, 6, 7, 8, 7, 6, 5,
                                      4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 8, 7, 6, 5, 6, 7, 8, 7, 6, 5,
                                      12, 11, 10, 9, 10, 11, 12, 11, 10, 9, 8, 7, 6, 5, 6, 7, 8, 7, 6, 5,
                                      4, 3, 2, 1, 2, 3, 4, 3, 2, 1}));
  CHECK(flat(symmetric) == as<float>({12, 11, 10, 9, 9, 10, 11, 12, 12, 11, 8, 7, 6, 5, 5, 6, 7, 8, 8, 7,
                                      4, 3, 2, 1, 1, 2, 3, 4, 4, 3, 4, 3, 2, 1, 1, 2, 3, 4, 4, 3,
                                      8, 7, 6, 5, 5, 6, 7, 8, 8, 7, 12, 11, 10, 9, 9, 10, 11, 12, 12, 11,
                                      12, 11, 10, 9, 9, 10, 11, 12, 12, 11}));
}

TEST_CASE("data movement: split and unstack, static parts where the axis is static", "[graph][data_movement]") {
  const auto x = twelve();
  auto f = sf::function([](auto a) {
    const auto halves = sf::split<2>(a, sf::axes<1>{});
    const auto rows = sf::unstack(a, sf::axes<0>{});
    return std::tuple{halves[1] - halves[0], rows[0] + rows[2]};
  });
  const auto [difference, sum] = f(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(difference)>, xt::xtensor_fixed<float, xt::xshape<3, 2>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(sum)>, xt::xtensor_fixed<float, xt::xshape<4>>>);
  CHECK(flat(difference) == as<float>({2, 2, 2, 2, 2, 2}));
  CHECK(flat(sum) == as<float>({10, 12, 14, 16}));
  // an axis of extent 0 unstacks into no tensors (TF's [])
  STATIC_REQUIRE(std::tuple_size_v<decltype(sf::unstack(sf::graph::argument<0, float, sf::shape<0, 3>>{}, sf::axes<0>{}))> == 0);
  CHECK(f.get_concrete_function(sf::spec<float, 3, 4>{}).graph_string().find("Split[axis=1 num_split=2 part=1]") !=
        std::string::npos);

  // a run-time axis: the parts are checked when the function runs
  auto thirds = sf::function([](auto a) {
    const auto p = sf::split<3>(a, sf::axes<-1>{});
    return p[0] + p[1] * 10.f + p[2] * 100.f;
  });
  const xt::xtensor<float, 2> six{{1, 2, 3, 4, 5, 6}};
  CHECK((thirds(six) == xt::xtensor<float, 2>{{531, 642}}));
  CHECK_THROWS_WITH(thirds(xt::xtensor<float, 2>{{1, 2, 3, 4}}),
                    "staticflow: split: axis 1 of shape (1, 4) does not split into 3 equal parts");
}

TEST_CASE("data movement: split with sizes (tf.split's SplitV), one -1, static and run-time axes", "[graph][data_movement]") {
  // every placement of the -1 and parts of size 0, on random extents, against the windows written out
  std::mt19937 rng(31);
  auto f = sf::function([](auto a) {
    const auto [p, q, r] = sf::split(a, sf::sizes<1, -1, 2>{}, sf::axes<1>{});
    const auto [s, t] = sf::split(a, sf::sizes<-1, 0>{}, sf::axes<-1>{});
    const auto [u, v, w] = sf::split(a, sf::sizes<0, 2, -1>{}, sf::axes<1>{});
    return std::tuple{p, q, r, s, t, u, v, w};
  });
  for (int round = 0; round < 10; ++round) {
    const std::size_t rows = rng() % 3, columns = 3 + rng() % 5;
    xt::xtensor<float, 2> a = xt::zeros<float>({rows, columns});
    for (auto& e : a) e = static_cast<float>(rng() % 100);
    const auto window = [&](std::size_t begin, std::size_t end) {
      return xt::xtensor<float, 2>(xt::view(a, xt::all(), xt::range(begin, end)));
    };
    const auto [p, q, r, s, t, u, v, w] = f(a);
    INFO(rows << " x " << columns);
    CHECK((p == window(0, 1)));
    CHECK((q == window(1, columns - 2)));
    CHECK((r == window(columns - 2, columns)));
    CHECK((s == a));
    CHECK(t.shape()[1] == 0);
    CHECK(t.shape()[0] == rows);
    CHECK(u.shape()[1] == 0);
    CHECK((v == window(0, 2)));
    CHECK((w == window(2, columns)));
  }
  CHECK(f.get_concrete_function(sf::spec<float, sf::dyn, sf::dyn>{}).graph_string().find(
            "SplitV[axis=1 num_split=3 part=1 size=-1]") != std::string::npos);
  CHECK_THROWS_WITH(f(xt::xtensor<float, 2>{{1, 2}}), "staticflow: split: sizes adding up to 3 (and one -1) for axis 1 of shape (1, 2)");
  auto exact = sf::function([](auto a) {
    const auto [head, tail] = sf::split(a, sf::sizes<1, 2>{});
    return tail - head;
  });
  CHECK((exact(xt::xtensor<float, 1>{1, 5, 7}) == xt::xtensor<float, 1>{4, 6}));
  CHECK_THROWS_WITH(exact(xt::xtensor<float, 1>{1, 5}), "staticflow: split: sizes adding up to 3 for axis 0 of shape (2,)");
  // static extents: static parts, the -1 included
  const auto [p, q, r, s, t, u, v, w] = f(twelve());
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(q)>, xt::xtensor_fixed<float, xt::xshape<3, 1>>>);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(w)>, xt::xtensor_fixed<float, xt::xshape<3, 2>>>);
  CHECK(flat(q) == as<float>({2, 6, 10}));
  CHECK(flat(r) == as<float>({3, 4, 7, 8, 11, 12}));
}

TEST_CASE("data movement: random run-time shapes (extents 0 and 1 included) against xtensor", "[graph][data_movement]") {
  std::mt19937 rng(5);
  auto mirrored = sf::function([](auto a) {
    return std::tuple{sf::pad(a, {{1, 1}, {0, 1}}, sf::pad_mode::reflect), sf::pad(a, {{2, 0}, {1, 2}}, sf::pad_mode::symmetric)};
  });
  for (int trial = 0; trial < 12; ++trial) {
    const std::size_t a = rng() % 5, b = rng() % 6;
    const auto x = random_matrix(a, b, rng);
    const std::ptrdiff_t s = static_cast<std::ptrdiff_t>(rng() % 11) - 5;
    // s is read when the function is traced (a C++ number captured by the lambda, as TF's closures)
    auto f = sf::function([&](auto y) {
      return std::tuple{sf::reverse(y, sf::axes<1>{}), sf::roll(y, {s, 2 * s}, sf::axes<0, 1>{}), sf::tile(y, {2, 3}),
                        sf::repeat(y, 2, sf::axes<1>{}), sf::pad(y, {{2, 1}, {0, 3}}, 7)};
    });

    CAPTURE(a, b, s);
    const auto [reversed, rolled_x, tiled, repeated, padded] = f(x);
    CHECK((rolled_x == rolled(x, s, 2 * s)));
    if (a == 0 || b == 0) {  // (xtensor's functions misbehave on empty tensors: shapes checked here)
      CHECK(reversed.shape() == std::array<std::size_t, 2>{a, b});
      CHECK(tiled.shape() == std::array<std::size_t, 2>{2 * a, 3 * b});
      CHECK(repeated.shape() == std::array<std::size_t, 2>{a, 2 * b});
      CHECK((padded == mapped(x, a + 3, b + 3, [](auto) { return -1; }, [](auto) { return -1; }, 7.f)));
      continue;
    }
    CHECK((reversed == xt::xtensor<float, 2>(xt::flip(x, 1))));
    CHECK((tiled == tiled_2_3(x)));
    CHECK((repeated == xt::xtensor<float, 2>(xt::repeat(x, 2, 1))));
    const auto sa = static_cast<std::ptrdiff_t>(a), sb = static_cast<std::ptrdiff_t>(b);
    CHECK((padded == mapped(x, a + 3, b + 3, [](auto i) { return i - 2; }, [](auto j) { return j; }, 7.f)));
    if (a >= 2 && b >= 2) {
      const auto [reflect, symmetric] = mirrored(x);
      CHECK((reflect == mapped(x, a + 2, b + 1, [&](auto i) { return mirror(i - 1, sa, true); },
                               [&](auto j) { return mirror(j, sb, true); })));
      CHECK((symmetric == mapped(x, a + 2, b + 3, [&](auto i) { return mirror(i - 2, sa, false); },
                                 [&](auto j) { return mirror(j - 1, sb, false); })));
    }
  }
}

TEST_CASE("data movement: integer and bool tensors, threads and the listing", "[graph][data_movement]") {
  // (eager mode: graph/test_eager_parity.cpp)
  auto f = sf::function([](auto a, auto b) {
    return std::tuple{sf::pad(sf::reverse(a, sf::axes<0>{}), sf::paddings<0, 1>{}, 9), sf::tile(b, sf::multiples<2>{})};
  });
  const xt::xtensor_fixed<std::int64_t, xt::xshape<3>> ints{1, 2, 3};
  const xt::xtensor_fixed<bool, xt::xshape<2>> bools{true, false};
  const auto [i, b] = f(ints, bools);
  CHECK(flat(i) == std::vector<std::int64_t>{3, 2, 1, 9});
  CHECK(flat(b) == std::vector<bool>{true, false, true, false});
  const std::string listing = f.get_concrete_function(sf::spec<std::int64_t, 3>{}, sf::spec<bool, 2>{}).graph_string();
  CHECK(listing.find("ReverseV2[axis=(0,)]") != std::string::npos);
  CHECK(listing.find("PadV2[paddings=((0,1),) constant_values=9]") != std::string::npos);
  CHECK(listing.find("Tile[multiples=(2,)]") != std::string::npos);

  // above the parallel grain: the same values on 1 and 2 threads
  std::mt19937 rng(3);
  const auto big = random_matrix(700, 301, rng);
  auto g = sf::function([](auto a) {
    return std::tuple{sf::pad(sf::roll(a, 7, sf::axes<1>{}), {{1, 2}, {3, 4}}, sf::pad_mode::symmetric), sf::reverse(a, sf::axes<1>{})};
  });
  const auto one = g(big);
  const std::size_t saved = sf::num_threads();
  sf::set_num_threads(2);
  const auto two = g(big);
  sf::set_num_threads(saved);
  CHECK((std::get<0>(one) == std::get<0>(two)));
  CHECK((std::get<1>(two) == xt::xtensor<float, 2>(xt::flip(big, 1))));
  CHECK((std::get<0>(one) == mapped(rolled(big, 0, 7), 703, 308, [](auto i) { return mirror(i - 1, 700, false); },
                                    [](auto j) { return mirror(j - 3, 301, false); })));
}

TEST_CASE("data movement: run-time misuse throws before any effect", "[graph][data_movement]") {
  sf::variable<float> counter(0.f);
  auto f = sf::function([&](auto a) {
    counter.assign_add(1.f);
    return sf::pad(a, {{0, 0}, {2, 2}}, sf::pad_mode::reflect);
  });
  CHECK((f(xt::xtensor<float, 2>{{1, 2, 3}}) == xt::xtensor<float, 2>{{3, 2, 1, 2, 3, 2, 1}}));
  CHECK(counter.value() == 1.f);
  CHECK_THROWS_WITH(f(xt::xtensor<float, 2>{{1, 2}}),
                    "staticflow: pad: REFLECT paddings (2, 2) of axis 1 must be less than its extent 2 in shape (1, 2)");
  CHECK(counter.value() == 1.f);
  int before = 3;
  auto g = sf::function([&](auto a) { return sf::pad(a, {{before, 0}}, sf::pad_mode::symmetric); });
  CHECK_THROWS_WITH(g(xt::xtensor<float, 1>{1, 2}),
                    "staticflow: pad: SYMMETRIC paddings (3, 0) of axis 0 must be no greater than its extent 2 in shape (2,)");
  before = -1;
  auto g2 = sf::function([&](auto a) { return sf::pad(a, {{before, 0}}, sf::pad_mode::symmetric); });
  CHECK_THROWS_WITH(g2(xt::xtensor<float, 1>{1, 2}), "staticflow: pad: paddings must be non-negative (got -1)");
  int n = -2;
  auto h = sf::function([&](auto a) { return std::tuple{sf::repeat(a, n, sf::axes<0>{}), sf::tile(a, {n})}; });
  CHECK_THROWS_WITH(h(xt::xtensor<float, 1>{1, 2}), "staticflow: repeat: repeats must be non-negative (got -2)");
  n = 0;
  auto h0 = sf::function([&](auto a) { return std::tuple{sf::repeat(a, n, sf::axes<0>{}), sf::tile(a, {n})}; });
  const auto [none, empty] = h0(xt::xtensor<float, 1>{1, 2});
  // extents that do not fit a size_t
  std::size_t huge = std::size_t{1} << 62;
  auto wide = sf::function([&](auto a) { return sf::tile(a, {huge}); });
  CHECK_THROWS_WITH(wide(xt::xtensor<float, 1>{1, 2, 3, 4, 5}), "staticflow: tile: the result's extent does not fit a size_t");
  huge = std::size_t{1} << 63;
  auto wider = sf::function([&](auto a) { return sf::repeat(a, huge, sf::axes<0>{}); });
  CHECK_THROWS_WITH(wider(xt::xtensor<float, 1>{1, 2}), "staticflow: repeat: repeats must be below 2^63 (got 9223372036854775808)");
  CHECK(none.size() == 0);
  CHECK(empty.size() == 0);
}
