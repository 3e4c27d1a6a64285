// staticflow/io/onnx_lowering.hpp -- how io/onnx.hpp writes a traced graph as ONNX nodes: the
// exporter (scopes, identical subexpressions written once per scope, leaves and initializers) and
// one lowering per node type: here the elementwise ops, reductions, matmul, shape ops, softmax and
// x[i]; the layers' ops in onnx_nn.hpp, data movement, scans and sorting in
// onnx_data_movement.hpp, control flow and tensor arrays in onnx_control.hpp (free functions
// `lower_node(exporter, node)`). Included by io/onnx.hpp, which has the API.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/io/onnx_control.hpp"
#include "staticflow/io/onnx_data_movement.hpp"
#include "staticflow/io/onnx_elementwise.hpp"
#include "staticflow/io/onnx_error.hpp"
#include "staticflow/io/onnx_gradients.hpp"
#include "staticflow/io/onnx_nn.hpp"
#include "staticflow/io/onnx_proto.hpp"
#include "staticflow/staticflow.hpp"

namespace staticflow::onnx {

/// A variable and the name its initializer gets in the model.
struct named_variable {
  std::string name;
  const staticflow::detail::variable_base* variable;
  template <class T, std::size_t... D>
  named_variable(std::string n, const staticflow::variable<T, D...>& v) : name(std::move(n)), variable(&v) {}
};

/// The opset and IR version written (ONNX 1.12, what Debian 12 packages; onnxruntime reads it).
inline constexpr std::int64_t opset_version = 17;
inline constexpr std::int64_t ir_version = 8;

namespace detail {
using staticflow::detail::always_false;

/// Instantiated for a node type the exporter has no lowering for; the type is the template
/// argument in the diagnostic.
template <class Node>
struct no_onnx_mapping {
  static_assert(always_false<Node>,
                "staticflow: sf::onnx::export_model: this op has no ONNX mapping (its node type is the "
                "template argument of no_onnx_mapping in this diagnostic)");
};

template <class N> struct is_external : std::false_type {};
template <class T, class S> struct is_external<graph::external_leaf<T, S, void>> : std::true_type {};
template <class N> struct is_bound_variable : std::false_type {};
template <class Sc, std::size_t K, class T, class S>
struct is_bound_variable<graph::bound_variable<Sc, K, T, S>> : std::true_type {
  using scope = Sc;
};

template <class Op>
constexpr std::string_view reduce_op() {
  if constexpr (std::is_same<Op, op::reduce_sum>::value) return "ReduceSum";
  else if constexpr (std::is_same<Op, op::reduce_prod>::value) return "ReduceProd";
  else if constexpr (std::is_same<Op, op::reduce_max>::value || std::is_same<Op, op::reduce_any>::value) return "ReduceMax";
  else if constexpr (std::is_same<Op, op::reduce_min>::value || std::is_same<Op, op::reduce_all>::value) return "ReduceMin";
  else if constexpr (std::is_same<Op, op::reduce_mean>::value) return "ReduceMean";
  else return "";
}

enum class rearrangement { transpose, reshape, expand_dims, squeeze, slice, one_hot, expand_dims_at, squeeze_at };
template <class Kind> struct rearrange_kind;
template <int... P> struct rearrange_kind<graph::transpose_kind<P...>> {
  static constexpr rearrangement id = rearrangement::transpose;
};
template <class Target> struct rearrange_kind<graph::reshape_kind<Target>> {
  static constexpr rearrangement id = rearrangement::reshape;
};
template <int K> struct rearrange_kind<graph::expand_dims_kind<K>> {
  static constexpr rearrangement id = rearrangement::expand_dims;
  static constexpr std::array<int, 1> axes{K};
};
template <int... K> struct rearrange_kind<graph::squeeze_kind<K...>> {
  static constexpr rearrangement id = rearrangement::squeeze;
  static constexpr std::array<int, sizeof...(K)> axes{K...};
};
template <> struct rearrange_kind<graph::expand_dims_at_kind> {
  static constexpr rearrangement id = rearrangement::expand_dims_at;
};
template <> struct rearrange_kind<graph::squeeze_at_kind> {
  static constexpr rearrangement id = rearrangement::squeeze_at;
};
template <int Axis> struct rearrange_kind<graph::slice_kind<Axis>> {
  static constexpr rearrangement id = rearrangement::slice;
  static constexpr std::array<int, 1> axes{Axis};
};
template <std::size_t Depth> struct rearrange_kind<graph::one_hot_kind<Depth>> {
  static constexpr rearrangement id = rearrangement::one_hot;
  static constexpr std::size_t depth = Depth;
};

/// Writes a graph's nodes into ONNX graphs: the main graph and, while a branch or loop body is
/// being written, its subgraph (the innermost layer).
class exporter {
 public:
  exporter(::onnx::GraphProto& main, std::vector<std::string> arg_names, const std::vector<named_variable>& vars)
      : main_(main), arg_names_(std::move(arg_names)), vars_(vars) {
    layers_.push_back({&main_, false, {}, {}});
  }

