// staticflow/effects/capture.hpp -- closures over C++ data: sf::capture(x) reads x on every call,
// sf::constant(x) copies it once, at trace time (as tf.function captures an eager tensor).
//
//   xt::xtensor_fixed<int, xt::xshape<2>> x{-2, -3};
//   sf::variable<int, 2> y{{3, -2}};
//   auto f = sf::function([&] { return sf::square(sf::capture(x)) + y; });
//   f();  // [7, 7]
//
// A captured sf::variable needs neither: use it directly. A captured container must outlive the
// function; if its shape changes after tracing, the next call throws sf::shape_error before any
// effect (the graph was traced for the old shape).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "staticflow/core/errors.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow {
namespace detail {

template <class C>
constexpr void check_capturable() {
  static_assert(std::is_arithmetic<C>::value || argument_traits<C>::supported,
                "staticflow: sf::capture / sf::constant take a C++ number, C++ text or a row-major xtensor "
                "container of bool, int32, int64, float, double or std::string");
  static_assert(!static_value_type<C>, "staticflow: a static value is a constant already; use it directly");
}

/// The shape a captured container has in the graph: an xtensor_fixed's static dims, else `dyn`.
template <class C>
using captured_shape_t = typename argument_traits<C>::signature_type::shape_type;

template <class C>
constexpr std::size_t captured_rank() {
  if constexpr (std::is_arithmetic<C>::value) return 0;
  else return C::rank;
}

/// A container read on every call.
template <class C>
struct captured_container {
  static constexpr std::size_t R = captured_rank<C>();
  const C* container;
  const void* data = nullptr;
  std::array<std::size_t, R + 1> ext{};
  std::array<std::size_t, R + 1> traced_ext{};
  graph::external_source source{&data, ext.data(), "capture"};

  explicit captured_container(const C& c) : container(&c) {
    refresh_extents(traced_ext);
    refresh();
  }
  void refresh_extents(std::array<std::size_t, R + 1>& e) const {
    if constexpr (R > 0)
      for (std::size_t d = 0; d < R; ++d) e[d] = static_cast<std::size_t>(container->shape()[d]);
  }
  void refresh() {
    if constexpr (std::is_arithmetic<C>::value) data = container;
    else data = container->data();
    refresh_extents(ext);
  }
  /// On every call, before any effect: the container still has its traced shape.
  void check() {
    refresh();
    if (ext != traced_ext) {
      extents<R> now{}, then{};
      std::copy_n(ext.begin(), R, now.begin());
      std::copy_n(traced_ext.begin(), R, then.begin());
      throw shape_error("sf::capture: the captured container has shape " + extents_string(now) +
                        ", the function was traced for shape " + extents_string(then) +
                        " (trace again with clear_cache(), or capture a container of fixed shape)");
    }
  }
};

/// A copy made at trace time.
template <class T, std::size_t R>
struct constant_copy {
  std::unique_ptr<T[]> values;
  const void* data = nullptr;
  std::array<std::size_t, R + 1> ext{};
  graph::external_source source{&data, ext.data(), "constant"};
};
}  // namespace detail

/// x as a tensor of the traced function, read on every call (x must outlive the function).
template <class C>
auto capture(const C& x) {
  detail::check_capturable<C>();
  static_assert(!string_dtype<typename argument_traits<C>::value_type>,
                "staticflow: sf::capture reads numbers in place; text is copied by sf::constant or passed as an "
                "argument");
  auto& program = detail::traced_program("sf::capture");
  auto held = std::make_shared<detail::captured_container<C>>(x);
  program.resources.push_back(held);
  program.prechecks.push_back([p = held.get()] { p->check(); });
  program.add_capture(&x, tensor_spec_string<typename argument_traits<C>::signature_type>());
  using T = typename argument_traits<C>::value_type;
  return graph::external<T, detail::captured_shape_t<C>>(&held->source);
}

/// x copied now, at trace time, as a constant of the traced function (a C++ number becomes a
/// literal).
template <class C>
auto constant(const C& x) {
  detail::check_capturable<C>();
  if constexpr (std::is_arithmetic<C>::value) {
    return graph::literal<canonical_dtype_t<C>>(static_cast<canonical_dtype_t<C>>(x));
  } else if constexpr (detail::is_text_v<C>) {
    return graph::literal<string>(std::string_view(x));  // (tf.constant('a'); the literal owns a copy)
  } else {
    using T = typename argument_traits<C>::value_type;
    constexpr std::size_t R = C::rank;
    auto& program = detail::traced_program("sf::constant");
    auto held = std::make_shared<detail::constant_copy<T, R>>();
    std::size_t n = 1;
    for (std::size_t d = 0; d < R; ++d) n *= held->ext[d] = static_cast<std::size_t>(x.shape()[d]);
    held->values.reset(new T[n]);
    if constexpr (string_dtype<T>) {
      // a string container: its bytes copied too, kept with the function's other resources
      auto bytes = std::make_shared<std::vector<std::string>>(x.data(), x.data() + n);
      for (std::size_t i = 0; i < n; ++i) held->values[i] = string(std::string_view((*bytes)[i]));
      program.resources.push_back(bytes);
    } else {
      std::copy_n(x.data(), n, held->values.get());
    }
    held->data = held->values.get();
    program.resources.push_back(held);
    program.add_capture(held.get(), tensor_spec_string<typename argument_traits<C>::signature_type>());
    return graph::external<T, detail::captured_shape_t<C>>(&held->source);
  }
}

}  // namespace staticflow
