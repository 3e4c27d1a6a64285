// staticflow/graph/conv.hpp -- sf::conv2d as tf.nn.conv2d: NHWC or NCHW images, HWIO filters,
// static strides and dilations, VALID, SAME or explicit padding (graph/conv_options.hpp), groups
// (a filter with fewer in_channels than the image); and the two nodes of its gradient (TF's
// Conv2DBackpropInput and Conv2DBackpropFilter). sf::conv1d (images one row high) and
// sf::conv2d_transpose (the gradient with respect to the image, as TF defines it) are built from
// them.
//
// All three are materialized nodes computed by the backend (backend/cpu/conv.hpp: an implicit
// im2col, a block of output rows at a time, into the blocked matmul kernel).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/errors.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/conv_options.hpp"
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {

namespace graph {
namespace detail {
/// Dim I of shape S, or dyn past its rank (so that a rank error is the only error).
template <class S>
constexpr std::size_t dim_or_dyn(std::size_t i) {
  if (i < S::rank) return S::dims[i];
  return dyn;
}
/// The input extent a filter of k taps covers at dilation d.
constexpr std::size_t dilated_extent(std::size_t k, std::size_t d) { return k == 0 ? 0 : (k - 1) * d + 1; }

/// One spatial axis of a convolution: output length and the padding before the first input.
struct conv_axis {
  std::size_t out = 0, pad_before = 0;
};
/// SAME pads so that out = ceil(in / stride); otherwise `before` and `after` zeros (VALID: none).
constexpr conv_axis conv_axis_of(bool same, std::size_t in, std::size_t k, std::size_t stride, std::size_t dilation = 1,
                                 std::size_t before = 0, std::size_t after = 0) {
  const std::size_t span = dilated_extent(k, dilation);
  if (same) {
    const std::size_t out = (in + stride - 1) / stride;
    const std::size_t needed = out == 0 ? 0 : (out - 1) * stride + span;
    const std::size_t pad = needed > in ? needed - in : 0;
    return {out, pad / 2};
  }
  const std::size_t padded = in + before + after;
  return {padded >= span ? (padded - span) / stride + 1 : 0, before};
}
constexpr std::size_t conv_out_dim(bool same, std::size_t in, std::size_t k, std::size_t stride, std::size_t dilation = 1,
                                   std::size_t before = 0, std::size_t after = 0) {
  if (in == dyn || (k == dyn && !same)) return dyn;
  return conv_axis_of(same, in, k, stride, dilation, before, after).out;
}

/// Whether a (padded) image axis of static extent `in` can hold the dilated filter (dyn: maybe).
template <class Opt>
constexpr bool conv_fits(std::size_t in, std::size_t k, std::size_t dilation, std::size_t pads) {
  return Opt::same || in == dyn || k == dyn || in + pads >= dilated_extent(k, dilation);
}

/// x's leading (batch) dims, then A, B, C: a conv2d's result over a [batch..., H, W, C] image.
template <class S, std::size_t A, std::size_t B, std::size_t C, std::size_t... I>
shape<dim_or_dyn<S>(I)..., A, B, C> batch_dims_then(std::index_sequence<I...>);

/// Shapes of conv2d(x [N,H,W,C], f [KH,KW,C/G,O]) and their static checks; G, the groups, is
/// C / the filter's in_channels (1 when they are equal), and divides O. As in TF, axes before
/// the last three are all batch axes ([batch..., H, W, C]).
template <class SX, class SF, class Opt>
struct conv2d_shape {
  static_assert(SX::rank >= 4, "staticflow: conv2d needs an NHWC image of rank 4 or more [batch..., height, width, channels]");
  static_assert(SF::rank == 4, "staticflow: conv2d needs a rank-4 HWIO filter [height, width, in_channels, out_channels]");
  static constexpr std::size_t b = SX::rank >= 4 ? SX::rank - 4 : 0;  // batch axes beyond the first
  static constexpr std::size_t c = dim_or_dyn<SX>(b + 3), fc = dim_or_dyn<SF>(2), o = dim_or_dyn<SF>(3);
  static constexpr bool channels =
      c == dyn || fc == dyn || c == fc || (Opt::grouped && fc != 0 && c != 0 && c % fc == 0);
  static_assert(channels || !Opt::grouped, "staticflow: conv2d: the filter's in_channels (dim 2) differ from the image's "
                                           "channels (its last dim) and do not divide them into groups");
  static_assert(channels || Opt::grouped,
                "staticflow: separable_conv2d: the pointwise filter's in_channels (dim 2) differ from the depthwise "
                "result's channels (in_channels * channel_multiplier)");
  static constexpr bool groups_fit = !channels || c == dyn || fc == dyn || o == dyn || c == fc || o % (c / fc) == 0;
  static_assert(groups_fit, "staticflow: conv2d: a grouped convolution's out_channels (the filter's dim 3) must be a "
                            "multiple of the groups (the image's channels / the filter's in_channels)");
  static_assert(conv_fits<Opt>(dim_or_dyn<SX>(b + 1), dim_or_dyn<SF>(0), Opt::dh, Opt::pad_top + Opt::pad_bottom),
                "staticflow: conv2d with VALID or explicit padding: the (dilated) filter is taller than the (padded) image");
  static_assert(conv_fits<Opt>(dim_or_dyn<SX>(b + 2), dim_or_dyn<SF>(1), Opt::dw, Opt::pad_left + Opt::pad_right),
                "staticflow: conv2d with VALID or explicit padding: the (dilated) filter is wider than the (padded) image");
  using type = decltype(batch_dims_then<
                        SX, conv_out_dim(Opt::same, dim_or_dyn<SX>(b + 1), dim_or_dyn<SF>(0), Opt::sh, Opt::dh, Opt::pad_top, Opt::pad_bottom),
                        conv_out_dim(Opt::same, dim_or_dyn<SX>(b + 2), dim_or_dyn<SF>(1), Opt::sw, Opt::dw, Opt::pad_left, Opt::pad_right),
                        o>(std::make_index_sequence<b + 1>{}));
};
}  // namespace detail

/// Everything a kernel needs of one convolution, from the run-time extents. c is the image's
/// channels, o the filter's out_channels; a grouped convolution (groups > 1) convolves channels
/// [g * c / groups, (g + 1) * c / groups) with filter columns [g * o / groups, (g + 1) * o / groups).
struct conv2d_geometry {
  std::size_t n, h, w, c, kh, kw, o, oh, ow, sh, sw, pad_top, pad_left;
  std::size_t dh = 1, dw = 1, groups = 1;
  std::size_t group_channels() const { return c / groups; }  // the filter's in_channels
  std::size_t group_outputs() const { return o / groups; }
  std::size_t patch() const { return kh * kw * group_channels(); }  // the contracted length of each output
};

namespace detail {
template <std::size_t R>
std::string conv_shapes(const extents<R>& ex, const extents<4>& ef) {
  return staticflow::detail::extents_string(ex) + " and filter " + staticflow::detail::extents_string(ef);
}
/// A [batch..., H, W, C] image's extents as [N, H, W, C], N the product of the batch axes.
template <std::size_t R>
extents<4> batch_flattened(const extents<R>& ex) {
  static_assert(R >= 4);
  std::size_t n = 1;
  for (std::size_t i = 0; i + 3 < R; ++i) n *= ex[i];
  return {n, ex[R - 3], ex[R - 2], ex[R - 1]};
}
/// The spatial part of a convolution's geometry (both channel counts checked by the caller).
template <class Opt, std::size_t R>
conv2d_geometry conv_spatial_geometry(const extents<R>& image, const extents<4>& ef, std::size_t groups, const char* op) {
  const extents<4> ex = batch_flattened(image);
  if (!Opt::same && (ex[1] + Opt::pad_top + Opt::pad_bottom < dilated_extent(ef[0], Opt::dh) ||
                     ex[2] + Opt::pad_left + Opt::pad_right < dilated_extent(ef[1], Opt::dw)))
    throw shape_error(std::string(op) + ": image " + conv_shapes(image, ef) + ": with " + (Opt::is_explicit ? "explicit" : "VALID") +
                      " padding the " + (Opt::dilated ? "dilated " : "") + "filter must fit in the " +
                      (Opt::is_explicit ? "padded " : "") + "image");
  const auto rows = conv_axis_of(Opt::same, ex[1], ef[0], Opt::sh, Opt::dh, Opt::pad_top, Opt::pad_bottom);
  const auto cols = conv_axis_of(Opt::same, ex[2], ef[1], Opt::sw, Opt::dw, Opt::pad_left, Opt::pad_right);
  return {ex[0],   ex[1],   ex[2],          ex[3],           ef[0],   ef[1],   ef[3], rows.out,
          cols.out, Opt::sh, Opt::sw, rows.pad_before, cols.pad_before, Opt::dh, Opt::dw, groups};
}
/// A conv2d's result extents: the image's batch axes, then the geometry's [OH, OW, O].
template <std::size_t R>
extents<R> conv2d_result_extents(const extents<R>& image, const conv2d_geometry& g) {
  extents<R> out = image;
  out[R - 3] = g.oh, out[R - 2] = g.ow, out[R - 1] = g.o;
  return out;
}
}  // namespace detail

namespace detail {
/// A convolution's groups: the image's c channels over the filter's fc in_channels (1 when equal;
/// o, the out_channels, a multiple of them). `shapes` says the operands' shapes for the messages.
template <bool Grouped, class Shapes>
std::size_t conv_groups_of(std::size_t c, std::size_t fc, std::size_t o, const char* op, const Shapes& shapes) {
  if (c == fc) return 1;
  if constexpr (!Grouped)
    throw shape_error(std::string(op) + ": image " + shapes() + ": the pointwise filter's in_channels (" + std::to_string(fc) +
                      ") differ from the depthwise result's channels (" + std::to_string(c) + ")");
  if (fc == 0 || c == 0 || c % fc != 0)  // (no channels against some: not 0 groups)
    throw shape_error(std::string(op) + ": image " + shapes() + ": the filter's in_channels (" + std::to_string(fc) +
                      ") differ from the image's channels (" + std::to_string(c) + ") and do not divide them into groups");
  if (o % (c / fc) != 0)
    throw shape_error(std::string(op) + ": image " + shapes() + ": the filter's out_channels (" + std::to_string(o) +
                      ") are not a multiple of the groups (" + std::to_string(c / fc) +
                      " = the image's channels / the filter's in_channels)");
  return c / fc;
}
}  // namespace detail

template <class Opt, std::size_t R>
conv2d_geometry conv2d_geometry_of(const extents<R>& image, const extents<4>& ef, const char* op) {
  const std::size_t groups = detail::conv_groups_of<Opt::grouped>(image[R - 1], ef[2], ef[3], op,
                                                                   [&] { return detail::conv_shapes(image, ef); });
  return detail::conv_spatial_geometry<Opt>(image, ef, groups, op);
}

/// conv2d(x, f): x [N,H,W,C], f [KH,KW,C/G,O] -> [N,OH,OW,O]; float32 or float64.
template <class X, class F, class Opt>
struct conv2d : node<conv2d<X, F, Opt>> {
  static constexpr bool materialized = true;
  using compute_type = promote_t<typename X::value_type, typename F::value_type>;
  static_assert(floating_dtype<compute_type>, "staticflow: conv2d needs float32 or float64 tensors");
  using value_type = compute_type;
  using shape_type = typename detail::conv2d_shape<typename X::shape_type, typename F::shape_type, Opt>::type;
  X x;
  F f;
  constexpr conv2d(X x_, F f_) : x(x_), f(f_) {}
  constexpr child_refs<const X&, const F&> children() const { return {{{x}, {f}}}; }
  template <class A, class B>
  constexpr auto with_children(const A& a, const B& b) const { return conv2d<A, B, Opt>(a, b); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const conv2d&) const { return true; }
  std::string name() const { return "Conv2D" + Opt::attributes(); }
  extents<shape_type::rank> result_extents(const extents<shape_type::rank>& ex, const extents<4>& ef) const {
    return detail::conv2d_result_extents(ex, conv2d_geometry_of<Opt>(ex, ef, "conv2d"));
  }
};

/// Which operand a conv2d_gradient is the gradient of, and TF's name for it.
struct conv2d_wrt_image {
  static constexpr const char* name = "Conv2DBackpropInput";
};
struct conv2d_wrt_filter {
  static constexpr const char* name = "Conv2DBackpropFilter";
};

/// The gradient of conv2d(x, f) with respect to x (Wrt = conv2d_wrt_image: x's shape) or f
/// (conv2d_wrt_filter: f's shape), given the output's gradient g. Both read g and the other
/// operand; the operand itself is a child for its extents.
template <class Wrt, class X, class F, class G, class Opt>
struct conv2d_gradient : node<conv2d_gradient<Wrt, X, F, G, Opt>> {
  static constexpr bool materialized = true;
  static constexpr bool wrt_image = std::is_same<Wrt, conv2d_wrt_image>::value;
  using value_type = typename G::value_type;
  using shape_type = std::conditional_t<wrt_image, typename X::shape_type, typename F::shape_type>;
  X x;
  F f;
  G g;
  constexpr conv2d_gradient(X x_, F f_, G g_) : x(x_), f(f_), g(g_) {}
  constexpr child_refs<const X&, const F&, const G&> children() const { return {{{x}, {f}, {g}}}; }
  template <class A, class B, class C>
  constexpr auto with_children(const A& a, const B& b, const C& c) const {
    return conv2d_gradient<Wrt, A, B, C, Opt>(a, b, c);
  }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const conv2d_gradient&) const { return true; }
  std::string name() const { return Wrt::name + Opt::attributes(); }
  static constexpr std::size_t image_rank = X::shape_type::rank;
  extents<shape_type::rank> result_extents(const extents<image_rank>& ex, const extents<4>& ef,
                                           const extents<image_rank>& eg) const {
    const auto forward = detail::conv2d_result_extents(ex, conv2d_geometry_of<Opt>(ex, ef, "conv2d gradient"));
    if (eg != forward)
      throw shape_error("conv2d gradient (conv2d_transpose): the output gradient's shape " + staticflow::detail::extents_string(eg) +
                        " is not the convolution's output shape " + staticflow::detail::extents_string(forward));
    if constexpr (wrt_image) return ex;
    else return ef;
  }
};
}  // namespace graph

