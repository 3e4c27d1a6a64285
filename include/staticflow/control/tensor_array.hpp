// staticflow/control/tensor_array.hpp -- sf::tensor_array: tf.TensorArray as a value.
//
// A tensor array of elements of spec T[E...] is, in the graph, a tensor T[n, E...] whose leading
// extent n is its size. It is functional: `write(i, v)` returns a new array, `read(i)` is `a[i]`,
// `stack()` is the tensor itself. Outside a loop a write copies the array; as a loop variable
// (`ta = ta.write(i, v)` in a while_loop / fori_loop / scan body) the loop writes the element in
// place, so filling n elements costs O(n). A dynamic-size array grows when a write goes past its
// end (new elements are zeros); a fixed-size one throws sf::shape_error. Element extents that are
// sf::dyn are unknown until the first write (TF's inferred element shape): an array holding no
// elements (empty, or `with_size(n)` of such elements) takes them from the first element written;
// later writes must match them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/control/index.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/leaf.hpp"

namespace staticflow {
namespace detail {
template <std::size_t N, class S>
struct prepend_dim;
template <std::size_t N, std::size_t... D>
struct prepend_dim<N, shape<D...>> {
  using type = shape<N, D...>;
};
}  // namespace detail

namespace graph {

/// The start of a tensor array: `count` zero elements (count is a scalar integer node).
template <class T, class S, class N>
struct ta_zeros : node<ta_zeros<T, S, N>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  using value_type = T;
  using shape_type = S;
  N count;
  constexpr explicit ta_zeros(N n) : count(std::move(n)) {}
  constexpr child_refs<const N&> children() const { return {count}; }
  template <class M>
  constexpr auto with_children(const M& m) const { return ta_zeros<T, S, M>(m); }
  std::string name() const { return "tensor_array"; }
};

/// The array `array` with element `index` replaced by `value`.
template <class A, class I, class V>
struct ta_write : node<ta_write<A, I, V>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  using value_type = typename A::value_type;
  using shape_type = typename A::shape_type;
  A array;
  I index;
  V value;
  bool dynamic_size;
  constexpr ta_write(A a, I i, V v, bool dynamic) : array(std::move(a)), index(std::move(i)), value(std::move(v)), dynamic_size(dynamic) {}
  constexpr child_refs<const A&, const I&, const V&> children() const { return {{{array}, {index}, {value}}}; }
  template <class A2, class I2, class V2>
  constexpr auto with_children(const A2& a, const I2& i, const V2& v) const { return ta_write<A2, I2, V2>(a, i, v, dynamic_size); }
  constexpr bool same_parameters(const ta_write& o) const { return dynamic_size == o.dynamic_size; }
  std::string name() const { return dynamic_size ? "tensor_array_write[dynamic]" : "tensor_array_write"; }
};

template <class N> struct is_ta_write : std::false_type {};
template <class A, class I, class V> struct is_ta_write<ta_write<A, I, V>> : std::true_type {};

}  // namespace graph

/// A tensor array while tracing: a symbolic tensor T[n, E...] with the TensorArray methods.
template <class Node>
class traced_tensor_array {
 public:
  using node_type = Node;
  using value_type = typename Node::value_type;
  using element_shape = typename detail::drop_leading<typename Node::shape_type>::type;

  constexpr traced_tensor_array(Node n, bool dynamic_size) : node_(std::move(n)), dynamic_(dynamic_size) {}

  /// A new array with element i set to v (an element of the array's dtype and element shape).
  template <class I, class V>
  constexpr auto write(const I& i, const V& v) const {
    auto idx = detail::to_node(i);
    using J = typename decltype(idx)::value_type;
    static_assert(std::is_integral<J>::value && !std::is_same<J, bool>::value && decltype(idx)::shape_type::rank == 0,
                  "staticflow: tensor_array::write: the index must be a scalar integer");
    auto val = detail::to_node_as<spec_of_t<value_type, element_shape>>(v);
    using VS = spec_of_node_t<decltype(val)>;
    using ES = spec_of_t<value_type, element_shape>;
    detail::control_flow_check<std::is_same<VS, ES>::value, [] {
      detail::message_string s;
      s += "staticflow: tensor_array::write: the element is ";
      detail::append_spec(s, VS{});
      s += ", the array holds ";
      detail::append_spec(s, ES{});
      s += " elements";
      return s;
    }()>();
    if constexpr (!std::is_same<VS, ES>::value) {
      return *this;  // reported; a write of the wrong spec would only add kernel errors
    } else {
      using W = graph::ta_write<Node, decltype(idx), decltype(val)>;
      return traced_tensor_array<W>(W(node_, idx, val, dynamic_), dynamic_);
    }
  }
  /// Element i (a[i]).
  template <class I>
  constexpr auto read(const I& i) const { return node_[i]; }
  /// The number of elements, an int32 scalar.
  constexpr auto size() const { return dim<0>(node_); }
  /// All elements as one tensor T[n, E...].
  constexpr const Node& stack() const { return node_; }
  constexpr bool dynamic_size() const { return dynamic_; }

