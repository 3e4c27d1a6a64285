// staticflow/effects/cond_statement.hpp -- effects in sf::cond / sf::switch_case branches:
// AutoGraph's tf.cond of an `if` that assigns variables or prints.
//
//   sf::cond(x > 0, [&] { hits.assign_add(1); }, [&] { sf::print("skipped", x); });
//   auto y = sf::cond(x > 0, [&] { hits.assign_add(1); return x * 2; }, [&] { return -x; });
//
// Every branch is traced, its effects recorded apart; on every call one effect evaluates the
// selector and runs the effects of the branch it picks, in program order with the function's
// other effects. A branch that returns values stays a node of the graph: the outputs evaluate the
// selector again and compute only the picked branch's values, which therefore see its effects.
// The selector sees the same values both times: a variable it reads that a branch writes is
// preserved for it (the recorder's snapshots).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/control/cond.hpp"
#include "staticflow/effects/eager.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/recorder.hpp"

namespace staticflow::detail {

/// Runs the effects of the branch that Kind picks by the value of the selector.
template <class Kind, class Pred, std::size_t N>
class branch_effect final : public effect {
 public:
  explicit branch_effect(const Pred& pred) : pred_(pred) {}

  void set_branches(std::array<recorder, N>& branches) {
    for (std::size_t b = 0; b < N; ++b) {
      effects_[b] = std::move(branches[b].effects);
      for (const auto& e : effects_[b]) writes.insert(writes.end(), e->writes.begin(), e->writes.end());
    }
  }

  void run(erased_args args) override {
    for (auto& e : effects_[Kind::branch(pred_.scalar(args), N)]) run_effect(*e, args);
  }

 private:
  effect_evaluator<Pred> pred_;
  std::array<std::vector<std::unique_ptr<effect>>, N> effects_;
};

template <class Kind, class Pred, std::size_t N>
void record_branch_effects(const Pred& pred, std::array<recorder, N>& branches) {
  auto& enclosing = *trace_local().recorders.back();
  const std::size_t at = enclosing.effects.size();
  if (std::any_of(branches.begin(), branches.end(), [](const recorder& r) { return !r.effects.empty(); })) {
    auto e = std::make_unique<branch_effect<Kind, Pred, N>>(pred);  // (a loop's variables: through its cells)
    e->set_branches(branches);
    record_effect(std::move(e), std::is_same<Kind, graph::cond_kind>::value ? "sf::cond" : "sf::switch_case");
  }
  // after the effect: the branch's own writes must not preserve the reads its values make later
  for (auto& r : branches) enclosing.adopt_reads(r, at);
}

template <class Pred, class TrueFn, class FalseFn>
void cond_statement(const Pred& pred, TrueFn& true_fn, FalseFn& false_fn) {
  traced_program("sf::cond with branches that return nothing");  // throws outside a traced function
  if constexpr (evaluable_now<Pred>()) {
    if (eager_now()) {  // an eager call: the branch picked runs now, the other not at all
      if (scalar_now(pred)) true_fn();
      else false_fn();
      return;
    }
  }
  std::array<recorder, 2> branches;
  {
    body_scope scope(branches[0]);
    true_fn();
  }
  {
    body_scope scope(branches[1]);
    false_fn();
  }
  record_branch_effects<graph::cond_kind>(pred, branches);
}

}  // namespace staticflow::detail
