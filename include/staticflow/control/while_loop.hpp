// staticflow/control/while_loop.hpp -- sf::while_loop: a loop with a data-dependent trip count.
//
// The condition and the body are traced once, with symbolic loop variables
// (graph::bound_variable); the body must give every variable back with the spec it started with
// (a variable whose extents change is declared with sf::dyn dimensions, the analog of
// shape_invariants). At run time the loop keeps its variables in two state buffers (on the stack
// when their shape is static), runs the condition's plan and the body's plan over them, and
// swaps. A tensor-array variable written by the body (`ta.write(i, v)`) is updated in place.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/effects/loop_effects.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/plan/plan.hpp"

namespace staticflow {

/// tf.while_loop's maximum_iterations: the loop stops after n iterations even if its condition
/// still holds. Pass it after the loop variables.
struct maximum_iterations {
  std::int64_t value;
  constexpr explicit maximum_iterations(std::int64_t n) : value(n) {}
};

namespace graph {
namespace detail {
/// Whether body output N, for variable Arg (an argument after binding), is a tensor-array write
/// to that same variable: the loop then writes the element in place.
template <class N, std::size_t Arg>
struct in_place_write : std::false_type {};
template <std::size_t Arg, class T, class S, class I, class V>
struct in_place_write<ta_write<argument<Arg, T, S>, I, V>, Arg> : std::true_type {};

// The outputs the body's plan computes: a variable's new value, or the index and the element of
// an in-place write.
template <std::size_t ArgCount, class... N>
constexpr auto flatten_body(const std::tuple<N...>& body) {
  // (value_packs joined, one std::tuple made: a tuple_cat of one- and two-element tuples cost
  // g++ a tuple type and its constructors per variable)
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return staticflow::detail::pack_to_tuple(staticflow::detail::pack_concat([&]() {
      const auto& out = staticflow::detail::get<K>(body);
      if constexpr (in_place_write<std::remove_cvref_t<decltype(out)>, ArgCount + K>::value)
        return staticflow::detail::pack_values(out.index, out.value);
      else return staticflow::detail::pack_of(out);
    }()...));
  }(std::index_sequence_for<N...>{});
}
}  // namespace detail

/// A while loop as its slot holds it: the initial values (lowered children), the condition's and
/// the body's plans over the ArgCount visible values followed by the loop variables, and which
/// variables the body writes in place (a tensor-array write: `grows[k]` when it may grow).
template <std::size_t ArgCount, class Inits, class CondPlan, class BodyPlan, class InPlace>
struct while_plan : node<while_plan<ArgCount, Inits, CondPlan, BodyPlan, InPlace>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  static constexpr std::size_t visible_values = ArgCount;
  using output_specs = staticflow::detail::specs_of_nodes_t<Inits>;
  using in_place = InPlace;
  using value_type = bool;
  using shape_type = shape<dyn>;
  static constexpr std::size_t variable_count = std::tuple_size<Inits>::value;

  Inits inits;
  CondPlan cond;
  BodyPlan body;
  std::int64_t max_iterations;
  std::array<bool, variable_count> grows;
  staticflow::detail::loop_effects* effects = nullptr;  // see while_node

  constexpr auto children() const {
    return staticflow::detail::apply([](const auto&... i) { return make_child_refs(i...); }, inits);
  }
  template <class... N>
  constexpr auto with_children(const N&... n) const {
    return while_plan<ArgCount, std::tuple<N...>, CondPlan, BodyPlan, InPlace>{{}, {n...}, cond, body, max_iterations, grows, effects};
  }
  constexpr bool same_parameters(const while_plan& o) const {
    return max_iterations == o.max_iterations && grows == o.grows && effects == o.effects &&
           detail::plans_equal(cond, o.cond) && detail::plans_equal(body, o.body);
  }
  std::string name() const { return "while"; }
};

namespace detail {
/// What a listing says of a loop besides its graphs: its scope's first type's `listing_note()`
/// where it has one (control/fori_loop.hpp: why a loop with static bounds was not unrolled).
template <class Scope>
std::string scope_note() {
  return {};
}
template <class Scope>
  requires requires { std::tuple_element_t<0, Scope>::listing_note(); }
std::string scope_note() {
  return std::tuple_element_t<0, Scope>::listing_note();
}
}  // namespace detail

/// A while loop as traced: initial values, the condition and the body over bound_variable<Scope, K>.
template <class Scope, class Inits, class Cond, class Body>
struct while_node : node<while_node<Scope, Inits, Cond, Body>> {
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  using output_specs = staticflow::detail::specs_of_nodes_t<Inits>;
  using value_type = bool;
  using shape_type = shape<dyn>;
  static constexpr std::size_t variable_count = std::tuple_size<Inits>::value;

