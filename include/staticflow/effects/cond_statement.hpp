// staticflow/effects/cond_statement.hpp -- sf::cond with branches that return nothing: an `if`
// run for its effects (AutoGraph's tf.cond of an `if` that assigns variables or prints).
//
//   sf::cond(x > 0, [&] { hits.assign_add(1); }, [&] { sf::print("skipped", x); });
//
// Both branches are traced (their effects recorded apart); every call evaluates the predicate
// and runs the effects of one branch.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "staticflow/backend/cpu/effect_graph.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/effects/eager.hpp"
#include "staticflow/effects/recorder.hpp"

namespace staticflow::detail {

template <class Pred>
class cond_effect final : public effect {
 public:
  explicit cond_effect(const Pred& pred) : pred_(pred) {}

  void set_branches(std::vector<std::unique_ptr<effect>> if_true, std::vector<std::unique_ptr<effect>> if_false) {
    true_ = std::move(if_true);
    false_ = std::move(if_false);
    for (const auto* branch : {&true_, &false_})
      for (const auto& e : *branch) writes.insert(writes.end(), e->writes.begin(), e->writes.end());
  }

  void run(erased_args args) override {
    for (auto& e : pred_.scalar(args) ? true_ : false_) run_effect(*e, args);
  }

 private:
  cpu::effect_graph<Pred> pred_;
  std::vector<std::unique_ptr<effect>> true_, false_;
};

template <class Pred, class TrueFn, class FalseFn>
void cond_statement(const Pred& pred, TrueFn& true_fn, FalseFn& false_fn) {
  traced_program("sf::cond with branches that return nothing");  // throws outside a traced function
  if constexpr (evaluable_now<Pred>()) {
    if (eager_now()) {  // an eager call: the branch picked runs now, the other not at all
      if (cpu::effect_graph<Pred>(pred).scalar(nullptr)) true_fn();
      else false_fn();
      return;
    }
  }
  auto e = std::make_unique<cond_effect<Pred>>(pred);
  recorder if_true, if_false;
  {
    body_scope scope(if_true);
    true_fn();
  }
  {
    body_scope scope(if_false);
    false_fn();
  }
  e->set_branches(std::move(if_true.effects), std::move(if_false.effects));
  record_effect(std::move(e), "sf::cond");
}

}  // namespace staticflow::detail
