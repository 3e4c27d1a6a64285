// staticflow/graph/conv3d.hpp -- sf::conv3d as tf.nn.conv3d: NDHWC or NCDHW volumes, DHWIO
// filters, strides, dilations, VALID / SAME / explicit padding and groups (the options of
// graph/conv_options.hpp, with three values where conv2d takes two), and the two nodes of its
// gradient (TF's Conv3DBackpropInputV2 and Conv3DBackpropFilterV2).
//
// The backends compute a conv3d as a conv2d (backend/cpu/conv3d.hpp): the volume's depth windows
// laid side by side as channels, [N, D, H, W, C] -> [N * OD, H, W, C * KD] (element c * KD + kd
// is the input at depth od * SD + kd * DD - pad_front, zero in the padding), convolved with the
// filter folded the same way, [KD, KH, KW, C/G, O] -> [KH, KW, C/G * KD, O]. Each output is then
// one GEMM row of the full contracted length KD * KH * KW * C/G, as a 3-D im2col would give, with
// only the depth unrolled into memory (KD times the input) and the rows and columns left to
// conv2d's implicit im2col. c * KD + kd keeps each group's channels together, so groups carry over.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "staticflow/graph/conv.hpp"

namespace staticflow {
namespace graph {

/// What a conv3d node keeps of its options: the depth axis's (a conv_options whose rows are the
/// depth) and the height and width's (a conv2d's).
template <class DepthOpt, class PlaneOpt>
struct conv3d_options {
  using depth = DepthOpt;
  using plane = PlaneOpt;
  /// TF's attributes, as graph listings show them: "[strides=1,2,2, padding=SAME]".
  static std::string attributes() {
    const auto triple = [](std::size_t a, std::size_t b, std::size_t c) {
      return std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c);
    };
    std::string s = "[strides=" + triple(DepthOpt::sh, PlaneOpt::sh, PlaneOpt::sw);
    if (PlaneOpt::same) s += ", padding=SAME";
    else if (PlaneOpt::is_explicit)
      s += ", padding=EXPLICIT(" + std::to_string(DepthOpt::pad_top) + "," + std::to_string(DepthOpt::pad_bottom) + "," +
           std::to_string(PlaneOpt::pad_top) + "," + std::to_string(PlaneOpt::pad_bottom) + "," +
           std::to_string(PlaneOpt::pad_left) + "," + std::to_string(PlaneOpt::pad_right) + ")";
    else s += ", padding=VALID";
    if (DepthOpt::dh != 1 || PlaneOpt::dilated) s += ", dilations=" + triple(DepthOpt::dh, PlaneOpt::dh, PlaneOpt::dw);
    return s + "]";
  }
};

/// Everything a kernel needs of one conv3d: the conv2d it becomes (`plane`: batch N * OD,
/// channels C * KD, the filter's in_channels C/G * KD) and the depth axis.
struct conv3d_geometry {
  conv2d_geometry plane;
  std::size_t n, d, c, kd, od, sd, dd, pad_front;
  std::size_t plane_size() const { return plane.h * plane.w; }  // H * W
  /// Elements of the depth windows [N * OD, H, W, C * KD] and of the folded filter.
  std::size_t patches_size() const { return n * od * plane_size() * c * kd; }
  std::size_t folded_filter_size() const { return plane.kh * plane.kw * plane.group_channels() * plane.o; }
};

namespace detail {
/// A conv3d's geometry from the run-time extents, after every check (with the 5-D shapes in the
/// messages: the conv2d it becomes has nothing left to throw).
template <class Opt>
conv3d_geometry conv3d_geometry_of(const extents<5>& ex, const extents<5>& ef, const char* op) {
  using D = typename Opt::depth;
  using P = typename Opt::plane;
  const auto shapes = [&] {
    return staticflow::detail::extents_string(ex) + " and filter " + staticflow::detail::extents_string(ef);
  };
  const std::size_t groups = conv_groups_of<true>(ex[4], ef[3], ef[4], op, shapes);
  if (!P::same && (ex[1] + D::pad_top + D::pad_bottom < dilated_extent(ef[0], D::dh) ||
                   ex[2] + P::pad_top + P::pad_bottom < dilated_extent(ef[1], P::dh) ||
                   ex[3] + P::pad_left + P::pad_right < dilated_extent(ef[2], P::dw)))
    throw shape_error(std::string(op) + ": image " + shapes() + ": with " + (P::is_explicit ? "explicit" : "VALID") +
                      " padding the " + (P::dilated || D::dh != 1 ? "dilated " : "") + "filter must fit in the " +
                      (P::is_explicit ? "padded " : "") + "image");
  const auto depth = conv_axis_of(P::same, ex[1], ef[0], D::sh, D::dh, D::pad_top, D::pad_bottom);
  const extents<4> windows{ex[0] * depth.out, ex[2], ex[3], ex[4] * ef[0]};
  const extents<4> folded{ef[1], ef[2], ef[3] * ef[0], ef[4]};
  return {conv_spatial_geometry<P>(windows, folded, groups, op), ex[0], ex[1], ex[4], ef[0], depth.out, D::sh, D::dh,
          depth.pad_before};
}

/// Shapes of conv3d(x [N,D,H,W,C], f [KD,KH,KW,C/G,O]) and their static checks.
template <class SX, class SF, class Opt>
struct conv3d_shape {
  using D = typename Opt::depth;
  using P = typename Opt::plane;
  static constexpr bool ranks = SX::rank == 5 && SF::rank == 5;
  static_assert(SX::rank == 5, "staticflow: conv3d needs a rank-5 NDHWC input [batch, depth, height, width, channels]");
  static_assert(SF::rank == 5,
                "staticflow: conv3d needs a rank-5 DHWIO filter [depth, height, width, in_channels, out_channels]");
  static constexpr std::size_t c = dim_or_dyn<SX>(4), fc = dim_or_dyn<SF>(3), o = dim_or_dyn<SF>(4);
  static constexpr bool channels = c == dyn || fc == dyn || c == fc || (fc != 0 && c != 0 && c % fc == 0);
  static_assert(!ranks || channels, "staticflow: conv3d: the filter's in_channels (dim 3) differ from the image's "
                                    "channels (dim 4) and do not divide them into groups");
  static constexpr bool groups_fit = !channels || c == dyn || fc == dyn || o == dyn || c == fc || o % (c / fc) == 0;
  static_assert(!ranks || groups_fit, "staticflow: conv3d: a grouped convolution's out_channels (the filter's dim 4) must "
                                      "be a multiple of the groups (the image's channels / the filter's in_channels)");
  static constexpr bool fits =
      conv_fits<D>(dim_or_dyn<SX>(1), dim_or_dyn<SF>(0), D::dh, D::pad_top + D::pad_bottom) &&
      conv_fits<P>(dim_or_dyn<SX>(2), dim_or_dyn<SF>(1), P::dh, P::pad_top + P::pad_bottom) &&
      conv_fits<P>(dim_or_dyn<SX>(3), dim_or_dyn<SF>(2), P::dw, P::pad_left + P::pad_right);
  static_assert(!ranks || !channels || !groups_fit || fits,
                "staticflow: conv3d with VALID or explicit padding: the (dilated) filter is larger than the (padded) image");
  static constexpr bool ok = ranks && channels && groups_fit && fits;
  using type = shape<dim_or_dyn<SX>(0),
                     conv_out_dim(P::same, dim_or_dyn<SX>(1), dim_or_dyn<SF>(0), D::sh, D::dh, D::pad_top, D::pad_bottom),
                     conv_out_dim(P::same, dim_or_dyn<SX>(2), dim_or_dyn<SF>(1), P::sh, P::dh, P::pad_top, P::pad_bottom),
                     conv_out_dim(P::same, dim_or_dyn<SX>(3), dim_or_dyn<SF>(2), P::sw, P::dw, P::pad_left, P::pad_right), o>;
};
}  // namespace detail

/// conv3d(x, f): x [N,D,H,W,C], f [KD,KH,KW,C/G,O] -> [N,OD,OH,OW,O]; float32 or float64.
template <class X, class F, class Opt>
struct conv3d : node<conv3d<X, F, Opt>> {
  static constexpr bool materialized = true;
  using compute_type = promote_t<typename X::value_type, typename F::value_type>;
  static_assert(floating_dtype<compute_type>, "staticflow: conv3d needs float32 or float64 tensors");
  using value_type = compute_type;
  using shape_type = typename detail::conv3d_shape<typename X::shape_type, typename F::shape_type, Opt>::type;
  X x;
  F f;
  constexpr conv3d(X x_, F f_) : x(x_), f(f_) {}
  constexpr child_refs<const X&, const F&> children() const { return {{{x}, {f}}}; }
  template <class A, class B>
  constexpr auto with_children(const A& a, const B& b) const { return conv3d<A, B, Opt>(a, b); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const conv3d&) const { return true; }
  std::string name() const { return "Conv3D" + Opt::attributes(); }
  extents<5> result_extents(const extents<5>& ex, const extents<5>& ef) const {
    const auto g = detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d");
    return {g.n, g.od, g.plane.oh, g.plane.ow, g.plane.o};
  }
};

/// The gradient of conv3d(x, f) with respect to x (Wrt = conv2d_wrt_image) or f
/// (conv2d_wrt_filter), given the output's gradient g; as conv2d_gradient.
template <class Wrt, class X, class F, class G, class Opt>
struct conv3d_gradient : node<conv3d_gradient<Wrt, X, F, G, Opt>> {
  static constexpr bool materialized = true;
  static constexpr bool wrt_image = std::is_same<Wrt, conv2d_wrt_image>::value;
  using value_type = typename G::value_type;
  using shape_type = std::conditional_t<wrt_image, typename X::shape_type, typename F::shape_type>;
  X x;
  F f;
  G g;
  constexpr conv3d_gradient(X x_, F f_, G g_) : x(x_), f(f_), g(g_) {}
  constexpr child_refs<const X&, const F&, const G&> children() const { return {{{x}, {f}, {g}}}; }
  template <class A, class B, class C>
  constexpr auto with_children(const A& a, const B& b, const C& c) const {
    return conv3d_gradient<Wrt, A, B, C, Opt>(a, b, c);
  }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const conv3d_gradient&) const { return true; }
  std::string name() const {
    return (wrt_image ? "Conv3DBackpropInputV2" : "Conv3DBackpropFilterV2") + Opt::attributes();
  }
  extents<5> result_extents(const extents<5>& ex, const extents<5>& ef, const extents<5>& eg) const {
    const auto geo = detail::conv3d_geometry_of<Opt>(ex, ef, "conv3d gradient");
    const extents<5> forward{geo.n, geo.od, geo.plane.oh, geo.plane.ow, geo.plane.o};
    if (eg != forward)
      throw shape_error("conv3d gradient: the output gradient's shape " + staticflow::detail::extents_string(eg) +
                        " is not the convolution's output shape " + staticflow::detail::extents_string(forward));
    return wrt_image ? ex : ef;
  }
};
}  // namespace graph

