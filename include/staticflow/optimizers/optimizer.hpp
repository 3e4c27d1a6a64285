// staticflow/optimizers/optimizer.hpp -- what every optimizer shares: the learning rate and the
// step counter as variables, slot variables per model variable, and apply_gradients as effects
// of a traced training step.
//
//   sf::adam opt{1e-3f};
//   auto train_step = sf::function([&](auto x, auto y) {
//     sf::gradient_tape tape;
//     auto loss = model_loss(x, y);
//     opt.apply_gradients(tape.gradient(loss, w, b), w, b);  // effects: run on every call
//     return loss;                                           // computed with the weights before the step
//   });
//
// apply_gradients records, in program order:
//  1. one effect that computes every gradient from one plan into a "gradient" slot per variable
//     (a matmul or reduction that several gradients read is computed once);
//  2. per variable, the optimizer's update (Derived::update): elementwise assignments of its slots
//     and of the variable, each one fused loop that reads the gradient slot;
//  3. iterations += 1.
// Like any effects, they run on every call, and a call that throws leaves every variable and slot
// as it was. Slots are sf::variables of the model variable's dtype and shape, made zero when
// apply_gradients first meets the variable (Keras makes them in the first trace too), or earlier
// with build(vars...). A variable with `sf::dyn` dims gets slots of its extents at that time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/autodiff/gradients.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/effects/variable.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {
namespace optimizers::detail {
template <class X> struct is_variable : std::false_type {};
template <class T, std::size_t... D> struct is_variable<variable<T, D...>> : std::true_type {};

template <class G> struct is_tuple : std::false_type {};
template <class... G> struct is_tuple<std::tuple<G...>> : std::true_type {};

/// The gradients as a tuple: one tensor for one variable, or a std::tuple.
template <class G>
constexpr auto gradient_tuple(const G& g) {
  if constexpr (is_tuple<G>::value) return g;
  else return std::tuple<G>{g};
}

/// Whether gradient G fits variable V: same dtype, a shape that assigns to V's.
template <class G, class V>
constexpr bool fits() {
  if constexpr (!symbolic<G>) return false;
  else return std::is_same_v<typename G::value_type, typename V::value_type> &&
              staticflow::detail::assignable_shape<typename G::shape_type, typename V::shape_type>();
}
}  // namespace optimizers::detail

/// The base of sf::sgd and sf::adam (Derived), with hyperparameters of dtype T.
template <class Derived, class T>
class optimizer {
  static_assert(floating_dtype<T>, "staticflow: an optimizer's hyperparameters are float or double");

 public:
  /// The learning rate: a variable, so assigning it between steps needs no new trace.
  variable<T> learning_rate;
  /// How many steps apply_gradients has taken (Keras's optimizer.iterations).
  variable<std::int64_t> iterations{0};

  explicit optimizer(T lr) : learning_rate(lr) {}
  optimizer(const optimizer&) = delete;
  optimizer& operator=(const optimizer&) = delete;

  /// Applies one step: grads is one tensor for one variable, or a std::tuple with one gradient per
  /// variable (what sf::gradient_tape::gradient and sf::gradients return), in the same order.
  /// Only inside a traced function: the updates are effects of the step.
  template <class Grads, class... Var>
  void apply_gradients(const Grads& grads, Var&... vars) {
    using tuple = decltype(optimizers::detail::gradient_tuple(grads));
    static_assert((optimizers::detail::is_variable<Var>::value && ...),
                  "staticflow: apply_gradients(grads, vars...): each var must be an sf::variable");
    static_assert(std::tuple_size_v<tuple> == sizeof...(Var),
                  "staticflow: apply_gradients(grads, vars...): give one gradient per variable");
    constexpr bool valid = (optimizers::detail::is_variable<Var>::value && ...) && std::tuple_size_v<tuple> == sizeof...(Var);
    if constexpr (valid) {
      static_assert([]<std::size_t... K>(std::index_sequence<K...>) {
        return (optimizers::detail::fits<std::tuple_element_t<K, tuple>, Var>() && ...);
      }(std::index_sequence_for<Var...>{}),
                    "staticflow: apply_gradients(grads, vars...): a gradient's dtype or shape does not fit its variable "
                    "(the k-th gradient goes to the k-th variable)");
      const auto gs = optimizers::detail::gradient_tuple(grads);
      auto& self = static_cast<Derived&>(*this);
      // 1. every gradient from one plan, into the variables' gradient slots
      std::apply([&](const auto&... g) { staticflow::detail::record_assign_group(std::tie(slot_for(vars, "gradient")...), g...); }, gs);
      // 2. the updates; 3. the step count
      (self.update(vars, live(slot_for(vars, "gradient"))), ...);
      iterations.assign_add(std::int64_t{1});
    }
  }

  /// Makes the slots of vars now (else the first apply_gradients makes them).
  template <class... Var>
  void build(Var&... vars) {
    (static_cast<Derived&>(*this).make_slots(vars), ...);
  }

  /// The slot `name` of var ("momentum" for sgd; "m" and "v" for adam; "gradient" for all:
  /// the last gradient applied). Throws std::out_of_range when var has no such slot.
  template <class Var>
  Var& slot(const Var& var, std::string_view name) {
    std::lock_guard<std::mutex> hold(mutex_);
    for (auto& s : slots_)
      if (s.owner == &var && s.name == name) return static_cast<Var&>(*s.slot);
    throw std::out_of_range("staticflow: optimizer::slot: the variable has no slot named '" + std::string(name) + "'");
  }

 protected:
  /// The slot `name` of var, made (zeros) if it does not exist yet.
  template <class Var>
  Var& slot_for(const Var& var, std::string_view name) {
    std::lock_guard<std::mutex> hold(mutex_);
    for (auto& s : slots_)
      if (s.owner == &var && s.name == name) return static_cast<Var&>(*s.slot);
    slots_.push_back({&var, std::string(name), std::make_unique<Var>(staticflow::detail::slot_of, var)});
    return static_cast<Var&>(*slots_.back().slot);
  }

  /// The current contents of v as a graph leaf, read in place: the optimizer's own effects write
  /// the slots in a fixed order, so no read needs a snapshot of them.
  template <class Var>
  static auto live(const Var& v) {
    return graph::external<typename Var::value_type, typename Var::shape_type>(v.live_source());
  }

  /// A hyperparameter as a scalar of dtype V.
  template <class V>
  static graph::literal<V> constant(T value) {
    return graph::literal<V>(static_cast<V>(value));
  }

  /// The learning rate as a scalar of dtype V, computed once per step.
  template <class V>
  auto rate() const {
    return materialize(cast<V>(learning_rate.read()));
  }

 private:
  struct slot_entry {
    const void* owner;
    std::string name;
    std::unique_ptr<staticflow::detail::variable_base> slot;
  };
  std::mutex mutex_;
  std::vector<slot_entry> slots_;
};

}  // namespace staticflow