  /// Node n's output names (one, or one per result of a cond or loop), written once per scope.
  template <class N>
  std::vector<std::string> emit_all(const N& n) {
    if (const auto* found = find(n)) return *found;
    std::vector<std::string> names = lower(n);
    layers_.back().memo.push_back({&staticflow::detail::type_key<N>, &n, names});
    return names;
  }
  template <class N>
  std::string emit(const N& n) {
    return emit_all(n).front();
  }

  /// Node n's value as dtype T (a literal is written as a constant of T; another value is cast).
  template <class T, class N>
  std::string emit_as(const N& n) {
    if constexpr (graph::detail::is_literal<N>::value) {
      return constant<T>({static_cast<T>(n.value)}, {});
    } else {
      const std::string name = emit(n);
      if constexpr (std::is_same<typename N::value_type, T>::value) return name;
      else return cast<T>(name);
    }
  }

  /// Appends a node to the innermost graph (the one being written).
  ::onnx::NodeProto& add_node(std::string_view op, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs) {
    auto* node = layers_.back().graph->add_node();
    node->set_op_type(std::string(op));
    node->set_name(std::string(op) + "_" + std::to_string(node_count_++));
    for (const auto& i : inputs) node->add_input(i);
    for (const auto& o : outputs) node->add_output(o);
    return *node;
  }
  std::string op(std::string_view op_type, const std::vector<std::string>& inputs) {
    const std::string out = fresh(op_type);
    add_node(op_type, inputs, {out});
    return out;
  }
  static void set_int(::onnx::NodeProto& n, const char* name, std::int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void set_ints(::onnx::NodeProto& n, const char* name, const std::vector<std::int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (const auto x : v) a->add_ints(x);
  }

  template <class T>
  std::string constant(const std::vector<T>& values, const std::vector<std::int64_t>& dims) {
    const std::string out = fresh("const");
    auto& node = add_node("Constant", {}, {out});
    auto* a = node.add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    if constexpr (std::is_same<T, bool>::value) {
      std::vector<unsigned char> bytes(values.begin(), values.end());
      a->mutable_t()->set_data_type(::onnx::TensorProto::BOOL);
      for (const auto d : dims) a->mutable_t()->add_dims(d);
      a->mutable_t()->set_raw_data(std::string(bytes.begin(), bytes.end()));
    } else {
      fill_tensor(*a->mutable_t(), values.data(), values.size(), dims);
    }
    return out;
  }
  std::string ints(const std::vector<std::int64_t>& v) { return constant<std::int64_t>(v, {static_cast<std::int64_t>(v.size())}); }

  template <class T>
  std::string cast(const std::string& x) {
    const std::string out = fresh("cast");
    set_int(add_node("Cast", {x}, {out}), "to", element_type<T>());
    return out;
  }

  std::string fresh(std::string_view hint) {
    std::string s(hint);
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s + "_" + std::to_string(value_count_++);
  }

  /// Scopes: a subgraph (a branch, a loop body) or a part of one that sees loop variables under
  /// names of its own. An isolated scope recomputes the values of the scopes outside it.
  ::onnx::GraphProto* current_graph() const { return layers_.back().graph; }
  void open_scope(::onnx::GraphProto* graph, bool isolated) { layers_.push_back({graph, isolated, {}, {}}); }
  void bind(const void* scope, std::size_t index, std::string name) {
    layers_.back().bindings.push_back({scope, index, std::move(name)});
  }
  void close_scope() { layers_.pop_back(); }

  template <class... N>
  std::vector<std::string> emit_tuple(const std::tuple<N...>& nodes) {
    std::vector<std::string> names;
    staticflow::detail::apply([&](const auto&... n) { (names.push_back(emit(n)), ...); }, nodes);
    return names;
  }

  /// A subgraph of a branch: what `body()` writes, its results as outputs of the specs `Specs`.
  template <class Specs, class F>
  ::onnx::GraphProto subgraph(std::string_view name, bool isolated, F&& body) {
    ::onnx::GraphProto g;
    g.set_name(fresh(name));
    open_scope(&g, isolated);
    std::vector<std::string> results = body();
    std::vector<std::string> outputs;
    for (const auto& r : results) outputs.push_back(op("Identity", {r}));
    close_scope();
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (set_value_info<std::tuple_element_t<K, Specs>>(*g.add_output(), outputs[K], ""), ...);
    }(std::make_index_sequence<std::tuple_size<Specs>::value>{});
    return g;
  }

