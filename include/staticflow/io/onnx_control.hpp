// staticflow/io/onnx_control.hpp -- the ONNX form of control flow and tensor arrays, used by
// io/onnx_lowering.hpp: sf::cond / switch_case as a chain of If nodes (one per branch but the
// last; a switch compares its index with each branch's), while_loop as a Loop whose body graph
// takes the loop variables as inputs (the values of the scopes outside are recomputed inside, not
// reused, since ONNX scopes see only what is passed in), a tensor array as a tensor of its size
// (ConstantOfShape) written with ScatterND. The exporter's scopes (open_scope / bind /
// close_scope) say which name a loop variable has where.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/io/onnx_error.hpp"
#include "staticflow/io/onnx_proto.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow::onnx::detail {

template <class T, class S, class N, class E>
std::string lower_node(E& e, const graph::ta_zeros<T, S, N>& n) {
  std::vector<std::int64_t> element;
  for (std::size_t d = 1; d < S::rank; ++d) element.push_back(static_cast<std::int64_t>(S::dims[d]));
  const std::string count = e.op("Reshape", {e.template emit_as<std::int64_t>(n.count), e.ints({1})});
  const std::string shape = e.fresh("shape");
  e.set_int(e.add_node("Concat", {count, e.ints(element)}, {shape}), "axis", 0);
  const std::string out = e.fresh("tensor_array");
  auto& node = e.add_node("ConstantOfShape", {shape}, {out});
  auto* a = node.add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  const T zero{};
  fill_tensor(*a->mutable_t(), &zero, 1, {1});
  return out;
}

template <class A, class I, class V, class E>
std::string lower_node(E& e, const graph::ta_write<A, I, V>& n) {
  if (n.dynamic_size)
    throw export_error(
        "onnx export: a tensor array with dynamic_size (one that grows) has no ONNX form; give it its size "
        "(tensor_array<T>::with_size(n))");
  const std::string index = e.op("Reshape", {e.template emit_as<std::int64_t>(n.index), e.ints({1, 1})});
  const std::string update = e.op("Unsqueeze", {e.emit(n.value), e.ints({0})});
  return e.op("ScatterND", {e.emit(n.array), index, update});
}

template <std::size_t K, class N, class E>
std::string lower_node(E& e, const graph::output_of<K, N>& n) {
  return e.emit_all(n.source).at(K);
}

template <std::size_t I, class Kind, class Pred, class... Branches, class E>
std::vector<std::string> if_chain(E& e, const graph::branch_node<Kind, Pred, Branches...>& n, const std::string& selector);

template <class Kind, class Pred, class... Branches, class E>
std::vector<std::string> lower_node(E& e, const graph::branch_node<Kind, Pred, Branches...>& n) {
  const std::string selector = e.emit(n.pred);
  return if_chain<0>(e, n, selector);
}

/// Branch I (taken when the selector says so) against the rest: one If per branch but the last.
template <std::size_t I, class Kind, class Pred, class... Branches, class E>
std::vector<std::string> if_chain(E& e, const graph::branch_node<Kind, Pred, Branches...>& n, const std::string& selector) {
  constexpr std::size_t count = sizeof...(Branches);
  using specs = typename graph::branch_node<Kind, Pred, Branches...>::output_specs;
  std::string condition = selector;
  if constexpr (std::is_same<Kind, graph::switch_kind>::value) {
    using P = typename Pred::value_type;
    condition = e.op("Equal", {selector, e.template constant<P>({static_cast<P>(I)}, {})});
  }
  ::onnx::GraphProto then_graph = e.template subgraph<specs>("then", false, [&] { return e.emit_tuple(staticflow::detail::get<I>(n.branches)); });
  ::onnx::GraphProto else_graph = e.template subgraph<specs>("else", false, [&] {
    if constexpr (I + 2 == count) return e.emit_tuple(staticflow::detail::get<I + 1>(n.branches));
    else return if_chain<I + 1>(e, n, selector);
  });
  std::vector<std::string> outs;
  for (std::size_t k = 0; k < std::tuple_size<specs>::value; ++k) outs.push_back(e.fresh("if"));
  auto& node = e.add_node("If", {condition}, outs);
  for (auto [name, g] : {std::pair{"then_branch", &then_graph}, std::pair{"else_branch", &else_graph}}) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    a->mutable_g()->Swap(g);
  }
  return outs;
}

template <class S, class I, class C, class B, class E>
std::vector<std::string> lower_node(E& e, const graph::while_node<S, I, C, B>& n) {
  using specs = typename graph::while_node<S, I, C, B>::output_specs;
  constexpr std::size_t V = std::tuple_size<specs>::value;
  const void* scope = &staticflow::detail::type_key<S>;
  const std::vector<std::string> inits = e.emit_tuple(n.inits);
  // the condition on the initial values, in a layer of its own (the variables are the inits)
  e.open_scope(e.current_graph(), true);
  for (std::size_t k = 0; k < V; ++k) e.bind(scope, k, inits[k]);
  const std::string first = e.emit(n.cond);
  e.close_scope();

  ::onnx::GraphProto body;
  body.set_name(e.fresh("loop_body"));
  std::vector<std::string> vars;
  set_value_info<spec<std::int64_t>>(*body.add_input(), e.fresh("iteration"), "");
  set_value_info<spec<bool>>(*body.add_input(), e.fresh("condition_in"), "");
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((vars.push_back(e.fresh("loop_var")), set_value_info<std::tuple_element_t<K, specs>>(*body.add_input(), vars.back(), "")), ...);
  }(std::make_index_sequence<V>{});
  e.open_scope(&body, true);
  for (std::size_t k = 0; k < V; ++k) e.bind(scope, k, vars[k]);
  const std::vector<std::string> next = e.emit_tuple(n.body);
  e.open_scope(&body, true);  // the condition on the new values
  for (std::size_t k = 0; k < V; ++k) e.bind(scope, k, next[k]);
  const std::string again = e.emit(n.cond);
  e.close_scope();
  std::vector<std::string> results{again};
  results.insert(results.end(), next.begin(), next.end());
  std::vector<std::string> body_outputs;
  for (const auto& r : results) body_outputs.push_back(e.op("Identity", {r}));
  e.close_scope();
  set_value_info<spec<bool>>(*body.add_output(), body_outputs[0], "");
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (set_value_info<std::tuple_element_t<K, specs>>(*body.add_output(), body_outputs[K + 1], ""), ...);
  }(std::make_index_sequence<V>{});

  std::vector<std::string> inputs{n.max_iterations >= 0 ? e.template constant<std::int64_t>({n.max_iterations}, {}) : std::string(),
                                  first};
  inputs.insert(inputs.end(), inits.begin(), inits.end());
  std::vector<std::string> outs;
  for (std::size_t k = 0; k < V; ++k) outs.push_back(e.fresh("loop"));
  auto& node = e.add_node("Loop", inputs, outs);
  auto* a = node.add_attribute();
  a->set_name("body");
  a->set_type(::onnx::AttributeProto::GRAPH);
  a->mutable_g()->Swap(&body);
  return outs;
}

}  // namespace staticflow::onnx::detail
