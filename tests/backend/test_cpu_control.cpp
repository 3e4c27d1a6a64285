// Tests for backend/cpu/control.hpp's element-local loop: a while loop whose vector variables
// are updated elementwise runs block by block of lanes, its variables in registers across
// iterations. Its results must be bit-for-bit those of the general loop (one fused pass over
// memory per iteration), which the same body takes when its vector updates go through
// sf::materialize (a slot in the body's plan: not element-local, the same arithmetic).
// staticflow-test: loop variants (every block width: four batches, one, half, quarter, single
// elements; STATICFLOW_LOOP_VARIANTS=1, the default; tests/CMakeLists.txt)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// The while loop of a concrete function whose only slot it is.
template <class C>
using loop_of = std::tuple_element_t<0, typename C::plan_type::slots_type>;
template <class F, class... A>
constexpr bool element_local = sf::cpu::element_local_loop_v<loop_of<typename F::template concrete_type<A...>>>;

template <class T, std::size_t N>
using fixed = xt::xtensor_fixed<T, xt::xshape<N>>;

// x as it is (Barrier = false), or through a slot (true): the general loop's reference.
template <bool Barrier>
constexpr auto maybe_stored = [](auto x) {
  if constexpr (Barrier) return sf::materialize(x);
  else return x;
};

template <class T, std::size_t N>
fixed<T, N> ramp(double start, double step) {
  fixed<T, N> v;
  for (std::size_t i = 0; i < N; ++i) v[i] = static_cast<T>(start + step * static_cast<double>(i % 97));
  return v;
}

template <class A, class B>
void require_same(const A& a, const B& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i);
    REQUIRE(a.data()[i] == b.data()[i]);
  }
}

// v * a + b, 37 times
template <bool Barrier>
auto update_function() {
  return sf::function([](auto v, auto a, auto b) {
    return sf::fori_loop(0, 37, [&](auto, auto v) { return maybe_stored<Barrier>(v * a + b); }, v);
  });
}

template <std::size_t N>
void check_update() {
  auto f = update_function<false>();
  auto general = update_function<true>();
  STATIC_REQUIRE(element_local<decltype(f), fixed<float, N>, fixed<float, N>, fixed<float, N>>);
  const auto v = ramp<float, N>(0.5, 0.01), a = ramp<float, N>(0.9, -0.001), b = ramp<float, N>(-0.3, 0.002);
  fixed<float, N> fast, reference;
  f.call_into(fast, v, a, b);
  general.call_into(reference, v, a, b);
  require_same(fast, reference);
  for (std::size_t i = 0; i < N; ++i) {  // and near the plain C++ loop (FMA contraction may differ)
    float x = v[i];
    for (int it = 0; it < 37; ++it) x = x * a[i] + b[i];
    REQUIRE(fast[i] == Approx(x).epsilon(1e-5));
  }
}

// A rotation of (x, y) plus a drift that grows with a float counter; the counter and a step
// count are scalar variables.
template <bool Barrier>
auto rotation_function() {
  return sf::function([](auto x, auto y, auto c, auto s) {
    return sf::while_loop([](auto i, auto, auto, auto) { return i < 50.f; },
                          [&](auto i, auto n, auto x, auto y) {
                            return std::tuple{i + 1.5f, n + 1, maybe_stored<Barrier>(x * c - y * s + i * 0.001f),
                                              maybe_stored<Barrier>(x * s + y * c)};
                          },
                          0.f, 0, x, y);
  });
}

// min(v * 2 + 1, 100000) while i < limit, at most 25 times
template <bool Barrier>
auto int_function() {
  return sf::function([](auto v, auto limit) {
    return sf::while_loop([&](auto i, auto) { return i < limit; },
                          [&](auto i, auto v) { return std::tuple{i + 1, maybe_stored<Barrier>(sf::minimum(v * 2 + 1, 100000))}; }, 0,
                          v, sf::maximum_iterations(25));
  });
}

template <bool Barrier>
auto tanh_function() {
  return sf::function([](auto v, auto a) {
    return sf::fori_loop(0, 9, [&](auto, auto v) { return maybe_stored<Barrier>(sf::tanh(v * a)); }, v);
  });
}
}  // namespace

TEST_CASE("element-local loop: bit-for-bit the general loop at every block width", "[control][element_local]") {
  check_update<1024>();  // blocks of four batches
  check_update<7>();     // a quarter batch, then single elements
  check_update<37>();    // batches, narrow batches, single elements
  check_update<1>();
}