 private:
  struct memo_entry {
    const void* type;
    const void* node;
    std::vector<std::string> names;
  };
  struct binding {
    const void* scope;
    std::size_t index;
    std::string name;
  };
  struct layer {
    ::onnx::GraphProto* graph;
    bool isolated;  // a loop body: values of the scopes outside are recomputed, not reused
    std::vector<memo_entry> memo;
    std::vector<binding> bindings;
  };

  template <class N>
  const std::vector<std::string>* find(const N& n) const {
    for (auto l = layers_.rbegin(); l != layers_.rend(); ++l) {
      for (const auto& e : l->memo)
        if (e.type == &staticflow::detail::type_key<N> && plan::detail::structurally_equal(n, *static_cast<const N*>(e.node)))
          return &e.names;
      if (l->isolated) break;
    }
    return nullptr;
  }

  const std::string& bound_name(const void* scope, std::size_t index) const {
    for (auto l = layers_.rbegin(); l != layers_.rend(); ++l)
      for (const auto& b : l->bindings)
        if (b.scope == scope && b.index == index) return b.name;
    throw export_error("onnx export: a loop variable is read outside its loop");
  }

  // -- leaves -------------------------------------------------------------------------------
  template <class T, class S>
  std::string initializer(const graph::external_leaf<T, S, void>& leaf) {
    const void* key = leaf.source->origin ? leaf.source->origin : static_cast<const void*>(leaf.data());
    for (const auto& [k, name] : initializers_)
      if (k == key) return name;
    std::string name;
    for (const auto& v : vars_)
      if (v.variable == leaf.source->origin) name = v.name;
    if (name.empty()) name = fresh(leaf.source->label);
    const auto ext = leaf.result_extents();
    std::vector<std::int64_t> dims(ext.begin(), ext.end());
    fill_tensor(*main_.add_initializer(), leaf.data(), staticflow::detail::product(ext), dims);
    main_.mutable_initializer(main_.initializer_size() - 1)->set_name(name);
    initializers_.emplace_back(key, name);
    return name;
  }

  // -- the lowering of each node type -------------------------------------------------------
  template <class N>
  std::vector<std::string> lower(const N& n) {
    if constexpr (graph::detail::is_argument<N>::value) {
      return {arg_names_.at(N::index)};
    } else if constexpr (graph::detail::is_literal<N>::value) {
      return {constant<typename N::value_type>({n.value}, {})};
    } else if constexpr (is_external<N>::value) {
      return {initializer(n)};
    } else if constexpr (is_bound_variable<N>::value) {
      return {bound_name(&staticflow::detail::type_key<typename is_bound_variable<N>::scope>, N::index)};
    } else if constexpr (graph::detail::is_shared<N>::value) {
      return {emit(n.value())};
    } else if constexpr (requires { n.y; n.vjp; }) {  // custom_gradient: its forward value
      return {emit(n.y)};
    } else if constexpr (requires { lower_node(*this, n); }) {  // an op family's header
      if constexpr (std::is_same<decltype(lower_node(*this, n)), std::string>::value) return {lower_node(*this, n)};
      else return lower_node(*this, n);
    } else {
      return {lower_op(n)};
    }
  }

