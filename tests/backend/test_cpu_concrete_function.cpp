// Tests for backend/cpu/concrete_function.hpp's call_into paths on run-time extents: the
// equal-extents path (an elementwise graph whose arguments all have the output's extents runs one
// flat loop with no per-node shape inference) and its fallbacks (broadcasting, mismatched outputs,
// outputs that overlap inputs), which must give the same results and errors as the general path.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {

using vecf = xt::xtensor<float, 1>;
using matf = xt::xtensor<float, 2>;

template <class... A, class Fn>
constexpr bool takes_equal_extents_path(const Fn&) {
  using F = decltype(sf::function(std::declval<Fn>()));
  return F::template concrete_type<A...>::equal_extents_path;
}

auto fma_body = [](auto x, auto y) { return x * x + y; };

vecf ramp(std::size_t n, float start, float step) {
  auto v = vecf::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) v(i) = start + step * static_cast<float>(i);
  return v;
}

}  // namespace

TEST_CASE("which signatures take the equal-extents path", "[concrete_function][equal_extents]") {
  using fixed4 = xt::xtensor_fixed<float, xt::xshape<4>>;
  STATIC_REQUIRE(takes_equal_extents_path<vecf, vecf>(fma_body));
  STATIC_REQUIRE(takes_equal_extents_path<matf, matf>(fma_body));
  STATIC_REQUIRE(takes_equal_extents_path<vecf, float>(fma_body));  // a C++ scalar is a static scalar
  STATIC_REQUIRE(takes_equal_extents_path<vecf>([](auto x) { return sf::where(x > 0.f, x, -x) + sf::cast<float>(x > 1.f); }));
  // static shapes have their own path; mixed ranks broadcast; reductions have slots
  STATIC_REQUIRE_FALSE(takes_equal_extents_path<fixed4, fixed4>(fma_body));
  STATIC_REQUIRE_FALSE(takes_equal_extents_path<matf, vecf>(fma_body));
  STATIC_REQUIRE_FALSE(takes_equal_extents_path<vecf>([](auto x) { return x / sf::reduce_sum(x); }));
  STATIC_REQUIRE_FALSE(takes_equal_extents_path<vecf>([](auto x) { return std::tuple{x + 1.f, x * 2.f}; }));
}

TEST_CASE("the equal-extents path computes every length exactly as a scalar loop", "[concrete_function][equal_extents]") {
  auto f = sf::function(fma_body);
  auto g = sf::function([](auto x, auto y) { return sf::maximum(x, y) - sf::abs(x) * 0.5f; });
  for (std::size_t n = 0; n <= 70; ++n) {
    const vecf x = ramp(n, -3.f, 0.25f), y = ramp(n, 2.f, -0.125f);
    auto o = vecf::from_shape({n}), p = vecf::from_shape({n});
    f.call_into(o, x, y);
    g.call_into(p, x, y);
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(o(i) == x(i) * x(i) + y(i));
      REQUIRE(p(i) == std::max(x(i), y(i)) - std::abs(x(i)) * 0.5f);
    }
  }
  // rank 2, and int32 (scalar lanes of another dtype)
  matf a = {{1, 2, 3}, {4, 5, 6}}, b = {{0.5f, 0.5f, 0.5f}, {-1, -1, -1}};
  auto m = matf::from_shape({2, 3});
  f.call_into(m, a, b);
  CHECK((m == matf{{1.5f, 4.5f, 9.5f}, {15, 24, 35}}));
  xt::xtensor<std::int32_t, 1> i = {3, -4, 5}, j = {1, 1, 1}, k = xt::xtensor<std::int32_t, 1>::from_shape({3});
  f.call_into(k, i, j);
  CHECK((k == xt::xtensor<std::int32_t, 1>{10, 17, 26}));
  CHECK(f.tracing_count() == 3);  // float rank 1, rank 2, int32 (each traced once)
}

TEST_CASE("arguments that broadcast leave the equal-extents path for the general one", "[concrete_function][equal_extents]") {
  auto f = sf::function(fma_body);
  const vecf x = {1, 2, 3, 4, 5}, one = {10};
  auto o = vecf::from_shape({5});
  f.call_into(o, x, one);  // y of shape (1,) broadcasts: same signature, general path
  CHECK((o == vecf{11, 14, 19, 26, 35}));
  f.call_into(o, x, 0.5f);
  CHECK((o == vecf{1.5f, 4.5f, 9.5f, 16.5f, 25.5f}));
}

TEST_CASE("a mismatched output or arguments throw the general path's errors, writing nothing", "[concrete_function][equal_extents]") {
  auto f = sf::function(fma_body);
  const vecf x = {1, 2, 3}, y = {1, 1, 1}, two = {1, 2};
  vecf o = {7, 7, 7, 7};
  CHECK_THROWS_AS(f.call_into(o, x, y), sf::shape_error);
  CHECK_THROWS_WITH(f.call_into(o, x, y), "staticflow: call_into: output 0 has shape (4,), the result has shape (3,)");
  CHECK((o == vecf{7, 7, 7, 7}));
  vecf o3 = {7, 7, 7};
  CHECK_THROWS_AS(f.call_into(o3, x, two), sf::shape_error);
  CHECK((o3 == vecf{7, 7, 7}));
}

TEST_CASE("an output that overlaps an input on the equal-extents path", "[concrete_function][equal_extents][alias]") {
  auto f = sf::function(fma_body);
  vecf x = ramp(37, -2.f, 0.5f);
  const vecf x0 = x, y = ramp(37, 1.f, 1.f);
  f.call_into(x, x, y);  // the same positions: in place
  for (std::size_t i = 0; i < 37; ++i) REQUIRE(x(i) == x0(i) * x0(i) + y(i));

  // shifted by one element either way: through a temporary
  for (const int shift : {1, -1}) {
    std::vector<float> buf(38);
    for (std::size_t i = 0; i < 38; ++i) buf[i] = static_cast<float>(i) - 5.f;
    const std::vector<float> before = buf;
    float* in_at = buf.data() + (shift > 0 ? 0 : 1);
    float* out_at = buf.data() + (shift > 0 ? 1 : 0);
    auto in = xt::adapt(in_at, 37, xt::no_ownership(), std::array<std::size_t, 1>{37});
    auto out = xt::adapt(out_at, 37, xt::no_ownership(), std::array<std::size_t, 1>{37});
    f.call_into(out, in, y);
    const std::size_t in_first = shift > 0 ? 0 : 1;
    for (std::size_t i = 0; i < 37; ++i) {
      const float v = before[in_first + i];
      REQUIRE(out_at[i] == v * v + y(i));
    }
  }
}