namespace detail {
/// A channels-first (NCHW / NCW / NCDHW) tensor as channels-last, and back: the convolution
/// nodes are channels-last, so data_format::channels_first is a transpose on each side (TF's CPU
/// kernels take NHWC only, and XLA's layout assignment does the same). Spatial: the op's spatial
/// axes (0: by rank, 1 for rank 3, 2 for rank 4); the channels are the axis before them. A rank
/// the op does not take is passed through for the op's own rank diagnostic.
template <std::size_t R, std::size_t Spatial, bool ToLast>
constexpr auto channels_permutation() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    constexpr std::size_t c = R - Spatial - 1;
    if constexpr (ToLast) return axes<static_cast<int>(I < c ? I : I + 1 < R ? I + 1 : c)...>{};
    else return axes<static_cast<int>(I < c ? I : I == c ? R - 1 : I - 1)...>{};
  }(std::make_index_sequence<R>{});
}
template <bool ChannelsFirst, std::size_t Spatial = 0, class N>
constexpr auto to_channels_last(const N& x) {
  constexpr std::size_t rank = N::shape_type::rank, spatial = Spatial ? Spatial : rank - 2;
  if constexpr (!ChannelsFirst || (Spatial == 0 && rank != 3 && rank != 4) || rank < spatial + 2) return x;
  else return transpose(x, channels_permutation<rank, spatial, true>());
}
template <bool ChannelsFirst, std::size_t Spatial = 0, class N>
constexpr auto from_channels_last(const N& y) {
  constexpr std::size_t rank = N::shape_type::rank, spatial = Spatial ? Spatial : rank - 2;
  if constexpr (!ChannelsFirst || (Spatial == 0 && rank != 3 && rank != 4) || rank < spatial + 2) return y;
  else return transpose(y, channels_permutation<rank, spatial, false>());
}
}  // namespace detail

