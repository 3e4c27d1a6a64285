// staticflow/graph/pool.hpp -- sf::max_pool1d/2d and sf::avg_pool1d/2d as tf.nn's: channels-last
// inputs ([batch, width, channels] or [batch, height, width, channels]; `sf::data_format::nchw` /
// `ncw` transpose around the node), a static window (`sf::ksize<KH, KW>`), static strides (the
// window's size when not given, as Keras's pooling layers), VALID or SAME padding; the node of
// their gradient (TF's MaxPoolGrad / AvgPoolGrad) and that of max_pool's second derivative
// (MaxPoolGradGrad).
//
// Both are materialized nodes computed by the backend (backend/cpu/pool.hpp). A 1-D pooling is
// the 2-D one over a height of 1: one node type for both, told apart by the input's rank.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/conv.hpp"

namespace staticflow {

/// A pooling window's size along the rows and columns (1-D pooling: `sf::ksize<K>`, its width).
template <std::size_t KH, std::size_t KW = KH>
struct ksize_t {
  static_assert(KH >= 1 && KW >= 1, "staticflow: a pooling window (sf::ksize) must be at least 1 wide");
};
template <std::size_t KH, std::size_t KW = KH>
inline constexpr ksize_t<KH, KW> ksize{};

namespace graph {

/// Which pooling a pool node computes, and TF's names for it and for its gradient.
struct max_pooling {
  static constexpr const char* name = "MaxPool";
  static constexpr const char* gradient_name = "MaxPoolGrad";
};
struct avg_pooling {
  static constexpr const char* name = "AvgPool";
  static constexpr const char* gradient_name = "AvgPoolGrad";
};

/// A pooling's static parameters: window, strides, padding (rank 3 inputs use KW and SW only).
template <std::size_t KH, std::size_t KW, std::size_t SH, std::size_t SW, bool Same>
struct pool_parameters {
  static constexpr std::size_t kh = KH, kw = KW, sh = SH, sw = SW;
  static constexpr bool same = Same;
};

namespace detail {
/// The output shape of a pooling of an input of shape S, and its static checks.
template <class Kind, class S, class P>
struct pool_shape {
  static_assert(S::rank == 3 || S::rank == 4,
                "staticflow: pooling needs a channels-last input: [batch, width, channels] (1-D) or [batch, height, "
                "width, channels] (2-D)");
  static constexpr bool two_d = S::rank == 4;
  static constexpr std::size_t h = two_d ? S::dims[1] : 1, w = S::dims[S::rank - 2];
  static_assert(P::same || h == dyn || h >= P::kh, "staticflow: pooling with VALID padding: the window is taller than the input");
  static_assert(P::same || w == dyn || w >= P::kw, "staticflow: pooling with VALID padding: the window is wider than the input");
  static constexpr std::size_t oh = conv_out_dim(P::same, h, P::kh, P::sh), ow = conv_out_dim(P::same, w, P::kw, P::sw);
  using type = std::conditional_t<two_d, shape<S::dims[0], oh, ow, S::dims[S::rank - 1]>,
                                  shape<S::dims[0], ow, S::dims[S::rank - 1]>>;
};

/// The dtypes a pooling takes (a class: one diagnostic however many traces make the mistake).
template <class Kind, class T>
struct pool_dtype_check {
  static constexpr bool ok =
      std::is_same<Kind, max_pooling>::value ? std::is_arithmetic<T>::value && !std::is_same<T, bool>::value : floating_dtype<T>;
  static_assert(ok, "staticflow: max_pool needs a numeric tensor, avg_pool a float32 or float64 one");
};
}  // namespace detail

/// Whether v replaces m as a window's running maximum: larger, or the first NaN (NaN propagates,
/// as in reduce_max; a tie keeps the first maximum, where TF's MaxPoolGrad sends the gradient).
/// The one rule every backend's max_pool and its gradient follow.
template <class T>
STATICFLOW_HD constexpr bool replaces_maximum(T v, T m) {
  if constexpr (std::is_floating_point<T>::value) return v > m || (v != v && m == m);
  else return v > m;
}

/// Everything a kernel needs of one pooling, from the run-time extents (1-D: h = kh = sh = 1).
struct pool_geometry {
  std::size_t n, h, w, c, kh, kw, oh, ow, sh, sw, pad_top, pad_left;
  std::size_t inputs() const { return n * h * w * c; }
  std::size_t outputs() const { return n * oh * ow * c; }
  /// Output (i, j)'s window: its first row and column (may be before the input) and, clipped to
  /// the input, the range of rows [row_begin, row_end) and columns [col_begin, col_end) it reads.
  struct window {
    std::size_t row_begin, row_end, col_begin, col_end;
    std::size_t count() const { return (row_end - row_begin) * (col_end - col_begin); }
  };
  constexpr window window_of(std::size_t i, std::size_t j) const {
    const auto clip = [](std::size_t start, std::size_t pad, std::size_t k, std::size_t extent, std::size_t& begin,
                         std::size_t& end) {
      begin = start > pad ? start - pad : 0;
      const std::size_t stop = start + k > pad ? start + k - pad : 0;
      end = stop < extent ? stop : extent;
    };
    window win{};
    clip(i * sh, pad_top, kh, h, win.row_begin, win.row_end);
    clip(j * sw, pad_left, kw, w, win.col_begin, win.col_end);
    return win;
  }
};

template <std::size_t R, class P>
pool_geometry pool_geometry_of(const extents<R>& ex, const char* op) {
  static_assert(R == 3 || R == 4);
  const std::size_t h = R == 4 ? ex[1] : 1, w = ex[R - 2];
  if (!P::same && (h < P::kh || w < P::kw))
    throw shape_error(std::string(op) + ": input " + staticflow::detail::extents_string(ex) + " and window " +
                      (R == 4 ? std::to_string(P::kh) + "x" : std::string()) + std::to_string(P::kw) +
                      ": with VALID padding the window must fit in the input");
  const auto rows = detail::conv_axis_of(P::same, h, P::kh, P::sh), cols = detail::conv_axis_of(P::same, w, P::kw, P::sw);
  return {ex[0], h, w, ex[R - 1], P::kh, P::kw, rows.out, cols.out, P::sh, P::sw, rows.pad_before, cols.pad_before};
}

template <class P, std::size_t Rank>
std::string pool_attributes() {
  const auto pair = [](std::size_t a, std::size_t b) {
    return Rank == 4 ? std::to_string(a) + "," + std::to_string(b) : std::to_string(b);
  };
  return "[ksize=" + pair(P::kh, P::kw) + ", strides=" + pair(P::sh, P::sw) +
         (P::same ? ", padding=SAME]" : ", padding=VALID]");
}

/// max_pool / avg_pool of x (rank 3: 1-D, rank 4: 2-D) with parameters P.
template <class Kind, class X, class P>
struct pool : node<pool<Kind, X, P>> {
  static constexpr bool materialized = true;
  using value_type = typename X::value_type;
  static_assert(sizeof(detail::pool_dtype_check<Kind, value_type>) > 0);  // instantiates the check (its message, once)
  using shape_type = typename detail::pool_shape<Kind, typename X::shape_type, P>::type;
  static constexpr std::size_t rank = shape_type::rank;
  X x;
  constexpr explicit pool(X x_) : x(x_) {}
  constexpr child_refs<const X&> children() const { return {x}; }
  template <class A>
  constexpr auto with_children(const A& a) const { return pool<Kind, A, P>(a); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const pool&) const { return true; }
  std::string name() const { return Kind::name + pool_attributes<P, rank>(); }
  extents<rank> result_extents(const extents<rank>& ex) const {
    const auto g = pool_geometry_of<rank, P>(ex, std::is_same<Kind, max_pooling>::value ? "max_pool" : "avg_pool");
    if constexpr (rank == 4) return {g.n, g.oh, g.ow, g.c};
    else return {g.n, g.ow, g.c};
  }
};

/// The gradient of pool<Kind, X, P> with respect to x, given the output's gradient g: max_pool
/// routes each output's gradient to the first maximum of its window (row-major order, as TF's
/// CPU kernel), avg_pool spreads it evenly over the window's elements inside the input.
template <class Kind, class X, class G, class P>
struct pool_gradient : node<pool_gradient<Kind, X, G, P>> {
  static constexpr bool materialized = true;
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  static constexpr std::size_t rank = shape_type::rank;
  X x;
  G g;
  constexpr pool_gradient(X x_, G g_) : x(x_), g(g_) {}
  constexpr child_refs<const X&, const G&> children() const { return {{{x}, {g}}}; }
  template <class A, class B>
  constexpr auto with_children(const A& a, const B& b) const { return pool_gradient<Kind, A, B, P>(a, b); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const pool_gradient&) const { return true; }
  std::string name() const { return Kind::gradient_name + pool_attributes<P, rank>(); }
  extents<rank> result_extents(const extents<rank>& ex, const extents<rank>& eg) const {
    const auto geo = pool_geometry_of<rank, P>(ex, "pooling gradient");
    const extents<rank> expected = [&] {
      if constexpr (rank == 4) return extents<4>{geo.n, geo.oh, geo.ow, geo.c};
      else return extents<3>{geo.n, geo.ow, geo.c};
    }();
    if (eg != expected)
      throw shape_error("pooling gradient: the output gradient's shape " + staticflow::detail::extents_string(eg) +
                        " is not the pooling's output shape " + staticflow::detail::extents_string(expected));
    return ex;
  }
};

/// The adjoint of max_pool's gradient with respect to its output gradient (TF's MaxPoolGradGrad):
/// the max_pool of x's shape that reads, for each output, e at the first maximum of its window
/// in x (where MaxPoolGrad sent that output's gradient). Linear in e; its own adjoint is
/// MaxPoolGrad of the same x. What sf::jvp and sf::hessian_vector_product need through max_pool.
template <class X, class E, class P>
struct max_pool_gradient_gradient : node<max_pool_gradient_gradient<X, E, P>> {
  static constexpr bool materialized = true;
  using value_type = typename E::value_type;
  using shape_type = typename detail::pool_shape<max_pooling, typename X::shape_type, P>::type;
  static constexpr std::size_t rank = shape_type::rank;
  X x;
  E e;
  constexpr max_pool_gradient_gradient(X x_, E e_) : x(x_), e(e_) {}
  constexpr child_refs<const X&, const E&> children() const { return {{{x}, {e}}}; }
  template <class A, class B>
  constexpr auto with_children(const A& a, const B& b) const { return max_pool_gradient_gradient<A, B, P>(a, b); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const max_pool_gradient_gradient&) const { return true; }
  std::string name() const { return "MaxPoolGradGrad" + pool_attributes<P, rank>(); }
  extents<rank> result_extents(const extents<rank>& ex, const extents<rank>& ee) const {
    if (ee != ex)
      throw shape_error("max_pool's second derivative: the tangent's shape " + staticflow::detail::extents_string(ee) +
                        " is not the pooled input's shape " + staticflow::detail::extents_string(ex));
    const auto g = pool_geometry_of<rank, P>(ex, "max_pool's second derivative");
    if constexpr (rank == 4) return {g.n, g.oh, g.ow, g.c};
    else return {g.n, g.ow, g.c};
  }
};
}  // namespace graph

namespace detail {
template <class O>
inline constexpr bool is_padding = std::is_same<O, padding::valid_t>::value || std::is_same<O, padding::same_t>::value;

/// Strides a 2-D pooling can take: one value, or <rows, cols>.
template <class O>
inline constexpr bool two_dimensional_strides = true;
template <std::size_t... S>
inline constexpr bool two_dimensional_strides<strides_t<S...>> = sizeof...(S) <= 2;

/// The optional arguments of a pooling after its window: sf::strides, sf::padding (VALID or
/// SAME) and sf::data_format, in any order, each at most once. Strides default to the window
/// (Keras's MaxPool2D / AvgPool2D).
template <std::size_t KH, std::size_t KW, class... Options>
struct pool_options {
  static constexpr std::size_t strides_given = (std::size_t{is_strides_option<Options>} + ... + 0);
  static constexpr std::size_t paddings_given = (std::size_t{is_padding<Options>} + ... + 0);
  static constexpr std::size_t formats_given = (std::size_t{is_data_format_option<Options>} + ... + 0);
  static constexpr bool valid = strides_given + paddings_given + formats_given == sizeof...(Options) &&
                                strides_given <= 1 && paddings_given <= 1 && formats_given <= 1 &&
                                (two_dimensional_strides<Options> && ...);
  static constexpr bool channels_first = (false || ... || channels_first_option<Options>);
  template <class O>
  static constexpr void pick(std::size_t& sh, std::size_t& sw, bool& same) {
    if constexpr (is_padding<O>) same = O::same;
    else if constexpr (is_strides_option<O>) sh = O::rows, sw = O::cols;
  }
  static constexpr auto resolve() {
    std::size_t sh = KH, sw = KW;
    bool same = false;
    (pick<Options>(sh, sw, same), ...);
    return std::tuple{sh, sw, same};
  }
  static constexpr auto resolved = resolve();
  using type = graph::pool_parameters<KH, KW, staticflow::detail::get<0>(resolved), staticflow::detail::get<1>(resolved), staticflow::detail::get<2>(resolved)>;
};

/// The static checks of a pooling's arguments: a class, so that its diagnostics appear once
/// however many traces (traced and eager) make the same mistake.
template <std::size_t Wanted, std::size_t Rank, bool OptionsValid>
struct pool_arguments_check {
  static_assert(Wanted != 4 || Rank == 4, "staticflow: a 2-D pooling needs a rank-4 [batch, height, width, channels] input");
  static_assert(Wanted != 3 || Rank == 3, "staticflow: a 1-D pooling needs a rank-3 [batch, width, channels] input");
  static_assert(OptionsValid,
                "staticflow: a pooling takes its input, sf::ksize<...>, then at most one sf::strides<...>, at most "
                "one sf::padding (valid or same) and at most one sf::data_format");
  static constexpr bool ok = Wanted == Rank && OptionsValid;
};

/// The pooling node over x, channels-last; sf::data_format::nchw / ncw transposes on each side,
/// as the convolutions do.
template <class Kind, std::size_t Rank, std::size_t KH, std::size_t KW, class X, class... Options>
constexpr auto make_pool(const X& x) {
  using options = pool_options<KH, KW, Options...>;
  if constexpr (!pool_arguments_check<Rank, X::shape_type::rank, options::valid>::ok) {
    return x;
  } else {
    const auto input = to_channels_last<options::channels_first>(x);
    using XN = std::remove_cvref_t<decltype(input)>;
    return from_channels_last<options::channels_first>(graph::pool<Kind, XN, typename options::type>(input));
  }
}
}  // namespace detail

/// tf.nn.max_pool2d(input, ksize, strides, padding, data_format), NHWC (or NCHW with
/// `sf::data_format::nchw`): `sf::max_pool2d(x, sf::ksize<2>)`,
/// `sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same)`. Strides default to the
/// window. SAME ignores the padding (never a maximum); NaN propagates as in reduce_max.
template <detail::tensor_operand X, std::size_t KH, std::size_t KW, class... Options>
constexpr auto max_pool2d(const X& x, ksize_t<KH, KW>, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_pool<graph::max_pooling, 4, KH, KW, std::remove_cvref_t<decltype(xn)>, Options...>(xn);
}
/// tf.nn.avg_pool2d: the mean of each window's elements inside the input (SAME padding is not
/// counted, as TF).
template <detail::tensor_operand X, std::size_t KH, std::size_t KW, class... Options>
constexpr auto avg_pool2d(const X& x, ksize_t<KH, KW>, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_pool<graph::avg_pooling, 4, KH, KW, std::remove_cvref_t<decltype(xn)>, Options...>(xn);
}
/// tf.nn.max_pool1d over [batch, width, channels]: `sf::max_pool1d(x, sf::ksize<3>, sf::strides<2>)`.
template <detail::tensor_operand X, std::size_t K, class... Options>
constexpr auto max_pool1d(const X& x, ksize_t<K, K>, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_pool<graph::max_pooling, 3, 1, K, std::remove_cvref_t<decltype(xn)>, Options...>(xn);
}
/// tf.nn.avg_pool1d over [batch, width, channels].
template <detail::tensor_operand X, std::size_t K, class... Options>
constexpr auto avg_pool1d(const X& x, ksize_t<K, K>, Options...) {
  const auto xn = detail::as_node<void>(x);
  return detail::make_pool<graph::avg_pooling, 3, 1, K, std::remove_cvref_t<decltype(xn)>, Options...>(xn);
}

}  // namespace staticflow
