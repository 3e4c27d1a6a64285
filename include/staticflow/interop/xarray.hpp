// staticflow/interop/xarray.hpp -- arguments whose rank is known only at run time: xt::xarray and
// xt::adapt with a dynamic shape (a std::vector of extents). Their dtype is static. A polymorphic
// function sees one through a tensor_ref of the rank the call has (see trace/dispatch.hpp), so
// one variant per rank serves every size; results come back as xt::xarray.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <xtensor/xarray.hpp>

#include "staticflow/core/config.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow {
namespace detail {
template <class C>
struct is_runtime_rank_container : std::false_type {};
template <class EC, xt::layout_type L, class SC, class Tag>
struct is_runtime_rank_container<xt::xarray_container<EC, L, SC, Tag>> : std::true_type {};
template <class EC, xt::layout_type L, class SC, class Tag>
struct is_runtime_rank_container<xt::xarray_adaptor<EC, L, SC, Tag>> : std::true_type {};

/// The argument_traits of a container with a run-time rank: not a static-rank argument (it has
/// no one signature entry), but a tensor of a static dtype whose rank the dispatch map reads.
template <class A>
struct runtime_rank_traits {
  static constexpr bool supported = false;
  static constexpr bool runtime_rank = true;
  using value_type = std::remove_cv_t<typename A::value_type>;
  /// What a polymorphic function accepts: a dtype and row-major data.
  static constexpr bool dispatchable = dtype<value_type> && A::static_layout == xt::layout_type::row_major;
};
}  // namespace detail

// These are more specialized than interop/xtensor.hpp's xtensor-like case, so an xt::xarray never
// gets a static-rank signature entry (its `rank` member is SIZE_MAX).
template <class EC, xt::layout_type L, class SC, class Tag>
struct argument_traits<xt::xarray_container<EC, L, SC, Tag>>
    : detail::runtime_rank_traits<xt::xarray_container<EC, L, SC, Tag>> {};
template <class EC, xt::layout_type L, class SC, class Tag>
struct argument_traits<xt::xarray_adaptor<EC, L, SC, Tag>>
    : detail::runtime_rank_traits<xt::xarray_adaptor<EC, L, SC, Tag>> {};

/// A container whose rank is known only at run time (xt::xarray, a dynamic-shape xt::adapt).
template <class A>
concept runtime_rank_tensor = detail::is_runtime_rank_container<std::remove_cvref_t<A>>::value;

namespace detail {
/// An xt::xarray holding a result: zero-copy from an xt::xtensor (the buffer moves), a copy from
/// an xt::xtensor_fixed, a 0-d array from a scalar.
template <class T, class R>
xt::xarray<T> to_xarray(R&& r) {
  using C = std::remove_cvref_t<R>;
  if constexpr (std::is_arithmetic<C>::value) {
    return xt::xarray<T>(static_cast<T>(r));
  } else if constexpr (std::is_same<C, xt::xarray<T>>::value) {
    return std::forward<R>(r);
  } else if constexpr (std::is_same<C, xt::xtensor<T, C::rank>>::value) {
    return xt::xarray<T>(std::move(r));
  } else {
    xt::xarray<T> out = xt::xarray<T>::from_shape(r.shape());
    std::copy(r.data(), r.data() + r.size(), out.data());
    return out;
  }
}
}  // namespace detail
}  // namespace staticflow