/// tf.nn.conv2d(input, filters, strides, padding, data_format, dilations): x is [batch, height,
/// width, channels] (NHWC; `sf::data_format::nchw` for [batch, channels, height, width]; as in TF,
/// more leading axes are more batch axes, [batch..., height, width, channels]), f is
/// [filter_height, filter_width, in_channels, out_channels] (HWIO, as TF stores Conv2D kernels).
/// The options come after the filter in any order: `sf::conv2d(x, f, sf::padding::same,
/// sf::strides<2>)`, `sf::conv2d(x, f, sf::dilations<2>)`, `sf::padding::explicit_<1, 1, 2, 2>`.
/// A filter with fewer in_channels than the image is a grouped convolution, as in TF: groups =
/// channels / in_channels, each group of channels convolved with out_channels / groups filters.
/// Either operand may be an sf::variable (a layer's kernel), read at this point.
template <detail::tensor_operand X, detail::tensor_operand F, class... Options>
constexpr auto conv2d(const X& x, const F& f, Options...) {
  using args = detail::conv_arguments<Options...>;
  const auto xn = detail::as_node<void>(x);
  const auto fn = detail::as_node<void>(f);
  if constexpr (!detail::conv_arguments_check<args, 2>::ok) {
    return xn;
  } else {
    const auto image = detail::to_channels_last<args::channels_first, 2>(xn);
    using XN = std::remove_cvref_t<decltype(image)>;
    using FN = std::remove_cvref_t<decltype(fn)>;
    return detail::from_channels_last<args::channels_first, 2>(graph::conv2d<XN, FN, typename args::type>(image, fn));
  }
}

