// staticflow/io/onnx_nn.hpp -- the ONNX form of the neural-network layers' ops (graph/conv.hpp,
// graph/pool.hpp), used by io/onnx_lowering.hpp. ONNX's Conv and pools are channels-first (NCHW,
// OIHW weights), staticflow's (and TF's) channels-last (NHWC, HWIO filters): each lowering
// transposes in and out around one ONNX node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace staticflow::onnx::detail {

/// ONNX's auto_pad for TF's padding: SAME_UPPER puts the odd padding row or column at the end,
/// as TF does, for any input extents.
inline void set_auto_pad(::onnx::NodeProto& node, bool same) {
  auto* pad = node.add_attribute();
  pad->set_name("auto_pad");
  pad->set_type(::onnx::AttributeProto::STRING);
  pad->set_s(same ? "SAME_UPPER" : "VALID");
}

/// conv2d(x, f) as Transpose -> Conv -> Transpose. SAME is ONNX's auto_pad SAME_UPPER (the odd
/// padding row or column at the end, as TF), VALID its VALID: both work for any input extents.
template <bool Same, std::size_t SH, std::size_t SW, class Exporter>
std::string lower_conv2d(Exporter& e, const std::string& x, const std::string& f) {
  const std::string nchw = e.fresh("image_nchw"), oihw = e.fresh("filter_oihw"), conv = e.fresh("conv"),
                    out = e.fresh("conv_nhwc");
  e.set_ints(e.add_node("Transpose", {x}, {nchw}), "perm", {0, 3, 1, 2});
  e.set_ints(e.add_node("Transpose", {f}, {oihw}), "perm", {3, 2, 0, 1});
  auto& node = e.add_node("Conv", {nchw, oihw}, {conv});
  e.set_ints(node, "strides", {static_cast<std::int64_t>(SH), static_cast<std::int64_t>(SW)});
  set_auto_pad(node, Same);
  e.set_ints(e.add_node("Transpose", {conv}, {out}), "perm", {0, 2, 3, 1});
  return out;
}

/// max_pool / avg_pool as Transpose -> MaxPool / AveragePool -> Transpose, 1-D (rank 3) or 2-D.
/// AveragePool's count_include_pad is 0 (its default): SAME's padding is not counted, as TF.
template <bool Max, class P, std::size_t Rank, class Exporter>
std::string lower_pool(Exporter& e, const std::string& x) {
  const std::string first = e.fresh("pool_in"), pooled = e.fresh("pool"), out = e.fresh("pool_out");
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  e.set_ints(e.add_node("Transpose", {x}, {first}), "perm",
             Rank == 4 ? std::vector<std::int64_t>{0, 3, 1, 2} : std::vector<std::int64_t>{0, 2, 1});
  auto& node = e.add_node(Max ? "MaxPool" : "AveragePool", {first}, {pooled});
  e.set_ints(node, "kernel_shape", Rank == 4 ? std::vector<std::int64_t>{i(P::kh), i(P::kw)} : std::vector<std::int64_t>{i(P::kw)});
  e.set_ints(node, "strides", Rank == 4 ? std::vector<std::int64_t>{i(P::sh), i(P::sw)} : std::vector<std::int64_t>{i(P::sw)});
  set_auto_pad(node, P::same);
  e.set_ints(e.add_node("Transpose", {pooled}, {out}), "perm",
             Rank == 4 ? std::vector<std::int64_t>{0, 2, 3, 1} : std::vector<std::int64_t>{0, 2, 1});
  return out;
}

}  // namespace staticflow::onnx::detail
