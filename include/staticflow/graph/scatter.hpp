// staticflow/graph/scatter.hpp -- slices addressed by index tuples: sf::gather_nd (tf.gather_nd,
// batch_dims 0), sf::scatter_nd and sf::tensor_scatter_nd_update / _add / _sub (TF's ScatterNd and
// TensorScatterUpdate / Add / Sub), with their gradients.
//
// indices has shape [p_0, ..., p_m, K]: `positions` tuples of depth K (static), each naming the
// slice x[i_0, ..., i_{K-1}] of a tensor x of rank R >= K, whose shape is x.shape[K:].
//
//   gather_nd(x, indices)                   shape indices.shape[:-1] + x.shape[K:]
//   tensor_scatter_nd_add(x, indices, u)    x's shape; u has shape indices.shape[:-1] + x.shape[K:]
//   scatter_nd(indices, u, sf::shape<...>)  tensor_scatter_nd_add into zeros of that shape
//
// The tuples are applied in order, position 0 first, on every backend and thread count: repeated
// tuples add up in that order (add, sub, scatter_nd) and the last one wins (update; TF leaves that
// order undefined). An index outside the tensor throws sf::shape_error before anything is written,
// naming the tuple as TF's CPU kernel does ("indices[1] = [0, 7] is not in [0, 3) x [0, 5)"), and
// so do tuples into a tensor without elements (TF's error too).
// The embedding update of a model (`tensor_scatter_nd_add(table, ids, rows)`) is the common case.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace graph {
namespace detail {
template <class X, class I, std::size_t K, class Lead = std::make_index_sequence<I::rank - 1>,
          class Tail = std::make_index_sequence<X::rank - K>>
struct nd_sliced_shape;
template <class X, class I, std::size_t K, std::size_t... P, std::size_t... S>
struct nd_sliced_shape<X, I, K, std::index_sequence<P...>, std::index_sequence<S...>> {
  using type = shape<I::dims[P]..., X::dims[K + S]...>;  // indices.shape[:-1] + x.shape[K:]
};

/// x seen as [n_0, ..., n_{K-1}, inner] and the indices as `positions` tuples of depth K.
template <std::size_t K>
struct nd_layout {
  extents<K> indexed{};  // x's first K extents
  std::size_t positions = 1, inner = 1;
};
template <std::size_t K, std::size_t XR, std::size_t IR>
nd_layout<K> nd_layout_of(const extents<XR>& xe, const extents<IR>& ie) {
  nd_layout<K> l;
  for (std::size_t d = 0; d < K; ++d) l.indexed[d] = xe[d];
  for (std::size_t d = K; d < XR; ++d) l.inner *= xe[d];
  for (std::size_t d = 0; d + 1 < IR; ++d) l.positions *= ie[d];
  return l;
}

/// What both backends' kernels read of a gather_nd or scatter node: the run-time extents of x (the
/// scatter's result) and of the indices, and the layout from them.
template <std::size_t XR, std::size_t IR, std::size_t K>
struct nd_operands {
  extents<XR> x_extents;
  extents<IR> index_extents;
  nd_layout<K> layout;
};
template <class N, class ArgExtents>
nd_operands<N::x_rank, N::index_rank, N::depth> nd_operands_of(const N& n, const ArgExtents& args) {
  const auto xe = node_extents(n.x, args);
  const auto ie = node_extents(n.indices, args);
  return {xe, ie, nd_layout_of<N::depth>(xe, ie)};
}

/// TF's error for tuple p, which lies outside x's first K extents.
template <std::size_t K, class J>
[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_tuple(const nd_layout<K>& l, const J* indices, std::size_t p,
                                                           const char* what) {
  std::string tuple, ranges;
  for (std::size_t j = 0; j < K; ++j) {
    tuple += (j ? ", " : "") + std::to_string(indices[p * K + j]);
    ranges += (j ? " x [0, " : "[0, ") + std::to_string(l.indexed[j]) + ")";
  }
  throw shape_error(std::string(what) + ": indices[" + std::to_string(p) + "] = [" + tuple + "] is not in " + ranges);
}

/// Tuples into a tensor without elements: TF's error ("Requested more than 0 entries, but params
/// is empty"; its scatters: "Indices and updates specified for empty output").
template <std::size_t K>
void check_tuples_have_elements(const nd_layout<K>& l, const char* what) {
  std::size_t size = l.inner;
  for (std::size_t k = 0; k < K; ++k) size *= l.indexed[k];
  if (l.positions > 0 && size == 0)
    throw shape_error(std::string(what) + ": " + std::to_string(l.positions) + " index tuples into a tensor without elements");
}

/// The slice (row of `inner` elements) that tuple p names, or TF's error for a tuple outside x.
template <std::size_t K, class J>
inline std::size_t slice_of(const nd_layout<K>& l, const J* indices, std::size_t p, const char* what) {
  std::size_t slice = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const J i = indices[p * K + k];
    if (i < 0 || static_cast<std::size_t>(i) >= l.indexed[k]) throw_bad_tuple(l, indices, p, what);
    slice = slice * l.indexed[k] + static_cast<std::size_t>(i);
  }
  return slice;
}

/// The extents of a slice list indices.shape[:-1] + x.shape[K:] from run-time extents.
template <std::size_t R, std::size_t K, std::size_t XR, std::size_t IR>
extents<R> sliced_extents(const extents<XR>& xe, const extents<IR>& ie) {
  extents<R> out{};
  std::size_t k = 0;
  for (std::size_t d = 0; d + 1 < IR; ++d) out[k++] = ie[d];
  for (std::size_t d = K; d < XR; ++d) out[k++] = xe[d];
  return out;
}
}  // namespace detail

