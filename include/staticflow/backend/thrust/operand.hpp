// staticflow/backend/thrust/operand.hpp -- the input of a materialized node as contiguous
// row-major device data of a given dtype: a device argument (or slot) is read where it lies;
// anything else (an elementwise subgraph, a host scalar, another dtype) is evaluated once into
// a buffer from the device arena.
#pragma once

#include <cstddef>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/kernel.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::thrust_backend::detail {

template <class T, class N, class Views, std::size_t R>
const T* contiguous_operand(const N& n, const Views& views, const extents<R>& ext) {
  if constexpr (graph::detail::is_argument<N>::value && std::is_same<typename N::value_type, T>::value) {
    using V = std::remove_cvref_t<std::tuple_element_t<N::index, Views>>;
    if constexpr (requires(const V& v) { v.data; }) return staticflow::detail::get<N::index>(views).data;
    else return contiguous_operand<T>(graph::unary<op::identity, N>(n), views, ext);  // a host scalar
  } else {
    auto* buffer = static_cast<T*>(device_arena::local().allocate(sizeof(T) * staticflow::detail::product(ext)));
    if constexpr (std::is_same<typename N::value_type, T>::value) evaluate_into(n, views, ext, buffer);
    else evaluate_into(graph::cast<T, N>(n), views, ext, buffer);
    return buffer;
  }
}

}  // namespace staticflow::thrust_backend::detail
