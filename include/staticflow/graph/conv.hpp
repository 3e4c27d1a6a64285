// staticflow/graph/conv.hpp -- sf::conv2d as tf.nn.conv2d: NHWC images, HWIO filters, static
// strides, VALID or SAME padding; and the two nodes of its gradient (TF's Conv2DBackpropInput and
// Conv2DBackpropFilter). sf::conv1d (images one row high) and sf::conv2d_transpose (the gradient
// with respect to the image, as TF defines it) are built from them.
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
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {

/// A convolution's padding, as tf.nn.conv2d's `padding` argument.
namespace padding {
struct valid_t {
  static constexpr bool same = false;
};
struct same_t {
  static constexpr bool same = true;
};
/// No padding: every output reads a whole window of the input.
inline constexpr valid_t valid{};
/// Zero padding so that the output has ceil(input / stride) rows and columns (TF's split: the
/// extra row or column goes to the bottom / right).
inline constexpr same_t same{};
}  // namespace padding

/// A convolution's strides along the image's rows and columns.
template <std::size_t SH, std::size_t SW = SH>
struct strides_t {
  static_assert(SH >= 1 && SW >= 1, "staticflow: sf::strides must be at least 1");
  static constexpr std::size_t rows = SH, cols = SW;
};
template <std::size_t SH, std::size_t SW = SH>
inline constexpr strides_t<SH, SW> strides{};

namespace graph {
namespace detail {
/// One spatial axis of a convolution: output length and the padding before the first input.
struct conv_axis {
  std::size_t out = 0, pad_before = 0;
};
constexpr conv_axis conv_axis_of(bool same, std::size_t in, std::size_t k, std::size_t stride) {
  if (same) {
    const std::size_t out = (in + stride - 1) / stride;
    const std::size_t needed = out == 0 ? 0 : (out - 1) * stride + k;
    const std::size_t pad = needed > in ? needed - in : 0;
    return {out, pad / 2};
  }
  return {in >= k ? (in - k) / stride + 1 : 0, 0};
}
constexpr std::size_t conv_out_dim(bool same, std::size_t in, std::size_t k, std::size_t stride) {
  if (in == dyn || (k == dyn && !same)) return dyn;
  return conv_axis_of(same, in, k, stride).out;
}

/// Shapes of conv2d(x [N,H,W,C], f [KH,KW,C,O]) and their static checks.
template <class SX, class SF, bool Same, std::size_t SH, std::size_t SW>
struct conv2d_shape {
  static_assert(SX::rank == 4, "staticflow: conv2d needs a rank-4 NHWC image [batch, height, width, channels]");
  static_assert(SF::rank == 4, "staticflow: conv2d needs a rank-4 HWIO filter [height, width, in_channels, out_channels]");
  static_assert(dims_match(SX::dims[3], SF::dims[2]),
                "staticflow: conv2d: the filter's in_channels (dim 2) differ from the image's channels (dim 3)");
  static_assert(Same || SX::dims[1] == dyn || SF::dims[0] == dyn || SX::dims[1] >= SF::dims[0],
                "staticflow: conv2d with VALID padding: the filter is taller than the image");
  static_assert(Same || SX::dims[2] == dyn || SF::dims[1] == dyn || SX::dims[2] >= SF::dims[1],
                "staticflow: conv2d with VALID padding: the filter is wider than the image");
  using type = shape<SX::dims[0], conv_out_dim(Same, SX::dims[1], SF::dims[0], SH),
                     conv_out_dim(Same, SX::dims[2], SF::dims[1], SW), SF::dims[3]>;
};
}  // namespace detail

/// Everything a kernel needs of one conv2d call, from the run-time extents.
struct conv2d_geometry {
  std::size_t n, h, w, c, kh, kw, o, oh, ow, sh, sw, pad_top, pad_left;
  std::size_t patch() const { return kh * kw * c; }  // the contracted length of each output
};

template <bool Same, std::size_t SH, std::size_t SW>
conv2d_geometry conv2d_geometry_of(const extents<4>& ex, const extents<4>& ef, const char* op) {
  const auto shapes = [&] {
    return staticflow::detail::extents_string(ex) + " and filter " + staticflow::detail::extents_string(ef);
  };
  if (ex[3] != ef[2])
    throw shape_error(std::string(op) + ": image " + shapes() + ": the filter's in_channels (" +
                      std::to_string(ef[2]) + ") differ from the image's channels (" + std::to_string(ex[3]) + ")");
  if (!Same && (ex[1] < ef[0] || ex[2] < ef[1]))
    throw shape_error(std::string(op) + ": image " + shapes() + ": with VALID padding the filter must fit in the image");
  const auto rows = detail::conv_axis_of(Same, ex[1], ef[0], SH), cols = detail::conv_axis_of(Same, ex[2], ef[1], SW);
  return {ex[0], ex[1], ex[2], ex[3], ef[0], ef[1], ef[3], rows.out, cols.out, SH, SW, rows.pad_before, cols.pad_before};
}

template <bool Same, std::size_t SH, std::size_t SW>
std::string conv2d_attributes() {
  return std::string("[strides=") + std::to_string(SH) + "," + std::to_string(SW) +
         (Same ? ", padding=SAME]" : ", padding=VALID]");
}

/// conv2d(x, f): x [N,H,W,C], f [KH,KW,C,O] -> [N,OH,OW,O]; float32 or float64.
template <class X, class F, bool Same, std::size_t SH, std::size_t SW>
struct conv2d : node<conv2d<X, F, Same, SH, SW>> {
  static constexpr bool materialized = true;
  using compute_type = promote_t<typename X::value_type, typename F::value_type>;
  static_assert(floating_dtype<compute_type>, "staticflow: conv2d needs float32 or float64 tensors");
  using value_type = compute_type;
  using shape_type = typename detail::conv2d_shape<typename X::shape_type, typename F::shape_type, Same, SH, SW>::type;
  X x;
  F f;
  constexpr conv2d(X x_, F f_) : x(x_), f(f_) {}
  constexpr child_refs<const X&, const F&> children() const { return {x, f}; }
  template <class A, class B>
  constexpr auto with_children(const A& a, const B& b) const { return conv2d<A, B, Same, SH, SW>(a, b); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const conv2d&) const { return true; }
  std::string name() const { return "Conv2D" + conv2d_attributes<Same, SH, SW>(); }
  extents<4> result_extents(const extents<4>& ex, const extents<4>& ef) const {
    const auto g = conv2d_geometry_of<Same, SH, SW>(ex, ef, "conv2d");
    return {g.n, g.oh, g.ow, g.o};
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
template <class Wrt, class X, class F, class G, bool Same, std::size_t SH, std::size_t SW>
struct conv2d_gradient : node<conv2d_gradient<Wrt, X, F, G, Same, SH, SW>> {
  static constexpr bool materialized = true;
  static constexpr bool wrt_image = std::is_same_v<Wrt, conv2d_wrt_image>;
  using value_type = typename G::value_type;
  using shape_type = std::conditional_t<wrt_image, typename X::shape_type, typename F::shape_type>;
  X x;
  F f;
  G g;
  constexpr conv2d_gradient(X x_, F f_, G g_) : x(x_), f(f_), g(g_) {}
  constexpr child_refs<const X&, const F&, const G&> children() const { return {x, f, g}; }
  template <class A, class B, class C>
  constexpr auto with_children(const A& a, const B& b, const C& c) const {
    return conv2d_gradient<Wrt, A, B, C, Same, SH, SW>(a, b, c);
  }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const conv2d_gradient&) const { return true; }
  std::string name() const { return Wrt::name + conv2d_attributes<Same, SH, SW>(); }
  extents<4> result_extents(const extents<4>& ex, const extents<4>& ef, const extents<4>& eg) const {
    const auto geo = conv2d_geometry_of<Same, SH, SW>(ex, ef, "conv2d gradient");
    const extents<4> forward{geo.n, geo.oh, geo.ow, geo.o};
    if (eg != forward)
      throw shape_error("conv2d gradient (conv2d_transpose): the output gradient's shape " + staticflow::detail::extents_string(eg) +
                        " is not the convolution's output shape " + staticflow::detail::extents_string(forward));
    return wrt_image ? ex : ef;
  }
};
}  // namespace graph

/// tf.nn.conv2d(input, filters, strides, padding) with `data_format="NHWC"`: x is [batch, height,
/// width, channels], f is [filter_height, filter_width, in_channels, out_channels] (HWIO, as TF
/// stores Conv2D kernels). `sf::conv2d(x, f, sf::padding::same, sf::strides<2>)`.
template <symbolic X, symbolic F, class Padding = padding::valid_t, std::size_t SH = 1, std::size_t SW = 1>
constexpr auto conv2d(const X& x, const F& f, Padding = {}, strides_t<SH, SW> = {}) {
  return graph::conv2d<X, F, Padding::same, SH, SW>(x, f);
}
/// ... where either may be an sf::variable (a layer's kernel), read at this point.
template <detail::tensor_operand X, detail::tensor_operand F, class Padding = padding::valid_t, std::size_t SH = 1,
          std::size_t SW = 1>
  requires(!symbolic<X> || !symbolic<F>)
constexpr auto conv2d(const X& x, const F& f, Padding p = {}, strides_t<SH, SW> s = {}) {
  return conv2d(detail::as_node<void>(x), detail::as_node<void>(f), p, s);
}

/// tf.nn.conv1d(input, filters, stride, padding) with `data_format="NWC"`: x is [batch, width,
/// channels], f is [filter_width, in_channels, out_channels]; one stride (`sf::strides<2>`). A
/// conv2d of images one row high (the axes of extent 1 are views, not copies).
template <detail::tensor_operand X, detail::tensor_operand F, class Padding = padding::valid_t, std::size_t S = 1>
constexpr auto conv1d(const X& x, const F& f, Padding p = {}, strides_t<S, S> = {}) {
  const auto xn = detail::as_node<void>(x);
  const auto fn = detail::as_node<void>(f);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using FN = std::remove_cvref_t<decltype(fn)>;
  static_assert(XN::shape_type::rank == 3, "staticflow: conv1d needs a rank-3 NWC input [batch, width, channels]");
  static_assert(FN::shape_type::rank == 3, "staticflow: conv1d needs a rank-3 WIO filter [width, in_channels, out_channels]");
  if constexpr (XN::shape_type::rank != 3 || FN::shape_type::rank != 3) {
    return xn;
  } else {
    const auto rows = conv2d(expand_dims(xn, axes<1>{}), expand_dims(fn, axes<0>{}), p, strides<1, S>);
    return squeeze(rows, axes<1>{});
  }
}

namespace detail {
/// The static checks of conv2d_transpose: x must have the shape conv2d gives an output_shape image.
template <class SX, class SF, class Out, bool Same, std::size_t SH, std::size_t SW>
struct conv2d_transpose_check {
  static constexpr bool ranks = SX::rank == 4 && SF::rank == 4 && Out::rank == 4;
  static_assert(ranks, "staticflow: conv2d_transpose needs a rank-4 NHWC input, a rank-4 filter [height, width, "
                       "output_channels, in_channels] and a rank-4 output_shape");
  static_assert(!ranks || Out::is_static, "staticflow: conv2d_transpose: output_shape must be a static sf::shape<batch, height, width, channels>");
  static constexpr bool fits = [] {
    if constexpr (!ranks || !Out::is_static) {
      return true;
    } else {
      using forward = typename graph::detail::conv2d_shape<Out, SF, Same, SH, SW>::type;
      for (std::size_t d = 0; d < 4; ++d)
        if (!graph::detail::dims_match(forward::dims[d], SX::dims[d])) return false;
      return true;
    }
  }();
  static_assert(fits, "staticflow: conv2d_transpose: the input's shape is not what conv2d with these filters, strides and "
                      "padding makes of output_shape");
  static constexpr bool ok = ranks && Out::is_static && fits;
};
}  // namespace detail

/// tf.nn.conv2d_transpose(input, filters, output_shape, strides, padding), NHWC: the gradient of
/// conv2d with respect to its image (TF's definition), so `sf::conv2d_transpose(y, f,
/// sf::shape<1, 8, 8, 3>{}, sf::padding::same, sf::strides<2>)` undoes the shapes of a stride-2
/// conv2d of a [1, 8, 8, 3] image. x is [batch, height, width, in_channels]; f is [height, width,
/// output_channels, in_channels] (TF's layout: a conv2d filter of the shape it transposes).
template <detail::tensor_operand X, detail::tensor_operand F, class Out, class Padding = padding::valid_t, std::size_t SH = 1,
          std::size_t SW = 1>
  requires staticflow::detail::is_shape<Out>::value
constexpr auto conv2d_transpose(const X& x, const F& f, Out, Padding = {}, strides_t<SH, SW> = {}) {
  const auto xn = detail::as_node<void>(x);
  const auto fn = detail::as_node<void>(f);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using FN = std::remove_cvref_t<decltype(fn)>;
  using T = typename XN::value_type;
  static_assert(floating_dtype<T> && std::is_same_v<T, typename FN::value_type>,
                "staticflow: conv2d_transpose needs float32 or float64 tensors of one dtype");
  if constexpr (!detail::conv2d_transpose_check<typename XN::shape_type, typename FN::shape_type, Out, Padding::same, SH, SW>::ok ||
                !floating_dtype<T> || !std::is_same_v<T, typename FN::value_type>) {
    return xn;
  } else {
    const auto image = zeros<T>(Out{});  // the output's extents (read for its shape only)
    return graph::conv2d_gradient<graph::conv2d_wrt_image, std::remove_cvref_t<decltype(image)>, FN, XN, Padding::same, SH, SW>(
        image, fn, xn);
  }
}

}  // namespace staticflow
