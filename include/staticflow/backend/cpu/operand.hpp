// staticflow/backend/cpu/operand.hpp -- the input of a materialized node as contiguous row-major
// data of a given dtype: an argument (or slot) is read where it lies; anything else is evaluated
// once into a buffer from the call's arena.
#pragma once

#include <cstddef>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu::detail {

template <class T, class Sig, class N, class Views, std::size_t R>
const T* contiguous_operand(const N& n, const Views& views, const extents<R>& ext) {
  if constexpr (graph::detail::is_argument<N>::value && std::is_same<typename N::value_type, T>::value) {
    return staticflow::detail::get<N::index>(views).data;
  } else {
    auto* buffer = static_cast<T*>(plan::arena::local().allocate(sizeof(T) * staticflow::detail::product(ext)));
    if constexpr (std::is_same<typename N::value_type, T>::value) evaluate_into<Sig>(n, views, ext, buffer);
    else evaluate_into<Sig>(graph::cast<T, N>(n), views, ext, buffer);
    return buffer;
  }
}

}  // namespace staticflow::cpu::detail
