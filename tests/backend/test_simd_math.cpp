// Tests for backend/cpu/simd_ops.hpp's own float erf and tanh (`batch_erf_of`, `batch_tanh_of`:
// rationals x P(x^2) / Q(x^2) of bench/fit_rational.py's fits): their error in ulps against the
// double-precision function on a sweep of float bit patterns (erf over [-6, 6], tanh over
// [-10, 10]), their edges (NaN, infinities, signed zeros, the clamp, subnormals), odd symmetry,
// double batches left to xsimd, and sf::erf / sf::gelu / sf::tanh through a fused loop (vector
// body and scalar tail) against the C library.
// staticflow-test: loop variants (the fused loop's batch widths, as users build it: the scalar
// tail's tanh(-9) is the correctly rounded -0.99999994f where the batch function saturates to -1)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <limits>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
using fbatch = xsimd::batch<float, sf::cpu::detail::simd_arch>;
using dbatch = xsimd::batch<double, sf::cpu::detail::simd_arch>;

/// |got - want| in units of the spacing of floats at want (below 1: 2^-24, the spacing under 1).
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  double spacing = static_cast<double>(std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w));
  if (std::fabs(w) >= 1.f) spacing = std::ldexp(1.0, -24);
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

/// f over x, a batch at a time (the last batch padded with zeros).
template <class F>
std::vector<float> batches_of(const std::vector<float>& x, F f) {
  std::vector<float> y(x.size());
  std::size_t i = 0;
  for (; i + fbatch::size <= x.size(); i += fbatch::size) f(fbatch::load_unaligned(&x[i])).store_unaligned(&y[i]);
  std::vector<float> last(fbatch::size, 0.f);
  for (std::size_t j = i; j < x.size(); ++j) last[j - i] = x[j];
  f(fbatch::load_unaligned(last.data())).store_unaligned(last.data());
  for (std::size_t j = i; j < x.size(); ++j) y[j] = last[j - i];
  return y;
}
std::vector<float> erf_of(const std::vector<float>& x) {
  return batches_of(x, [](const fbatch& b) { return sf::cpu::detail::batch_erf_of(b); });
}
std::vector<float> tanh_of(const std::vector<float>& x) {
  return batches_of(x, [](const fbatch& b) { return sf::cpu::detail::batch_tanh_of(b); });
}

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
/// An odd kernel's errors over every 251st float bit pattern from the smallest subnormal to `last`,
/// each with its negation (8.7 million floats for 6 or 10).
struct sweep {
  double worst = 0, mean = 0, largest_drop = 0;  // ulps; the drop between neighbours in units of 2^-24
  float worst_at = 0;
  std::size_t not_odd = 0;                       // f(-x) != -f(x) bit for bit
};
template <class Kernel, class Reference>
sweep sweep_of(float last, Kernel kernel, Reference reference) {
  std::vector<float> x;
  for (std::uint32_t b = 1; from_bits(b) <= last; b += 251) {
    x.push_back(from_bits(b));
    x.push_back(-from_bits(b));
  }
  const std::vector<float> y = kernel(x);
  sweep s;
  double total = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = ulps(y[i], reference(static_cast<double>(x[i])));
    total += e;
    if (e > s.worst) s.worst = e, s.worst_at = x[i];
    if (i % 2 == 1 && y[i] != -y[i - 1]) ++s.not_odd;
    if (i >= 2 && i % 2 == 0 && y[i] < y[i - 2])
      s.largest_drop = std::max(s.largest_drop, static_cast<double>(y[i - 2] - y[i]) * 16777216.0);
  }
  s.mean = total / static_cast<double>(x.size());
  return s;
}
}  // namespace