TEST_CASE("element-local loop: scalar and vector variables, read across", "[control][element_local]") {
  auto f = rotation_function<false>();
  auto general = rotation_function<true>();
  STATIC_REQUIRE(element_local<decltype(f), fixed<float, 100>, fixed<float, 100>, float, float>);
  const auto x = ramp<float, 100>(1.0, 0.1), y = ramp<float, 100>(-2.0, 0.05);
  auto [i1, n1, x1, y1] = f(x, y, 0.8f, 0.6f);
  auto [i2, n2, x2, y2] = general(x, y, 0.8f, 0.6f);
  CHECK(i1 == 51.f);  // 0, 1.5, ..., 49.5, 51
  CHECK(n1 == 34);
  CHECK(i2 == 51.f);
  CHECK(n2 == 34);
  require_same(x1, x2);
  require_same(y1, y2);
  // the first element by hand: x and y both from the old values
  float xs = x[0], ys = y[0], i = 0.f;
  while (i < 50.f) {
    const float nx = xs * 0.8f - ys * 0.6f + i * 0.001f, ny = xs * 0.6f + ys * 0.8f;
    xs = nx, ys = ny, i += 1.5f;
  }
  CHECK(x1[0] == Approx(xs).epsilon(1e-4));
  CHECK(y1[0] == Approx(ys).epsilon(1e-4));
}

TEST_CASE("element-local loop: maximum_iterations, no iteration, int32", "[control][element_local]") {
  auto f = int_function<false>();
  auto general = int_function<true>();
  STATIC_REQUIRE(element_local<decltype(f), fixed<int, 70>, int>);
  const auto v = ramp<int, 70>(3, 11);
  for (const int limit : {0, 10, 1000}) {
    auto [i1, v1] = f(v, limit);
    auto [i2, v2] = general(v, limit);
    const int steps = limit < 25 ? limit : 25;
    CHECK(i1 == steps);
    CHECK(i2 == steps);
    require_same(v1, v2);
    for (std::size_t k = 0; k < 70; ++k) {
      int want = v[k];
      for (int s = 0; s < steps; ++s) want = std::min(want * 2 + 1, 100000);
      REQUIRE(v1[k] == want);
    }
  }
}

TEST_CASE("element-local loop: above the thread grain, split across threads", "[control][element_local]") {
  constexpr std::size_t n = std::size_t{1} << 17;
  auto f = tanh_function<false>();
  auto general = tanh_function<true>();
  STATIC_REQUIRE(element_local<decltype(f), fixed<float, n>, fixed<float, n>>);
  const auto v = ramp<float, n>(0.1, 0.003), a = ramp<float, n>(1.1, -0.002);
  fixed<float, n> one, two, reference;
  sf::set_num_threads(1);
  f.call_into(one, v, a);
  sf::set_num_threads(2);
  f.call_into(two, v, a);
  general.call_into(reference, v, a);
  sf::set_num_threads(0);
  require_same(one, two);
  require_same(one, reference);
}

TEST_CASE("loops that are not element-local", "[control][element_local]") {
  using vec8 = fixed<float, 8>;
  // the condition reads the vector (a reduction: a slot in the condition's plan)
  auto by_sum = sf::function([](auto v) {
    return sf::while_loop([](auto v) { return sf::reduce_sum(v) < 100.f; }, [](auto v) { return v * 2.f; }, v);
  });
  STATIC_REQUIRE_FALSE(element_local<decltype(by_sum), vec8>);
  // a run-time shape
  auto dyn = sf::function([](auto v) { return sf::fori_loop(0, 3, [](auto, auto v) { return v * 2.f; }, v); });
  STATIC_REQUIRE_FALSE(element_local<decltype(dyn), xt::xtensor<float, 1>>);
  // a scalar variable reads an element of a vector one
  auto reads = sf::function([](auto v) {
    return sf::fori_loop(0, 3, [](auto, auto s, auto v) { return std::tuple{s + v[0], v * 2.f}; }, 0.f, v);
  });
  STATIC_REQUIRE_FALSE(element_local<decltype(reads), vec8>);
  // element-local at compile time, but an argument broadcasts at run time: the general loop
  auto rows = sf::function([](auto v, auto a) {
    return sf::fori_loop(0, 2, [&](auto, auto v) { return v * a + 1.f; }, v);
  });
  using mat = fixed<float, 24>;
  STATIC_REQUIRE(element_local<decltype(rows), mat, xt::xtensor<float, 1>>);
  mat m;
  for (std::size_t i = 0; i < 24; ++i) m[i] = float(i);
  const auto scaled = rows(m, xt::xtensor<float, 1>{2.f});  // a of one element: broadcast
  for (std::size_t i = 0; i < 24; ++i) REQUIRE(scaled[i] == (float(i) * 2.f + 1.f) * 2.f + 1.f);
  // and they compute the right values
  const vec8 v = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(by_sum(v)[0] == 4.f);  // sum 36 -> 72 -> 144
  xt::xtensor<float, 1> d = {1, 2};
  CHECK((dyn(d) == xt::xtensor<float, 1>{8, 16}));
  auto [s, w] = reads(v);
  CHECK(s == 1.f + 2.f + 4.f);
  CHECK(w[7] == 64.f);
}
