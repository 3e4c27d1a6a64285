// staticflow/autodiff/rules_arithmetic.hpp -- the adjoints of elementwise ops, reductions, products
// (matmul), convolutions, cumulative ops and pooling, and the fallback for a node without a rule
// (a compile error). The conventions and `child_adjoint<K>(n, g)`: autodiff/rules.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/forward_values.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/graph/composites.hpp"
#include "staticflow/graph/conv.hpp"
#include "staticflow/graph/cumulative.hpp"
#include "staticflow/graph/data_movement.hpp"
#include "staticflow/graph/gather.hpp"
#include "staticflow/graph/conv3d.hpp"
#include "staticflow/graph/depthwise_conv.hpp"
#include "staticflow/graph/linalg.hpp"
#include "staticflow/graph/scatter.hpp"
#include "staticflow/graph/masking.hpp"
#include "staticflow/graph/segment.hpp"
#include "staticflow/graph/sorting.hpp"
#include "staticflow/graph/pool.hpp"
#include "staticflow/graph/random.hpp"
#include "staticflow/graph/shape_gradients.hpp"
#include "staticflow/graph/math.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::autodiff::detail {
using staticflow::detail::always_false;

/// Any node without a rule: a compile error (the node's type is in the instantiation context).
template <std::size_t K, class N, class G>
constexpr zero_adjoint child_adjoint(const N&, const G&) {
  static_assert(always_false<N>,
                "staticflow: sf::gradients: this op has no gradient rule yet (the node type is named in "
                "the instantiation context: child_adjoint<K, node, adjoint>)");
  return {};
}

/// The forward value of a transcendental node (tanh, exp, sigmoid) as its adjoint reads it:
/// recomputed inside the fused gradient loop when its operand is small, stored once per call (a
/// slot) when the operand's tree has more than 4 leaves. The adjoint is copied into the
/// contribution of every leaf below the node, and each copy inlines the whole xsimd function into
/// every gradient loop: the gradient of a 10-node chain with one tanh took g++ -O2 40 s recomputed,
/// 12 s stored (the forward alone: 5.4 s). A small operand keeps the recomputation, which is
/// faster at run time (no buffer): sum(tanh(x * w + b)) w.r.t. w.
template <class N>
constexpr auto transcendental_value(const N& n) {
  if constexpr (tree_leaf_count<std::remove_cvref_t<decltype(n.a)>>::value > 4) return graph::stored<N>(n);
  else return n;
}

/// The operand of a unary node as the adjoint of a math function reads it (cos(a) for sin(a)):
/// like transcendental_value, stored once per call when its tree has more than 4 leaves.
template <class N>
constexpr auto operand_value(const N& n) {
  if constexpr (fused_leaf_count<std::remove_cvref_t<decltype(n.a)>>::value > stored_forward_leaves)
    return graph::stored<std::remove_cvref_t<decltype(n.a)>>(n.a);
  else return n.a;
}

