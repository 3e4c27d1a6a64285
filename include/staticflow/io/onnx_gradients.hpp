// staticflow/io/onnx_gradients.hpp -- the ONNX lowerings of the gradient nodes of the window ops
// (graph/shape_gradients.hpp), so that a value_and_grad through slice, concat, stack and x[i]
// exports:
//
//   SliceGrad          Pad of the adjoint with zeros: `begin` before the window along its axis,
//                      the operand's extent less begin and the window after it
//   ConcatGrad         Slice of the adjoint at part K's window: from the sum of the extents of the
//                      parts before it, as long as part K
//   StridedSliceGrad   (x[i]'s) ScatterND of the adjoint as row i of zeros shaped like x, a negative
//                      i counted from the end as the forward Gather reads it
//
// The extents come from the model's Shape ops, so run-time shapes export as static ones do.
// Included by io/onnx_lowering.hpp (the exporter finds `lower_node(exporter, node)` here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/shape_gradients.hpp"
#include "staticflow/io/onnx_data_movement.hpp"

namespace staticflow::onnx::detail {

/// The adjoint g padded with zeros to the operand's shape around the window [begin, begin + size).
template <int Axis, class G, class A, class E>
std::string lower_node(E& e, const graph::slice_gradient<Axis, G, A>& n) {
  using node_type = graph::slice_gradient<Axis, G, A>;
  constexpr std::size_t rank = node_type::rank, axis = node_type::axis;
  const std::string g = e.emit(n.g), a = e.emit(n.a);
  const auto begin = static_cast<std::int64_t>(n.begin);
  // ONNX's pads: every axis's start, then every axis's end
  const std::string after = e.op("Sub", {e.op("Sub", {extent_of(e, a, axis), e.ints({begin})}), extent_of(e, g, axis)});
  std::vector<std::int64_t> starts(rank, 0);
  starts[axis] = begin;
  std::vector<std::string> pads{e.ints(starts)};
  if (axis > 0) pads.push_back(e.ints(std::vector<std::int64_t>(axis, 0)));
  pads.push_back(after);
  if (axis + 1 < rank) pads.push_back(e.ints(std::vector<std::int64_t>(rank - axis - 1, 0)));
  const std::string all_pads = e.fresh("pads");
  e.set_int(e.add_node("Concat", pads, {all_pads}), "axis", 0);
  return e.op("Pad", {g, all_pads});
}

/// Part K's window of the adjoint: it starts where the parts before it end.
template <std::size_t K, int Axis, class G, class... A, class E>
std::string lower_node(E& e, const graph::concat_gradient<K, Axis, G, A...>& n) {
  constexpr std::size_t axis = graph::concat_gradient<K, Axis, G, A...>::axis;
  const std::string g = e.emit(n.g);
  std::string start = e.ints({0});
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ((J < K ? (void)(start = e.op("Add", {start, extent_of(e, e.emit(staticflow::detail::get<J>(n.parts)), axis)})) : (void)0), ...);
  }(std::make_index_sequence<K>{});
  const std::string length = extent_of(e, e.emit(staticflow::detail::get<K>(n.parts)), axis);
  return e.op("Slice", {g, start, e.op("Add", {start, length}), e.ints({static_cast<std::int64_t>(axis)})});
}

/// Zeros shaped like x with the adjoint (a row of x) at row i (i < 0: i + x's extent).
template <class G, class X, class I, class E>
std::string lower_node(E& e, const graph::take_gradient<G, X, I>& n) {
  using T = typename G::value_type;
  const std::string x = e.emit(n.a);
  const std::string index = e.op("Reshape", {e.template cast<std::int64_t>(e.emit(n.index)), e.ints({1})});
  const std::string wrapped =
      e.op("Where", {e.op("Less", {index, e.ints({0})}), e.op("Add", {index, extent_of(e, x, 0)}), index});
  const std::string zeros = e.op("Expand", {e.template constant<T>({T(0)}, {}), e.op("Shape", {x})});
  const std::string row = e.op("Unsqueeze", {e.emit(n.g), e.ints({0})});
  return e.op("ScatterND", {zeros, e.op("Unsqueeze", {wrapped, e.ints({0})}), row});
}

}  // namespace staticflow::onnx::detail
