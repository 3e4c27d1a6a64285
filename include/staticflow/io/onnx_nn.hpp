// staticflow/io/onnx_nn.hpp -- the ONNX form of the neural-network layers' ops (graph/conv.hpp),
// used by io/onnx_lowering.hpp. ONNX's Conv is NCHW with OIHW weights, staticflow's (and TF's)
// conv2d NHWC with HWIO filters: the lowering transposes in and out around one Conv node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

namespace staticflow::onnx::detail {

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
  auto* pad = node.add_attribute();
  pad->set_name("auto_pad");
  pad->set_type(::onnx::AttributeProto::STRING);
  pad->set_s(Same ? "SAME_UPPER" : "VALID");
  e.set_ints(e.add_node("Transpose", {conv}, {out}), "perm", {0, 2, 3, 1});
  return out;
}

}  // namespace staticflow::onnx::detail