  template <class Op, class A>
  std::string lower_op(const graph::unary<Op, A>& n) {
    using T = typename graph::unary<Op, A>::compute_type;
    const std::string x = emit(n.a);
    if constexpr (std::is_same<Op, op::square>::value) {
      return op("Mul", {x, x});
    } else if constexpr (std::is_same<Op, op::relu>::value) {
      if constexpr (floating_dtype<T>) return op("Relu", {x});
      else return op("Max", {x, constant<T>({T(0)}, {})});
    } else if constexpr (has_math_lowering<Op, T>) {
      return lower_math<Op, T>(*this, x);
    } else {
      static_assert(!direct_op<Op>().empty(), "staticflow: sf::onnx: an elementwise op without an ONNX lowering");
      return op(direct_op<Op>(), {x});
    }
  }

  template <class Op, class A, class B>
  std::string lower_op(const graph::binary<Op, A, B>& n) {
    using T = typename graph::binary<Op, A, B>::compute_type;
    const std::string a = emit_as<T>(n.a), b = emit_as<T>(n.b);
    if constexpr (std::is_same<Op, op::not_equal>::value) {
      return op("Not", {op("Equal", {a, b})});
    } else if constexpr (std::is_same<Op, op::atan2>::value) {
      return lower_atan2<T>(*this, a, b);
    } else if constexpr (std::is_same<Op, op::mod>::value) {
      return remainder(a, b);
    } else if constexpr (std::is_same<Op, op::floormod>::value) {
      // the remainder takes the divisor's sign: r + b where r and b have opposite signs
      const std::string r = remainder(a, b), zero = constant<T>({T(0)}, {});
      const std::string fix = op("And", {op("Not", {op("Equal", {r, zero})}),
                                         op("Xor", {op("Less", {r, zero}), op("Less", {b, zero})})});
      return op("Where", {fix, op("Add", {r, b}), r});
    } else if constexpr (std::is_same<Op, op::floordiv>::value) {
      if constexpr (floating_dtype<T>) {
        return op("Floor", {op("Div", {a, b})});
      } else {  // truncating quotient, one less where the remainder is nonzero and signs differ
        const std::string q = op("Div", {a, b}), zero = constant<T>({T(0)}, {});
        const std::string fix = op("And", {op("Not", {op("Equal", {remainder(a, b), zero})}),
                                           op("Xor", {op("Less", {a, zero}), op("Less", {b, zero})})});
        return op("Where", {fix, op("Sub", {q, constant<T>({T(1)}, {})}), q});
      }
    } else {
      static_assert(!direct_op<Op>().empty(), "staticflow: sf::onnx: an elementwise op without an ONNX lowering");
      return op(direct_op<Op>(), {a, b});
    }
  }

  std::string remainder(const std::string& a, const std::string& b) {
    const std::string out = fresh("mod");
    set_int(add_node("Mod", {a, b}, {out}), "fmod", 1);  // the sign of the dividend, as C++ % and fmod
    return out;
  }

  template <class C, class A, class B>
  std::string lower_op(const graph::select<C, A, B>& n) {
    using T = typename graph::select<C, A, B>::compute_type;
    return op("Where", {emit(n.c), emit_as<T>(n.a), emit_as<T>(n.b)});
  }

  template <class T, class A>
  std::string lower_op(const graph::cast<T, A>& n) {
    return cast<T>(emit(n.a));
  }