/// The adjoints of graph/math_ops.hpp's functions; rounding and sign are flat (zero, as TF).
template <class Op, class A, class G>
constexpr auto math_adjoint(const graph::unary<Op, A>& n, const G& g) {
  using T = typename graph::unary<Op, A>::value_type;
  constexpr T two_over_sqrt_pi = T(1.12837916709551257390);
  constexpr T ln2 = T(0.69314718055994530942);
  if constexpr (std::is_same<Op, op::floor>::value || std::is_same<Op, op::ceil>::value || std::is_same<Op, op::round>::value ||
                std::is_same<Op, op::sign>::value) {
    return zero_adjoint{};
  } else {
    const auto a = operand_value(n);
    if constexpr (std::is_same<Op, op::sin>::value) return g * cos(a);
    else if constexpr (std::is_same<Op, op::cos>::value) return -g * sin(a);
    else if constexpr (std::is_same<Op, op::tan>::value) return g / square(cos(a));
    else if constexpr (std::is_same<Op, op::asin>::value) return g * rsqrt(T(1) - square(a));
    else if constexpr (std::is_same<Op, op::acos>::value) return -g * rsqrt(T(1) - square(a));
    else if constexpr (std::is_same<Op, op::atan>::value) return g / (square(a) + T(1));
    else if constexpr (std::is_same<Op, op::sinh>::value) return g * cosh(a);
    else if constexpr (std::is_same<Op, op::cosh>::value) return g * sinh(a);
    else if constexpr (std::is_same<Op, op::asinh>::value) return g * rsqrt(square(a) + T(1));
    else if constexpr (std::is_same<Op, op::acosh>::value) return g * rsqrt(square(a) - T(1));
    else if constexpr (std::is_same<Op, op::atanh>::value) return g / (T(1) - square(a));
    else if constexpr (std::is_same<Op, op::reciprocal>::value) return -g * square(transcendental_value(n));
    else if constexpr (std::is_same<Op, op::rsqrt>::value) return g * T(-0.5) * transcendental_value(n) / a;
    else if constexpr (std::is_same<Op, op::log1p>::value) return g / (a + T(1));
    else if constexpr (std::is_same<Op, op::expm1>::value) return g * exp(a);
    else if constexpr (std::is_same<Op, op::log2>::value) return g / (a * ln2);
    else if constexpr (std::is_same<Op, op::exp2>::value) return g * transcendental_value(n) * ln2;
    else if constexpr (std::is_same<Op, op::erf>::value) return g * two_over_sqrt_pi * exp(-square(a));
    else if constexpr (std::is_same<Op, op::erfc>::value) return -g * two_over_sqrt_pi * exp(-square(a));
    else if constexpr (std::is_same<Op, op::softplus>::value) return g * sigmoid(a);
    else {
      static_assert(always_false<Op>, "staticflow: sf::gradients: this elementwise op has no gradient rule");
      return zero_adjoint{};
    }
  }
}

template <class Op>
inline constexpr bool is_math_function =
    std::is_same<Op, op::sin>::value || std::is_same<Op, op::cos>::value || std::is_same<Op, op::tan>::value ||
    std::is_same<Op, op::asin>::value || std::is_same<Op, op::acos>::value || std::is_same<Op, op::atan>::value ||
    std::is_same<Op, op::sinh>::value || std::is_same<Op, op::cosh>::value || std::is_same<Op, op::asinh>::value ||
    std::is_same<Op, op::acosh>::value || std::is_same<Op, op::atanh>::value || std::is_same<Op, op::floor>::value ||
    std::is_same<Op, op::ceil>::value || std::is_same<Op, op::round>::value || std::is_same<Op, op::sign>::value ||
    std::is_same<Op, op::reciprocal>::value || std::is_same<Op, op::rsqrt>::value || std::is_same<Op, op::log1p>::value ||
    std::is_same<Op, op::expm1>::value || std::is_same<Op, op::log2>::value || std::is_same<Op, op::exp2>::value ||
    std::is_same<Op, op::erf>::value || std::is_same<Op, op::erfc>::value || std::is_same<Op, op::softplus>::value;

// ---- elementwise ----
template <std::size_t K, class Op, class A, class G>
constexpr auto child_adjoint(const graph::unary<Op, A>& n, const G& g) {
  using T = typename graph::unary<Op, A>::value_type;
  const auto& a = n.a;
  if constexpr (std::is_same<Op, op::negate>::value) return -g;
  else if constexpr (std::is_same<Op, op::abs>::value) return where(a > T(0), g, where(a < T(0), -g, T(0)));
  else if constexpr (std::is_same<Op, op::square>::value) return g * a * T(2);
  else if constexpr (std::is_same<Op, op::sqrt>::value) return g * T(0.5) / n;
  else if constexpr (std::is_same<Op, op::exp>::value) return g * transcendental_value(n);
  else if constexpr (std::is_same<Op, op::log>::value) return g / a;
  else if constexpr (std::is_same<Op, op::tanh>::value) return g * (T(1) - square(transcendental_value(n)));
  else if constexpr (std::is_same<Op, op::sigmoid>::value) return g * (transcendental_value(n) - square(transcendental_value(n)));
  else if constexpr (std::is_same<Op, op::relu>::value) return where(a > T(0), g, T(0));
  else if constexpr (std::is_same<Op, op::identity>::value) return g;
  else if constexpr (std::is_same<Op, op::stop_gradient>::value) return zero_adjoint{};
  else if constexpr (is_math_function<Op>) return math_adjoint(n, g);
  else {
    static_assert(always_false<Op>, "staticflow: sf::gradients: this elementwise op has no gradient rule");
    return zero_adjoint{};
  }
}