TEST_CASE("the float batch erf is within 6.6 ulp of erf over [-6, 6]", "[backend][simd][erf]") {
  const sweep s = sweep_of(6.f, erf_of, [](double v) { return std::erf(v); });
  INFO("largest error " << s.worst << " ulp at x = " << s.worst_at << ", mean " << s.mean);
  CHECK(s.worst <= 6.6);
  CHECK(s.mean < 1.0);
  CHECK(s.not_odd == 0);        // erf(-x) == -erf(x) bit for bit
  CHECK(s.largest_drop <= 8);  // near 1 not monotonic to the last ulps (Eigen's neither): drops of 8 at most
}

TEST_CASE("the float batch erf at its edges", "[backend][simd][erf]") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> x{std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.f, -0.f, tiny, -tiny,
                             1e-30f, 4.f, -4.f, 3.9f, 1000.f, -1000.f, std::numeric_limits<float>::max(), 0.5f, -2.f};
  const std::vector<float> y = erf_of(x);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 1.f);
  CHECK(y[2] == -1.f);
  CHECK((y[3] == 0.f && !std::signbit(y[3])));
  CHECK((y[4] == 0.f && std::signbit(y[4])));  // -0.0 keeps its sign, as erf(-0.0) does
  CHECK(y[5] == tiny);                         // 2/sqrt(pi) * 1.4e-45 rounds to the smallest subnormal
  CHECK(y[6] == -tiny);
  CHECK(y[7] == Approx(1.1283791670955126e-30).epsilon(1e-6));
  CHECK(y[8] == 1.f);  // erfc(4) = 1.5e-8: erf(4) rounds to 1, and so does the clamp
  CHECK(y[9] == -1.f);
  CHECK(ulps(y[10], std::erf(3.9)) <= 6.6);
  CHECK(y[11] == 1.f);
  CHECK(y[12] == -1.f);
  CHECK(y[13] == 1.f);
  CHECK(ulps(y[14], std::erf(0.5)) <= 2);
  CHECK(ulps(y[15], std::erf(-2.0)) <= 6.6);
}

TEST_CASE("double batches keep xsimd's erf", "[backend][simd][erf]") {
  std::vector<double> x(dbatch::size), want(dbatch::size), got(dbatch::size);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -3.0 + 0.7 * static_cast<double>(i);
  xsimd::erf(dbatch::load_unaligned(x.data())).store_unaligned(want.data());
  sf::cpu::detail::batch_erf_of(dbatch::load_unaligned(x.data())).store_unaligned(got.data());
  CHECK(got == want);
}

TEST_CASE("sf::erf and sf::gelu in a fused loop, vector body and scalar tail, against the C library",
          "[backend][simd][erf]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::erf(x), sf::gelu(x)}; });
  for (const std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{37}, std::size_t{1000}}) {
    xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) x[i] = -4.5f + 9.f * static_cast<float>(i) / static_cast<float>(n);
    const auto [erf, gelu] = f(x);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = x[i];
      INFO("n = " << n << ", x = " << v);
      CHECK(ulps(erf[i], std::erf(v)) <= 6.6);
      CHECK(gelu[i] == Approx(0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))).margin(2e-6).epsilon(2e-6));
    }
  }
  // the edges at every position: twice the widest batch (the vector body) and a scalar tail
  constexpr float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> edges{std::numeric_limits<float>::quiet_NaN(), inf, -inf, -0.f, 1000.f, -3.85f};
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({37});
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = edges[i % edges.size()];
  const auto [erf, gelu] = f(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("position " << i << ", x = " << x[i]);
    switch (i % edges.size()) {
      case 0: CHECK((std::isnan(erf[i]) && std::isnan(gelu[i]))); break;
      case 1: CHECK((erf[i] == 1.f && gelu[i] == inf)); break;
      case 2: CHECK(erf[i] == -1.f); break;  // (gelu(-inf) is -inf * 0 by its formula: NaN)
      case 3: CHECK((erf[i] == 0.f && std::signbit(erf[i]))); break;
      case 4: CHECK((erf[i] == 1.f && gelu[i] == 1000.f)); break;
      default: CHECK(ulps(erf[i], std::erf(-3.85)) <= 1); break;
    }
  }
}

