// staticflow/graph/depthwise_conv.hpp -- sf::depthwise_conv2d as tf.nn.depthwise_conv2d: each
// input channel convolved with its own M filters (the channel multiplier), NHWC images, filters
// [height, width, in_channels, M], conv2d's options (strides, dilations, VALID / SAME / explicit
// padding, NHWC or NCHW) and geometry; the two nodes of its gradient (TF's
// DepthwiseConv2dNativeBackpropInput / ...Filter); and sf::separable_conv2d, a depthwise
// convolution followed by a 1x1 conv2d.
//
//   y[b, i, j, c*M + m] = sum over (u, v) of x[b, i*SH+u*DH-pt, j*SW+v*DW-pl, c] f[u, v, c, m]
//
// Like conv2d's, the gradients are bilinear in (the other operand, the output's gradient), so
// their own adjoints are the forward op and the other gradient (autodiff/rules.hpp): second
// derivatives come with them. Kernels: backend/cpu/depthwise_conv.hpp (direct loops over the
// channels, vectorized for M = 1), backend/thrust/depthwise_conv.hpp (a thread per element).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "staticflow/core/errors.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/conv.hpp"

namespace staticflow {
namespace graph {
namespace detail {
/// Shapes of depthwise_conv2d(x [N,H,W,C], f [KH,KW,C,M]) -> [N,OH,OW,C*M], and their checks.
template <class SX, class SF, class Opt>
struct depthwise_shape {
  static constexpr bool ranks = SX::rank == 4 && SF::rank == 4;
  static_assert(ranks, "staticflow: depthwise_conv2d needs a rank-4 NHWC image and a rank-4 filter [height, width, "
                       "in_channels, channel_multiplier]");
  static constexpr std::size_t c = ranks ? SX::dims[3] : 0, m = ranks ? SF::dims[3] : 0;
  static constexpr bool channels = !ranks || dims_match(c, SF::dims[2]);
  static_assert(channels, "staticflow: depthwise_conv2d: the filter's in_channels (dim 2) differ from the image's channels (dim 3)");
  static constexpr bool fits = !ranks || (conv_fits<Opt>(SX::dims[1], SF::dims[0], Opt::dh, Opt::pad_top + Opt::pad_bottom) &&
                                          conv_fits<Opt>(SX::dims[2], SF::dims[1], Opt::dw, Opt::pad_left + Opt::pad_right));
  static_assert(!ranks || !channels || fits,
                "staticflow: depthwise_conv2d with VALID or explicit padding: the (dilated) filter is larger than the (padded) image");
  static constexpr bool ok = ranks && channels && fits;
  using type = std::conditional_t<
      ok,
      shape<(ranks ? SX::dims[0] : 0),
            conv_out_dim(Opt::same, ranks ? SX::dims[1] : 0, ranks ? SF::dims[0] : 0, Opt::sh, Opt::dh, Opt::pad_top, Opt::pad_bottom),
            conv_out_dim(Opt::same, ranks ? SX::dims[2] : 0, ranks ? SF::dims[1] : 0, Opt::sw, Opt::dw, Opt::pad_left, Opt::pad_right),
            (c == dyn || m == dyn) ? dyn : c * m>,
      shape<>>;
};
template <class Opt>
conv2d_geometry depthwise_geometry_of(const extents<4>& ex, const extents<4>& ef, const char* op) {
  if (ex[3] != ef[2])
    throw shape_error(std::string(op) + ": image " + conv_shapes(ex, ef) + ": the filter's in_channels (" + std::to_string(ef[2]) +
                      ") differ from the image's channels (" + std::to_string(ex[3]) + ")");
  return conv_spatial_geometry<Opt>(ex, ef, 1, op);  // (g.o is the channel multiplier M)
}
}  // namespace detail

/// depthwise_conv2d(x, f): x [N,H,W,C], f [KH,KW,C,M] -> [N,OH,OW,C*M]; float32 or float64.
template <class X, class F, class Opt>
struct depthwise_conv2d : node<depthwise_conv2d<X, F, Opt>> {
  static constexpr bool materialized = true;
  using value_type = typename X::value_type;
  using shape_type = typename detail::depthwise_shape<typename X::shape_type, typename F::shape_type, Opt>::type;
  X x;
  F f;
  constexpr depthwise_conv2d(X x_, F f_) : x(x_), f(f_) {}
  constexpr child_refs<const X&, const F&> children() const { return {{{x}, {f}}}; }
  template <class A, class B>
  constexpr auto with_children(const A& a, const B& b) const { return depthwise_conv2d<A, B, Opt>(a, b); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const depthwise_conv2d&) const { return true; }
  std::string name() const { return "DepthwiseConv2dNative" + Opt::attributes(); }
  extents<4> result_extents(const extents<4>& ex, const extents<4>& ef) const {
    const auto g = detail::depthwise_geometry_of<Opt>(ex, ef, "depthwise_conv2d");
    return {g.n, g.oh, g.ow, g.c * g.o};
  }
};

/// The gradient of depthwise_conv2d(x, f) with respect to x (Wrt = conv2d_wrt_image: x's shape)
/// or f (conv2d_wrt_filter: f's shape), given the output's gradient g; the operand itself is a
/// child for its extents.
template <class Wrt, class X, class F, class G, class Opt>
struct depthwise_conv2d_gradient : node<depthwise_conv2d_gradient<Wrt, X, F, G, Opt>> {
  static constexpr bool materialized = true;
  static constexpr bool wrt_image = std::is_same<Wrt, conv2d_wrt_image>::value;
  using value_type = typename G::value_type;
  using shape_type = std::conditional_t<wrt_image, typename X::shape_type, typename F::shape_type>;
  X x;
  F f;
  G g;
  constexpr depthwise_conv2d_gradient(X x_, F f_, G g_) : x(x_), f(f_), g(g_) {}
  constexpr child_refs<const X&, const F&, const G&> children() const { return {{{x}, {f}, {g}}}; }
  template <class A, class B, class C>
  constexpr auto with_children(const A& a, const B& b, const C& c) const {
    return depthwise_conv2d_gradient<Wrt, A, B, C, Opt>(a, b, c);
  }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const depthwise_conv2d_gradient&) const { return true; }
  std::string name() const {
    return std::string(wrt_image ? "DepthwiseConv2dNativeBackpropInput" : "DepthwiseConv2dNativeBackpropFilter") +
           Opt::attributes();
  }
  extents<4> result_extents(const extents<4>& ex, const extents<4>& ef, const extents<4>& eg) const {
    const auto geo = detail::depthwise_geometry_of<Opt>(ex, ef, "depthwise_conv2d gradient");
    const extents<4> forward{geo.n, geo.oh, geo.ow, geo.c * geo.o};
    if (eg != forward)
      throw shape_error("depthwise_conv2d gradient: the output gradient's shape " + staticflow::detail::extents_string(eg) +
                        " is not the convolution's output shape " + staticflow::detail::extents_string(forward));
    return wrt_image ? ex : ef;
  }
};
}  // namespace graph

