// staticflow/io/onnx_nn.hpp -- the ONNX form of the neural-network layers' ops (graph/conv.hpp,
// graph/conv3d.hpp, graph/depthwise_conv.hpp, graph/pool.hpp) and of their gradients, used by
// io/onnx_lowering.hpp. ONNX's Conv, ConvTranspose and pools are channels-first (NCHW, OIHW
// weights), staticflow's (and TF's) channels-last (NHWC, HWIO filters): each lowering transposes
// in and out around its ONNX nodes. The poolings' gradients: MaxPoolGrad scatters at MaxPool's
// Indices, MaxPoolGradGrad gathers there, AvgPoolGrad is a ConvTranspose with a filter of ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "staticflow/core/shape.hpp"
#include "staticflow/graph/conv.hpp"
#include "staticflow/graph/conv3d.hpp"
#include "staticflow/graph/depthwise_conv.hpp"
#include "staticflow/graph/pool.hpp"
#include "staticflow/io/onnx_error.hpp"

namespace staticflow::onnx::detail {

/// ONNX's auto_pad for TF's padding: SAME_UPPER puts the odd padding row or column at the end,
/// as TF does, for any input extents.
inline void set_auto_pad(::onnx::NodeProto& node, bool same) {
  auto* pad = node.add_attribute();
  pad->set_name("auto_pad");
  pad->set_type(::onnx::AttributeProto::STRING);
  pad->set_s(same ? "SAME_UPPER" : "VALID");
}

/// SAME padding of one axis as explicit pads (before, after), for a dilated filter: onnxruntime's
/// Conv takes no dilations with auto_pad SAME_*. Static where stride 1 (the total is the dilated
/// filter's extent - 1 whatever the input) or the input extent is static; `ok` false otherwise.
struct same_pads {
  bool ok = false;
  std::int64_t before = 0, after = 0;
};
inline same_pads same_pads_of(std::size_t in, std::size_t k, std::size_t stride, std::size_t dilation) {
  if (k == staticflow::dyn || (stride != 1 && in == staticflow::dyn)) return {};
  const std::size_t n = stride == 1 ? k : in;  // (stride 1: any extent gives the same pads; k is one)
  const auto axis = graph::detail::conv_axis_of(true, n, k, stride, dilation);  // conv2d's SAME, split as TF
  const std::size_t covered = axis.out == 0 ? 0 : (axis.out - 1) * stride + graph::detail::dilated_extent(k, dilation);
  const std::size_t total = covered > n ? covered - n : 0;
  return {true, static_cast<std::int64_t>(axis.pad_before), static_cast<std::int64_t>(total - axis.pad_before)};
}

inline export_error same_with_dilations_error() {
  return export_error(
      "onnx export: a convolution with SAME padding and dilations is written with explicit pads (onnxruntime's Conv "
      "takes no dilations with auto_pad SAME): it needs static filter extents, and with strides a static image "
      "height and width");
}

/// conv2d(x, f) as Transpose -> Conv -> Transpose. SAME is ONNX's auto_pad SAME_UPPER (the odd
/// padding row or column at the end, as TF), VALID its VALID: both work for any input extents;
/// explicit padding (and SAME with dilations, see same_pads_of) is `pads` (ONNX's order: top,
/// left, bottom, right), dilations `dilations`, groups `group` (the weight's dim 1 is then
/// in_channels / group, as the HWIO filter's dim 2). XS / FS: the image's and filter's static
/// shapes. `weight_oihw`, when given, is the filter already in ONNX's [O, I, KH, KW] layout.
template <class Opt, class XS, class FS, class Exporter>
std::string lower_conv2d(Exporter& e, const std::string& x, const std::string& f, std::size_t groups,
                         const std::string& weight_oihw = {}) {
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  std::vector<std::int64_t> pads;
  if constexpr (Opt::is_explicit) {
    pads = {i(Opt::pad_top), i(Opt::pad_left), i(Opt::pad_bottom), i(Opt::pad_right)};
  } else if constexpr (Opt::same && Opt::dilated) {
    const auto rows = same_pads_of(XS::dims[1], FS::dims[0], Opt::sh, Opt::dh);
    const auto cols = same_pads_of(XS::dims[2], FS::dims[1], Opt::sw, Opt::dw);
    if (!rows.ok || !cols.ok) throw same_with_dilations_error();
    pads = {rows.before, cols.before, rows.after, cols.after};
  }
  const std::string nchw = e.fresh("image_nchw"), conv = e.fresh("conv"), out = e.fresh("conv_nhwc");
  std::string oihw = weight_oihw;
  e.set_ints(e.add_node("Transpose", {x}, {nchw}), "perm", {0, 3, 1, 2});
  if (oihw.empty()) {
    oihw = e.fresh("filter_oihw");
    e.set_ints(e.add_node("Transpose", {f}, {oihw}), "perm", {3, 2, 0, 1});
  }
  auto& node = e.add_node("Conv", {nchw, oihw}, {conv});
  e.set_ints(node, "strides", {i(Opt::sh), i(Opt::sw)});
  if (Opt::dilated) e.set_ints(node, "dilations", {i(Opt::dh), i(Opt::dw)});
  if (groups != 1) e.set_int(node, "group", i(groups));
  if (!pads.empty()) e.set_ints(node, "pads", pads);
  else set_auto_pad(node, Opt::same);
  e.set_ints(e.add_node("Transpose", {conv}, {out}), "perm", {0, 2, 3, 1});
  return out;
}

/// conv3d(x, f) as Transpose -> Conv (three spatial axes) -> Transpose, as lower_conv2d: pads in
/// ONNX's order (front, top, left, back, bottom, right), the DHWIO filter as [O, I, KD, KH, KW].
template <class Opt, class XS, class FS, class Exporter>
std::string lower_conv3d(Exporter& e, const std::string& x, const std::string& f, std::size_t groups) {
  using D = typename Opt::depth;
  using P = typename Opt::plane;
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  std::vector<std::int64_t> pads;
  if constexpr (P::is_explicit) {
    pads = {i(D::pad_top), i(P::pad_top), i(P::pad_left), i(D::pad_bottom), i(P::pad_bottom), i(P::pad_right)};
  } else if constexpr (P::same && (P::dilated || D::dh != 1)) {
    const auto depth = same_pads_of(XS::dims[1], FS::dims[0], D::sh, D::dh);
    const auto rows = same_pads_of(XS::dims[2], FS::dims[1], P::sh, P::dh);
    const auto cols = same_pads_of(XS::dims[3], FS::dims[2], P::sw, P::dw);
    if (!depth.ok || !rows.ok || !cols.ok) throw same_with_dilations_error();
    pads = {depth.before, rows.before, cols.before, depth.after, rows.after, cols.after};
  }
  const std::string ncdhw = e.fresh("volume_ncdhw"), oidhw = e.fresh("filter_oidhw"), conv = e.fresh("conv3d"),
                    out = e.fresh("conv3d_ndhwc");
  e.set_ints(e.add_node("Transpose", {x}, {ncdhw}), "perm", {0, 4, 1, 2, 3});
  e.set_ints(e.add_node("Transpose", {f}, {oidhw}), "perm", {4, 3, 0, 1, 2});
  auto& node = e.add_node("Conv", {ncdhw, oidhw}, {conv});
  e.set_ints(node, "strides", {i(D::sh), i(P::sh), i(P::sw)});
  if (P::dilated || D::dh != 1) e.set_ints(node, "dilations", {i(D::dh), i(P::dh), i(P::dw)});
  if (groups != 1) e.set_int(node, "group", i(groups));
  if (!pads.empty()) e.set_ints(node, "pads", pads);
  else set_auto_pad(node, P::same);
  e.set_ints(e.add_node("Transpose", {conv}, {out}), "perm", {0, 2, 3, 4, 1});
  return out;
}

/// depthwise_conv2d(x, f [KH, KW, C, M]) as a Conv of C groups: the filter reshaped to
/// [KH, KW, 1, C*M] (the same memory: output channel c*M + m) and transposed to [C*M, 1, KH, KW].
template <class Opt, class XS, class FS, class Exporter>
std::string lower_depthwise_conv2d(Exporter& e, const std::string& x, const std::string& f, std::size_t channels) {
  const std::string hwio = e.fresh("depthwise_hwio"), oihw = e.fresh("depthwise_oihw");
  e.set_int(e.add_node("Reshape", {f, e.ints({0, 0, 1, -1})}, {hwio}), "allowzero", 0);  // 0: keep that extent
  e.set_ints(e.add_node("Transpose", {hwio}, {oihw}), "perm", {3, 2, 0, 1});
  return lower_conv2d<Opt, XS, FS>(e, x, f, channels, oihw);
}

/// One spatial axis of conv2d's image gradient as ONNX's ConvTranspose: the transposed
/// convolution of conv2d's `n` outputs covers stride * (n - 1) + the dilated filter extent rows,
/// starting `before` rows above the image (conv2d's padding before it, cropped by pads' start);
/// what it covers past the image's end is cropped (pads' end), the image rows past its end that
/// no window reads (VALID with a remainder: fewer than the stride) are output_padding. `ok` is
/// false unless the image's and the filter's extents are static.
struct transpose_axis {
  bool ok = false;
  std::int64_t before = 0, after = 0, output_padding = 0;
};
inline transpose_axis transpose_axis_of(bool same, std::size_t image, std::size_t k, std::size_t stride, std::size_t dilation,
                                        std::size_t pad_before, std::size_t pad_after) {
  if (image == staticflow::dyn || k == staticflow::dyn) return {};
  const auto axis = graph::detail::conv_axis_of(same, image, k, stride, dilation, pad_before, pad_after);
  if (axis.out == 0) return {};
  const auto covered = static_cast<std::int64_t>(stride * (axis.out - 1) + graph::detail::dilated_extent(k, dilation));
  const std::int64_t end = covered - static_cast<std::int64_t>(axis.pad_before) - static_cast<std::int64_t>(image);
  return {true, static_cast<std::int64_t>(axis.pad_before), end >= 0 ? end : 0, end >= 0 ? 0 : -end};
}

/// One spatial axis of a convolution as its ONNX gradient lowerings need it: the image's and the
/// filter's extents (dyn when not static), stride, dilation and padding.
struct spatial_axis {
  bool same;
  std::size_t image, k, stride, dilation, pad_before, pad_after;
};
/// A convolution's spatial axes in order (rows, columns; or depth, rows, columns).
template <class Opt, class XS, class FS>
std::vector<spatial_axis> spatial_axes_of() {
  if constexpr (requires { typename Opt::depth; }) {  // conv3d
    using D = typename Opt::depth;
    using P = typename Opt::plane;
    return {{P::same, XS::dims[1], FS::dims[0], D::sh, D::dh, D::pad_top, D::pad_bottom},
            {P::same, XS::dims[2], FS::dims[1], P::sh, P::dh, P::pad_top, P::pad_bottom},
            {P::same, XS::dims[3], FS::dims[2], P::sw, P::dw, P::pad_left, P::pad_right}};
  } else {
    return {{Opt::same, XS::dims[1], FS::dims[0], Opt::sh, Opt::dh, Opt::pad_top, Opt::pad_bottom},
            {Opt::same, XS::dims[2], FS::dims[1], Opt::sw, Opt::dw, Opt::pad_left, Opt::pad_right}};
  }
}
/// Permutations for n spatial axes: channels-last -> first ([N, C, spatial...]), back, and a
/// channels-last tensor with its channels first ([C, N, spatial...]).
inline std::vector<std::int64_t> channels_first_perm(std::size_t n) {
  std::vector<std::int64_t> p{0, static_cast<std::int64_t>(n + 1)};
  for (std::size_t a = 1; a <= n; ++a) p.push_back(static_cast<std::int64_t>(a));
  return p;
}
inline std::vector<std::int64_t> channels_last_perm(std::size_t n) {
  std::vector<std::int64_t> p{0};
  for (std::size_t a = 2; a <= n + 1; ++a) p.push_back(static_cast<std::int64_t>(a));
  p.push_back(1);
  return p;
}
inline std::vector<std::int64_t> channels_as_batch_perm(std::size_t n) {
  std::vector<std::int64_t> p{static_cast<std::int64_t>(n + 1), 0};
  for (std::size_t a = 1; a <= n; ++a) p.push_back(static_cast<std::int64_t>(a));
  return p;
}

/// A convolution's image gradient (conv2d_transpose / Conv2DBackpropInput, Conv3DBackpropInputV2)
/// of dy, as Transpose -> ConvTranspose -> Transpose. The weight is the convolution's filter in
/// Conv's layout (ConvTranspose reads Conv's weight as is); pads and output_padding are static
/// (transpose_axis_of), so the image's spatial extents and the filter's must be. `what` names
/// the op in the error.
template <class Exporter>
std::string lower_conv_transpose(Exporter& e, const std::string& dy, const std::string& f, std::size_t groups,
                                 const std::vector<spatial_axis>& axes, const char* what) {
  const std::size_t n = axes.size();
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  std::vector<std::int64_t> strides, dilations, before, after, output_padding;
  bool dilated = false, extra = false;
  for (const auto& ax : axes) {
    const auto t = transpose_axis_of(ax.same, ax.image, ax.k, ax.stride, ax.dilation, ax.pad_before, ax.pad_after);
    if (!t.ok)
      throw export_error(std::string("onnx export: ") + what + " needs a static image " + (n == 3 ? "depth, " : "") +
                         "height and width and static filter extents: ConvTranspose's pads are static");
    strides.push_back(i(ax.stride)), dilations.push_back(i(ax.dilation)), before.push_back(t.before),
        after.push_back(t.after), output_padding.push_back(t.output_padding);
    dilated = dilated || ax.dilation != 1, extra = extra || t.output_padding != 0;
  }
  std::vector<std::int64_t> pads = before;
  pads.insert(pads.end(), after.begin(), after.end());
  std::vector<std::int64_t> weight_perm{i(n + 1), i(n)};  // [spatial..., I, O] -> [O, I, spatial...]
  for (std::size_t a = 0; a < n; ++a) weight_perm.push_back(i(a));
  const std::string first = e.fresh("gradient_channels_first"), weight = e.fresh("filter_oi"), conv = e.fresh("conv_transpose"),
                    out = e.fresh("conv_transpose_channels_last");
  e.set_ints(e.add_node("Transpose", {dy}, {first}), "perm", channels_first_perm(n));
  e.set_ints(e.add_node("Transpose", {f}, {weight}), "perm", weight_perm);
  auto& node = e.add_node("ConvTranspose", {first, weight}, {conv});
  e.set_ints(node, "strides", strides);
  if (dilated) e.set_ints(node, "dilations", dilations);
  if (groups != 1) e.set_int(node, "group", i(groups));
  e.set_ints(node, "pads", pads);
  if (extra) e.set_ints(node, "output_padding", output_padding);
  e.set_ints(e.add_node("Transpose", {conv}, {out}), "perm", channels_last_perm(n));
  return out;
}

/// A convolution's filter gradient (Conv2DBackpropFilter, Conv3DBackpropFilterV2) of image x and
/// dy as one Conv with the roles turned around: df[u..., p, q] = sum over (b, i...) of
/// x[b, i*S + u*D - pad..., p] dy[b, i..., q] is a Conv of x as [C, N, spatial...] (channels as the
/// batch) with dy as the weight [O, N, out spatial...], the convolution's dilations as its strides
/// and its strides as its dilations, padded by the convolution's padding before and as much after
/// as makes K outputs per axis (a Slice where it covers more), then transposed to [spatial..., I,
/// O]. With groups, that Conv pairs every channel with every output ([C, O, K...]); a
/// GatherElements keeps each output's own group, [C/G, O, K...] with element (p, q) from channel
/// group(q) * C/G + p. Static image, filter and output extents; `in_channels` (C/G) and
/// `outputs` (O) static.
template <class Exporter>
std::string lower_conv_filter_gradient(Exporter& e, const std::string& x, const std::string& dy, std::size_t groups,
                                       std::size_t in_channels, std::size_t outputs, const std::vector<spatial_axis>& axes,
                                       const char* what) {
  const std::size_t n = axes.size();
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  std::vector<std::int64_t> strides, dilations, before, after, ks, starts, slice_axes;
  bool ok = groups != 0 && (groups == 1 || (in_channels != staticflow::dyn && outputs != staticflow::dyn && outputs % groups == 0));
  for (std::size_t a = 0; a < n; ++a) {
    const auto& ax = axes[a];
    const bool known = ax.image != staticflow::dyn && ax.k != staticflow::dyn;
    const auto conv =
        graph::detail::conv_axis_of(ax.same, known ? ax.image : 0, ax.k, ax.stride, ax.dilation, ax.pad_before, ax.pad_after);
    ok = ok && known && ax.k != 0 && conv.out != 0;
    if (!ok) break;
    // rows after the image so that the output has at least K rows: (K-1) D + (OUT-1) S + 1 in all
    const std::int64_t needed = i((ax.k - 1) * ax.dilation + (conv.out - 1) * ax.stride + 1) - i(ax.image) - i(conv.pad_before);
    strides.push_back(i(ax.dilation)), dilations.push_back(i(ax.stride)), before.push_back(i(conv.pad_before)),
        after.push_back(needed > 0 ? needed : 0), ks.push_back(i(ax.k)), starts.push_back(0), slice_axes.push_back(i(a + 2));
  }
  if (!ok)
    throw export_error(std::string("onnx export: ") + what +
                       "'s filter gradient needs static, non-empty image and filter extents (and, with groups, static "
                       "in_channels and out_channels)");
  std::vector<std::int64_t> pads = before;
  pads.insert(pads.end(), after.begin(), after.end());
  std::vector<std::int64_t> to_filter;  // [I, O, spatial...] -> [spatial..., I, O]
  for (std::size_t a = 0; a < n; ++a) to_filter.push_back(i(a + 2));
  to_filter.push_back(0), to_filter.push_back(1);
  const std::string image = e.fresh("image_channels_as_batch"), weight = e.fresh("gradient_channels_as_batch"),
                    conv = e.fresh("filter_gradient");
  e.set_ints(e.add_node("Transpose", {x}, {image}), "perm", channels_as_batch_perm(n));
  e.set_ints(e.add_node("Transpose", {dy}, {weight}), "perm", channels_as_batch_perm(n));
  auto& node = e.add_node("Conv", {image, weight}, {conv});
  e.set_ints(node, "strides", strides);
  e.set_ints(node, "dilations", dilations);
  e.set_ints(node, "pads", pads);
  std::string cropped = e.op("Slice", {conv, e.ints(starts), e.ints(ks), e.ints(slice_axes)});
  if (groups != 1) {  // each output's own group: element (p, q, k...) from channel group(q) * C/G + p
    std::vector<std::int64_t> dims{i(in_channels), i(outputs)};
    dims.insert(dims.end(), ks.begin(), ks.end());
    std::size_t taps = 1;
    for (const std::int64_t k : ks) taps *= static_cast<std::size_t>(k);
    std::vector<std::int64_t> channel(in_channels * outputs * taps);
    for (std::size_t p = 0; p < in_channels; ++p)
      for (std::size_t q = 0; q < outputs; ++q)
        for (std::size_t t = 0; t < taps; ++t)
          channel[(p * outputs + q) * taps + t] = i(q / (outputs / groups) * in_channels + p);
    cropped = e.op("GatherElements", {cropped, e.template constant<std::int64_t>(channel, dims)});
  }
  const std::string out = e.fresh("filter_gradient_channels_last");
  e.set_ints(e.add_node("Transpose", {cropped}, {out}), "perm", to_filter);
  return out;
}

/// A MaxPool or AveragePool node of a channels-first input with pooling parameters P (Rank: the
/// channels-last input's rank, 3 for 1-D, 4 for 2-D); `outputs` are the node's (MaxPool's second
/// is Indices). AveragePool's count_include_pad is 0 (its default): SAME's padding is not counted, as TF.
template <bool Max, class P, std::size_t Rank, class Exporter>
void add_pool_node(Exporter& e, const std::string& image, const std::vector<std::string>& outputs) {
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  auto& node = e.add_node(Max ? "MaxPool" : "AveragePool", {image}, outputs);
  e.set_ints(node, "kernel_shape", Rank == 4 ? std::vector<std::int64_t>{i(P::kh), i(P::kw)} : std::vector<std::int64_t>{i(P::kw)});
  e.set_ints(node, "strides", Rank == 4 ? std::vector<std::int64_t>{i(P::sh), i(P::sw)} : std::vector<std::int64_t>{i(P::sw)});
  set_auto_pad(node, P::same);
}

/// A channels-last tensor of rank Rank turned channels-first, or back.
template <std::size_t Rank, class Exporter>
std::string channels_first(Exporter& e, const std::string& x) {
  const std::string out = e.fresh("channels_first");
  e.set_ints(e.add_node("Transpose", {x}, {out}), "perm", channels_first_perm(Rank - 2));
  return out;
}
template <std::size_t Rank, class Exporter>
std::string channels_last(Exporter& e, const std::string& x) {
  const std::string out = e.fresh("channels_last");
  e.set_ints(e.add_node("Transpose", {x}, {out}), "perm", channels_last_perm(Rank - 2));
  return out;
}

/// max_pool / avg_pool as Transpose -> MaxPool / AveragePool -> Transpose, 1-D (rank 3) or 2-D.
template <bool Max, class P, std::size_t Rank, class Exporter>
std::string lower_pool(Exporter& e, const std::string& x) {
  const std::string pooled = e.fresh("pool");
  add_pool_node<Max, P, Rank>(e, channels_first<Rank>(e, x), {pooled});
  return channels_last<Rank>(e, pooled);
}

/// Where max_pool (parameters P) of the channels-last x finds each window's maximum: MaxPool's
/// Indices, flat indices into the channels-first image `image` (the first maximum in row-major
/// order, where TF's MaxPoolGrad sends the gradient). A window with a NaN differs: onnxruntime's
/// MaxPool skips NaN, where staticflow picks the window's first NaN.
struct pool_argmax {
  std::string image, argmax;
};
template <class P, std::size_t Rank, class Exporter>
pool_argmax max_pool_argmax(Exporter& e, const std::string& x) {
  pool_argmax found{channels_first<Rank>(e, x), e.fresh("pool_argmax")};
  add_pool_node<true, P, Rank>(e, found.image, {e.fresh("pool"), found.argmax});
  return found;
}

/// MaxPoolGrad of image x and output gradient dy: a ScatterElements adds each output's gradient
/// at its window's maximum on flat zeros (two windows may share one). Run-time extents export.
template <class T, class P, std::size_t Rank, class Exporter>
std::string lower_max_pool_gradient(Exporter& e, const std::string& x, const std::string& dy) {
  const auto [image, argmax] = max_pool_argmax<P, Rank>(e, x);
  const std::string flat = e.ints({-1});
  const std::string zeros = e.op("Expand", {e.template constant<T>({T(0)}, {}), e.op("Reshape", {e.op("Size", {image}), e.ints({1})})});
  const std::string indices = e.op("Reshape", {argmax, flat}), updates = e.op("Reshape", {channels_first<Rank>(e, dy), flat});
  const std::string summed = e.fresh("max_pool_gradient");
  auto& scatter = e.add_node("ScatterElements", {zeros, indices, updates}, {summed});
  auto* reduction = scatter.add_attribute();  // opset 16's reduction
  reduction->set_name("reduction");
  reduction->set_type(::onnx::AttributeProto::STRING);
  reduction->set_s("add");
  return channels_last<Rank>(e, e.op("Reshape", {summed, e.op("Shape", {image})}));
}

/// MaxPoolGradGrad of image x and tangent t (x's shape): a Gather of the flat channels-first t at
/// the maxima, shaped as the Indices (the pooling's output).
template <class P, std::size_t Rank, class Exporter>
std::string lower_max_pool_gradient_gradient(Exporter& e, const std::string& x, const std::string& t) {
  const auto found = max_pool_argmax<P, Rank>(e, x);
  return channels_last<Rank>(e, e.op("Gather", {e.op("Reshape", {channels_first<Rank>(e, t), e.ints({-1})}), found.argmax}));
}

/// AvgPoolGrad of an image of shape XS and output gradient dy: dy divided by each window's count
/// of image elements (a constant: SAME's padding is not counted), spread over the window by a
/// ConvTranspose with a filter of ones, one group per channel. ConvTranspose's pads and group
/// are static: the image's height, width and channel count must be.
template <class T, class P, class XS, class Exporter>
std::string lower_avg_pool_gradient(Exporter& e, const std::string& dy) {
  constexpr std::size_t rank = XS::rank, c = XS::dims[rank - 1], h = rank == 4 ? XS::dims[1] : 1, w = XS::dims[rank - 2];
  if constexpr (c == staticflow::dyn || c == 0 || h == staticflow::dyn || w == staticflow::dyn) {
    throw export_error("onnx export: avg_pool's gradient is a ConvTranspose with a filter of ones: it needs a static "
                       "image height, width and (non-zero) channel count, as ConvTranspose's pads and group are static");
  } else {
    extents<rank> one_image{};
    one_image[0] = 1, one_image[rank - 1] = 1, one_image[rank - 2] = w;
    if constexpr (rank == 4) one_image[1] = h;
    const auto geo = graph::pool_geometry_of<rank, P>(one_image, "avg_pool's gradient");
    std::vector<T> counts;
    for (std::size_t i = 0; i < geo.oh; ++i)
      for (std::size_t j = 0; j < geo.ow; ++j) counts.push_back(static_cast<T>(geo.window_of(i, j).count()));
    const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
    const std::string count = rank == 4 ? e.template constant<T>(counts, {1, i(geo.oh), i(geo.ow), 1})
                                        : e.template constant<T>(counts, {1, i(geo.ow), 1});
    const std::vector<std::int64_t> filter_dims =
        rank == 4 ? std::vector<std::int64_t>{i(P::kh), i(P::kw), 1, i(c)} : std::vector<std::int64_t>{i(P::kw), 1, i(c)};
    const std::string ones = e.template constant<T>(std::vector<T>(P::kh * P::kw * c, T(1)), filter_dims);
    std::vector<spatial_axis> axes;
    if constexpr (rank == 4) axes.push_back({P::same, h, P::kh, P::sh, 1, 0, 0});
    axes.push_back({P::same, w, P::kw, P::sw, 1, 0, 0});
    return lower_conv_transpose(e, e.op("Div", {dy, count}), ones, c, axes, "avg_pool's gradient");
  }
}

/// conv2d's groups (image channels / filter in_channels) are ONNX's static `group`: when the
/// types do not give both counts, the model says 1, and onnxruntime checks the channels on
/// every run (a grouped convolution needs static channels to export).
/// An image of more batch axes ([batch..., H, W, C]) is reshaped to one and back: its shape
/// must be static.
template <class X, class F, class Opt, class E>
std::string lower_node(E& e, const graph::conv2d<X, F, Opt>& n) {
  using T = typename graph::conv2d<X, F, Opt>::compute_type;
  using XS = typename X::shape_type;
  constexpr std::size_t rank = XS::rank, c = XS::dims[rank - 1], fc = F::shape_type::dims[2];
  constexpr std::size_t groups = c != dyn && fc != dyn && fc != 0 ? c / fc : 1;
  if constexpr (rank == 4) {
    return lower_conv2d<Opt, XS, typename F::shape_type>(e, e.template emit_as<T>(n.x), e.template emit_as<T>(n.f), groups);
  } else if constexpr (!XS::is_static || !graph::conv2d<X, F, Opt>::shape_type::is_static) {
    throw export_error("onnx export: conv2d over more than one batch axis needs a static image shape (ONNX's Conv "
                       "takes one: the batch axes are reshaped into one and back)");
  } else {
    using flat = shape<dyn, XS::dims[rank - 3], XS::dims[rank - 2], c>;
    const auto dims = [](const auto& d) { return std::vector<std::int64_t>(d.begin(), d.end()); };
    const std::string image =
        e.op("Reshape", {e.template emit_as<T>(n.x), e.ints({-1, std::int64_t(flat::dims[1]), std::int64_t(flat::dims[2]), std::int64_t(c)})});
    const std::string y = lower_conv2d<Opt, flat, typename F::shape_type>(e, image, e.template emit_as<T>(n.f), groups);
    return e.op("Reshape", {y, e.ints(dims(graph::conv2d<X, F, Opt>::shape_type::dims))});
  }
}

/// conv3d is ONNX's Conv with three spatial axes; its gradients are ConvTranspose and a Conv
/// with the roles turned around, as conv2d's (static channel counts).
template <class X, class F, class Opt, class E>
std::string lower_node(E& e, const graph::conv3d<X, F, Opt>& n) {
  using T = typename graph::conv3d<X, F, Opt>::compute_type;
  constexpr std::size_t c = X::shape_type::dims[4], fc = F::shape_type::dims[3];
  constexpr std::size_t groups = c != dyn && fc != dyn && fc != 0 ? c / fc : 1;
  return lower_conv3d<Opt, typename X::shape_type, typename F::shape_type>(e, e.template emit_as<T>(n.x), e.template emit_as<T>(n.f), groups);
}
template <class Wrt, class X, class F, class G, class Opt, class E>
std::string lower_node(E& e, const graph::conv3d_gradient<Wrt, X, F, G, Opt>& n) {
  using T = typename graph::conv3d_gradient<Wrt, X, F, G, Opt>::value_type;
  constexpr std::size_t c = X::shape_type::dims[4], fc = F::shape_type::dims[3];
  if constexpr (c == dyn || fc == dyn || fc == 0) {
    throw export_error("onnx export: conv3d's gradients need static channel counts (the image's and the filter's "
                       "in_channels): ONNX's group is static");
  } else {
    const auto axes = spatial_axes_of<Opt, typename X::shape_type, typename F::shape_type>();
    if constexpr (graph::conv3d_gradient<Wrt, X, F, G, Opt>::wrt_image)
      return lower_conv_transpose(e, e.template emit_as<T>(n.g), e.template emit_as<T>(n.f), c / fc, axes, "conv3d's image gradient");
    else
      return lower_conv_filter_gradient(e, e.template emit_as<T>(n.x), e.template emit_as<T>(n.g), c / fc, fc, F::shape_type::dims[4], axes,
                                        "conv3d");
  }
}

/// The groups of a convolution's gradient node, which ONNX needs statically: unlike the
/// forward Conv, onnxruntime has no channel count to check them against on a run (a wrong
/// group would give wrong results, not an error), so both channel counts must be static.
template <class X, class F>
std::size_t conv_static_groups() {
  constexpr std::size_t c = X::shape_type::dims[3], fc = F::shape_type::dims[2];
  if (X::shape_type::rank != 4)
    throw export_error("onnx export: conv2d's gradients over more than one batch axis have no ONNX lowering yet");
  if (c == dyn || fc == dyn || fc == 0)
    throw export_error("onnx export: conv2d's gradients need static channel counts (the image's and the filter's "
                       "in_channels): ONNX's group is static");
  return c / fc;
}

/// conv2d_transpose (TF's Conv2DBackpropInput) is ONNX's ConvTranspose.
template <class X, class F, class G, class Opt, class E>
std::string lower_node(E& e, const graph::conv2d_gradient<graph::conv2d_wrt_image, X, F, G, Opt>& n) {
  using T = typename graph::conv2d_gradient<graph::conv2d_wrt_image, X, F, G, Opt>::value_type;
  const std::size_t groups = conv_static_groups<X, F>();
  return lower_conv_transpose(e, e.template emit_as<T>(n.g), e.template emit_as<T>(n.f), groups,
                              spatial_axes_of<Opt, typename X::shape_type, typename F::shape_type>(),
                              "conv2d_transpose (conv2d's image gradient)");
}

/// The filter's gradient (Conv2DBackpropFilter) is a Conv with image and gradient as input and
/// weight (onnx_nn.hpp): a value_and_grad of a convolution layer exports.
template <class X, class F, class G, class Opt, class E>
std::string lower_node(E& e, const graph::conv2d_gradient<graph::conv2d_wrt_filter, X, F, G, Opt>& n) {
  using T = typename graph::conv2d_gradient<graph::conv2d_wrt_filter, X, F, G, Opt>::value_type;
  const std::size_t groups = conv_static_groups<X, F>();
  return lower_conv_filter_gradient(e, e.template emit_as<T>(n.x), e.template emit_as<T>(n.g), groups, F::shape_type::dims[2],
                                    F::shape_type::dims[3], spatial_axes_of<Opt, typename X::shape_type, typename F::shape_type>(),
                                    "conv2d");
}

template <class X, class F, class Opt, class E>
std::string lower_node(E& e, const graph::depthwise_conv2d<X, F, Opt>& n) {
  constexpr std::size_t c = X::shape_type::dims[3];
  if constexpr (c == dyn || c == 0) {
    throw export_error("onnx export: depthwise_conv2d with a run-time (or zero) channel count has no ONNX form (Conv's "
                       "group is static); give the image a static channel count");
  } else {
    return lower_depthwise_conv2d<Opt, typename X::shape_type, typename F::shape_type>(e, e.emit(n.x), e.emit(n.f), c);
  }
}

template <class Kind, class X, class P, class E>
std::string lower_node(E& e, const graph::pool<Kind, X, P>& n) {
  return lower_pool<std::is_same<Kind, graph::max_pooling>::value, P, X::shape_type::rank>(e, e.emit(n.x));
}

template <class Kind, class X, class G, class P, class E>
std::string lower_node(E& e, const graph::pool_gradient<Kind, X, G, P>& n) {
  using T = typename G::value_type;
  if constexpr (std::is_same<Kind, graph::max_pooling>::value)
    return lower_max_pool_gradient<T, P, X::shape_type::rank>(e, e.template emit_as<T>(n.x), e.emit(n.g));
  else return lower_avg_pool_gradient<T, P, typename X::shape_type>(e, e.emit(n.g));
}

template <class X, class T, class P, class E>
std::string lower_node(E& e, const graph::max_pool_gradient_gradient<X, T, P>& n) {
  using V = typename T::value_type;
  return lower_max_pool_gradient_gradient<P, X::shape_type::rank>(e, e.template emit_as<V>(n.x), e.emit(n.e));
}

}  // namespace staticflow::onnx::detail