  template <class Op, class A, class Axes, bool Keep>
  std::string lower_op(const graph::reduce<Op, A, Axes, Keep>& n) {
    constexpr bool logical = std::is_same<Op, op::reduce_any>::value || std::is_same<Op, op::reduce_all>::value;
    std::string x = emit(n.a);
    if constexpr (logical) x = cast<std::int32_t>(x);  // no boolean reduction in ONNX
    const auto mask = n.mask();
    std::vector<std::int64_t> axes;
    for (std::size_t i = 0; i < mask.size(); ++i)
      if (mask[i]) axes.push_back(static_cast<std::int64_t>(i));
    const std::string out = fresh(reduce_op<Op>());
    if constexpr (std::is_same<Op, op::reduce_sum>::value) {  // axes are an input since opset 13
      std::vector<std::string> inputs{x};
      if (!axes.empty()) inputs.push_back(ints(axes));  // none: all axes (only a rank-0 input has none)
      set_int(add_node("ReduceSum", inputs, {out}), "keepdims", Keep);
    } else {
      auto& node = add_node(reduce_op<Op>(), {x}, {out});
      set_int(node, "keepdims", Keep);
      if (!axes.empty()) set_ints(node, "axes", axes);
    }
    if constexpr (logical) return cast<bool>(out);
    else return out;
  }

  template <class Op, class A, class Axis>
  std::string lower_op(const graph::arg_reduce<Op, A, Axis>& n) {
    const std::string out = fresh(Op::name);
    auto& node = add_node(std::is_same<Op, op::argmax>::value ? "ArgMax" : "ArgMin", {emit(n.a)}, {out});
    set_int(node, "axis", static_cast<std::int64_t>(n.axis(A::shape_type::rank)));
    set_int(node, "keepdims", 0);
    return out;
  }

  template <class A, class B>
  std::string lower_op(const graph::matmul<A, B>& n) {
    using T = typename graph::matmul<A, B>::compute_type;
    return op("MatMul", {emit_as<T>(n.a), emit_as<T>(n.b)});
  }

  /// range / linspace: their bounds are C++ numbers or static values, so the values are known
  /// when the function is exported: a Constant of the node's shape (eye compares two of them).
  template <class Kind, class T, class S, std::size_t Axis>
  std::string lower_op(const graph::sequence<Kind, T, S, Axis>& n) {
    std::vector<T> values(n.count);
    for (std::size_t i = 0; i < n.count; ++i) values[i] = n.at(i);
    const auto ext = n.result_extents();
    return constant<T>(values, std::vector<std::int64_t>(ext.begin(), ext.end()));
  }

  /// gather is ONNX's Gather (same axis; ONNX would also accept negative indices, which
  /// staticflow rejects).
  template <class X, class I, std::size_t Axis>
  std::string lower_op(const graph::gather<X, I, Axis>& n) {
    const std::string out = fresh("gather");
    set_int(add_node("Gather", {emit(n.x), emit(n.indices)}, {out}), "axis", static_cast<std::int64_t>(Axis));
    return out;
  }

