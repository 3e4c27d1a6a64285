// staticflow/plan/planned_listing.hpp -- what the planner's rewrites of a traced graph do, marked
// in the graph's listing (graph/print.hpp), so that `to_dot` and `to_code` show the program that
// runs: the equations a producer's epilogue computes (plan/epilogues.hpp: "fused into the
// epilogue of c" where the planner folded `relu(c + b)` into the convolution c, not the next
// loop), and the transposes a product reads in place (plan/transposed_operands.hpp: "read in
// place by e", never computed).
//
// The listing is of the graph as traced; the planner folds the graph with its products'
// transposed operands read in place, so each node's region is judged by its folded type, as the
// planner judges it, and named by its traced node (emitting a node already listed returns its
// name).
#pragma once

#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/print.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/plan/epilogues.hpp"
#include "staticflow/plan/transposed_operands.hpp"

namespace staticflow::plan::detail {

template <class Tuple>
struct planned_outputs;
template <class... O>
struct planned_outputs<std::tuple<O...>> {
  using type = std::tuple<std::remove_cv_t<O>...>;
};
/// The output types the epilogue pass sees for traced outputs Outs (a std::tuple of nodes).
template <class Outs>
using epilogue_pass_outputs_t = typename planned_outputs<folded_outputs_t<Outs>>::type;

/// The name of the region's producer (the leaf whose folded type is P) in listing l.
template <class P, class N>
void find_producer(graph::detail::listing& l, const N& n, std::string& name) {
  if constexpr (is_pointwise_v<N>) {
    graph::apply_children([&](const auto&... kid) { (find_producer<P>(l, kid, name), ...); }, graph::children(n));
  } else if constexpr (std::is_same<folded_t<N>, P>::value) {
    if (name.empty()) name = l.emit(n);
  }
}

template <class Outs, class N>
void mark_epilogues(graph::detail::listing& l, const N& n);

/// Marks the pointwise nodes of the region at n as the epilogue of `producer`; the regions inside
/// its leaves (a convolution of an epilogue's result) are looked for too.
template <class Outs, class N>
void mark_region(graph::detail::listing& l, const N& n, const std::string& producer) {
  if constexpr (is_pointwise_v<N>) {
    l.mark_epilogue(l.emit(n), producer);
    graph::apply_children([&](const auto&... kid) { (mark_region<Outs>(l, kid, producer), ...); }, graph::children(n));
  } else if constexpr (!graph::detail::is_literal<N>::value) {
    mark_epilogues<Outs>(l, n);
  }
}

/// Marks every region under n that the epilogue pass folds for outputs Outs (its own types).
template <class Outs, class N>
void mark_epilogues(graph::detail::listing& l, const N& n) {
  using F = folded_t<N>;
  if constexpr (holds_producer<F>::value) {
    if constexpr (folds_v<Outs, F>) {
      std::string producer;
      find_producer<typename region_shape<F>::producer>(l, n, producer);
      mark_region<Outs>(l, n, producer);
    } else {
      graph::apply_children([&](const auto&... kid) { (mark_epilogues<Outs>(l, kid), ...); }, graph::children(n));
    }
  }
}

/// How many times subtree N reads T as an operand of a product, along every path.
template <class T, class N>
inline constexpr std::size_t product_operand_reads_v = [] {
  using kids = decltype(graph::children(std::declval<const N&>()));
  const std::size_t here = [] {
    if constexpr (is_matmul_v<N>) return std::size_t{std::is_same<decltype(N::a), T>::value} + std::size_t{std::is_same<decltype(N::b), T>::value};
    else return std::size_t{0};
  }();
  return here + []<std::size_t... K>(std::index_sequence<K...>) {
    return (std::size_t{0} + ... + product_operand_reads_v<T, std::remove_cvref_t<std::tuple_element_t<K, kids>>>);
  }(std::make_index_sequence<std::tuple_size<kids>::value>{});
}();

/// Marks the transposes under n that only products read: the planner reads them in place
/// (plan/transposed_operands.hpp), so they are never computed. Outs: the traced output types.
template <class Outs, class N>
void mark_transposes(graph::detail::listing& l, const N& n) {
  if constexpr (holds_transposed_operands<N>::value) {
    if constexpr (is_matmul_v<N>) {
      const auto mark = [&](const auto& operand) {
        using T = std::remove_cvref_t<decltype(operand)>;
        if constexpr (is_matrix_transpose_v<T>) {
          constexpr bool only_products = []<class... O>(std::type_identity<std::tuple<O...>>) {
            return (std::size_t{0} + ... + occurrences_v<T, O>) == (std::size_t{0} + ... + product_operand_reads_v<T, O>);
          }(std::type_identity<Outs>{});
          if constexpr (only_products) l.mark_read_in_place(l.emit(operand), l.emit(n));
        }
      };
      mark(n.a);
      mark(n.b);
    }
    graph::apply_children([&](const auto&... kid) { (mark_transposes<Outs>(l, kid), ...); }, graph::children(n));
  }
}

/// Marks, in listing l of traced outputs `outs` (Outs: their decayed types, as planned), the
/// equations an epilogue computes and the transposes products read in place.
template <class Outs, class Nodes>
void mark_planned(graph::detail::listing& l, const Nodes& outs) {
  using planned = epilogue_pass_outputs_t<Outs>;
  staticflow::detail::apply([&](const auto&... n) { (mark_epilogues<planned>(l, n), ...); }, outs);
  staticflow::detail::apply([&](const auto&... n) { (mark_transposes<Outs>(l, n), ...); }, outs);
}

}  // namespace staticflow::plan::detail
