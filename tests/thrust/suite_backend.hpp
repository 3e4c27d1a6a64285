// tests/thrust/suite_backend.hpp -- the backend a build of the backend-parameterized suite
// checks. The same test sources (backend_suite.cpp) build against the CPU backend and against
// the Thrust backend on every device system (OMP, CPP, and CUDA with nvcc), so every build
// checks the same values:
//
//   suite::backend        the tag the suite's functions are made with
//   suite::in(x)          a host tensor as the backend's argument (sf::to_device for Thrust)
//   suite::host(r)        a result as an xt::xtensor on the host (to_host for Thrust)
//   suite::flat(x)        the elements of a host tensor as a std::vector
#pragma once

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

}  // namespace suite
