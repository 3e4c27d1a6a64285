// staticflow/io/onnx_proto.hpp -- the protobuf pieces every ONNX lowering writes: a dtype's ONNX
// element type, a tensor's raw data, a value's type (dtype and shape). Used by io/onnx_lowering.hpp
// and the lowerings of each op family.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <onnx/onnx_pb.h>

#include "staticflow/core/dtype.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow::onnx::detail {
using staticflow::detail::always_false;

template <class T>
constexpr int element_type() {
  if constexpr (std::is_same<T, bool>::value) return ::onnx::TensorProto::BOOL;
  else if constexpr (std::is_same<T, std::int32_t>::value) return ::onnx::TensorProto::INT32;
  else if constexpr (std::is_same<T, std::int64_t>::value) return ::onnx::TensorProto::INT64;
  else if constexpr (std::is_same<T, float>::value) return ::onnx::TensorProto::FLOAT;
  else if constexpr (std::is_same<T, double>::value) return ::onnx::TensorProto::DOUBLE;
  else static_assert(always_false<T>, "staticflow: sf::onnx: no ONNX element type for this dtype");
}

template <class T>
void fill_tensor(::onnx::TensorProto& t, const T* data, std::size_t count, const std::vector<std::int64_t>& dims) {
  t.set_data_type(element_type<T>());
  for (const auto d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(data), count * sizeof(T)));  // little-endian host
}

/// A value's type (dtype and shape) for graph inputs, outputs and subgraph signatures; a `dyn`
/// dimension gets `dim_param` (or no value at all when `dim_prefix` is empty).
template <class Spec>
void set_value_info(::onnx::ValueInfoProto& v, const std::string& name, const std::string& dim_prefix) {
  v.set_name(name);
  auto* tensor = v.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(element_type<typename Spec::value_type>());
  auto* shape = tensor->mutable_shape();
  std::size_t k = 0;
  for (const std::size_t d : Spec::shape_type::dims) {
    auto* dim = shape->add_dim();
    if (d != dyn) dim->set_dim_value(static_cast<std::int64_t>(d));
    else if (!dim_prefix.empty()) dim->set_dim_param(dim_prefix + "_d" + std::to_string(k));
    ++k;
  }
}

}  // namespace staticflow::onnx::detail
