// staticflow/autodiff/rules_data_movement.hpp -- the adjoints of ops that move data (shape ops,
// reverse, roll, tile, repeat, pad, split, gathers, scatters, diagonals, take_along_axis,
// segments, masks), of random values and softmax, and the gradient nodes' own rules (second
// derivatives). The conventions: autodiff/rules.hpp.
#pragma once

#include "staticflow/autodiff/rules_arithmetic.hpp"

namespace staticflow::autodiff::detail {

// ---- shape ops ----
template <int... P>
constexpr auto inverse_transpose(graph::transpose_kind<P...>) {
  constexpr std::array<int, sizeof...(P)> perm{P...};
  constexpr auto inverse = [=] {
    std::array<int, sizeof...(P)> q{};
    for (std::size_t i = 0; i < q.size(); ++i) q[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
    return q;
  }();
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return graph::transpose_kind<inverse[I]...>{}; }(
      std::make_index_sequence<sizeof...(P)>{});
}

template <class K> struct is_transpose_kind : std::false_type {};
template <int... P> struct is_transpose_kind<graph::transpose_kind<P...>> : std::true_type {};
template <class K> struct is_reshape_kind : std::false_type {};
template <class T> struct is_reshape_kind<graph::reshape_kind<T>> : std::true_type {};
template <class K> struct expand_dims_axis : std::integral_constant<int, 0> { static constexpr bool is = false; };
template <int A> struct expand_dims_axis<graph::expand_dims_kind<A>> : std::integral_constant<int, A> { static constexpr bool is = true; };
template <class K> struct is_squeeze_kind : std::false_type {};
template <int... A> struct is_squeeze_kind<graph::squeeze_kind<A...>> : std::true_type {};

/// The axes a squeeze of a rank-R operand dropped, normalized and in increasing order: putting
/// them back one by one in that order puts each where it was.
template <std::size_t R, int... A>
constexpr std::array<int, sizeof...(A)> squeezed_axes(graph::squeeze_kind<A...>) {
  std::array<int, sizeof...(A)> axes_{static_cast<int>(staticflow::detail::normalize_axis(A, R))...};
  std::sort(axes_.begin(), axes_.end());
  return axes_;
}
template <auto Axes, std::size_t J = 0, class X>
constexpr auto unsqueezed(const X& x) {
  if constexpr (J == Axes.size()) return x;
  else return unsqueezed<Axes, J + 1>(expand_dims(x, axes<Axes[J]>{}));
}
/// Whether reshape can give back shape S (it infers at most one run-time extent).
template <class S>
constexpr bool reshape_target_v = [] {
  std::size_t unknown = 0;
  for (std::size_t d : S::dims) unknown += d == dyn;
  return unknown <= 1;
}();
template <class K> struct is_slice_kind : std::false_type {};
template <int A> struct is_slice_kind<graph::slice_kind<A>> : std::true_type { static constexpr int axis = A; };

template <std::size_t K, class Kind, class A, class G>
constexpr auto child_adjoint(const graph::rearrange<Kind, A>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using GE = std::remove_cvref_t<decltype(ge)>;
  if constexpr (is_transpose_kind<Kind>::value) {
    using inverse = decltype(inverse_transpose(Kind{}));
    return graph::rearrange<inverse, GE>(ge, inverse{});
  } else if constexpr (is_squeeze_kind<Kind>::value && !reshape_target_v<typename A::shape_type>) {
    // (more than one run-time extent: reshape cannot say the shape, the squeezed axes can)
    return unsqueezed<squeezed_axes<A::shape_type::rank>(Kind{})>(ge);
  } else if constexpr (is_reshape_kind<Kind>::value || is_squeeze_kind<Kind>::value) {
    return reshape<typename A::shape_type>(ge);
  } else if constexpr (expand_dims_axis<Kind>::is) {
    return squeeze(ge, axes<expand_dims_axis<Kind>::value>{});
  } else if constexpr (std::is_same<Kind, graph::expand_dims_at_kind>::value) {
    // summed along the axis rather than squeezed: the adjoint may come broadcast along it, which
    // a run-time axis's type cannot show (the axis counts in the result's rank for both)
    return graph::reduce<op::reduce_sum, GE, runtime_axis, false>(ge, runtime_axis{n.params.axis});
  } else if constexpr (std::is_same<Kind, graph::squeeze_at_kind>::value) {
    return graph::rearrange<graph::expand_dims_at_kind, GE>(ge, {n.params.axis});
  } else if constexpr (is_slice_kind<Kind>::value) {
    return graph::slice_gradient<is_slice_kind<Kind>::axis, GE, A>(ge, n.a, n.params.begin, n.params.size);
  } else {
    static_assert(always_false<Kind>, "staticflow: sf::gradients: this shape op has no gradient rule yet");
    return zero_adjoint{};
  }
}

/// concat: each part's adjoint is its window of the output's (TF's ConcatGrad).
template <std::size_t K, int Axis, class... A, class G>
constexpr auto child_adjoint(const graph::concat<Axis, A...>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  return graph::concat_gradient<K, Axis, std::remove_cvref_t<decltype(ge)>, A...>(ge, n.parts);
}

/// x[i]: zeros of x's shape with the adjoint at row i (the index, an integer, gets none).
template <std::size_t K, class X, class I, class G>
constexpr auto child_adjoint(const graph::take<X, I>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  return graph::take_gradient<std::remove_cvref_t<decltype(ge)>, X, I>(ge, n.a, n.index);
}

/// A tensor-array write (a scan's results, control/tensor_array.hpp): the array gets the adjoint
/// but at the written element, the element gets the adjoint's row there (the index: none).
template <std::size_t K, class A, class I, class V, class G>
constexpr auto child_adjoint(const graph::ta_write<A, I, V>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using GE = std::remove_cvref_t<decltype(ge)>;
  const auto row = graph::take<GE, I>(ge, n.index);
  if constexpr (K == 0) return ge - graph::take_gradient<std::remove_cvref_t<decltype(row)>, GE, I>(row, ge, n.index);
  else if constexpr (K == 1) return zero_adjoint{};
  else return row;
}

// ---- reverse, roll, tile, repeat, pad, split: the adjoint of each result element added back
// where it was read (graph/data_movement.hpp) ----
template <std::size_t K, class Kind, class A, class G>
constexpr auto child_adjoint(const graph::axis_map<Kind, A>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  return graph::axis_map_gradient<Kind, std::remove_cvref_t<decltype(ge)>, A>(ge, n.a, n.params);
}

// ---- gather: the adjoint of each gathered slice added back where it was read (the indices are
// integers: no adjoint) ----
template <std::size_t K, class X, class I, std::size_t Axis, class G>
constexpr auto child_adjoint(const graph::gather<X, I, Axis>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  return graph::gather_gradient<std::remove_cvref_t<decltype(ge)>, X, I, Axis>(ge, n.x, n.indices);
}

// ---- gather_nd and the scatters (graph/scatter.hpp): gather_nd's adjoint added back at the slices
// its tuples read (TF's ScatterNd); a scatter's adjoint passes to x (but for the slices an update
// replaced) and is gathered from the tuples' slices for the updates (negated for sub; for a tuple
// given twice to update, both updates get it, as TF's rule). The indices are integers: no adjoint.
template <std::size_t K, class X, class I, class G>
constexpr auto child_adjoint(const graph::gather_nd<X, I>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  const auto zeros = zeros_like(n.x);
  return graph::tensor_scatter_nd<graph::scatter_add, std::remove_cvref_t<decltype(zeros)>, I,
                                  std::remove_cvref_t<decltype(ge)>>(zeros, n.indices, ge);
}
template <std::size_t K, class Mode, class X, class I, class U, class G>
constexpr auto child_adjoint(const graph::tensor_scatter_nd<Mode, X, I, U>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using GE = std::remove_cvref_t<decltype(ge)>;
  if constexpr (K == 1) {
    return zero_adjoint{};
  } else if constexpr (K == 0 && std::is_same<Mode, graph::scatter_update>::value) {
    const auto zeros = zeros_like(n.updates);
    return graph::tensor_scatter_nd<graph::scatter_update, GE, I, std::remove_cvref_t<decltype(zeros)>>(ge, n.indices, zeros);
  } else if constexpr (K == 0) {
    return ge;
  } else {
    const auto picked = graph::gather_nd<GE, I>(ge, n.indices);
    if constexpr (std::is_same<Mode, graph::scatter_sub>::value) return -picked;
    else return picked;
  }
}

// ---- diag_part and set_diag (graph/linalg.hpp), each other's transposes (TF's rules): diag_part
// puts its adjoint on the diagonal of zeros; set_diag passes its adjoint to x but for the
// diagonal, which goes to the diagonal operand. (Linear, so the second derivatives follow.)
template <std::size_t K, class X, bool Square, class G>
constexpr auto child_adjoint(const graph::diag_part<X, Square>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  const auto zeros = zeros_like(n.x);
  return graph::set_diag<std::remove_cvref_t<decltype(zeros)>, std::remove_cvref_t<decltype(ge)>>(zeros, ge);
}
template <std::size_t K, class X, class D, class G>
constexpr auto child_adjoint(const graph::set_diag<X, D>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using GE = std::remove_cvref_t<decltype(ge)>;
  if constexpr (K == 0) {
    const auto zeros = zeros_like(n.diagonal);
    return graph::set_diag<GE, std::remove_cvref_t<decltype(zeros)>>(ge, zeros);
  } else {
    return graph::diag_part<GE>(ge);
  }
}

// ---- take_along_axis (sort, top_k): the adjoint added back where each value was read (the
// positions are integers: no adjoint) ----
template <std::size_t K, class X, class P, std::size_t Axis, class G>
constexpr auto child_adjoint(const graph::take_along_axis<X, P, Axis>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  return graph::take_along_axis_gradient<std::remove_cvref_t<decltype(ge)>, X, P, Axis>(ge, n.x, n.positions);
}

// ---- second derivatives: the gradient nodes above are linear in the adjoint they hold (child 0),
// so their own adjoint is the forward op applied to it (the transpose of a transpose). The other
// children are read for their extents (the operand) or are integers (indices, positions): none.
template <std::size_t K, class H, class X, class I, class G>
constexpr auto child_adjoint(const graph::take_gradient<H, X, I>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::take<std::remove_cvref_t<decltype(ge)>, I>(ge, n.index);
  }
}
template <std::size_t K, class Kind, class H, class A, class G>
constexpr auto child_adjoint(const graph::axis_map_gradient<Kind, H, A>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    auto linear = n.params;  // the linear part of the map: a constant pad pads with zeros
    if constexpr (requires { linear.fill; }) linear.fill = {};
    return graph::axis_map<Kind, std::remove_cvref_t<decltype(ge)>>(ge, linear);
  }
}
template <std::size_t K, class H, class X, class I, std::size_t Axis, class G>
constexpr auto child_adjoint(const graph::gather_gradient<H, X, I, Axis>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::gather<std::remove_cvref_t<decltype(ge)>, I, Axis>(ge, n.indices);
  }
}