/// tf.gather_nd(x, indices): out[p, ...] = x[indices[p], ...]. Materialized (the indices are data).
template <class X, class I>
struct gather_nd : node<gather_nd<X, I>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t x_rank = X::shape_type::rank, index_rank = I::shape_type::rank;
  static constexpr std::size_t depth = I::shape_type::dims[index_rank - 1];
  using value_type = typename X::value_type;
  using shape_type = typename detail::nd_sliced_shape<typename X::shape_type, typename I::shape_type, depth>::type;
  X x;
  I indices;
  constexpr gather_nd(X x_, I i) : x(x_), indices(i) {}
  constexpr child_refs<const X&, const I&> children() const { return {{{x}, {indices}}}; }
  template <class Y, class J>
  constexpr auto with_children(const Y& y, const J& j) const { return gather_nd<Y, J>(y, j); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const gather_nd&) const { return true; }
  std::string name() const { return "GatherNd"; }
  extents<shape_type::rank> result_extents(const extents<x_rank>& xe, const extents<index_rank>& ie) const {
    return detail::sliced_extents<shape_type::rank, depth>(xe, ie);
  }
};

/// How a scatter combines a slice of the tensor with an update: the value kept.
struct scatter_update {
  static constexpr const char* tf_name = "TensorScatterUpdate";
  static constexpr const char* function = "tensor_scatter_nd_update";
  template <class T>
  STATICFLOW_HD static constexpr T apply(T, T u) { return u; }
};
struct scatter_add {
  static constexpr const char* tf_name = "TensorScatterAdd";
  static constexpr const char* function = "tensor_scatter_nd_add";
  template <class T>
  STATICFLOW_HD static constexpr T apply(T old, T u) { return static_cast<T>(old + u); }
};
struct scatter_sub {
  static constexpr const char* tf_name = "TensorScatterSub";
  static constexpr const char* function = "tensor_scatter_nd_sub";
  template <class T>
  STATICFLOW_HD static constexpr T apply(T old, T u) { return static_cast<T>(old - u); }
};
/// scatter_nd: scatter_add into zeros, listed as TF's ScatterNd.
struct scatter_into_zeros : scatter_add {
  static constexpr const char* tf_name = "ScatterNd";
  static constexpr const char* function = "scatter_nd";
};

