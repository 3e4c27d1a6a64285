// staticflow/effects/loop_statement.hpp -- a while loop (sf::while_loop, the run-time fori_loop,
// scan, map_fn) whose body has effects: TensorFlow's `while` whose body assigns or prints.
//
//   auto f = sf::function([&](auto n) {
//     return sf::while_loop([](auto k) { return k < 3; },
//                           [&](auto k) { total.assign_add(k); sf::print("k", k); return k + 1; }, n);
//   });
//
// The body is traced once, its effects recorded apart (control/while_loop.hpp, recorded_loop).
// The loop then becomes an effect, in program order with the function's other effects: it
// evaluates the loop's node, whose kernel runs the body's effects after the condition of every
// iteration (a read in the body sees the writes before it in the same iteration), and keeps the
// final variables; the node in the function's graph reads them (effects/loop_effects.hpp). The
// loop runs on the backend its function is traced for (effects/evaluator.hpp): the CPU and the
// Thrust loop kernels both run a body's effects.
#pragma once

#include <cstddef>
#include <memory>
#include <tuple>
#include <utility>

#include "staticflow/control/while_loop.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/loop_effects.hpp"
#include "staticflow/effects/recorder.hpp"

namespace staticflow::detail {

template <class Node, class Outputs = std::make_index_sequence<Node::variable_count>>
class while_effect;
template <class Node, std::size_t... K>
class while_effect<Node, std::index_sequence<K...>> final : public effect {
 public:
  while_effect(const Node& loop, std::shared_ptr<loop_effects> effects)
      : loop_(graph::output_of<K, Node>(loop)...), effects_(std::move(effects)) {
    for (const auto& e : effects_->body) writes.insert(writes.end(), e->writes.begin(), e->writes.end());
  }

  void run(erased_args args) override {
    struct stop_running {
      loop_effects& e;
      ~stop_running() { e.running = false; }
    } stop{*effects_};
    effects_->args = args;
    effects_->running = true;
    loop_.run(args, [&](auto k, const auto& ext) {
      using spec = std::tuple_element_t<decltype(k)::value, typename Node::output_specs>;
      return effects_->template result_buffer<typename spec::value_type, spec::shape_type::rank>(k, ext);
    });
  }

 private:
  effect_evaluator<graph::output_of<K, Node>...> loop_;
  std::shared_ptr<loop_effects> effects_;
};

template <class Node>
void record_loop_effect(Node& loop, std::shared_ptr<loop_effects> effects, recorder& body) {
  effects->body = std::move(body.effects);
  loop.effects = effects.get();
  traced_program("sf::while_loop").resources.push_back(effects);  // the graph's node points at it
  record_effect(std::make_unique<while_effect<Node>>(loop, std::move(effects)), "sf::while_loop");
}

}  // namespace staticflow::detail
