// staticflow/interop/xtensor.hpp -- xtensor containers and C++ scalars as arguments and results.
//
// An argument is described by `argument_traits<A>`: its signature entry (a spec, or the static
// value itself) and, for tensors, a view of its data (pointer + run-time extents).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>
#include <tuple>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include "staticflow/core/config.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/core/static_value.hpp"

namespace staticflow {

/// A non-owning view of a tensor argument: row-major contiguous data and its extents.
template <class T, std::size_t Rank>
struct tensor_view {
  const T* data;
  extents<Rank> ext;
  STATICFLOW_INLINE std::size_t size() const { return detail::product(ext); }
};

/// A non-owning view whose elements need not be consecutive: element (i_0, ..., i_{R-1}) lies at
/// data[i_0 * strides[0] + ... + i_{R-1} * strides[R-1]], the last stride 0 or 1. The CPU backend
/// points the slot of a slice that cuts trailing axes (`u[1:-1, 1:-1]`) into its operand this way
/// when only fused loops read the slot (plan/slot_views.hpp); made from data and extents alone,
/// it is row-major.
template <class T, std::size_t Rank>
struct strided_tensor_view {
  const T* data = nullptr;
  extents<Rank> ext{};
  extents<Rank> strides{};

  constexpr strided_tensor_view() = default;
  constexpr strided_tensor_view(const T* d, const extents<Rank>& e) : data(d), ext(e) {
    std::size_t s = 1;
    for (std::size_t k = Rank; k-- > 0;) strides[k] = s, s *= e[k];
  }
  constexpr strided_tensor_view(const T* d, const extents<Rank>& e, const extents<Rank>& s) : data(d), ext(e), strides(s) {}

  STATICFLOW_INLINE std::size_t size() const { return detail::product(ext); }
  /// Whether the elements are consecutive in row-major order (axes of extent 1 aside).
  constexpr bool contiguous() const {
    std::size_t s = 1;
    for (std::size_t k = Rank; k-- > 0;) {
      if (ext[k] != 1 && strides[k] != s) return false;
      s *= ext[k];
    }
    return true;
  }
  /// How many elements from the first to just past the last: the memory an overlap test sees.
  constexpr std::size_t span() const {
    if (size() == 0) return 0;
    std::size_t last = 0;
    for (std::size_t k = 0; k < Rank; ++k) last += (ext[k] - 1) * strides[k];
    return last + 1;
  }
};

/// Stands in for a static (compile-time) argument, which has no data at run time.
struct no_view {};

namespace detail {
template <class T, std::size_t R>
extents<R> view_extents(const tensor_view<T, R>& v) { return v.ext; }
template <class T, std::size_t R>
extents<R> view_extents(const strided_tensor_view<T, R>& v) { return v.ext; }

template <class V>
struct is_strided_view : std::false_type {};
template <class T, std::size_t R>
struct is_strided_view<strided_tensor_view<T, R>> : std::true_type {};

/// The elements of memory a view's data covers, from its first element on (an overlap test's).
template <class V>
STATICFLOW_INLINE std::size_t memory_size(const V& v) {
  if constexpr (is_strided_view<V>::value) return v.span();
  else return v.size();
}
/// Whether a view with `size` elements reads them consecutively, as a flat loop does.
template <class V>
STATICFLOW_INLINE bool flat_with_size(const V& v, std::size_t size) {
  if constexpr (is_strided_view<V>::value) return v.size() == size && v.contiguous();
  else return v.size() == size;
}
inline extents<0> view_extents(no_view) { return {}; }

/// The extents of every view of a call, as a value_pack indexed like the arguments (read with
/// detail::get; a std::tuple's constructors cost the compiler 20-odd ms per views type).
template <class Views>
STATICFLOW_INLINE auto extents_of_views(const Views& views) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
    return value_pack<decltype(view_extents(detail::get<I>(views)))...>{{{view_extents(detail::get<I>(views))}...}};
  }(std::make_index_sequence<std::tuple_size<Views>::value>{});
}