  Inits inits;
  Cond cond;
  Body body;
  std::int64_t max_iterations;
  /// A loop whose body has effects (effects/loop_effects.hpp): its effect runs the loop, in
  /// program order, and this node reads the final variables it left. Null for other loops.
  staticflow::detail::loop_effects* effects = nullptr;

  constexpr auto children() const {
    return staticflow::detail::apply([](const auto&... i) { return make_child_refs(i...); }, inits);
  }
  template <class... N>
  constexpr auto with_children(const N&... n) const {
    return while_node<Scope, std::tuple<N...>, Cond, Body>{{}, {n...}, cond, body, max_iterations, effects};
  }
  constexpr bool same_parameters(const while_node& o) const {
    return max_iterations == o.max_iterations && effects == o.effects && plan::detail::structurally_equal(cond, o.cond) &&
           detail::graphs_equal(body, o.body);
  }
  std::string name() const { return "while"; }
  /// A line the listing prints with the loop's graphs (empty: none).
  std::string listing_note() const { return detail::scope_note<Scope>(); }
  /// The condition and the body, for listings: `v(label, scope, variable specs, outputs)`.
  template <class V>
  void for_each_subgraph(V& v) const {
    v("cond", std::type_identity<Scope>{}, std::type_identity<output_specs>{}, std::tuple<const Cond&>{cond});
    v("body", std::type_identity<Scope>{}, std::type_identity<output_specs>{}, body);
  }

  template <class Other, std::size_t Base>
  constexpr auto bind_variables() const {
    auto i = graph::bind_variables<Other, Base>(inits);
    if constexpr (std::is_same<Other, Scope>::value) {  // our own variables: shadowed inside
      return while_node<Scope, decltype(i), Cond, Body>{{}, i, cond, body, max_iterations, effects};
    } else {
      auto c = graph::bind_variables<Other, Base>(cond);
      auto b = graph::bind_variables<Other, Base>(body);
      return while_node<Scope, decltype(i), decltype(c), decltype(b)>{{}, i, c, b, max_iterations, effects};
    }
  }

  template <std::size_t ArgCount>
  constexpr auto with_plans() const {
    constexpr std::size_t V = variable_count;
    const auto c = graph::bind_variables<Scope, ArgCount>(cond);
    const auto b = graph::bind_variables<Scope, ArgCount>(body);
    using B = std::remove_cvref_t<decltype(b)>;
    using mask = decltype([]<std::size_t... K>(std::index_sequence<K...>) {
      return std::integer_sequence<bool, detail::in_place_write<std::tuple_element_t<K, B>, ArgCount + K>::value...>{};
    }(std::make_index_sequence<V>{}));
    std::array<bool, V> grows{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        if constexpr (detail::in_place_write<std::tuple_element_t<K, B>, ArgCount + K>::value)
          grows[K] = staticflow::detail::get<K>(b).dynamic_size;
      }(), ...);
    }(std::make_index_sequence<V>{});
    const auto flat = detail::flatten_body<ArgCount>(b);
    using cond_plan = plan::evaluation_plan<ArgCount + V, std::tuple<std::remove_cvref_t<decltype(c)>>>;
    using body_plan = plan::evaluation_plan<ArgCount + V, std::remove_cvref_t<decltype(flat)>>;
    return while_plan<ArgCount, Inits, cond_plan, body_plan, mask>{{}, inits, cond_plan(std::tuple{c}), body_plan(flat),
                                                                   max_iterations, grows, effects};
  }
  /// The same, where the condition or the body holds a value of the enclosing plan's prelude
  /// computed before this node runs (plan.hpp's prelude_reader, as a cond's branches): they read
  /// it from the Reader::visible values, once per call, and the variables come after those.
  template <std::size_t ArgCount, class Reader>
  constexpr auto with_plans(Reader) const {
    using read_cond = decltype(Reader::read(std::declval<const std::tuple<Cond>&>()));
    using read_body = decltype(Reader::read(std::declval<const Body&>()));
    if constexpr (std::is_same<read_cond, std::tuple<Cond>>::value && std::is_same<read_body, Body>::value) {
      return with_plans<ArgCount>();
    } else {
      const auto c = staticflow::detail::get<0>(Reader::read(std::tuple<Cond>{cond}));
      const auto b = Reader::read(body);
      const while_node<Scope, Inits, std::remove_cvref_t<decltype(c)>, read_body> reading{{}, inits, c, b, max_iterations, effects};
      return reading.template with_plans<Reader::visible>();
    }
  }
};

}  // namespace graph

