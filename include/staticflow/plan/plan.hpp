// staticflow/plan/plan.hpp -- from a traced graph to an evaluation plan.
//
// The cost rule: a node that is not elementwise (a reduction, a matmul, a shape op, later cond and
// loops) is *materialized*: computed once per call, in dependency order, into a buffer of its own
// (a "slot"), however many times the graph uses it. Every elementwise node is fused into the loop
// of its consumer and recomputed there. `plan::materializes_v<Node>` states the rule; tests assert
// it.
//
// Lowering replaces every materialized occurrence by an argument node that reads its slot, so
// the fused CPU loop needs nothing new: slot K is argument `ArgCount + K`. Slots are numbered in
// post-order (children first), which is a valid evaluation order. Structurally equal slots (same
// type, same literal values and parameters) are detected once, when the plan is made, and
// computed once (common-subexpression elimination).
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan {

/// Whether the planner materializes node N (the cost rule above).
template <class N>
inline constexpr bool materializes_v = [] {
  if constexpr (requires { N::materialized; }) return bool(N::materialized);
  else return false;
}();

/// How many materialized nodes the subtree N holds, N included.
template <class N>
constexpr std::size_t materialized_count() {
  using kids = decltype(graph::children(std::declval<const N&>()));
  const std::size_t below = []<std::size_t... K>(std::index_sequence<K...>) {
    return (std::size_t{0} + ... + materialized_count<std::remove_cvref_t<std::tuple_element_t<K, kids>>>());
  }(std::make_index_sequence<std::tuple_size_v<kids>>{});
  return below + (materializes_v<N> ? 1 : 0);
}

namespace detail {
// The slot base of child K of N: Base + the counts of the children before it.
template <class Kids, std::size_t K>
constexpr std::size_t count_before() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... + materialized_count<std::remove_cvref_t<std::tuple_element_t<J, Kids>>>());
  }(std::make_index_sequence<K>{});
}

template <std::size_t ArgCount, std::size_t Base, class N>
constexpr auto lower(const N& n);

// N with each child lowered (its materialized descendants replaced by slot reads).
template <std::size_t ArgCount, std::size_t Base, class N>
constexpr auto lower_children(const N& n) {
  using kids = decltype(graph::children(n));
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    const auto c = graph::children(n);
    return graph::with_children(n, lower<ArgCount, Base + count_before<kids, K>()>(std::get<K>(c))...);
  }(std::make_index_sequence<std::tuple_size_v<kids>>{});
}

template <std::size_t ArgCount, std::size_t Base, class N>
constexpr auto lower(const N& n) {
  if constexpr (graph::detail::is_argument<N>::value || graph::detail::is_literal<N>::value) {
    return n;
  } else if constexpr (materializes_v<N>) {
    // this node is slot Base + (the slots below it): read it as an argument
    return graph::argument<ArgCount + Base + materialized_count<N>() - 1, typename N::value_type,
                           typename N::shape_type>{};
  } else {
    return lower_children<ArgCount, Base>(n);
  }
}

// The lowered materialized nodes of subtree n, in post-order, as a tuple.
template <std::size_t ArgCount, std::size_t Base, class N>
constexpr auto collect(const N& n) {
  using kids = decltype(graph::children(n));
  auto below = [&]<std::size_t... K>(std::index_sequence<K...>) {
    const auto c = graph::children(n);
    return std::tuple_cat(collect<ArgCount, Base + count_before<kids, K>()>(std::get<K>(c))...);
  }(std::make_index_sequence<std::tuple_size_v<kids>>{});
  if constexpr (materializes_v<N>) return std::tuple_cat(below, std::tuple{lower_children<ArgCount, Base>(n)});
  else return below;
}

/// Structural equality of two nodes of the same type: equal literal values and parameters.
template <class N>
bool structurally_equal(const N& a, const N& b) {
  if constexpr (graph::detail::is_literal<N>::value) {
    return a.value == b.value || (a.value != a.value && b.value != b.value);
  } else {
    bool same = true;
    if constexpr (requires { a.same_parameters(b); }) same = a.same_parameters(b);
    const auto ka = graph::children(a);
    const auto kb = graph::children(b);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((same = same && structurally_equal(std::get<K>(ka), std::get<K>(kb))), ...);
    }(std::make_index_sequence<std::tuple_size_v<decltype(ka)>>{});
    return same;
  }
}
}  // namespace detail

/// The plan of a graph with outputs `Outputs` (a tuple of nodes) over ArgCount arguments:
/// the lowered outputs, the lowered slot nodes in evaluation order, and which slot repeats which.
template <std::size_t ArgCount, class Outputs>
struct evaluation_plan {
  static constexpr std::size_t output_count = std::tuple_size_v<Outputs>;

 private:
  template <std::size_t K>
  static constexpr std::size_t output_base() {
    return detail::count_before<Outputs, K>();
  }
  static auto lower_outputs(const Outputs& outs) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{detail::lower<ArgCount, output_base<K>()>(std::get<K>(outs))...};
    }(std::make_index_sequence<output_count>{});
  }
  static auto collect_slots(const Outputs& outs) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple_cat(detail::collect<ArgCount, output_base<K>()>(std::get<K>(outs))...);
    }(std::make_index_sequence<output_count>{});
  }

 public:
  using outputs_type = decltype(lower_outputs(std::declval<const Outputs&>()));
  using slots_type = decltype(collect_slots(std::declval<const Outputs&>()));
  static constexpr std::size_t slot_count = std::tuple_size_v<slots_type>;

  outputs_type outputs;
  slots_type slots;
  /// same_as[k] == j < k when slot k is structurally equal to slot j (it is not computed again).
  std::array<std::size_t, slot_count> same_as{};

  explicit evaluation_plan(const Outputs& outs) : outputs(lower_outputs(outs)), slots(collect_slots(outs)) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((same_as[K] = first_equal<K>(std::make_index_sequence<K>{})), ...);
    }(std::make_index_sequence<slot_count>{});
  }

 private:
  template <std::size_t K, std::size_t... J>
  std::size_t first_equal(std::index_sequence<J...>) const {
    std::size_t found = K;
    ([&] {
      using a = std::tuple_element_t<J, slots_type>;
      using b = std::tuple_element_t<K, slots_type>;
      if constexpr (std::is_same_v<a, b>)
        if (found == K && same_as[J] == J && detail::structurally_equal(std::get<J>(slots), std::get<K>(slots)))
          found = J;
    }(), ...);
    return found;
  }
};

}  // namespace staticflow::plan

namespace staticflow::plan {
/// How many materialized nodes this thread has computed: tests count evaluations with it to prove
/// that a node is computed once per call however often the graph uses it.
inline std::size_t& materialization_counter() {
  thread_local std::size_t count = 0;
  return count;
}
}  // namespace staticflow::plan