template <std::size_t K, class Op, class A, class B, class G>
constexpr auto child_adjoint(const graph::binary<Op, A, B>& n, const G& g) {
  using T = typename graph::binary<Op, A, B>::compute_type;
  const auto& a = n.a;
  const auto& b = n.b;
  if constexpr (std::is_same<Op, op::add>::value) return g;
  else if constexpr (std::is_same<Op, op::subtract>::value) {
    if constexpr (K == 0) return g;
    else return -g;
  } else if constexpr (std::is_same<Op, op::multiply>::value) {
    if constexpr (K == 0) return g * b;
    else return g * a;
  } else if constexpr (std::is_same<Op, op::divide>::value) {
    if constexpr (K == 0) return g / b;
    else return -g * n / b;
  } else if constexpr (std::is_same<Op, op::mod>::value) {
    if constexpr (K == 0) return g;
    else return -g * cast<T>(cast<std::int64_t>(a / b));  // trunc(a / b)
  } else if constexpr (std::is_same<Op, op::floormod>::value) {
    if constexpr (K == 0) return g;
    else return -g * floordiv(a, b);
  } else if constexpr (std::is_same<Op, op::floordiv>::value) {
    return zero_adjoint{};
  } else if constexpr (std::is_same<Op, op::pow>::value) {
    if constexpr (K == 0) return g * b * pow(a, b - T(1));
    else return where(a > T(0), g * n * log(a), T(0));
  } else if constexpr (std::is_same<Op, op::maximum>::value) {
    if constexpr (K == 0) return where(a >= b, g, T(0));
    else return where(a >= b, T(0), g);
  } else if constexpr (std::is_same<Op, op::minimum>::value) {
    if constexpr (K == 0) return where(a <= b, g, T(0));
    else return where(a <= b, T(0), g);
  } else if constexpr (std::is_same<Op, op::atan2>::value) {  // atan2(y, x): (x, -y) / (x^2 + y^2)
    if constexpr (K == 0) return g * b / (square(a) + square(b));
    else return -g * a / (square(a) + square(b));
  } else {
    static_assert(always_false<Op>, "staticflow: sf::gradients: this elementwise op has no gradient rule");
    return zero_adjoint{};
  }
}

// where(c, a, b): the adjoint goes to the operand chosen, element by element.
template <std::size_t K, class C, class A, class B, class G>
constexpr auto child_adjoint(const graph::select<C, A, B>& n, const G& g) {
  using T = typename graph::select<C, A, B>::value_type;
  static_assert(K != 0);  // the condition is bool: no adjoint
  if constexpr (K == 1) return where(n.c, g, T(0));
  else return where(n.c, T(0), g);
}

template <std::size_t K, class U, class A, class G>
constexpr auto child_adjoint(const graph::cast<U, A>&, const G& g) {
  return g;  // brought to the operand's dtype by the walk
}

template <std::size_t K, class S, class A, class G>
constexpr auto child_adjoint(const graph::broadcast<S, A>&, const G& g) {
  return g;  // summed back over the broadcast axes where the operand's shape is needed
}

template <std::size_t K, class A, class R, class G>
constexpr auto child_adjoint(const graph::broadcast_as<A, R>&, const G& g) {
  if constexpr (K == 0) return g;  // summed back over the broadcast axes, as for broadcast
  else return zero_adjoint{};      // the reference gives extents only
}

template <std::size_t K, class A, class G>
constexpr auto child_adjoint(const graph::stored<A>& n, const G& g) {
  return to_value_spec(g, n);
}

template <std::size_t K, class Key, class G>
constexpr auto child_adjoint(const graph::shared_node<Key>&, const G& g) {
  return g;  // a planner's mark: the value is its child's
}