/// x with each slice named by a tuple of indices combined with its update (Mode), in tuple order.
template <class Mode, class X, class I, class U>
struct tensor_scatter_nd : node<tensor_scatter_nd<Mode, X, I, U>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t x_rank = X::shape_type::rank, index_rank = I::shape_type::rank;
  static constexpr std::size_t depth = I::shape_type::dims[index_rank - 1];
  static constexpr std::size_t update_rank = U::shape_type::rank;
  using mode = Mode;
  using value_type = typename X::value_type;
  using shape_type = typename X::shape_type;
  X x;
  I indices;
  U updates;
  constexpr tensor_scatter_nd(X x_, I i, U u) : x(x_), indices(i), updates(u) {}
  constexpr child_refs<const X&, const I&, const U&> children() const { return {{{x}, {indices}, {updates}}}; }
  template <class Y, class J, class V>
  constexpr auto with_children(const Y& y, const J& j, const V& v) const { return tensor_scatter_nd<Mode, Y, J, V>(y, j, v); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const tensor_scatter_nd&) const { return true; }
  std::string name() const { return Mode::tf_name; }
  extents<x_rank> result_extents(const extents<x_rank>& xe, const extents<index_rank>& ie,
                                 const extents<update_rank>& ue) const {
    const auto expected = detail::sliced_extents<update_rank, depth>(xe, ie);
    if (!staticflow::detail::same_extents(expected, ue))
      throw shape_error(std::string(Mode::function) + ": updates of shape " + staticflow::detail::extents_string(ue) +
                        " for indices of shape " + staticflow::detail::extents_string(ie) + " into shape " +
                        staticflow::detail::extents_string(xe) + " (updates must have shape " +
                        staticflow::detail::extents_string(expected) + ")");
    return xe;
  }
};

}  // namespace graph

namespace detail {
template <class X, class I>
struct nd_index_check {
  using J = typename I::value_type;
  static constexpr std::size_t rank = X::shape_type::rank, index_rank = I::shape_type::rank;
  static constexpr bool integer_indices = std::is_integral<J>::value && std::is_signed<J>::value;
  static_assert(integer_indices, "staticflow: gather_nd / scatter_nd: the indices must be an int32 or int64 tensor");
  static_assert(index_rank >= 1,
                "staticflow: gather_nd / scatter_nd: the indices need a last axis holding each index tuple (shape [..., K])");
  static constexpr std::size_t depth = index_rank >= 1 ? I::shape_type::dims[index_rank - 1] : 0;
  static_assert(index_rank == 0 || depth != dyn,
                "staticflow: gather_nd / scatter_nd: the indices' last axis (the depth K of each index tuple) must be a "
                "static extent (sf::reshape<sf::shape<sf::dyn, 2>>(indices) as tf.reshape(indices, [-1, 2]), an input "
                "signature such as sf::spec<std::int32_t, sf::dyn, 2>, or an xt::xtensor_fixed)");
  static_assert(index_rank == 0 || depth == dyn || (depth >= 1 && depth <= rank),
                "staticflow: gather_nd / scatter_nd: the depth K of the index tuples (the indices' last extent) must be "
                "between 1 and the tensor's rank");
  static constexpr bool ok = integer_indices && index_rank >= 1 && depth != dyn && depth >= 1 && depth <= rank;
};

/// The updates' shape that a scatter of I into X expects, checked where both are static.
template <class X, class I, class U>
struct nd_update_check {
  static constexpr std::size_t depth = I::shape_type::dims[I::shape_type::rank - 1];
  using expected = typename graph::detail::nd_sliced_shape<typename X::shape_type, typename I::shape_type, depth>::type;
  static constexpr bool same_dtype = std::is_same<typename X::value_type, typename U::value_type>::value;
  static_assert(same_dtype, "staticflow: tensor_scatter_nd / scatter_nd: the updates must have the tensor's dtype");
  static constexpr bool rank_ok = U::shape_type::rank == expected::rank;
  static_assert(rank_ok,
                "staticflow: tensor_scatter_nd / scatter_nd: the updates must have rank (indices' rank - 1) + "
                "(tensor's rank - K): shape indices.shape[:-1] + tensor.shape[K:]");
  static constexpr bool extents_ok = [] {
    if constexpr (!rank_ok) {
      return true;
    } else {
      for (std::size_t d = 0; d < expected::rank; ++d)
        if (expected::dims[d] != dyn && U::shape_type::dims[d] != dyn && expected::dims[d] != U::shape_type::dims[d])
          return false;
      return true;
    }
  }();
  static_assert(extents_ok,
                "staticflow: tensor_scatter_nd / scatter_nd: the updates' shape is not indices.shape[:-1] + "
                "tensor.shape[K:]");
  static constexpr bool ok = same_dtype && rank_ok && extents_ok;
};

template <bool Summable>  // keyed on the fact alone: one report for the traced and the eager call
struct scatter_sum_check {
  static_assert(Summable, "staticflow: tensor_scatter_nd_add / _sub / scatter_nd: a bool tensor has no sum (use update)");
  static constexpr bool ok = Summable;
};

template <class Mode, class X, class I, class U>
constexpr auto make_tensor_scatter_nd(const X& x, const I& indices, const U& updates) {
  const auto xn = as_node<void>(x);
  const auto in = as_node<void>(indices);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using IN = std::remove_cvref_t<decltype(in)>;
  const auto un = as_node<typename XN::value_type>(updates);
  using UN = std::remove_cvref_t<decltype(un)>;
  constexpr bool arithmetic = scatter_sum_check<std::is_same<Mode, graph::scatter_update>::value ||
                                                !std::is_same<typename XN::value_type, bool>::value>::ok;
  if constexpr (!nd_index_check<spec_of_node_t<XN>, spec_of_node_t<IN>>::ok || !arithmetic) {
    return xn;
  } else if constexpr (!nd_update_check<spec_of_node_t<XN>, spec_of_node_t<IN>, spec_of_node_t<UN>>::ok) {
    return xn;
  } else {
    return graph::tensor_scatter_nd<Mode, XN, IN, UN>(xn, in, un);
  }
}
}  // namespace detail