/// tf.nn.depthwise_conv2d(input, filter, strides, padding, data_format, dilations): x is [batch,
/// height, width, channels] (NHWC; `sf::data_format::nchw` for NCHW), f is [filter_height,
/// filter_width, channels, channel_multiplier]; output channel c * M + m is channel c convolved
/// with filter m of its own. Options as conv2d's, in any order:
/// `sf::depthwise_conv2d(x, f, sf::padding::same, sf::strides<2>, sf::dilations<2>)`.
template <detail::tensor_operand X, detail::tensor_operand F, class... Options>
constexpr auto depthwise_conv2d(const X& x, const F& f, Options...) {
  using args = detail::conv_arguments<Options...>;
  const auto xn = detail::as_node<void>(x);
  const auto fn = detail::as_node<void>(f);
  using FN = std::remove_cvref_t<decltype(fn)>;
  using T = typename decltype(xn)::value_type;
  constexpr bool dtypes = floating_dtype<T> && std::is_same<T, typename FN::value_type>::value;
  static_assert(dtypes, "staticflow: depthwise_conv2d needs float32 or float64 tensors of one dtype");
  if constexpr (!dtypes || !detail::conv_arguments_check<args, 2>::ok) {
    return xn;
  } else {
    const auto image = detail::to_channels_last<args::channels_first>(xn);
    using XN = std::remove_cvref_t<decltype(image)>;
    using opt = typename args::type;
    if constexpr (!graph::detail::depthwise_shape<typename XN::shape_type, typename FN::shape_type, opt>::ok) {
      return xn;
    } else {
      return detail::from_channels_last<args::channels_first>(graph::depthwise_conv2d<XN, FN, opt>(image, fn));
    }
  }
}

namespace detail {
/// separable_conv2d's pointwise filter is [1, 1, C*M, O]: a class, so that the diagnostic appears
/// once however many traces (traced and eager) make the mistake.
template <class PS>
struct pointwise_filter_check {
  static constexpr bool ok = PS::rank == 4 && graph::detail::dims_match(graph::detail::dim_or_dyn<PS>(0), 1) &&
                             graph::detail::dims_match(graph::detail::dim_or_dyn<PS>(1), 1);
  static_assert(ok, "staticflow: separable_conv2d: the pointwise filter is [1, 1, in_channels * channel_multiplier, "
                    "out_channels]");
};
}  // namespace detail

/// tf.nn.separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
/// data_format, dilations): a depthwise_conv2d with the options, then a 1x1 conv2d mixing its
/// C*M channels into O. depthwise_filter is [KH, KW, C, M], pointwise_filter [1, 1, C*M, O]
/// (MobileNet's and Xception's layers); a pointwise filter of fewer in_channels is an error (not
/// a grouped convolution). Two nodes: the depthwise result is materialized, as TF's two kernels
/// do; gradients, Thrust and ONNX are those of the two convolutions.
template <detail::tensor_operand X, detail::tensor_operand D, detail::tensor_operand P, class... Options>
constexpr auto separable_conv2d(const X& x, const D& depthwise_filter, const P& pointwise_filter, Options... options) {
  using args = detail::conv_arguments<Options...>;
  const auto pn = detail::as_node<void>(pointwise_filter);
  using PS = typename decltype(pn)::shape_type;
  constexpr bool pointwise = detail::pointwise_filter_check<PS>::ok;
  const auto mixed = depthwise_conv2d(x, depthwise_filter, options...);
  if constexpr (!pointwise) {
    return mixed;
  } else {
    // run-time extents: squeeze checks that the filter's first two are 1 (a shape_error if not)
    const auto taps = [&] {
      if constexpr (PS::dims[0] == 1 && PS::dims[1] == 1) return pn;
      else return expand_dims(expand_dims(squeeze(pn, axes<0, 1>{}), axes<0>{}), axes<0>{});
    }();
    if constexpr (args::channels_first) return conv2d(mixed, taps, data_format::nchw, detail::one_group_t{});
    else return conv2d(mixed, taps, detail::one_group_t{});
  }
}

}  // namespace staticflow