// ---- reductions ----
/// The reduced axes of reduction N (operand rank R), in increasing order.
template <class N, std::size_t R>
struct reduced_axes_of {
  static constexpr auto mask = graph::detail::reduced_axes<typename N::axes_type, R>::mask;
  static constexpr std::size_t count = [] {
    std::size_t c = 0;
    for (bool b : mask) c += b;
    return c;
  }();
  static constexpr std::array<int, count> value = [] {
    std::array<int, count> r{};
    for (std::size_t i = 0, j = 0; i < R; ++i)
      if (mask[i]) r[j++] = static_cast<int>(i);
    return r;
  }();
};
/// x with an axis of extent 1 inserted at each of Reduced::value[J...] (increasing).
template <class Reduced, std::size_t J, class X>
constexpr auto expand_each(const X& x) {
  if constexpr (J == Reduced::count) return x;
  else return expand_each<Reduced, J + 1>(expand_dims(x, axes<Reduced::value[J]>{}));
}

/// x (shaped like reduction N's result) with N's reduced axes put back with extent 1, so that it
/// broadcasts against N's operand. Not needed when N kept them, reduced every axis (x is 0-d), or
/// reduced only leading axes (NumPy broadcasting aligns on the right).
template <class N, class X>
constexpr auto with_reduced_axes_kept(const X& x) {
  constexpr std::size_t R = std::remove_cvref_t<decltype(N::a)>::shape_type::rank;
  constexpr auto mask = graph::detail::reduced_axes<typename N::axes_type, R>::mask;
  constexpr bool leading_only = [=] {
    bool seen_kept = false;
    for (std::size_t i = 0; i < R; ++i) {
      if (!mask[i]) seen_kept = true;
      else if (seen_kept) return false;
    }
    return true;
  }();
  if constexpr (N::keep_dims || N::shape_type::rank == 0 || leading_only) {
    return x;
  } else {
    return expand_each<reduced_axes_of<N, R>, 0>(x);
  }
}

/// The number of elements each result element of reduction n summed, as a T scalar node.
template <class T, class N>
constexpr auto reduced_count(const N& n) {
  using S = typename std::remove_cvref_t<decltype(n.a)>::shape_type;
  constexpr auto mask = graph::detail::reduced_axes<typename N::axes_type, S::rank>::mask;
  constexpr bool static_count = [=] {
    for (std::size_t i = 0; i < S::rank; ++i)
      if (mask[i] && S::dims[i] == dyn) return false;
    return true;
  }();
  if constexpr (static_count) {
    constexpr std::size_t c = [=] {
      std::size_t p = 1;
      for (std::size_t i = 0; i < S::rank; ++i)
        if (mask[i]) p *= S::dims[i];
      return p;
    }();
    return graph::literal<T>(static_cast<T>(c));
  } else {
    return cast<T>(staticflow::size(n.a)) / cast<T>(staticflow::size(n));
  }
}

// ---- reduce_prod: TF's _ProdGrad, products of the other elements from exclusive cumprods ----
/// For each element of x, the product of the other elements of its line along `axis`: the
/// exclusive running products from both ends, multiplied. No division, so a zero in the line
/// gives the right (finite) adjoint, as TensorFlow's rule does.
template <class X>
constexpr auto product_of_others_along(const X& x, int axis) {
  return graph::cumulative<graph::cumulative_product, X, true, false>(x, axis) *
         graph::cumulative<graph::cumulative_product, X, true, true>(x, axis);
}
/// For each element of x, the product of the other elements of its group over the first J axes
/// of Reduced: the others of its line along the last of them, times the others of its line's
/// product (reduce_prod along that axis, kept) over the rest, broadcast back along it.
template <class Reduced, std::size_t J, class X>
constexpr auto product_of_others(const X& x) {
  constexpr int a = Reduced::value[J - 1];
  const auto along = product_of_others_along(x, a);
  if constexpr (J == 1) {
    return along;
  } else {
    const auto lines = graph::reduce<op::reduce_prod, X, axes<a>, true>(x, axes<a>{});
    return along * product_of_others<Reduced, J - 1>(lines);
  }
}

/// x, shaped like reduction n's result, with n's run-time axis put back (extent 1) unless n kept it.
template <class N, class X>
constexpr auto with_runtime_axis_kept(const N& n, const X& x) {
  if constexpr (N::keep_dims) return x;
  else return graph::rearrange<graph::expand_dims_at_kind, X>(x, {n.axes.axis});
}