/// tf.nn.conv3d(input, filters, strides, padding, data_format, dilations): x is [batch, depth,
/// height, width, channels] (NDHWC; `sf::data_format::ncdhw` for [batch, channels, depth, height,
/// width]), f is [filter_depth, filter_height, filter_width, in_channels, out_channels] (DHWIO, as
/// TF stores Conv3D kernels). Options as conv2d's, three values where conv2d takes two:
/// `sf::strides<1, 2, 2>` (depth, rows, columns; or one for all), `sf::dilations<2>`,
/// `sf::padding::explicit_<front, back, top, bottom, left, right>`. A filter with fewer
/// in_channels than the image is a grouped convolution (TF's CPU kernel rejects groups, "input
/// and filter must have the same depth"; here every backend takes them).
template <detail::tensor_operand X, detail::tensor_operand F, class... Options>
constexpr auto conv3d(const X& x, const F& f, Options...) {
  using args = detail::conv_arguments<Options...>;
  const auto xn = detail::as_node<void>(x);
  const auto fn = detail::as_node<void>(f);
  if constexpr (!detail::conv_arguments_check<args, 3>::ok) {
    return xn;
  } else {
    const auto volume = detail::to_channels_last<args::channels_first, 3>(xn);
    using XN = std::remove_cvref_t<decltype(volume)>;
    using FN = std::remove_cvref_t<decltype(fn)>;
    using opt = graph::conv3d_options<typename args::depth_type, typename args::plane_type>;
    if constexpr (!graph::detail::conv3d_shape<typename XN::shape_type, typename FN::shape_type, opt>::ok) {
      return xn;
    } else {
      return detail::from_channels_last<args::channels_first, 3>(graph::conv3d<XN, FN, opt>(volume, fn));
    }
  }
}

}  // namespace staticflow