/// tf.nn.conv1d(input, filters, stride, padding, data_format, dilations): x is [batch, width,
/// channels] (NWC; `sf::data_format::ncw` for [batch, channels, width]), f is [filter_width,
/// in_channels, out_channels]; one stride and one dilation (`sf::strides<2>`, `sf::dilations<2>`),
/// explicit padding `sf::padding::explicit_<left, right>`. A conv2d of images one row high (the
/// axes of extent 1 are views, not copies).
template <detail::tensor_operand X, detail::tensor_operand F, class... Options>
constexpr auto conv1d(const X& x, const F& f, Options...) {
  using args = detail::conv_arguments<Options...>;
  const auto xn = detail::as_node<void>(x);
  const auto fn = detail::as_node<void>(f);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using FN = std::remove_cvref_t<decltype(fn)>;
  static_assert(XN::shape_type::rank == 3, "staticflow: conv1d needs a rank-3 NWC input [batch, width, channels]");
  static_assert(FN::shape_type::rank == 3, "staticflow: conv1d needs a rank-3 WIO filter [width, in_channels, out_channels]");
  static_assert(args::strides_type::rows == args::strides_type::cols && args::dilations_type::rows == args::dilations_type::cols,
                "staticflow: conv1d takes one stride and one dilation: sf::strides<S>, sf::dilations<D>");
  if constexpr (XN::shape_type::rank != 3 || FN::shape_type::rank != 3 ||
                !detail::conv_arguments_check<args, 1>::ok) {
    return xn;
  } else {
    const auto line = expand_dims(detail::to_channels_last<args::channels_first>(xn), axes<1>{});
    const auto taps = expand_dims(fn, axes<0>{});
    using LN = std::remove_cvref_t<decltype(line)>;
    using TN = std::remove_cvref_t<decltype(taps)>;
    const auto rows = graph::conv2d<LN, TN, typename args::one_row_type>(line, taps);
    return detail::from_channels_last<args::channels_first>(squeeze(rows, axes<1>{}));
  }
}