/// Adjoint g of reduction n (along a run-time axis) as a value of n's result with that axis kept.
/// A kept axis is summed before g is brought to n's spec: the adjoint comes unreduced
/// (autodiff/adjoint_shape.hpp), and where the result was broadcast along its kept axis
/// (`x - reduce_mean(x, -1, sf::keepdims)`) n's type cannot say so (the axis's extent is 1 at run
/// time only), which to_value_spec would refuse as a broadcast it cannot sum over.
template <class N, class G>
constexpr auto runtime_axis_kept_adjoint(const N& n, const G& g) {
  constexpr std::size_t rank = N::shape_type::rank, g_rank = G::shape_type::rank;
  if constexpr (!N::keep_dims) {
    return with_runtime_axis_kept(n, to_value_spec(g, n));
  } else if constexpr (g_rank < rank) {  // g is broadcast up: nothing to sum
    return to_value_spec(g, n);
  } else {
    const int k = n.axes.axis < 0 ? n.axes.axis : n.axes.axis + static_cast<int>(g_rank - rank);  // g's leading axes
    return to_value_spec(graph::reduce<op::reduce_sum, G, runtime_axis, true>(g, runtime_axis{k}), n);
  }
}

/// The adjoint of a reduction along a run-time axis (a plain int), from gk (runtime_axis_kept_adjoint):
/// the axis is a number the call brings, so it was put back by a run-time expand_dims, and the
/// adjoint is broadcast to the operand's own shape (its dims may be static where the reduction's
/// are not).
template <class Op, class N, class GK>
constexpr auto runtime_axis_adjoint(const N& n, const GK& gk) {
  using T = typename N::value_type;
  using A = std::remove_cvref_t<decltype(n.a)>;
  const auto spread = graph::broadcast_as<std::remove_cvref_t<decltype(gk)>, A>(gk, n.a);
  if constexpr (std::is_same<Op, op::reduce_sum>::value) {
    return spread;
  } else if constexpr (std::is_same<Op, op::reduce_mean>::value) {
    return spread / (cast<T>(staticflow::size(n.a)) / cast<T>(staticflow::size(n)));
  } else if constexpr (std::is_same<Op, op::reduce_max>::value || std::is_same<Op, op::reduce_min>::value) {
    // the elements equal to the extremum share the adjoint equally, as along static axes
    const auto extremum = with_runtime_axis_kept(n, n);
    const auto hit = cast<T>(n.a == graph::broadcast_as<std::remove_cvref_t<decltype(extremum)>, A>(extremum, n.a));
    using H = std::remove_cvref_t<decltype(hit)>;
    return spread * hit / graph::reduce<op::reduce_sum, H, runtime_axis, true>(hit, n.axes);
  } else {
    static_assert(std::is_same<Op, op::reduce_prod>::value);
    return spread * product_of_others_along(n.a, n.axes.axis);
  }
}

template <std::size_t K, class Op, class A, class Axes, bool Keep, class G>
constexpr auto child_adjoint(const graph::reduce<Op, A, Axes, Keep>& n, const G& g) {
  using N = graph::reduce<Op, A, Axes, Keep>;
  using T = typename N::value_type;
  if constexpr (std::is_same<Axes, runtime_axis>::value) {
    return runtime_axis_adjoint<Op>(n, runtime_axis_kept_adjoint(n, g));
  } else {
    const auto gk = with_reduced_axes_kept<N>(to_value_spec(g, n));
    if constexpr (std::is_same<Op, op::reduce_sum>::value) {
      return gk;
    } else if constexpr (std::is_same<Op, op::reduce_mean>::value) {
      return gk / reduced_count<T>(n);
    } else if constexpr (std::is_same<Op, op::reduce_max>::value || std::is_same<Op, op::reduce_min>::value) {
      // the elements equal to the extremum share the adjoint equally
      const auto hit = cast<T>(n.a == with_reduced_axes_kept<N>(n));
      return gk * hit / graph::reduce<op::reduce_sum, std::remove_cvref_t<decltype(hit)>, Axes, true>(hit, n.axes);
    } else {
      static_assert(std::is_same<Op, op::reduce_prod>::value);
      using reduced = reduced_axes_of<N, A::shape_type::rank>;
      if constexpr (reduced::count == 0) return gk;  // (a reduction over no axis: the identity)
      else return gk * product_of_others<reduced, reduced::count>(n.a);
    }
  }
}