// ---- segment sums (graph/segment.hpp): data gets the adjoint's row at each id, zeros where the
// id is negative (TF's _GatherDropNegatives); that gather's own adjoint is the segment sum again
// (both are linear). The ids are integers and data is read for its extents there: no adjoint.
template <std::size_t K, class Kind, class X, class I, std::size_t N, class G>
constexpr auto child_adjoint(const graph::segment_sum<Kind, X, I, N>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  return graph::segment_sum_gradient<Kind, std::remove_cvref_t<decltype(ge)>, X, I, N>(ge, n.data, n.ids, n.num_segments);
}
template <std::size_t K, class Kind, class H, class X, class I, std::size_t N, class G>
constexpr auto child_adjoint(const graph::segment_sum_gradient<Kind, H, X, I, N>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::segment_sum<Kind, std::remove_cvref_t<decltype(ge)>, I, N>(ge, n.ids, n.num_segments);
  }
}
// ---- rows selected by data (graph/masking.hpp: boolean_mask, repeat by a tensor): the tensor
// gets the adjoint's rows added back where they were read, zeros elsewhere; that sum's adjoint is
// the selection again (both linear). The selector (bool, integers) has no adjoint; the tensor is
// read for its extents there.
template <std::size_t K, class Kind, class X, class M, std::size_t Axis, class G>
constexpr auto child_adjoint(const graph::selected_rows<Kind, X, M, Axis>& n, const G& g) {
  static_assert(K == 0);
  const auto ge = to_value_spec(g, n);
  return graph::selected_rows_gradient<Kind, std::remove_cvref_t<decltype(ge)>, X, M, Axis>(ge, n.tensor, n.mask);
}
template <std::size_t K, class Kind, class H, class X, class M, std::size_t Axis, class G>
constexpr auto child_adjoint(const graph::selected_rows_gradient<Kind, H, X, M, Axis>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::selected_rows<Kind, std::remove_cvref_t<decltype(ge)>, M, Axis>(ge, n.mask);
  }
}
template <std::size_t K, class H, class X, class P, std::size_t Axis, class G>
constexpr auto child_adjoint(const graph::take_along_axis_gradient<H, X, P, Axis>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::take_along_axis<std::remove_cvref_t<decltype(ge)>, P, Axis>(ge, n.positions);
  }
}

