// staticflow/plan/epilogue_listing.hpp -- which equations of a traced graph's listing
// (graph/print.hpp) a producer's epilogue computes (plan/epilogues.hpp), so that `to_dot` and
// `to_code` say "fused into the epilogue of c" where the planner folded `relu(c + b)` into the
// convolution c, rather than naming the next loop.
//
// The listing is of the graph as traced; the planner folds the graph with its products'
// transposed operands read in place (plan/transposed_operands.hpp), so each node's region is
// judged by its folded type, as the planner judges it, and named by its traced node (emitting a
// node already listed returns its name).
#pragma once

#include <string>
#include <tuple>
#include <type_traits>

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
  } else if constexpr (std::is_same_v<folded_t<N>, P>) {
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
  if constexpr (holds_producer_v<F>) {
    if constexpr (folds_v<Outs, F>) {
      std::string producer;
      find_producer<typename region_shape<F>::producer>(l, n, producer);
      mark_region<Outs>(l, n, producer);
    } else {
      graph::apply_children([&](const auto&... kid) { (mark_epilogues<Outs>(l, kid), ...); }, graph::children(n));
    }
  }
}

/// Marks, in listing l of traced outputs `outs` (Outs: their decayed types, as planned), the
/// equations an epilogue computes.
template <class Outs, class Nodes>
void mark_output_epilogues(graph::detail::listing& l, const Nodes& outs) {
  using planned = epilogue_pass_outputs_t<Outs>;
  std::apply([&](const auto&... n) { (mark_epilogues<planned>(l, n), ...); }, outs);
}

}  // namespace staticflow::plan::detail