/// tf.gather_nd(x, indices): the slices x[indices[p]] for every index tuple p (indices: int32 or
/// int64 of shape [..., K], K static, 1 <= K <= rank of x).
template <detail::tensor_operand X, detail::tensor_operand I>
constexpr auto gather_nd(const X& x, const I& indices) {
  const auto xn = detail::as_node<void>(x);
  const auto in = detail::as_node<void>(indices);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using IN = std::remove_cvref_t<decltype(in)>;
  if constexpr (!detail::nd_index_check<spec_of_node_t<XN>, spec_of_node_t<IN>>::ok) return xn;
  else return graph::gather_nd<XN, IN>(xn, in);
}

/// tf.tensor_scatter_nd_update(x, indices, updates): x with the slice of each index tuple replaced
/// by its update (a tuple given twice: the later one wins).
template <detail::tensor_operand X, detail::tensor_operand I, class U>
constexpr auto tensor_scatter_nd_update(const X& x, const I& indices, const U& updates) {
  return detail::make_tensor_scatter_nd<graph::scatter_update>(x, indices, updates);
}
/// tf.tensor_scatter_nd_add(x, indices, updates): x with each update added to its slice (a tuple
/// given twice adds both, in order).
template <detail::tensor_operand X, detail::tensor_operand I, class U>
constexpr auto tensor_scatter_nd_add(const X& x, const I& indices, const U& updates) {
  return detail::make_tensor_scatter_nd<graph::scatter_add>(x, indices, updates);
}
/// tf.tensor_scatter_nd_sub(x, indices, updates): x with each update subtracted from its slice.
template <detail::tensor_operand X, detail::tensor_operand I, class U>
constexpr auto tensor_scatter_nd_sub(const X& x, const I& indices, const U& updates) {
  return detail::make_tensor_scatter_nd<graph::scatter_sub>(x, indices, updates);
}

/// tf.scatter_nd(indices, updates, shape): zeros of the static shape Shape (`sf::shape<4, 3>{}`)
/// with the updates added at their index tuples; the dtype is the updates'. For a run-time shape,
/// `sf::tensor_scatter_nd_add(sf::zeros_like(x), indices, updates)`.
template <detail::tensor_operand I, detail::tensor_operand U, class Shape>
constexpr auto scatter_nd(const I& indices, const U& updates, Shape s) {
  using T = typename decltype(detail::as_node<void>(updates))::value_type;
  return detail::make_tensor_scatter_nd<graph::scatter_into_zeros>(zeros<T>(s), indices, updates);
}

}  // namespace staticflow
