// staticflow/io/onnx.hpp -- ONNX export: a concrete function's traced graph, with the current
// values of the variables it reads, as an ONNX model that any ONNX runtime can serve.
//
//   #include <staticflow/io/onnx.hpp>   // opt-in; link staticflow::onnx (Debian's libonnx-dev,
//                                       // libprotobuf-dev): the core stays free of protobuf
//   auto classify = sf::function<sf::spec<float, sf::dyn, 2>>(logits_fn, sf::arg_names("points"));
//   sf::onnx::export_model(classify.get_concrete_function(), {{"w", w}, {"b", b}}, "model.onnx",
//                          {.input_names = {"points"}, .output_names = {"logits"}});
//
// The walk is over the graph's *type*, like the listing (graph/print.hpp): each node type has one
// ONNX lowering here, and a node type without one is a compile error naming it. What the export
// writes (opset 17, IR version 8):
//   - arguments -> graph inputs; an `sf::dyn` dimension is a symbolic one (`<input>_d<k>`);
//   - variables, captured containers and constants read by the graph -> initializers holding
//     their values at export time (a variable named in `variables` keeps that name);
//   - elementwise ops, where, cast, reductions, argmax/argmin, matmul, conv2d, transpose/reshape/
//     expand_dims/squeeze/slice/one_hot/concat/broadcast, softmax/log_softmax, x[i], sf::shape /
//     sf::size, tensor arrays -> ONNX ops (identical subexpressions are written once);
//   - sf::cond -> If, sf::switch_case -> nested Ifs, sf::while_loop (fori_loop, scan, map_fn) ->
//     Loop, with the branches and bodies as subgraphs.
// A function that assigns variables or prints (an effect) has no ONNX form: export throws
// sf::onnx::export_error, as it does for a growing (dynamic_size) tensor array.
#pragma once

#include <fstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/io/onnx_lowering.hpp"
#include "staticflow/staticflow.hpp"

namespace staticflow::onnx {

/// The names of the graph's tensor inputs (else arg<i> for argument i, or the sf::function's
/// sf::arg_names) and of its outputs (else output_<k>), and the graph's name.
struct export_options {
  std::vector<std::string> input_names{};
  std::vector<std::string> output_names{};
  std::string graph_name = "staticflow";
};

/// The ONNX model of concrete function `f` (from `get_concrete_function`), with the current
/// values of the variables it reads as initializers.
template <class ConcreteFunction>
  requires requires { typename ConcreteFunction::signature_type; }
::onnx::ModelProto to_model(const ConcreteFunction& f, const std::vector<named_variable>& variables = {},
                            const export_options& options = {}) {
  using Sig = typename ConcreteFunction::signature_type;
  constexpr std::size_t arg_count = std::tuple_size<Sig>::value;
  if (f.effects() != nullptr && f.effects()->effect_count() > 0)
    throw export_error("onnx export: the function has effects (variable assignments, prints, for_range loops); an "
                       "ONNX graph computes outputs only: export a function that returns what it computes");
  if constexpr (ConcreteFunction::output_count == 0) {
    static_assert(staticflow::detail::always_false<ConcreteFunction>,
                  "staticflow: sf::onnx::export_model: the function returns nothing, so its ONNX graph would have no output");
  }
  ::onnx::ModelProto model;
  model.set_ir_version(ir_version);
  model.set_producer_name("staticflow");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(opset_version);
  auto& graph = *model.mutable_graph();
  graph.set_name(options.graph_name);

  std::vector<std::string> arg_names(arg_count);
  std::size_t tensor_args = 0;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([&] {
      using entry = std::tuple_element_t<I, Sig>;
      if constexpr (spec_type<entry>) {
        arg_names[I] = tensor_args < options.input_names.size() ? options.input_names[tensor_args] : "arg" + std::to_string(I);
        ++tensor_args;
        detail::set_value_info<entry>(*graph.add_input(), arg_names[I], arg_names[I]);
      }
    }(), ...);
  }(std::make_index_sequence<arg_count>{});
  if (options.input_names.size() > tensor_args)
    throw export_error("onnx export: " + std::to_string(options.input_names.size()) + " input names for " +
                       std::to_string(tensor_args) + " tensor arguments");
  if (!options.output_names.empty() && options.output_names.size() != ConcreteFunction::output_count)
    throw export_error("onnx export: " + std::to_string(options.output_names.size()) + " output names for " +
                       std::to_string(ConcreteFunction::output_count) + " outputs");

  detail::exporter ex(graph, arg_names, variables);
  const auto nodes = staticflow::detail::output_nodes(f.graph());
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ([&] {
      using N = std::remove_cvref_t<std::tuple_element_t<K, std::remove_cvref_t<decltype(nodes)>>>;
      const std::string value = ex.emit(staticflow::detail::get<K>(nodes));
      const std::string name = options.output_names.empty() ? "output_" + std::to_string(K) : options.output_names[K];
      ex.add_node("Identity", {value}, {name});
      detail::set_value_info<spec_of_node_t<N>>(*graph.add_output(), name, "");
    }(), ...);
  }(std::make_index_sequence<ConcreteFunction::output_count>{});
  return model;
}

/// The model of an sf::function with an input signature (its one concrete function); the inputs
/// are named as its sf::arg_names unless `options` names them.
template <class Function>
  requires requires(Function& f) { f.get_concrete_function(); f.arg_names(); }
::onnx::ModelProto to_model(Function& f, const std::vector<named_variable>& variables = {},
                            export_options options = {}) {
  if (options.input_names.empty()) options.input_names = f.arg_names();
  return to_model(f.get_concrete_function(), variables, options);
}

/// Writes `to_model(f, variables, options)` to `path` (protobuf binary, what onnx.load reads);
/// `f` is a concrete function or an sf::function with an input signature.
template <class F>
void export_model(F&& f, const std::vector<named_variable>& variables, const std::string& path,
                  const export_options& options = {}) {
  const ::onnx::ModelProto model = to_model(f, variables, options);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !model.SerializeToOstream(&out) || !out.flush())
    throw export_error("onnx export: cannot write '" + path + "'");
}

}  // namespace staticflow::onnx