  template <class X, class M, std::size_t Axis>
  std::string lower_op(const graph::selected_rows<graph::by_mask, X, M, Axis>& n) {
    return lower_boolean_mask<Axis, M::shape_type::rank, typename X::shape_type>(*this, emit(n.tensor), emit(n.mask));
  }
  template <class C>
  std::string lower_op(const graph::true_coordinates<C>& n) {
    return lower_true_coordinates(*this, emit(n.condition));
  }
  template <class Kind, class A>
  std::string lower_op(const graph::rearrange<Kind, A>& n) {
    using S = typename graph::rearrange<Kind, A>::shape_type;
    constexpr std::size_t in_rank = A::shape_type::rank, out_rank = S::rank;
    const std::string x = emit(n.a);
    const std::string out = fresh("shape_op");
    using kind = rearrange_kind<Kind>;
    if constexpr (kind::id == rearrangement::transpose) {
      set_ints(add_node("Transpose", {x}, {out}), "perm", std::vector<std::int64_t>(Kind::perm.begin(), Kind::perm.end()));
    } else if constexpr (kind::id == rearrangement::reshape) {
      std::vector<std::int64_t> dims;
      bool zero = false;
      for (const std::size_t d : S::dims) {
        dims.push_back(d == dyn ? -1 : static_cast<std::int64_t>(d));
        zero = zero || d == 0;
      }
      set_int(add_node("Reshape", {x, ints(dims)}, {out}), "allowzero", zero);  // 0 is an extent, not "keep"
    } else if constexpr (kind::id == rearrangement::expand_dims) {
      add_node("Unsqueeze", {x, ints({std::int64_t{staticflow::detail::normalize_axis(kind::axes[0], out_rank)}})}, {out});
    } else if constexpr (kind::id == rearrangement::expand_dims_at) {  // the axis the trace saw, normalized
      const auto axis = static_cast<std::int64_t>(staticflow::detail::checked_axis(n.params.axis, out_rank));
      add_node("Unsqueeze", {x, ints({axis})}, {out});
    } else if constexpr (kind::id == rearrangement::squeeze_at) {
      const auto axis = static_cast<std::int64_t>(staticflow::detail::checked_axis(n.params.axis, in_rank));
      add_node("Squeeze", {x, ints({axis})}, {out});
    } else if constexpr (kind::id == rearrangement::squeeze) {
      std::vector<std::int64_t> axes;
      for (const int k : kind::axes) axes.push_back(std::int64_t{staticflow::detail::normalize_axis(k, in_rank)});
      add_node("Squeeze", {x, ints(axes)}, {out});
    } else if constexpr (kind::id == rearrangement::slice) {
      const std::int64_t axis{staticflow::detail::normalize_axis(kind::axes[0], in_rank)};
      const auto begin = static_cast<std::int64_t>(n.params.begin);
      add_node("Slice", {x, ints({begin}), ints({begin + static_cast<std::int64_t>(n.params.size)}), ints({axis})}, {out});
    } else {  // one_hot: indices compared with 0 .. depth-1 (an index out of range gives a row of zeros)
      using I = typename A::value_type;
      std::vector<I> range(kind::depth);
      for (std::size_t i = 0; i < range.size(); ++i) range[i] = static_cast<I>(i);
      const std::string hit =
          op("Equal", {op("Unsqueeze", {x, ints({-1})}), constant<I>(range, {static_cast<std::int64_t>(range.size())})});
      return cast<float>(hit);
    }
    return out;
  }

  template <class Kind, class A>
  std::string lower_op(const graph::axis_map<Kind, A>& n) {
    if constexpr (axis_map_form<Kind>::value == 0) {
      (void)sizeof(no_onnx_mapping<graph::axis_map<Kind, A>>);
      return {};
    } else {
      return lower_axis_map<A::shape_type::rank, typename A::value_type>(*this, n.params, emit(n.a));
    }
  }

  template <class X, std::size_t Axis, sort_direction D>
  std::string lower_op(const graph::argsort<X, Axis, D>& n) {
    const std::string x = emit(n.x);
    return lower_top_k(*this, x, extent_of(*this, x, Axis), Axis, D == sort_direction::descending);
  }

  template <class X, std::size_t K>
  std::string lower_op(const graph::top_k_positions<X, K>& n) {
    return lower_top_k(*this, emit(n.x), ints({static_cast<std::int64_t>(n.k)}), X::shape_type::rank - 1, true);
  }

  template <class X, class P, std::size_t Axis>
  std::string lower_op(const graph::take_along_axis<X, P, Axis>& n) {
    const std::string out = fresh("take_along_axis");
    set_int(add_node("GatherElements", {emit(n.x), emit(n.positions)}, {out}), "axis", static_cast<std::int64_t>(Axis));
    return out;
  }

  template <class X, class I>
  std::string lower_op(const graph::gather_nd<X, I>& n) {
    return lower_gather_nd<typename I::value_type>(*this, emit(n.x), emit(n.indices));
  }

  template <class Mode, class X, class I, class U>
  std::string lower_op(const graph::tensor_scatter_nd<Mode, X, I, U>& n) {
    return lower_scatter_nd<Mode, typename I::value_type>(*this, emit(n.x), emit(n.indices), emit(n.updates));
  }