namespace detail {
/// In an eager call (sf::run_functions_eagerly) a loop over eager values runs as a C++ loop
/// (effects/eager.hpp, included by staticflow.hpp).
template <class Cond, class Body, class... Vars>
constexpr bool eager_while_possible();
template <class Cond, class Body, class... Vars>
constexpr auto eager_while(Cond& cond, Body& body, std::int64_t max_iterations, const Vars&... vars);

template <class Scope, class Recording, class Cond, class Body, class... Vars>
constexpr auto traced_while_loop(Recording& recording, Cond& cond, Body& body, std::int64_t max_iterations,
                                 const Vars&... vars);

/// A loop traced at compile time (a constant expression): nothing to record.
struct unrecorded_loop {
  template <class F>
  constexpr auto condition(F&& f) {
    return f();
  }
  template <class F>
  constexpr auto body(F&& f) {
    return f();
  }
  template <class Node>
  constexpr void finish(Node&) {}
};

/// Makes a loop whose body recorded effects an effect that runs it (effects/loop_statement.hpp,
/// included by staticflow.hpp).
template <class Node>
void record_loop_effect(Node& loop, std::shared_ptr<loop_effects> effects, recorder& body);

/// A loop traced in a function: the condition may not have effects; the body's effects are
/// recorded apart, reading the loop's variables through its cells. When the body has none, the
/// reads the condition and the body made go to the enclosing body (the graph's values read them
/// when the outputs are computed); otherwise the loop becomes an effect.
template <class Scope>
class recorded_loop {
 public:
  explicit recorded_loop(std::size_t variables)
      : active_(tracing()), effects_(active_ ? std::make_shared<loop_effects>(variables) : nullptr) {}

  template <class F>
  auto condition(F&& f) {
    const effects_forbidden no_effects("sf::while_loop conditions");
    if (!active_) return f();
    const body_scope scope(condition_);
    return f();
  }
  template <class F>
  auto body(F&& f) {
    if (!active_) return f();
    const body_scope scope(body_);
    const loop_trace_scope cells(&loop_scope_identity<Scope>, effects_.get());
    return f();
  }
  template <class Node>
  void finish(Node& loop) {
    if (!active_) return;
    auto& enclosing = *trace_local().recorders.back();
    if (body_.effects.empty()) {
      enclosing.adopt_reads(condition_, enclosing.effects.size());
      enclosing.adopt_reads(body_, enclosing.effects.size());
      return;
    }
    // (the condition's reads are evaluated at the start of every iteration: the live values)
    if constexpr (STATICFLOW_LOOP_EFFECTS != 0)
      record_loop_effect(loop, std::move(effects_), body_);
    else
      throw trace_error("effects in sf::while_loop / fori_loop / scan / map_fn bodies are compiled out "
                        "(STATICFLOW_LOOP_EFFECTS=0): define STATICFLOW_LOOP_EFFECTS=1, the default, or loop over "
                        "the effects with sf::for_range");
  }

 private:
  bool active_;
  std::shared_ptr<loop_effects> effects_;
  recorder condition_, body_;
};

template <class Scope, class Cond, class Body, class... Vars>
auto recorded_while_loop(Cond& cond, Body& body, std::int64_t max_iterations, const Vars&... vars) {
  recorded_loop<Scope> recording(sizeof...(Vars));
  return traced_while_loop<Scope>(recording, cond, body, max_iterations, vars...);
}

/// while_loop over variables `vars` with a loop identified by Scope (used by fori_loop and scan,
/// which build their own condition and body).
template <class Scope, class Cond, class Body, class... Vars>
constexpr auto while_loop_in(Cond& cond, Body& body, std::int64_t max_iterations, const Vars&... vars) {
  static_assert(sizeof...(Vars) > 0, "staticflow: sf::while_loop needs at least one loop variable");
  if constexpr (eager_while_possible<Cond, Body, Vars...>()) {
    return eager_while(cond, body, max_iterations, vars...);  // (the body's effects act as it runs)
  } else {
    if (std::is_constant_evaluated()) {
      unrecorded_loop recording;
      return traced_while_loop<Scope>(recording, cond, body, max_iterations, vars...);
    }
    return recorded_while_loop<Scope>(cond, body, max_iterations, vars...);
  }
}

/// The message when the body changes loop variable K's spec. (A named function, not a lambda in
/// the pack expansion: clang rejects a lambda's own local there as an implicit capture.)
template <std::size_t K, class Specs, class NextSpecs>
constexpr message_string loop_variable_changed_message() {
  message_string s;
  s += "staticflow: sf::while_loop: the body changes loop variable ";
  s += K;
  s += " from ";
  append_spec(s, std::tuple_element_t<K, Specs>{});
  s += " to ";
  append_spec(s, std::tuple_element_t<K, NextSpecs>{});
  s += " (a variable whose shape varies needs sf::dyn dimensions)";
  return s;
}

template <class Scope, class Recording, class Cond, class Body, class... Vars>
constexpr auto traced_while_loop(Recording& recording, Cond& cond, Body& body, std::int64_t max_iterations,
                                 const Vars&... vars) {
  auto inits = std::tuple{loop_value<Vars>::init_node(vars)...};
  using Inits = decltype(inits);
  using Specs = specs_of_nodes_t<Inits>;
  const auto var_tuple = std::tie(vars...);
  auto bound = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple{loop_value<Vars>::wrap(
        graph::bound_variable<Scope, K, typename std::tuple_element_t<K, Specs>::value_type,
                              typename std::tuple_element_t<K, Specs>::shape_type>{},
        staticflow::detail::get<K>(var_tuple))...};
  }(std::index_sequence_for<Vars...>{});