/// slice's gradient (the adjoint put into zeros at the window): its own adjoint is the window.
template <std::size_t K, int Axis, class H, class A, class G>
constexpr auto child_adjoint(const graph::slice_gradient<Axis, H, A>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::rearrange<graph::slice_kind<Axis>, std::remove_cvref_t<decltype(ge)>>(ge, {n.begin, n.size});
  }
}
/// Part J of the adjoint of concat's gradient (part P's window): the adjoint itself at P, zeros
/// shaped like the other parts (read for their extents).
template <std::size_t J, std::size_t P, class GE, class Part>
constexpr auto concat_gradient_piece(const GE& ge, const Part& part) {
  if constexpr (J == P) return ge;
  else return broadcast_like(graph::literal<typename GE::value_type>(typename GE::value_type(0)), part);
}
/// concat's gradient (a window of the adjoint): its own adjoint is the concatenation of h with
/// zeros where the other parts were.
template <std::size_t K, std::size_t P, int Axis, class H, class... A, class G>
constexpr auto child_adjoint(const graph::concat_gradient<P, Axis, H, A...>& n, const G& g) {
  if constexpr (K != 0) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
      return graph::concat<Axis, std::remove_cvref_t<decltype(concat_gradient_piece<J, P>(ge, staticflow::detail::get<J>(n.parts)))>...>(
          concat_gradient_piece<J, P>(ge, staticflow::detail::get<J>(n.parts))...);
    }(std::index_sequence_for<A...>{});
  }
}
/// conv2d's gradients are bilinear in (the other operand, the output's gradient g):
///   Bi(f, g) = C_f^T g, and <e, Bi(f, g)> = <conv2d(e, f), g>: d/dg = conv2d(e, f), d/df = Bf(e, g);
///   Bf(x, g) = D_x^T g, and <e, Bf(x, g)> = <conv2d(x, e), g>: d/dg = conv2d(x, e), d/dx = Bi(e, g).
/// The operand a gradient is taken for is read for its extents only: none.
template <std::size_t K, class Wrt, class X, class F, class H, class Opt, class G>
constexpr auto child_adjoint(const graph::conv2d_gradient<Wrt, X, F, H, Opt>& n, const G& g) {
  constexpr bool image = graph::conv2d_gradient<Wrt, X, F, H, Opt>::wrt_image;
  const auto ge = to_value_spec(g, n);
  using E = std::remove_cvref_t<decltype(ge)>;
  if constexpr (K == 2 && image) return graph::conv2d<E, F, Opt>(ge, n.f);
  else if constexpr (K == 2) return graph::conv2d<X, E, Opt>(n.x, ge);
  else if constexpr (K == 1 && image) return graph::conv2d_gradient<graph::conv2d_wrt_filter, E, F, H, Opt>(ge, n.f, n.g);
  else if constexpr (K == 0 && !image) return graph::conv2d_gradient<graph::conv2d_wrt_image, X, E, H, Opt>(n.x, ge, n.g);
  else return zero_adjoint{};
}
/// depthwise_conv2d and its gradients: the same bilinear identities as conv2d's, with the
/// depthwise operators (graph/depthwise_conv.hpp).
template <std::size_t K, class X, class F, class Opt, class G>
constexpr auto child_adjoint(const graph::depthwise_conv2d<X, F, Opt>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using E = std::remove_cvref_t<decltype(ge)>;
  using wrt = std::conditional_t<K == 0, graph::conv2d_wrt_image, graph::conv2d_wrt_filter>;
  return graph::depthwise_conv2d_gradient<wrt, X, F, E, Opt>(n.x, n.f, ge);
}
template <std::size_t K, class Wrt, class X, class F, class H, class Opt, class G>
constexpr auto child_adjoint(const graph::depthwise_conv2d_gradient<Wrt, X, F, H, Opt>& n, const G& g) {
  constexpr bool image = graph::depthwise_conv2d_gradient<Wrt, X, F, H, Opt>::wrt_image;
  const auto ge = to_value_spec(g, n);
  using E = std::remove_cvref_t<decltype(ge)>;
  if constexpr (K == 2 && image) return graph::depthwise_conv2d<E, F, Opt>(ge, n.f);
  else if constexpr (K == 2) return graph::depthwise_conv2d<X, E, Opt>(n.x, ge);
  else if constexpr (K == 1 && image) return graph::depthwise_conv2d_gradient<graph::conv2d_wrt_filter, E, F, H, Opt>(ge, n.f, n.g);
  else if constexpr (K == 0 && !image) return graph::depthwise_conv2d_gradient<graph::conv2d_wrt_image, X, E, H, Opt>(n.x, ge, n.g);
  else return zero_adjoint{};
}
/// conv3d and its gradients: conv2d's rules with the 3-D nodes (graph/conv3d.hpp).
template <std::size_t K, class X, class F, class Opt, class G>
constexpr auto child_adjoint(const graph::conv3d<X, F, Opt>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using E = std::remove_cvref_t<decltype(ge)>;
  using wrt = std::conditional_t<K == 0, graph::conv2d_wrt_image, graph::conv2d_wrt_filter>;
  return graph::conv3d_gradient<wrt, X, F, E, Opt>(n.x, n.f, ge);
}
template <std::size_t K, class Wrt, class X, class F, class H, class Opt, class G>
constexpr auto child_adjoint(const graph::conv3d_gradient<Wrt, X, F, H, Opt>& n, const G& g) {
  constexpr bool image = graph::conv3d_gradient<Wrt, X, F, H, Opt>::wrt_image;
  const auto ge = to_value_spec(g, n);
  using E = std::remove_cvref_t<decltype(ge)>;
  if constexpr (K == 2 && image) return graph::conv3d<E, F, Opt>(ge, n.f);
  else if constexpr (K == 2) return graph::conv3d<X, E, Opt>(n.x, ge);
  else if constexpr (K == 1 && image) return graph::conv3d_gradient<graph::conv2d_wrt_filter, E, F, H, Opt>(ge, n.f, n.g);
  else if constexpr (K == 0 && !image) return graph::conv3d_gradient<graph::conv2d_wrt_image, X, E, H, Opt>(n.x, ge, n.g);
  else return zero_adjoint{};
}
/// Both poolings' gradients A^T g are linear in g: <e, A^T g> = <A e, g>, so the adjoint for g
/// is A e: avg_pool of e, or for max_pool e read at each window's first maximum in x
/// (MaxPoolGradGrad). x only picks the maxima: no adjoint flows to it (TF's rule).
template <std::size_t K, class Kind, class X, class H, class P, class G>
constexpr auto child_adjoint(const graph::pool_gradient<Kind, X, H, P>& n, const G& g) {
  if constexpr (K != 1) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    using E = std::remove_cvref_t<decltype(ge)>;
    if constexpr (std::is_same<Kind, graph::max_pooling>::value) return graph::max_pool_gradient_gradient<X, E, P>(n.x, ge);
    else return graph::pool<Kind, E, P>(ge);
  }
}
/// MaxPoolGradGrad is linear in e, its adjoint MaxPoolGrad of the same x: third derivatives close.
template <std::size_t K, class X, class E, class P, class G>
constexpr auto child_adjoint(const graph::max_pool_gradient_gradient<X, E, P>& n, const G& g) {
  if constexpr (K != 1) {
    return zero_adjoint{};
  } else {
    const auto ge = to_value_spec(g, n);
    return graph::pool_gradient<graph::max_pooling, X, std::remove_cvref_t<decltype(ge)>, P>(n.x, ge);
  }
}

// ---- random values: no gradient to the seed (an integer) or to the tensor whose shape they take
// (read for its extents only), as TF's stateless ops ----
template <std::size_t K, class Dist, class T, class S, class Seed, class Like, class G>
constexpr zero_adjoint child_adjoint(const graph::random_values<Dist, T, S, Seed, Like>&, const G&) {
  return {};
}

// ---- softmax / log_softmax ----
template <std::size_t K, class Kind, class A, int Axis, class G>
constexpr auto child_adjoint(const graph::softmax_node<Kind, A, Axis>& n, const G& g) {
  constexpr int ax = static_cast<int>(graph::softmax_node<Kind, A, Axis>::axis);
  const auto ge = to_value_spec(g, n);
  if constexpr (std::is_same<Kind, graph::softmax_kind>::value)
    return n * (ge - reduce_sum(ge * n, axes<ax>{}, keepdims));  // y (g - <g, y>)
  else
    return ge - exp(n) * reduce_sum(ge, axes<ax>{}, keepdims);    // g - softmax * sum(g)
}

}  // namespace staticflow::autodiff::detail
