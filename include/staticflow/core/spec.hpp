// staticflow/core/spec.hpp -- sf::spec<T, Dims...>, the analog of tf.TensorSpec.
#pragma once

#include <string>
#include <string_view>

#include "staticflow/core/dtype.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow {

/// dtype + shape of a tensor: `sf::spec<float, sf::dyn, 3>` is TensorSpec(shape=(None, 3), float32).
template <class T, std::size_t... Dims>
struct spec {
  static_assert(dtype<T>, "staticflow: spec<T, ...> needs a dtype: bool, int32_t, int64_t, float or double");
  using value_type = T;
  using shape_type = shape<Dims...>;
  static constexpr std::size_t rank = sizeof...(Dims);
};

namespace detail {
template <class T> struct is_spec : std::false_type {};
template <class T, std::size_t... D> struct is_spec<spec<T, D...>> : std::true_type {};

template <class T, class Shape> struct spec_of_shape;
template <class T, std::size_t... D> struct spec_of_shape<T, shape<D...>> { using type = spec<T, D...>; };
}  // namespace detail

template <class T>
concept spec_type = detail::is_spec<T>::value;

/// The spec with dtype T and shape type S.
template <class T, class S>
using spec_of_t = typename detail::spec_of_shape<T, S>::type;

namespace detail {
inline std::string tensor_spec_text(const std::string& shape, std::string_view dtype) {
  std::string s = "TensorSpec(shape=";
  s += shape;
  s += ", dtype=tf.";
  s += dtype;
  return s += ", name=None)";
}
}  // namespace detail

/// `TensorSpec(shape=(2,), dtype=tf.int32, name=None)`, as TensorFlow prints it.
template <spec_type S>
std::string tensor_spec_string() {
  return detail::tensor_spec_text(detail::shape_string(typename S::shape_type{}), dtype_name<typename S::value_type>);
}

/// The short form used in graph listings: `int32[2]`, `float32[None,3]`, `float32[]`.
template <class T, std::size_t... D>
std::string short_spec_string(spec<T, D...>) {
  static constexpr std::size_t dims[] = {D..., 0};
  std::string out(dtype_name<T>);
  return out += detail::dims_text(dims, sizeof...(D), "[", ",", "]");
}

}  // namespace staticflow