template <class C>
struct fixed_dims : std::false_type {
  using spec_type = void;
};
/// The dtype of a container's elements: std::string elements are a string tensor.
template <class E>
using element_dtype_t = std::conditional_t<std::is_same<std::remove_cv_t<E>, std::string>::value, string, std::remove_cv_t<E>>;

template <class ET, std::size_t... I, xt::layout_type L, bool SH, class Tag>
struct fixed_dims<xt::xfixed_container<ET, xt::fixed_shape<I...>, L, SH, Tag>> : std::true_type {
  using spec_type = spec<element_dtype_t<ET>, I...>;
};
template <class EC, std::size_t... I, xt::layout_type L, bool SH, class Tag>
struct fixed_dims<xt::xfixed_adaptor<EC, xt::fixed_shape<I...>, L, SH, Tag>> : std::true_type {
  using spec_type = spec<element_dtype_t<typename xt::xfixed_adaptor<EC, xt::fixed_shape<I...>, L, SH, Tag>::value_type>, I...>;
};

template <class T, std::size_t... D>
auto all_dyn_spec(std::index_sequence<D...>) -> spec<T, ((void)D, dyn)...>;

template <class C>
concept xtensor_like = requires(const C& c) {
  typename C::value_type;
  { C::rank } -> std::convertible_to<std::size_t>;
  c.data();
  c.shape();
  C::static_layout;
};
}  // namespace detail

/// What staticflow knows about an argument type. Specialized below for scalars, static values and
/// xtensor containers with a static rank.
template <class A, class = void>
struct argument_traits {
  static constexpr bool supported = false;
};

/// C++ text (std::string, std::string_view, a character array or pointer) is a 0-d string tensor.
template <class A>
struct argument_traits<A, std::enable_if_t<detail::is_text_v<A>>> {
  static constexpr bool supported = true;
  using value_type = string;
  using signature_type = spec<string>;
};

/// C++ scalars are 0-d tensors of their dtype: a new value does not retrace.
template <class A>
struct argument_traits<A, std::enable_if_t<std::is_arithmetic<A>::value>> {
  static constexpr bool supported = dtype<canonical_dtype_t<A>>;
  using value_type = canonical_dtype_t<A>;
  using signature_type = spec<value_type>;
};

/// Static values are part of the signature and handed to the lambda unchanged.
template <class A>
struct argument_traits<A, std::enable_if_t<static_value_type<A>>> {
  static constexpr bool supported = true;
  using signature_type = A;
};

/// Row-major xtensor containers and adaptors: fixed ones keep their static shape, the others have
/// run-time dimensions of their static rank.
template <detail::xtensor_like A>
struct argument_traits<A> {
  using value_type = detail::element_dtype_t<typename A::value_type>;
  static constexpr bool supported = dtype<value_type> && A::static_layout == xt::layout_type::row_major;
  using signature_type = std::conditional_t<detail::fixed_dims<A>::value,
                                            typename detail::fixed_dims<A>::spec_type,
                                            decltype(detail::all_dyn_spec<value_type>(std::make_index_sequence<A::rank>{}))>;
};