// ---- matmul ----
/// x with its last two axes swapped.
template <class X>
constexpr auto swap_last_axes(const X& x) {
  constexpr std::size_t R = X::shape_type::rank;
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return transpose(x, axes<(I + 2 < R ? static_cast<int>(I) : I + 2 == R ? static_cast<int>(R - 1) : static_cast<int>(R - 2))...>{});
  }(std::make_index_sequence<R>{});
}

template <std::size_t K, class A, class B, class G>
constexpr auto child_adjoint(const graph::matmul<A, B>& n, const G& g) {
  constexpr std::size_t ra = A::shape_type::rank, rb = B::shape_type::rank;
  const auto ge = to_value_spec(g, n);
  if constexpr (ra == 1 && rb == 1) {  // dot product
    if constexpr (K == 0) return ge * n.b;
    else return ge * n.a;
  } else if constexpr (ra == 2 && rb == 1) {  // [M,K] x [K] -> [M]
    if constexpr (K == 0) return expand_dims(ge, axes<-1>{}) * n.b;  // outer product, elementwise
    else return matmul(transpose(n.a), ge);
  } else if constexpr (ra == 1 && rb == 2) {  // [K] x [K,N] -> [N]
    if constexpr (K == 0) return matmul(n.b, ge);
    else return expand_dims(n.a, axes<-1>{}) * ge;
  } else if constexpr (ra >= 2 && rb >= 2) {  // (batched) matrices; broadcast batches are summed by the walk
    if constexpr (K == 0) return matmul(ge, swap_last_axes(n.b));
    else return matmul(swap_last_axes(n.a), ge);
  } else if constexpr (rb == 1) {  // [..., M, K] x [K] -> [..., M]
    // the vector's adjoint is a * g summed over every axis but the last: the walk sums the leading ones
    if constexpr (K == 0) return expand_dims(ge, axes<-1>{}) * n.b;
    else return n.a * expand_dims(ge, axes<-1>{});
  } else {  // [K] x [..., K, N] -> [..., N]
    static_assert(ra == 1);
    if constexpr (K == 0) return reduce_sum(n.b * expand_dims(ge, axes<-2>{}), axes<-1>{});
    else return expand_dims(n.a, axes<-1>{}) * expand_dims(ge, axes<-2>{});
  }
}

// ---- conv2d ----
/// TF's Conv2DBackpropInput / Conv2DBackpropFilter, as nodes of their own (backend/cpu/conv.hpp).
template <std::size_t K, class X, class F, class Opt, class G>
constexpr auto child_adjoint(const graph::conv2d<X, F, Opt>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using E = std::remove_cvref_t<decltype(ge)>;
  using wrt = std::conditional_t<K == 0, graph::conv2d_wrt_image, graph::conv2d_wrt_filter>;
  return graph::conv2d_gradient<wrt, X, F, E, Opt>(n.x, n.f, ge);
}

// ---- cumsum / cumprod ----
/// cumsum: the cumsum of the adjoint the other way along the axis (same exclusivity). cumprod:
/// TF's rule, cumsum(y * g) the other way, divided by x (inf or NaN where x is 0, as TF).
template <std::size_t K, class Kind, class X, bool Exclusive, bool Reverse, class G>
constexpr auto child_adjoint(const graph::cumulative<Kind, X, Exclusive, Reverse>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  using GE = std::remove_cvref_t<decltype(ge)>;
  if constexpr (graph::cumulative<Kind, X, Exclusive, Reverse>::is_sum) {
    return graph::cumulative<graph::cumulative_sum, GE, Exclusive, !Reverse>(ge, n.axis);
  } else {
    const auto weighted = n * ge;
    return graph::cumulative<graph::cumulative_sum, std::remove_cvref_t<decltype(weighted)>, Exclusive, !Reverse>(weighted,
                                                                                                                n.axis) /
           n.x;
  }
}

// ---- pooling ----
/// TF's MaxPoolGrad / AvgPoolGrad, as a node of its own (backend/cpu/pool.hpp).
template <std::size_t K, class Kind, class X, class P, class G>
constexpr auto child_adjoint(const graph::pool<Kind, X, P>& n, const G& g) {
  const auto ge = to_value_spec(g, n);
  return graph::pool_gradient<Kind, X, std::remove_cvref_t<decltype(ge)>, P>(n.x, ge);
}

}  // namespace staticflow::autodiff::detail