TEST_CASE("the float batch tanh is within 5.2 ulp of tanh over [-10, 10]", "[backend][simd][tanh]") {
  const sweep s = sweep_of(10.f, tanh_of, [](double v) { return std::tanh(v); });
  INFO("largest error " << s.worst << " ulp at x = " << s.worst_at << ", mean " << s.mean << ", largest drop " << s.largest_drop);
  CHECK(s.worst <= 5.2);
  CHECK(s.mean < 1.0);
  CHECK(s.not_odd == 0);  // tanh(-x) == -tanh(x) bit for bit
  CHECK(s.largest_drop <= 8);
}

TEST_CASE("the float batch tanh at its edges", "[backend][simd][tanh]") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> x{std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.f, -0.f, tiny, -tiny,
                             1e-30f, 9.f, -9.f, 8.9f, 1000.f, -1000.f, std::numeric_limits<float>::max(), 0.5f, -2.f};
  const std::vector<float> y = tanh_of(x);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 1.f);
  CHECK(y[2] == -1.f);
  CHECK((y[3] == 0.f && !std::signbit(y[3])));
  CHECK((y[4] == 0.f && std::signbit(y[4])));  // -0.0 keeps its sign, as tanh(-0.0) does
  CHECK(y[5] == tiny);                         // tanh(x) = x for tiny x: P and Q are 1 exactly there
  CHECK(y[6] == -tiny);
  CHECK(y[7] == 1e-30f);
  CHECK(y[8] == 1.f);  // 1 - tanh(9) = 3.0e-8: tanh(9) rounds to 1, and so does the clamp
  CHECK(y[9] == -1.f);
  CHECK(ulps(y[10], std::tanh(8.9)) <= 5.2);
  CHECK(y[11] == 1.f);
  CHECK(y[12] == -1.f);
  CHECK(y[13] == 1.f);
  CHECK(ulps(y[14], std::tanh(0.5)) <= 2);
  CHECK(ulps(y[15], std::tanh(-2.0)) <= 5.2);
}

TEST_CASE("double batches keep xsimd's tanh", "[backend][simd][tanh]") {
  std::vector<double> x(dbatch::size), want(dbatch::size), got(dbatch::size);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -3.0 + 0.7 * static_cast<double>(i);
  xsimd::tanh(dbatch::load_unaligned(x.data())).store_unaligned(want.data());
  sf::cpu::detail::batch_tanh_of(dbatch::load_unaligned(x.data())).store_unaligned(got.data());
  CHECK(got == want);
}

TEST_CASE("sf::tanh in a fused loop, vector body and scalar tail, against the C library", "[backend][simd][tanh]") {
  auto f = sf::function([](auto x) { return sf::tanh(x); });
  for (const std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{37}, std::size_t{1000}}) {
    xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) x[i] = -10.f + 20.f * static_cast<float>(i) / static_cast<float>(n);
    const xt::xtensor<float, 1> y = f(x);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("n = " << n << ", x = " << x[i]);
      CHECK(ulps(y[i], std::tanh(static_cast<double>(x[i]))) <= 5.2);
    }
  }
  constexpr float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> edges{std::numeric_limits<float>::quiet_NaN(), inf, -inf, -0.f, 1000.f, -9.f};
  xt::xtensor<float, 1> x = xt::xtensor<float, 1>::from_shape({37});
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = edges[i % edges.size()];
  const xt::xtensor<float, 1> y = f(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("position " << i << ", x = " << x[i]);
    switch (i % edges.size()) {
      case 0: CHECK(std::isnan(y[i])); break;
      case 1: CHECK(y[i] == 1.f); break;
      case 2: CHECK(y[i] == -1.f); break;
      case 3: CHECK((y[i] == 0.f && std::signbit(y[i]))); break;
      case 4: CHECK(y[i] == 1.f); break;
      default: CHECK(y[i] == -1.f); break;
    }
  }
}
