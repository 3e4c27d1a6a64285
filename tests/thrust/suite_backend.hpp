// tests/thrust/suite_backend.hpp -- the backend a build of the backend-parameterized suite
// checks. The same test sources (backend_suite.cpp) build against the CPU backend and against
// the Thrust backend on every device system (OMP, CPP, and CUDA with nvcc), so every build
// checks the same values:
//
//   suite::backend        the tag the suite's functions are made with
//   suite::in(x)          a host tensor as the backend's argument (sf::to_device for Thrust)
//   suite::host(r)        a result as an xt::xtensor on the host (to_host for Thrust)
//   suite::flat(x)        the elements of a host tensor as a std::vector
//   suite::near, all_near, close   relative closeness of values (near: NaN equals NaN)
//   suite::ramp, pattern  inputs several cases share
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <staticflow/staticflow.hpp>
#if defined(STATICFLOW_SUITE_THRUST)
#include <staticflow/backend/thrust/thrust.hpp>
#endif

namespace sf = staticflow;

namespace suite {

#if defined(STATICFLOW_SUITE_THRUST)
inline constexpr auto backend = sf::backend::thrust;
inline constexpr bool on_device = true;
inline std::string name() { return std::string("thrust/") + sf::thrust_backend::device_system_name(); }

template <class X>
auto in(const X& x) {
  if constexpr (std::is_arithmetic_v<X> || sf::static_value_type<X>) return x;
  else return sf::to_device(x);
}
template <class R>
auto host(const R& r) {
  if constexpr (sf::detail::is_tuple<R>::value)
    return std::apply([](const auto&... x) { return std::tuple{x.to_host()...}; }, r);
  else return r.to_host();
}
#else
inline constexpr auto backend = sf::backend::cpu;
inline constexpr bool on_device = false;
inline std::string name() { return "cpu"; }

template <class X>
auto in(const X& x) {
  if constexpr (std::is_arithmetic_v<X> || sf::static_value_type<X>) return x;
  else return xt::xtensor<typename X::value_type, X::rank>(x);
}
template <class R>
auto host_one(const R& r) {
  if constexpr (std::is_arithmetic_v<R>) {
    xt::xtensor<R, 0> t = r;
    return t;
  } else {
    return xt::xtensor<typename R::value_type, R::rank>(r);
  }
}
template <class R>
auto host(const R& r) {
  if constexpr (sf::detail::is_tuple<R>::value)
    return std::apply([](const auto&... x) { return std::tuple{host_one(x)...}; }, r);
  else return host_one(r);
}
#endif

template <class X>
auto flat(const X& x) {
  std::vector<typename X::value_type> v(x.data(), x.data() + x.size());
  return v;
}
template <class X>
std::vector<std::size_t> shape(const X& x) {
  return std::vector<std::size_t>(x.shape().begin(), x.shape().end());
}

// Values checked against references written in each case: relative closeness (NaN equal to NaN),
// and the inputs several cases share.
template <class T>
bool near(T a, T b, T rel = T(1e-5)) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= rel * std::max(T(1), std::fabs(b));
}
template <class T>
bool all_near(const std::vector<T>& a, const std::vector<T>& b, T rel = T(1e-5)) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!near(a[i], b[i], rel)) return false;
  return true;
}
inline bool close(double a, double b, double rel = 1e-4) { return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b)); }
inline xt::xtensor<float, 1> ramp(std::size_t n, float scale = 0.001f, float offset = -1.f) {
  auto x = xt::xtensor<float, 1>::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) x(i) = offset + scale * static_cast<float>(i % 2000);
  return x;
}
inline xt::xtensor<float, 2> pattern(std::size_t rows, std::size_t cols, float scale, float phase) {
  auto t = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) t(i, j) = scale * std::sin(phase + 0.37f * float(i) + 1.13f * float(j));
  return t;
}

}  // namespace suite