 private:
  Node node_;
  bool dynamic_;
};

/// A tensor array to start a loop with (or to trace with `traced()`): elements of dtype T and shape
/// ElemShape; Size a static size, or sf::dyn (the default) for a size given at run time.
/// `tensor_array<int>{}` is empty and grows as written (TensorArray(dtype, size=0,
/// dynamic_size=True)); `tensor_array<float, sf::shape<3>>{n, false}` holds n elements and throws
/// on a write past them.
template <class T, class ElemShape = shape<>, std::size_t Size = dyn>
struct tensor_array {
  static_assert(dtype<T>, "staticflow: tensor_array: unsupported dtype (use bool, int32_t, int64_t, float or double)");
  using value_type = T;
  using element_shape = ElemShape;
  using shape_type = typename detail::prepend_dim<Size, ElemShape>::type;

  std::int64_t size = Size == dyn ? 0 : static_cast<std::int64_t>(Size);
  bool dynamic_size = Size == dyn;

  /// The array as a symbolic value (what loop bodies receive).
  constexpr auto traced() const {
    using L = graph::literal<std::int64_t>;
    return traced_tensor_array<graph::ta_zeros<T, shape_type, L>>(graph::ta_zeros<T, shape_type, L>(L(size)), dynamic_size);
  }
  /// An array of `n` zero elements, n a scalar integer tensor (a size known only at run time) or
  /// a C++ integer.
  template <class N>
  static constexpr auto with_size(const N& n, bool dynamic_size = false) {
    auto count = detail::to_node(n);
    using C = spec_of_node_t<decltype(count)>;
    static_assert(std::is_integral<typename C::value_type>::value && !std::is_same<typename C::value_type, bool>::value &&
                      C::shape_type::rank == 0,
                  "staticflow: tensor_array: the size must be a scalar integer");
    using Z = graph::ta_zeros<T, shape_type, decltype(count)>;
    return traced_tensor_array<Z>(Z(count), dynamic_size);
  }
  template <class I, class V>
  constexpr auto write(const I& i, const V& v) const { return traced().write(i, v); }
  constexpr auto stack() const { return traced().stack(); }
};

namespace detail {
template <class V> struct is_tensor_array : std::false_type {};
template <class T, class E, std::size_t N> struct is_tensor_array<tensor_array<T, E, N>> : std::true_type {};
template <class V> struct is_traced_tensor_array : std::false_type {};
template <class N> struct is_traced_tensor_array<traced_tensor_array<N>> : std::true_type {};

/// How a loop treats a value it carries: its node at the start, the value its body sees for a
/// variable node, and the node a body's returned value stands for.
template <class V>
struct loop_value {
  static constexpr auto init_node(const V& v) { return to_node(v); }
  template <class N>
  static constexpr auto wrap(const N& n, const V&) { return n; }
  template <class Spec, class R>
  static constexpr auto unwrap(const R& r) {
    static_assert(!is_traced_tensor_array<R>::value,
                  "staticflow: a loop body returned a tensor_array for a variable that started as a tensor");
    return to_node_as<Spec>(r);
  }
};
template <class T, class E, std::size_t Size>
struct loop_value<tensor_array<T, E, Size>> {
  static constexpr auto init_node(const tensor_array<T, E, Size>& v) { return v.traced().stack(); }
  template <class N>
  static constexpr auto wrap(const N& n, const tensor_array<T, E, Size>& v) { return traced_tensor_array<N>(n, v.dynamic_size); }
  template <class Spec, class R>
  static constexpr auto unwrap(const R& r) {
    static_assert(is_traced_tensor_array<R>::value,
                  "staticflow: a loop body must return a tensor_array for a variable that started as one");
    return r.stack();
  }
};
template <class Node>
struct loop_value<traced_tensor_array<Node>> {
  static constexpr auto init_node(const traced_tensor_array<Node>& v) { return v.stack(); }
  template <class N>
  static constexpr auto wrap(const N& n, const traced_tensor_array<Node>& v) { return traced_tensor_array<N>(n, v.dynamic_size()); }
  template <class Spec, class R>
  static constexpr auto unwrap(const R& r) {
    static_assert(is_traced_tensor_array<R>::value,
                  "staticflow: a loop body must return a tensor_array for a variable that started as one");
    return r.stack();
  }
};
}  // namespace detail

}  // namespace staticflow
