// staticflow/trace/constant_trace.hpp -- tracing by the compiler.
//
// A call traces the lambda at run time (the first call of a signature), which is when its C++
// side effects happen. The plan made from that trace holds literal values (`m % 2`, `x * 0.5f`)
// as members, which the optimizer cannot see through. So a lambda with no state whose trace is
// a constant expression -- it records no effect, prints nothing, captures nothing and reads
// nothing that exists only at run time -- is traced a second time, by the compiler, and planned
// in a constant expression: calls then evaluate that constant plan, in which every literal is a
// constant (`m % 2 == 0` becomes a bit test, `m / 2` a shift), as if the lambda had been written
// with static values (`2_c`). Lambdas that do not qualify simply keep the run-time plan; both
// plans are made from the same lambda and are equal. A lambda the compiler traced has no C++ side
// effect to run, so its first call does not trace it again: its concrete function traces it at run
// time only if its graph is asked for (trace/concrete_function.hpp's graph()).
#pragma once

#include <concepts>
#include <cstddef>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/config.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow::detail {

/// The outputs of a traced lambda as a tuple of references to its nodes.
template <class Result>
constexpr auto output_nodes(const Result& r) {
  if constexpr (is_tuple<Result>::value)
    return staticflow::detail::apply([](const auto&... n) STATICFLOW_LAMBDA_INLINE { return std::tuple<const std::remove_cvref_t<decltype(n)>&...>{n...}; }, r);
  else return std::tuple<const Result&>{r};
}

/// The output nodes of a traced result, copied into a tuple of values (what a plan is made from).
template <class Values, class Result>
constexpr Values output_values_of(const Result& r) {
  return staticflow::detail::apply([](const auto&... out) { return Values{out...}; }, output_nodes(r));
}

/// The lambda Fn traced with the symbolic arguments of signature Sig, by a default-constructed Fn.
template <class Fn, class Sig>
constexpr auto constant_trace() {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return Fn{}(symbolic_argument<I, std::tuple_element_t<I, Sig>>()...);
  }(std::make_index_sequence<std::tuple_size<Sig>::value>{});
}

template <class Plan, class Values, class Fn, class Sig>
constexpr Plan make_constant_plan() {
  return Plan(output_values_of<Values>(constant_trace<Fn, Sig>()));
}

/// How deeply the deepest of a function's outputs (a std::tuple of node types) nests.
template <class Values>
inline constexpr std::size_t deepest_output_v = 0;
template <class... N>
inline constexpr std::size_t deepest_output_v<std::tuple<N...>> = std::max({std::size_t{0}, graph::nesting_depth<N>::value...});

/// Whether the compiler can trace Fn for Sig and make its plan (of type Plan, from the output
/// values Values) in a constant expression. An Fn with state (a lambda with captures) is never
/// traced this way: a default-constructed copy would not be the function called. Nor is a graph
/// nested deeper than STATICFLOW_CONSTANT_TRACE_DEPTH (core/config.hpp): its planner's walks would
/// reach the compiler's constant-evaluation depth, where g++ 12 can stop the build instead of
/// failing the constraint (a 70-node chain's gradient did, at nesting depth 156). Asked first, so
/// such a graph is not evaluated at all.
template <class Plan, class Values, class Fn, class Sig>
concept constant_plan_possible =
    std::is_empty<Fn>::value && std::default_initializable<Fn> &&
    (deepest_output_v<Values> <= STATICFLOW_CONSTANT_TRACE_DEPTH) &&
    requires { typename std::bool_constant<(make_constant_plan<Plan, Values, Fn, Sig>(), true)>; };

/// Constructs a concrete function the compiler traced, without a run-time trace.
struct traced_by_compiler_t {
  explicit traced_by_compiler_t() = default;
};
inline constexpr traced_by_compiler_t traced_by_compiler{};

/// A concrete function's graph: the run-time trace it was made from or, for a function the
/// compiler traced (Lazy), the lambda traced again at run time the first time the graph is asked
/// for, once, on whichever thread asks. Calls never need it, so a program that never asks never
/// compiles that trace.
template <class Result, class Fn, class Sig, bool Lazy>
class traced_graph {
 public:
  explicit traced_graph(Result graph) : graph_(std::move(graph)) {}
  traced_graph()
    requires Lazy
  = default;

  const Result& get() const {
    if constexpr (Lazy) {
      std::call_once(once_, [&] {
        if (!graph_) graph_.emplace(constant_trace<Fn, Sig>());
      });
    }
    return *graph_;
  }

 private:
  struct no_once_flag {};
  mutable std::optional<Result> graph_;
  [[no_unique_address]] mutable std::conditional_t<Lazy, std::once_flag, no_once_flag> once_;
};

/// The plan made by the compiler (only named when constant_plan_possible holds).
template <class Plan, class Values, class Fn, class Sig>
inline constexpr Plan constant_plan_v = make_constant_plan<Plan, Values, Fn, Sig>();

}  // namespace staticflow::detail
