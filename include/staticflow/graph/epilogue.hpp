// staticflow/graph/epilogue.hpp -- a producer (conv2d) together with the elementwise function that
// reads its result, applied by the producer's kernel to each block of the result as soon as that
// block is finished: what the planner puts in the place of `act(conv2d(x, f) + b)`
// (plan/epilogues.hpp). Never traced (listings, gradients and ONNX see the graph as written);
// only the kernels read it.
//
// The function is a graph of elementwise nodes over arguments of its own: argument 0 is the
// producer's value, argument 1 + i the i-th operand (a bias, a scale: tensors that vary along the
// last axis only, or single values), whose nodes are this node's children after the producer's.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/broadcast.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/node.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::graph {
namespace detail {
template <class ProducerKids, class... Q>
struct epilogue_kids;
template <class... K, class... Q>
struct epilogue_kids<child_refs<K...>, Q...> {
  using type = child_refs<K..., const Q&...>;
};

/// Whether two functions of one type hold equal literals (their only run-time values).
template <class N>
constexpr bool same_literals(const N& a, const N& b) {
  if constexpr (is_runtime_literal<N>::value) {
    return a.value == b.value || (a.value != a.value && b.value != b.value);
  } else {
    const auto ka = children(a), kb = children(b);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (same_literals(child<K>(ka), child<K>(kb)) && ...);
    }(std::make_index_sequence<std::tuple_size<decltype(ka)>::value>{});
  }
}
}  // namespace detail

/// Producer P's result with Fn applied to each element as P's kernel finishes it; Fn reads P's
/// value as argument 0 and operand i (of Q...) as argument 1 + i. Result: P's dtype and shape.
template <class P, class Fn, class... Q>
struct epilogue : node<epilogue<P, Fn, Q...>> {
  static constexpr bool materialized = true;
  using value_type = typename P::value_type;
  using shape_type = typename P::shape_type;
  using producer_type = P;
  using function_type = Fn;
  static_assert(std::is_same<typename Fn::value_type, value_type>::value);
  static constexpr std::size_t producer_children = std::tuple_size<decltype(graph::children(std::declval<const P&>()))>::value;
  static constexpr std::size_t operand_count = sizeof...(Q);

  P producer;
  Fn fn;
  staticflow::detail::value_pack<Q...> operands;

  constexpr epilogue(const P& p, const Fn& f, const staticflow::detail::value_pack<Q...>& q)
      : producer(p), fn(f), operands(q) {}

  constexpr auto children() const {
    using refs = typename detail::epilogue_kids<decltype(graph::children(producer)), Q...>::type;
    const auto pk = graph::children(producer);
    return [&]<std::size_t... K, std::size_t... I>(std::index_sequence<K...>, std::index_sequence<I...>) {
      return refs{{{child<K>(pk)}..., {staticflow::detail::pack_get<I>(operands)}...}};
    }(std::make_index_sequence<producer_children>{}, std::index_sequence_for<Q...>{});
  }
  template <class... A>
  constexpr auto with_children(const A&... a) const {
    const auto refs = make_child_refs(a...);
    return [&]<std::size_t... K, std::size_t... I>(std::index_sequence<K...>, std::index_sequence<I...>) {
      const auto p = graph::with_children(producer, child<K>(refs)...);
      const auto q = staticflow::detail::pack_values(std::remove_cvref_t<decltype(child<producer_children + I>(refs))>(
          child<producer_children + I>(refs))...);
      return epilogue<std::remove_cvref_t<decltype(p)>, Fn,
                      std::remove_cvref_t<decltype(child<producer_children + I>(refs))>...>(p, fn, q);
    }(std::make_index_sequence<producer_children>{}, std::index_sequence_for<Q...>{});
  }
  static constexpr bool parameters_in_type = value_free_v<Fn> && value_free_v<P>;
  constexpr bool same_parameters(const epilogue& o) const {
    bool same = detail::same_literals(fn, o.fn);
    if constexpr (requires { producer.same_parameters(o.producer); }) same = same && producer.same_parameters(o.producer);
    return same;
  }
  std::string name() const { return "_Fused" + producer.name(); }
  /// The producer's extents broadcast with the operands', as the elementwise graph it replaces
  /// computed them (the same shape_error; with run-time extents an operand of k values over a
  /// result of one channel makes k, backend/cpu/conv.hpp).
  template <class... E>
  extents<shape_type::rank> result_extents(const E&... e) const {
    const auto all = std::forward_as_tuple(e...);
    auto out = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return producer.result_extents(staticflow::detail::get<K>(all)...);
    }(std::make_index_sequence<producer_children>{});
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((out = staticflow::detail::broadcast_extents<shape_type::rank>(out, staticflow::detail::get<producer_children + I>(all))), ...);
    }(std::index_sequence_for<Q...>{});
    return out;
  }
};

}  // namespace staticflow::graph