  auto pred = recording.condition([&] { return to_node(staticflow::detail::apply(cond, bound)); });
  using PS = spec_of_node_t<decltype(pred)>;
  constexpr bool pred_ok = std::is_same<typename PS::value_type, bool>::value && PS::shape_type::rank == 0;
  control_flow_check<pred_ok, [] {
    message_string s;
    s += "staticflow: sf::while_loop: the condition must return a scalar bool tensor, not ";
    append_spec(s, PS{});
    return s;
  }()>();

  auto returned = recording.body([&] { return as_tuple(staticflow::detail::apply(body, bound)); });
  constexpr std::size_t n = std::tuple_size<decltype(returned)>::value;
  control_flow_check<n == sizeof...(Vars), [] {
    message_string s;
    s += "staticflow: sf::while_loop: the body returns ";
    s += n;
    s += " values for ";
    s += sizeof...(Vars);
    s += " loop variables";
    return s;
  }()>();
  if constexpr (n == sizeof...(Vars)) {
    auto next = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{loop_value<Vars>::template unwrap<std::tuple_element_t<K, Specs>>(staticflow::detail::get<K>(returned))...};
    }(std::index_sequence_for<Vars...>{});
    using NextSpecs = specs_of_nodes_t<decltype(next)>;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (control_flow_check<std::is_same<std::tuple_element_t<K, Specs>, std::tuple_element_t<K, NextSpecs>>::value,
                          loop_variable_changed_message<K, Specs, NextSpecs>()>(),
       ...);
    }(std::index_sequence_for<Vars...>{});
    constexpr bool specs_kept = std::is_same<Specs, NextSpecs>::value;
    // After a reported mistake the initial values stand for the loop's result: a loop built over
    // the wrong specs would only add kernel errors after the one that says what is wrong.
    const auto result_from = [&](const auto& values) {
      return unwrap_single([&]<std::size_t... K>(std::index_sequence<K...>) {
        return std::tuple{loop_value<Vars>::wrap(staticflow::detail::get<K>(values), staticflow::detail::get<K>(var_tuple))...};
      }(std::index_sequence_for<Vars...>{}));
    };
    if constexpr (!pred_ok || !specs_kept) {
      return result_from(inits);
    } else {
      graph::while_node<Scope, Inits, decltype(pred), decltype(next)> loop{{}, inits, pred, next, max_iterations};
      recording.finish(loop);
      return result_from(graph::outputs_of(loop));
    }
  }
}

template <class... V>
constexpr bool ends_with_max_iterations() {
  if constexpr (sizeof...(V) == 0) return false;
  else return std::is_same<std::remove_cvref_t<std::tuple_element_t<sizeof...(V) - 1, std::tuple<V...>>>, maximum_iterations>::value;
}
}  // namespace detail

/// tf.while_loop / lax.while_loop: while cond(vars...) holds, vars = body(vars...); returns the
/// final variables (one value, or a std::tuple of them). cond returns a scalar bool tensor; body
/// returns the new variables as a std::tuple (or one value for one variable), each with the spec
/// it started with. Variables are tensors, C++ numbers (literals of their canonical dtype) or
/// tensor arrays. An optional sf::maximum_iterations(n) comes last.
template <class Cond, class Body, class... Vars>
constexpr auto while_loop(Cond&& cond, Body&& body, const Vars&... vars) {
  using Scope = std::tuple<std::remove_cvref_t<Cond>, std::remove_cvref_t<Body>>;
  if constexpr (detail::ends_with_max_iterations<Vars...>()) {
    const auto all = std::tie(vars...);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return detail::while_loop_in<Scope>(cond, body, staticflow::detail::get<sizeof...(Vars) - 1>(all).value, staticflow::detail::get<K>(all)...);
    }(std::make_index_sequence<sizeof...(Vars) - 1>{});
  } else {
    return detail::while_loop_in<Scope>(cond, body, std::int64_t{-1}, vars...);
  }
}

}  // namespace staticflow
