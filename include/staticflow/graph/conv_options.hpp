// staticflow/graph/conv_options.hpp -- the optional arguments of the convolutions, as TF's
// tf.nn.conv2d (and conv1d, conv3d) spell them: sf::padding::valid / same / explicit_<...>, sf::strides<...>,
// sf::dilations<...> and sf::data_format::channels_last / channels_first (NHWC / NCHW), given
// after the filter in any order, each at most once:
//
//   sf::conv2d(x, f, sf::padding::same, sf::strides<2>)
//   sf::conv2d(x, f, sf::dilations<2>, sf::padding::explicit_<1, 1, 2, 2>, sf::data_format::nchw)
//
// What a node keeps of them is one type, graph::conv_options: the padding, strides and
// dilations (the data format is transposes around the node, decided by the API functions).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

namespace staticflow {

/// A convolution's padding, as tf.nn.conv2d's `padding` argument.
namespace padding {
struct valid_t {
  static constexpr bool same = false, is_explicit = false;
  static constexpr std::size_t front = 0, back = 0, top = 0, bottom = 0, left = 0, right = 0;
};
struct same_t {
  static constexpr bool same = true, is_explicit = false;
  static constexpr std::size_t front = 0, back = 0, top = 0, bottom = 0, left = 0, right = 0;
};
/// Zeros before and after each spatial axis: <top, bottom, left, right> for a 2-D convolution,
/// <left, right> for a 1-D one, <front, back, top, bottom, left, right> for a 3-D one (TF's
/// explicit padding, [[0, 0], [top, bottom], [left, right], [0, 0]]).
template <std::size_t... P>
struct explicit_t {
  static_assert(sizeof...(P) == 2 || sizeof...(P) == 4 || sizeof...(P) == 6,
                "staticflow: sf::padding::explicit_<...> takes the zeros before and after each spatial axis: <top, "
                "bottom, left, right> for a 2-D convolution, <left, right> for a 1-D one, <front, back, top, bottom, "
                "left, right> for a 3-D one");
  static constexpr bool same = false, is_explicit = true;
  static constexpr std::size_t count = sizeof...(P), spatial_axes = count / 2;
  // (a trailing 0, so that a wrong count reads no element past the end: the assertion above is
  // then the one error)
  static constexpr std::array<std::size_t, count + 1> values{P..., 0};
  static constexpr std::size_t front = count == 6 ? values[0] : 0, back = count == 6 ? values[1] : 0,
                               top = count >= 4 ? values[count - 4] : 0, bottom = count >= 4 ? values[count - 3] : 0,
                               left = count >= 2 ? values[count - 2] : 0, right = count >= 2 ? values[count - 1] : 0;
};
/// No padding: every output reads a whole window of the input.
inline constexpr valid_t valid{};
/// Zero padding so that the output has ceil(input / stride) rows and columns (TF's split: the
/// extra row or column goes to the bottom / right).
inline constexpr same_t same{};
/// Explicit zero padding: `sf::padding::explicit_<1, 1, 2, 2>` (top, bottom, left, right).
template <std::size_t... P>
inline constexpr explicit_t<P...> explicit_{};
}  // namespace padding

namespace detail {
/// One value per spatial axis, or one for all of them: `depth` (3-D only), `rows` and `cols`
/// (the last two given; a 1-D convolution uses `cols`).
template <std::size_t... V>
struct per_spatial_axis {
  static constexpr std::size_t count = sizeof...(V);
  static constexpr std::array<std::size_t, count + 1> values{V..., 1};
  static constexpr std::size_t depth = values[0], rows = count >= 2 ? values[count - 2] : values[0],
                               cols = count >= 1 ? values[count - 1] : 1;
};
}  // namespace detail

/// A convolution's (or pooling's) strides: `sf::strides<2>` along every spatial axis, or one per
/// axis, `<rows, cols>` (2-D), `<depth, rows, cols>` (3-D).
template <std::size_t... S>
struct strides_t : detail::per_spatial_axis<S...> {
  static_assert(sizeof...(S) >= 1 && sizeof...(S) <= 3 && ((S >= 1) && ...),
                "staticflow: sf::strides takes one to three values, each at least 1");
};
template <std::size_t... S>
inline constexpr strides_t<S...> strides{};

/// A convolution's dilations (tf.nn.conv2d's `dilations`, the atrous rate): filter tap (u, v)
/// reads the input DH * u rows and DW * v columns from the window's corner; one value for every
/// spatial axis or one per axis, as sf::strides.
template <std::size_t... D>
struct dilations_t : detail::per_spatial_axis<D...> {
  static_assert(sizeof...(D) >= 1 && sizeof...(D) <= 3 && ((D >= 1) && ...),
                "staticflow: sf::dilations takes one to three values, each at least 1");
};
template <std::size_t... D>
inline constexpr dilations_t<D...> dilations{};

/// Where a convolution's input and output keep their channels: TF's data_format. The filter is
/// [height, width, in_channels, out_channels] (HWIO) in both, as in TF.
namespace data_format {
struct channels_last_t {
  static constexpr bool channels_first = false;
};
struct channels_first_t {
  static constexpr bool channels_first = true;
};
inline constexpr channels_last_t channels_last{}, nhwc{}, nwc{}, ndhwc{};
inline constexpr channels_first_t channels_first{}, nchw{}, ncw{}, ncdhw{};
}  // namespace data_format

namespace graph {
/// What a convolution node keeps of its options: padding, strides and dilations, all static;
/// Grouped false for a convolution whose filter must take every channel (separable_conv2d's
/// pointwise stage: fewer in_channels is then an error, not groups).
template <class Padding, std::size_t SH, std::size_t SW, std::size_t DH = 1, std::size_t DW = 1, bool Grouped = true>
struct conv_options {
  using padding_type = Padding;
  static constexpr bool grouped = Grouped;
  static constexpr bool same = Padding::same, is_explicit = Padding::is_explicit;
  static constexpr std::size_t sh = SH, sw = SW, dh = DH, dw = DW;
  static constexpr std::size_t pad_top = Padding::top, pad_bottom = Padding::bottom, pad_left = Padding::left,
                               pad_right = Padding::right;
  static constexpr bool dilated = DH != 1 || DW != 1;