namespace detail {
template <class A>
using signature_entry_t = typename argument_traits<std::remove_cvref_t<A>>::signature_type;

/// The view of one argument; a scalar's view points at `scalar_slot`, a copy in the caller's frame.
template <class A, class Slot>
STATICFLOW_INLINE auto make_view(const A& a, Slot& scalar_slot) {
  using traits = argument_traits<A>;
  if constexpr (static_value_type<A>) {
    return no_view{};
  } else if constexpr (std::is_arithmetic<A>::value) {
    scalar_slot = static_cast<typename traits::value_type>(a);
    return tensor_view<typename traits::value_type, 0>{&scalar_slot, {}};
  } else if constexpr (is_text_v<A>) {
    scalar_slot = string(std::string_view(a));  // a view of the caller's bytes, valid for the call
    return tensor_view<string, 0>{&scalar_slot, {}};
  } else {
    constexpr std::size_t R = A::rank;
    extents<R> ext{};
    for (std::size_t d = 0; d < R; ++d) ext[d] = static_cast<std::size_t>(a.shape()[d]);
    if constexpr (std::is_same<std::remove_cv_t<typename A::value_type>, std::string>::value) {
      // std::string elements: their views, in the call's own buffer (`scalar_slot`, a vector)
      static constexpr string none{};
      scalar_slot.resize(product(ext));
      std::transform(a.data(), a.data() + scalar_slot.size(), scalar_slot.begin(),
                     [](const std::string& e) { return string(std::string_view(e)); });
      return tensor_view<string, R>{scalar_slot.empty() ? &none : scalar_slot.data(), ext};
    } else {
      return tensor_view<typename traits::value_type, R>{a.data(), ext};
    }
  }
}

/// Where make_view puts what an argument of type A needs for the call: a scalar's value, a string
/// container's element views; `char` (unused) for the others.
template <class A, class = void>
struct scalar_slot {
  using type = char;
};
template <class A>
struct scalar_slot<A, std::enable_if_t<std::is_arithmetic<A>::value>> {
  using type = canonical_dtype_t<A>;
};
template <class A>
struct scalar_slot<A, std::enable_if_t<is_text_v<A>>> {
  using type = string;
};
template <xtensor_like A>
  requires std::is_same<std::remove_cv_t<typename A::value_type>, std::string>::value
struct scalar_slot<A> {
  using type = std::vector<string>;
};
template <class A>
using scalar_slot_t = typename scalar_slot<A>::type;

/// A result as the caller gets it: string elements (views into this call's string pool) become
/// std::string, so they outlive the call; other results are returned as they are.
template <class T>
struct is_result_tuple : std::false_type {};
template <class... T>
struct is_result_tuple<std::tuple<T...>> : std::true_type {};

template <class R>
auto owned_strings(R&& r) {
  using U = std::remove_cvref_t<R>;
  if constexpr (is_result_tuple<U>::value) {
    return staticflow::detail::apply([](auto&... e) { return std::tuple{owned_strings(std::move(e))...}; }, r);
  } else if constexpr (std::is_same<U, string>::value) {
    return r.str();
  } else if constexpr (xtensor_like<U>) {
    if constexpr (std::is_same<typename U::value_type, string>::value) {
      auto owned = [&] {
        if constexpr (fixed_dims<U>::value) return xt::xtensor_fixed<std::string, typename U::shape_type>{};
        else return xt::xtensor<std::string, U::rank>::from_shape(r.shape());
      }();
      std::transform(r.data(), r.data() + r.size(), owned.data(), [](string s) { return s.str(); });
      return owned;
    } else {
      return U(std::forward<R>(r));
    }
  } else {
    return U(std::forward<R>(r));
  }
}

/// The container a result of spec S comes back in: a plain T for rank 0, `xt::xtensor_fixed` when
/// every dimension is static, else `xt::xtensor<T, N>`.
template <class S>
struct result_container;
template <class T>
struct result_container<spec<T>> {
  using type = T;
};
template <class T, std::size_t D0, std::size_t... D>
struct result_container<spec<T, D0, D...>> {
  static constexpr bool is_static = spec<T, D0, D...>::shape_type::is_static;
  static_assert(!is_static || sizeof(T) * shape<D0, D...>::size <= STATICFLOW_MAX_STATIC_BYTES,
                "staticflow: a static result larger than STATICFLOW_MAX_STATIC_BYTES would live on the "
                "stack; use sf::dyn dimensions (xt::xtensor arguments) or call_into a container of yours");
  using type = std::conditional_t<is_static, xt::xtensor_fixed<T, xt::xshape<D0, D...>>,
                                  xt::xtensor<T, 1 + sizeof...(D)>>;
};
}  // namespace detail

/// The container type of a result with spec S.
template <class S>
using result_container_t = typename detail::result_container<S>::type;

}  // namespace staticflow