  template <class X, bool Square>
  std::string lower_op(const graph::diag_part<X, Square>& n) {
    return lower_diag_part<X::shape_type::rank, typename X::value_type>(*this, emit(n.x));
  }

  template <class X, class D>
  std::string lower_op(const graph::set_diag<X, D>& n) {
    return lower_set_diag<X::shape_type::rank, typename X::value_type>(*this, emit(n.x), emit(n.diagonal));
  }

  template <class Kind, class X, class I, std::size_t N>
  std::string lower_op(const graph::segment_sum<Kind, X, I, N>& n) {
    return lower_segment_sum<graph::counted_v<Kind>, !Kind::sorted, I::shape_type::rank, X::shape_type::rank,
                             typename X::value_type, typename I::value_type>(*this, emit(n.data), emit(n.ids), n.num_segments);
  }

  template <class Kind, class G, class X, class I, std::size_t N>
  std::string lower_op(const graph::segment_sum_gradient<Kind, G, X, I, N>& n) {
    return lower_segment_sum_gradient<!Kind::sorted, I::shape_type::rank, X::shape_type::rank, typename G::value_type,
                                      typename I::value_type>(*this, emit(n.g), emit(n.ids));
  }

  template <class Target, class A>
  std::string lower_op(const graph::broadcast<Target, A>& n) {
    std::vector<std::int64_t> dims;
    for (const std::size_t d : Target::dims) dims.push_back(d == dyn ? 1 : static_cast<std::int64_t>(d));
    return op("Expand", {emit(n.a), ints(dims)});
  }

  template <class A, class Ref>
  std::string lower_op(const graph::broadcast_as<A, Ref>& n) {
    return op("Expand", {emit(n.a), op("Shape", {emit(n.ref)})});
  }

  template <class A>
  std::string lower_op(const graph::stored<A>& n) {
    return emit(n.a);
  }

  template <int Axis, class... A>
  std::string lower_op(const graph::concat<Axis, A...>& n) {
    std::vector<std::string> parts;
    staticflow::detail::apply([&](const auto&... p) { (parts.push_back(emit(p)), ...); }, n.parts);
    const std::string out = fresh("concat");
    set_int(add_node("Concat", parts, {out}), "axis", static_cast<std::int64_t>(graph::concat<Axis, A...>::axis));
    return out;
  }

  template <class Kind, class A, int K>
  std::string lower_op(const graph::softmax_node<Kind, A, K>& n) {
    const std::string out = fresh(Kind::name);
    auto& node = add_node(std::is_same<Kind, graph::softmax_kind>::value ? "Softmax" : "LogSoftmax", {emit(n.a)}, {out});
    set_int(node, "axis", static_cast<std::int64_t>(n.axis));
    return out;
  }

  template <class X, class I>
  std::string lower_op(const graph::take<X, I>& n) {
    const std::string out = fresh("index");
    set_int(add_node("Gather", {emit(n.a), emit(n.index)}, {out}), "axis", 0);
    return out;
  }

  template <class X, int Axis>
  std::string lower_op(const graph::extent_query<X, Axis>& n) {
    const std::string x = emit(n.a);
    if constexpr (Axis == -1) return cast<std::int32_t>(op("Size", {x}));
    else if constexpr (Axis == -2) return cast<std::int32_t>(op("Shape", {x}));
    else {
      const std::string out = fresh("extent");
      set_int(add_node("Gather", {op("Shape", {x}), constant<std::int64_t>({Axis}, {})}, {out}), "axis", 0);
      return cast<std::int32_t>(out);
    }
  }

  template <class N>
  std::string lower_op(const N&) {
    (void)sizeof(no_onnx_mapping<N>);
    return {};
  }

  ::onnx::GraphProto& main_;
  std::vector<std::string> arg_names_;
  const std::vector<named_variable>& vars_;
  std::vector<layer> layers_;
  std::vector<std::pair<const void*, std::string>> initializers_;
  std::size_t value_count_ = 0, node_count_ = 0;
};
}  // namespace detail

}  // namespace staticflow::onnx