  /// TF's attributes, as graph listings show them: "[strides=2,2, padding=SAME]".
  static std::string attributes() {
    const auto pair = [](std::size_t a, std::size_t b) { return std::to_string(a) + "," + std::to_string(b); };
    std::string s = "[strides=" + pair(SH, SW);
    if (same) s += ", padding=SAME";
    else if (is_explicit) s += ", padding=EXPLICIT(" + pair(pad_top, pad_bottom) + "," + pair(pad_left, pad_right) + ")";
    else s += ", padding=VALID";
    if (dilated) s += ", dilations=" + pair(DH, DW);
    return s + "]";
  }
};

template <class O>
inline constexpr bool is_conv_options = false;
template <class P, std::size_t SH, std::size_t SW, std::size_t DH, std::size_t DW, bool G>
inline constexpr bool is_conv_options<conv_options<P, SH, SW, DH, DW, G>> = true;
}  // namespace graph

namespace detail {
template <class O>
inline constexpr bool is_padding_option = std::is_same<O, padding::valid_t>::value || std::is_same<O, padding::same_t>::value;
template <std::size_t... P>
inline constexpr bool is_padding_option<padding::explicit_t<P...>> = true;
template <class O>
inline constexpr bool is_strides_option = false;
template <std::size_t... S>
inline constexpr bool is_strides_option<strides_t<S...>> = true;
template <class O>
inline constexpr bool is_dilations_option = false;
template <std::size_t... D>
inline constexpr bool is_dilations_option<dilations_t<D...>> = true;
template <class O>
inline constexpr bool is_data_format_option =
    std::is_same<O, data_format::channels_last_t>::value || std::is_same<O, data_format::channels_first_t>::value;
template <class O>
inline constexpr bool channels_first_option = std::is_same<O, data_format::channels_first_t>::value;
/// Internal option: the filter takes every channel, never groups (separable_conv2d's 1x1 stage).
struct one_group_t {};
template <class O>
inline constexpr bool is_one_group_option = std::is_same<O, one_group_t>::value;

template <template <class> class, class Default, class... Options>
struct pick_option;
template <template <class> class Is, class Default>
struct pick_option<Is, Default> {
  using type = Default;
};
template <template <class> class Is, class Default, class O, class... Rest>
struct pick_option<Is, Default, O, Rest...> {
  using type = std::conditional_t<Is<O>::value, O, typename pick_option<Is, Default, Rest...>::type>;
};
template <class O>
struct padding_option_test : std::bool_constant<is_padding_option<O>> {};
template <class O>
struct strides_option_test : std::bool_constant<is_strides_option<O>> {};
template <class O>
struct dilations_option_test : std::bool_constant<is_dilations_option<O>> {};
template <class O>
struct data_format_option_test : std::bool_constant<is_data_format_option<O>> {};

/// The options given to a convolution, in any order: `valid` when each kind appears at most once
/// and nothing else is given; the node's graph::conv_options (VALID, strides 1, dilations 1 by
/// default) and whether the input is channels-first.
template <class... Options>
struct conv_arguments {
  static constexpr std::size_t paddings = (std::size_t{is_padding_option<Options>} + ... + 0),
                               strides_given = (std::size_t{is_strides_option<Options>} + ... + 0),
                               dilations_given = (std::size_t{is_dilations_option<Options>} + ... + 0),
                               formats = (std::size_t{is_data_format_option<Options>} + ... + 0),
                               one_group = (std::size_t{is_one_group_option<Options>} + ... + 0);
  static constexpr bool valid = paddings <= 1 && strides_given <= 1 && dilations_given <= 1 && formats <= 1 &&
                                one_group <= 1 &&
                                paddings + strides_given + dilations_given + formats + one_group == sizeof...(Options);
  using padding_type = typename pick_option<padding_option_test, padding::valid_t, Options...>::type;
  using strides_type = typename pick_option<strides_option_test, strides_t<1>, Options...>::type;
  using dilations_type = typename pick_option<dilations_option_test, dilations_t<1>, Options...>::type;
  static constexpr bool channels_first =
      pick_option<data_format_option_test, data_format::channels_last_t, Options...>::type::channels_first;
  /// Spatial axes the explicit padding was written for (0 when none was).
  static constexpr std::size_t padded_axes = [] {
    if constexpr (padding_type::is_explicit) return padding_type::spatial_axes;
    else return std::size_t{0};
  }();
  using type = graph::conv_options<padding_type, strides_type::rows, strides_type::cols, dilations_type::rows,
                                   dilations_type::cols, one_group == 0>;
  /// The options of a 1-D convolution run as a 2-D one over images one row high: strides,
  /// dilations and padding along the width only.
  using one_row_type = graph::conv_options<
      std::conditional_t<padding_type::is_explicit, padding::explicit_t<0, 0, padding_type::left, padding_type::right>,
                         padding_type>,
      1, strides_type::cols, 1, dilations_type::cols>;
  /// A 3-D convolution's options: those of its height and width (`type` of the last two axes)
  /// and those of its depth (a conv_options whose rows are the depth).
  using plane_type = graph::conv_options<
      std::conditional_t<padding_type::is_explicit,
                         padding::explicit_t<padding_type::top, padding_type::bottom, padding_type::left, padding_type::right>,
                         padding_type>,
      strides_type::rows, strides_type::cols, dilations_type::rows, dilations_type::cols, one_group == 0>;
  using depth_type = graph::conv_options<
      std::conditional_t<padding_type::is_explicit, padding::explicit_t<padding_type::front, padding_type::back, 0, 0>,
                         padding_type>,
      strides_type::depth, 1, dilations_type::depth, 1>;
};

/// The static checks of a convolution's options: a class, so that its diagnostics appear once
/// however many traces (traced and eager) make the same mistake. SpatialAxes: 1, 2 or 3.
template <class Args, std::size_t SpatialAxes>
struct conv_arguments_check {
  static constexpr bool valid = Args::valid;
  static_assert(valid,
                "staticflow: a convolution takes its input and filter, then at most one each of sf::padding, "
                "sf::strides, sf::dilations and sf::data_format, in any order");
  static constexpr std::size_t padded = Args::padded_axes;
  static_assert(!valid || padded == 0 || padded == SpatialAxes,
                "staticflow: sf::padding::explicit_ takes two values per spatial axis: <top, bottom, left, right> "
                "for a 2-D convolution, <left, right> for a 1-D one, <front, back, top, bottom, left, right> for a 3-D one");
  static constexpr bool counts = [] {
    constexpr std::size_t s = Args::strides_type::count, d = Args::dilations_type::count;
    if constexpr (SpatialAxes == 3) return (s == 1 || s == 3) && (d == 1 || d == 3);
    else return s <= 2 && d <= 2;
  }();
  static_assert(!valid || counts,
                "staticflow: sf::strides and sf::dilations take one value, or one per spatial axis: <rows, cols> for a "
                "2-D convolution, <depth, rows, cols> for a 3-D one");
  static constexpr bool ok = valid && (padded == 0 || padded == SpatialAxes) && counts;
};
}  // namespace detail
}  // namespace staticflow
