// staticflow/effects/eager.hpp -- what eager mode (sf::run_functions_eagerly) adds to tracing.
//
// An eager call runs the lambda with `graph::eager_value` leaves: external leaves over the
// arguments' data, whose values are known while the lambda runs. Effects at the top level run as
// they are met (effects/recorder.hpp), so a graph made only of eager values, literals and
// variable reads can be evaluated on the spot:
//   * sf::cond with such a predicate evaluates it and traces only the branch it picks, whose
//     results become eager values in turn (tf.cond in eager mode runs one Python branch);
//   * sf::for_range runs its body as a C++ loop, with the counter an eager value;
//   * `std::cout << t` shows t's values, as an eager tf.Tensor prints
//     (`tf.Tensor([1 2 3], shape=(3,), dtype=int32)`), where a traced call shows its spec.
// Everything else is evaluated at the end of the lambda, op by op (sf::backend::eager).
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/print.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"

namespace staticflow {
namespace detail {

template <class N>
constexpr bool holds_eager_value_of();
/// Whether graph N holds an eager value. (A variable, so that each node type is looked at once: a
/// graph holding one shared node in several places, an unrolled loop's, is a DAG whose paths grow
/// as uses^steps, and a constant evaluation that walked the paths ran out of steps in clang.)
template <class N>
inline constexpr bool holds_eager_value_v = holds_eager_value_of<N>();
template <class N>
constexpr bool holds_eager_value_of() {
  if constexpr (graph::detail::is_eager_value<N>::value) {
    return true;
  } else {
    using kids = decltype(graph::children(std::declval<const N&>()));
    return []<std::size_t... K>(std::index_sequence<K...>) {
      return (holds_eager_value_v<std::remove_cvref_t<std::tuple_element_t<K, kids>>> || ...);
    }(std::make_index_sequence<std::tuple_size<kids>::value>{});
  }
}
template <class N>
constexpr bool holds_eager_value() {
  return holds_eager_value_v<N>;
}

/// Whether graph N can be evaluated now: it reads no argument or loop variable and holds no
/// sub-graph (what an effect's graph may be).
template <class N>
constexpr bool evaluable_now() {
  return effect_graphs::argument_bound<N>() == 0 && effect_graphs::effect_supported<N>();
}

/// Whether graph N is an eager value's graph: evaluated on the spot in eager mode (a traced call
/// never holds an eager value).
template <class N>
constexpr bool eager_graph() {
  return holds_eager_value<N>() && evaluable_now<N>();
}

/// Storage for a value computed while an eager call's lambda runs (kept by the call's program).
template <class T, std::size_t R>
struct eager_buffer {
  std::unique_ptr<T[]> values;
  const void* data = nullptr;
  std::array<std::size_t, R + 1> ext{};
  graph::external_source source{&data, ext.data(), "eager"};
};

/// Graph n evaluated now, as an eager value of spec Spec (n's own spec unless a branch's C++
/// number takes the other branch's dtype).
template <class Spec, class N>
auto eager_materialize(const N& n) {
  const auto node = to_node_as<Spec>(n);
  using G = std::remove_cvref_t<decltype(node)>;
  using T = typename Spec::value_type;
  using S = typename Spec::shape_type;
  static_assert(std::is_same<typename G::value_type, T>::value);
  auto held = std::make_shared<eager_buffer<T, S::rank>>();
  evaluate_now(node, [&](const extents<G::shape_type::rank>& e) {
    std::size_t n_elements = 1;
    for (std::size_t d = 0; d < G::shape_type::rank; ++d) n_elements *= held->ext[d] = e[d];
    held->values.reset(new T[n_elements ? n_elements : 1]);
    held->data = held->values.get();
    return held->values.get();
  });
  traced_program("an eager value").resources.push_back(held);
  return graph::eager_value<T, S>(&held->source);
}

template <class Results, class Raw, std::size_t... K>
auto eager_results(const Raw& raw, std::index_sequence<K...>) {
  return std::tuple{eager_materialize<std::tuple_element_t<K, Results>>(staticflow::detail::get<K>(raw))...};
}

template <class N>
constexpr bool materializable_now() {
  return evaluable_now<std::remove_cvref_t<decltype(to_node(std::declval<const N&>()))>>();
}
template <class Tuple>
struct all_materializable;
template <class... N>
struct all_materializable<std::tuple<N...>> : std::bool_constant<(materializable_now<N>() && ...)> {};

/// Whether results Raw (of a branch or a loop body) evaluate into eager values of Specs. When
/// they do not, the traced path is taken and gives its own `staticflow:` error on the mismatch;
/// the eager path must not fail first on an assertion of its own.
template <class S, class R>
constexpr bool eager_result_fits() {
  using G = std::remove_cvref_t<decltype(to_node_as<S>(std::declval<const R&>()))>;
  return std::is_same<typename G::value_type, typename S::value_type>::value &&
         std::is_same<typename G::shape_type, typename S::shape_type>::value;
}
template <class Specs, class Raw>
constexpr bool eager_results_fit() {
  if constexpr (std::tuple_size<Specs>::value != std::tuple_size<Raw>::value) {
    return false;
  } else {
    return []<std::size_t... K>(std::index_sequence<K...>) {  // (a named function per element: clang
      // crashes on a lambda inside this fold)
      return (eager_result_fits<std::tuple_element_t<K, Specs>, std::tuple_element_t<K, Raw>>() && ...);
    }(std::make_index_sequence<std::tuple_size<Specs>::value>{});
  }
}

/// Whether an eager call's sf::cond(pred, t, f) can pick its branch now.
template <class Pred, class TrueFn, class FalseFn>
constexpr bool eager_cond_possible() {
  if constexpr (!eager_graph<Pred>()) {
    return false;
  } else {
    using T = decltype(as_tuple(std::declval<TrueFn&>()()));
    using F = decltype(as_tuple(std::declval<FalseFn&>()()));
    if constexpr (!(all_materializable<T>::value && all_materializable<F>::value)) {
      return false;
    } else {
      using traced = decltype(make_branches<graph::cond_kind, cond_names>(
          std::declval<const Pred&>(), std::declval<TrueFn&>(), std::declval<FalseFn&>()));
      using specs = specs_of_nodes_t<decltype(as_tuple(std::declval<const traced&>()))>;
      return eager_results_fit<specs, T>() && eager_results_fit<specs, F>();
    }
  }
}

/// sf::cond in eager mode: the predicate evaluated now, only the branch it picks run (its effects
/// act as it runs), its results evaluated into eager values of the specs the traced cond would
/// have.
template <class Pred, class TrueFn, class FalseFn>
constexpr auto eager_cond(const Pred& pred, TrueFn& true_fn, FalseFn& false_fn) {
  using traced = decltype(make_branches<graph::cond_kind, cond_names>(pred, true_fn, false_fn));
  using specs = specs_of_nodes_t<decltype(as_tuple(std::declval<const traced&>()))>;
  const bool pick = scalar_now(pred);
  constexpr auto outputs = std::make_index_sequence<std::tuple_size<specs>::value>{};
  auto results = pick ? eager_results<specs>(as_tuple(true_fn()), outputs)
                      : eager_results<specs>(as_tuple(false_fn()), outputs);
  return unwrap_single(std::move(results));
}

template <class V>
constexpr bool plain_loop_value() {
  return symbolic<V> || std::is_arithmetic<V>::value || static_value_type<V>;
}

/// Whether an eager call's sf::while_loop(cond, body, vars...) can run as a C++ loop: plain
/// tensor variables, one of them an eager value, and a condition and body that give graphs it
/// can evaluate on the spot.
template <class Cond, class Body, class... Vars>
constexpr bool eager_while_possible() {
  if constexpr (!(plain_loop_value<Vars>() && ...)) {
    return false;
  } else {
    using inits = std::tuple<std::remove_cvref_t<decltype(to_node(std::declval<const Vars&>()))>...>;
    constexpr bool eager_inits = []<class... N>(std::type_identity<std::tuple<N...>>) {
      return (holds_eager_value<N>() || ...) && (evaluable_now<N>() && ...);
    }(std::type_identity<inits>{});
    if constexpr (!eager_inits) {
      return false;
    } else {
      using specs = specs_of_nodes_t<inits>;
      using state = decltype([]<class... S>(std::type_identity<std::tuple<S...>>) {
        return std::tuple{graph::eager_value<typename S::value_type, typename S::shape_type>(nullptr)...};
      }(std::type_identity<specs>{}));
      using pred = std::remove_cvref_t<decltype(to_node(staticflow::detail::apply(std::declval<Cond&>(), std::declval<const state&>())))>;
      using next = decltype(as_tuple(staticflow::detail::apply(std::declval<Body&>(), std::declval<const state&>())));
      return evaluable_now<pred>() && all_materializable<next>::value && eager_results_fit<specs, next>();
    }
  }
}

/// sf::while_loop in an eager call: a C++ loop, the condition evaluated and the body run (and its
/// results evaluated into eager values) on every iteration.
template <class Cond, class Body, class... Vars>
constexpr auto eager_while(Cond& cond, Body& body, std::int64_t max_iterations, const Vars&... vars) {
  auto inits = std::tuple{to_node(vars)...};
  using specs = specs_of_nodes_t<decltype(inits)>;
  constexpr auto positions = std::index_sequence_for<Vars...>{};
  auto state = eager_results<specs>(inits, positions);
  for (std::int64_t i = 0; max_iterations < 0 || i < max_iterations; ++i) {
    const auto pred = to_node(staticflow::detail::apply(cond, state));
    if (!scalar_now(pred)) break;
    state = eager_results<specs>(as_tuple(staticflow::detail::apply(body, state)), positions);
  }
  return unwrap_single(std::move(state));
}

}  // namespace detail

namespace graph {
/// An eager value's graph prints its values, as an eager tf.Tensor does.
template <class N>
  requires(symbolic<N> && staticflow::detail::eager_graph<N>())
std::ostream& operator<<(std::ostream& os, const N& n) {
  using T = typename N::value_type;
  constexpr std::size_t R = N::shape_type::rank;
  std::unique_ptr<T[]> values;
  extents<R> ext{};
  staticflow::detail::evaluate_now(n, [&](const extents<R>& e) {
    ext = e;
    values.reset(new T[staticflow::detail::product(e) ? staticflow::detail::product(e) : 1]);
    return values.get();
  });
  std::string s = "tf.Tensor(";
  staticflow::detail::format_tensor(s, values.get(), ext.data(), R, 3, 0, true);
  s += ", shape=" + staticflow::detail::extents_string(ext) + ", dtype=" + std::string(dtype_name<T>) + ")";
  return os << s;
}
}  // namespace graph

}  // namespace staticflow