namespace detail {
/// The static checks of conv2d_transpose: x must have the shape conv2d gives an output_shape image.
/// (FromTensor: output_shape is sf::shape_of(a tensor), whose sf::dyn extents are checked when it runs.)
template <class SX, class SF, class Out, class Opt, bool FromTensor = false>
struct conv2d_transpose_check {
  static constexpr bool ranks = SX::rank == 4 && SF::rank == 4 && Out::rank == 4;
  static_assert(ranks, "staticflow: conv2d_transpose needs a rank-4 NHWC input, a rank-4 filter [height, width, "
                       "output_channels, in_channels] and a rank-4 output_shape");
  static constexpr bool known = Out::is_static || FromTensor;
  static_assert(!ranks || known, "staticflow: conv2d_transpose: output_shape must be a static sf::shape<batch, height, width, "
                                 "channels>, or sf::shape_of(a tensor) for run-time extents");
  static constexpr bool fits = [] {
    if constexpr (!ranks || !known) {
      return true;
    } else {
      using forward = typename graph::detail::conv2d_shape<Out, SF, Opt>::type;
      for (std::size_t d = 0; d < 4; ++d)
        if (!graph::detail::dims_match(forward::dims[d], SX::dims[d])) return false;
      return true;
    }
  }();
  static_assert(fits, "staticflow: conv2d_transpose: the input's shape is not what conv2d with these filters, strides and "
                      "padding makes of output_shape");
  static constexpr bool ok = ranks && known && fits;
};
}  // namespace detail

namespace detail {
/// conv2d_transpose's body: Args the parsed options, Out the output's shape as given (NHWC or
/// NCHW), image_of(type_identity<T>) the output-shaped operand whose extents the gradient node
/// reads, channels-last (a zeros broadcast: no buffer, its data is never read).
template <class Args, class Out, bool FromTensor, class X, class F, class ImageOf>
constexpr auto conv2d_transpose_with(const X& x, const F& f, ImageOf image_of) {
  const auto xn = as_node<void>(x);
  const auto fn = as_node<void>(f);
  using FN = std::remove_cvref_t<decltype(fn)>;
  using T = typename decltype(xn)::value_type;
  static_assert(floating_dtype<T> && std::is_same<T, typename FN::value_type>::value,
                "staticflow: conv2d_transpose needs float32 or float64 tensors of one dtype");
  if constexpr (!conv_arguments_check<Args, 2>::ok) {
    return xn;
  } else {
    const auto image_grad = to_channels_last<Args::channels_first>(xn);
    using XN = std::remove_cvref_t<decltype(image_grad)>;
    using OutNHWC = std::conditional_t<Args::channels_first && Out::rank == 4,
                                       shape<Out::dims[0], Out::dims[Out::rank > 2 ? 2 : 0], Out::dims[Out::rank > 3 ? 3 : 0],
                                             Out::dims[Out::rank > 1 ? 1 : 0]>,
                                       Out>;
    using opt = typename Args::type;
    if constexpr (!conv2d_transpose_check<typename XN::shape_type, typename FN::shape_type, OutNHWC, opt, FromTensor>::ok ||
                  !floating_dtype<T> || !std::is_same<T, typename FN::value_type>::value) {
      return xn;
    } else {
      const auto image = image_of(std::type_identity<T>{});
      using IN = std::remove_cvref_t<decltype(image)>;
      return from_channels_last<Args::channels_first>(graph::conv2d_gradient<graph::conv2d_wrt_image, IN, FN, XN, opt>(image, fn, image_grad));
    }
  }
}
}  // namespace detail

/// tf.nn.conv2d_transpose(input, filters, output_shape, strides, padding, data_format,
/// dilations): the gradient of conv2d with respect to its image (TF's definition), so
/// `sf::conv2d_transpose(y, f, sf::shape<1, 8, 8, 3>{}, sf::padding::same, sf::strides<2>)` undoes
/// the shapes of a stride-2 conv2d of a [1, 8, 8, 3] image. x is [batch, height, width,
/// in_channels]; f is [height, width, output_channels, in_channels] (TF's layout: a conv2d filter
/// of the shape it transposes). With `sf::data_format::nchw`, x and output_shape are NCHW.
template <detail::tensor_operand X, detail::tensor_operand F, class Out, class... Options>
  requires staticflow::detail::is_shape<Out>::value
constexpr auto conv2d_transpose(const X& x, const F& f, Out, Options...) {
  using args = detail::conv_arguments<Options...>;
  using OutNHWC = std::conditional_t<args::channels_first && Out::rank == 4,
                                     shape<Out::dims[0], Out::dims[Out::rank > 2 ? 2 : 0], Out::dims[Out::rank > 3 ? 3 : 0],
                                           Out::dims[Out::rank > 1 ? 1 : 0]>,
                                     Out>;
  return detail::conv2d_transpose_with<args, Out, false>(x, f, [](auto t) { return zeros<typename decltype(t)::type>(OutNHWC{}); });
}

/// conv2d_transpose with the output shape of a tensor known when the function runs:
/// `sf::conv2d_transpose(y, f, sf::shape_of(skip), ...)` is TF's `output_shape=tf.shape(skip)`
/// (a U-Net's decoder upsampling to its skip connection's size, batch and spatial extents from
/// the data). The output has skip's shape; skip's data is not read. Its static extents are
/// checked as a static output_shape's are, the run-time ones when the function runs
/// (sf::shape_error naming both shapes). An output_shape computed from tensor values (TF's
/// `tf.stack([...])`) is not expressible: a result's extents come from shapes, not data.
template <detail::tensor_operand X, detail::tensor_operand F, class Like, class... Options>
constexpr auto conv2d_transpose(const X& x, const F& f, const graph::extent_query<Like, -2>& output_shape, Options...) {
  using args = detail::conv_arguments<Options...>;
  using Out = typename Like::shape_type;
  return detail::conv2d_transpose_with<args, Out, true>(x, f, [&](auto t) {
    return detail::to_channels_last<args::channels_first>(zeros<typename decltype(t)::type>(output_shape));
  });
}

}  // namespace staticflow
