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
//     and of the variable that read the gradient slot (adam's as one effect, one pass over them);
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
#include "staticflow/core/value_pack.hpp"
#include "staticflow/effects/variable.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/shape_ops.hpp"

namespace staticflow {
namespace optimizers::detail {
template <class X> struct is_variable : std::false_type {};
template <class T, std::size_t... D> struct is_variable<variable<T, D...>> : std::true_type {};

/// The sf::variable of dtype T and static shape S.
template <class T, class S>
struct variable_of_spec;
template <class T, std::size_t... D>
struct variable_of_spec<T, shape<D...>> {
  using type = variable<T, D...>;
};

/// Whether a gradient of spec S (void: not a tensor) fits variable V: same dtype, a shape that
/// assigns to V's.
template <class S, class V>
constexpr bool fits() {
  if constexpr (std::is_void<S>::value) return false;
  else return std::is_same<typename S::value_type, typename V::value_type>::value &&
              staticflow::detail::assignable_shape<typename S::shape_type, typename V::shape_type>();
}

/// apply_gradients' static checks: a template of the gradients' specs and the variables, not of
/// the gradients' node types, so that a step traced and run eagerly reports a mistake once.
template <class GradientSpecs, class... Var>
constexpr bool check_apply_gradients() {
  static_assert((is_variable<Var>::value && ...), "staticflow: apply_gradients(grads, vars...): each var must be an sf::variable");
  static_assert(std::tuple_size<GradientSpecs>::value == sizeof...(Var),
                "staticflow: apply_gradients(grads, vars...): give one gradient per variable");
  constexpr bool valid = (is_variable<Var>::value && ...) && std::tuple_size<GradientSpecs>::value == sizeof...(Var);
  if constexpr (!valid) {
    return false;
  } else {
    constexpr bool fit = []<std::size_t... K>(std::index_sequence<K...>) {
      return (fits<std::tuple_element_t<K, GradientSpecs>, Var>() && ...);
    }(std::index_sequence_for<Var...>{});
    static_assert(fit, "staticflow: apply_gradients(grads, vars...): a gradient's dtype or shape does not fit its variable "
                       "(the k-th gradient goes to the k-th variable)");
    return fit;
  }
}
/// minimize's loss check, a template of the loss's shape (a step traced and run eagerly reports
/// once).
template <class S>
constexpr bool check_loss_shape() {
  static_assert(S::is_static, "staticflow: optimizer::minimize: the loss needs a static shape (a scalar, as a rule)");
  return S::is_static;
}

template <class Tuple>
struct gradient_specs;
template <class... G>
struct gradient_specs<std::tuple<G...>> {
  using type = std::tuple<typename staticflow::detail::check_key<G, void>::type...>;  // (void: not a tensor)
};
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
    using tuple = decltype(staticflow::detail::as_tuple(grads));
    using specs = typename optimizers::detail::gradient_specs<tuple>::type;
    if constexpr (optimizers::detail::check_apply_gradients<specs, Var...>())
      apply(staticflow::detail::as_tuple(grads), std::tuple<>{}, std::tuple<>{}, vars...);
  }

  /// Keras's optimizer.minimize(loss, var_list) in a traced step: the gradients of loss with
  /// respect to vars..., applied as apply_gradients applies them, and loss as this step computed
  /// it (with the variables before the step), to return from the step:
  ///
  ///   auto train_step = sf::function([&](auto x, auto y) { return opt.minimize(model_loss(x, y), w, b); });
  ///
  /// The loss is planned with the gradients (one plan: the forward matmuls and reductions they
  /// share are computed once) into a slot that the returned tensor reads. Returning the loss
  /// after apply_gradients instead evaluates it again, after the effects: a second forward pass.
  template <symbolic Loss, class... Var>
  auto minimize(const Loss& loss, Var&... vars) {
    static_assert(sizeof...(Var) >= 1, "staticflow: optimizer::minimize(loss, vars...) needs at least one variable");
    static_assert((optimizers::detail::is_variable<Var>::value && ...),
                  "staticflow: optimizer::minimize(loss, vars...): each var must be an sf::variable");
    optimizers::detail::check_loss_shape<typename Loss::shape_type>();
    using loss_slot_type = typename optimizers::detail::variable_of_spec<typename Loss::value_type, typename Loss::shape_type>::type;
    if constexpr ((optimizers::detail::is_variable<Var>::value && ...) && Loss::shape_type::is_static) {
      auto& loss_slot = own_slot<loss_slot_type>("loss");
      // the loss's materialized nodes tagged as the gradients' are (graph/shared.hpp): one slot each
      const auto value = autodiff::detail::share_materialized<Loss, std::index_sequence<>>(loss);
      apply(staticflow::detail::as_tuple(gradients(loss, vars...)), std::tie(loss_slot), std::tuple{value}, vars...);
      return live(loss_slot);
    } else {
      return loss;
    }
  }

  /// The state a checkpoint keeps besides `iterations` and `learning_rate`: f(variable, name, slot)
  /// for each slot of a model variable ("m", "momentum", ...), in the order they were made. The
  /// scratch slots ("gradient", minimize's loss) are not state and are left out.
  template <class F>
  void for_each_slot(F&& f) {
    std::lock_guard<std::mutex> hold(mutex_);
    for (auto& s : slots_)
      if (s.variable != nullptr && s.name != "gradient") f(*s.variable, std::string_view(s.name), *s.slot);
  }

  /// The slot `name` of `var`, made zeros when missing (a checkpoint restored before the first
  /// step, as Keras's deferred slot restoration).
  staticflow::detail::variable_base& slot_for_restore(const staticflow::detail::variable_base& var, std::string_view name) {
    std::lock_guard<std::mutex> hold(mutex_);
    for (auto& s : slots_)
      if (s.variable == &var && s.name == name) return *s.slot;
    slots_.push_back({&var, std::string(name), var.make_slot()});
    return *slots_.back().slot;
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
      if (s.variable == &var && s.name == name) return static_cast<Var&>(*s.slot);
    throw std::out_of_range("staticflow: optimizer::slot: the variable has no slot named '" + std::string(name) + "'");
  }

 protected:
  /// The slot `name` of var, made (zeros) if it does not exist yet.
  template <class Var>
  Var& slot_for(const Var& var, std::string_view name) {
    std::lock_guard<std::mutex> hold(mutex_);
    for (auto& s : slots_)
      if (s.variable == &var && s.name == name) return static_cast<Var&>(*s.slot);
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

  /// A slot of the optimizer's own (not a variable's), made zero on first use.
  template <class V>
  V& own_slot(std::string_view name) {
    std::lock_guard<std::mutex> hold(mutex_);
    for (auto& s : slots_)
      if (s.variable == nullptr && s.name == name)
        if (auto* v = dynamic_cast<V*>(s.slot.get())) return *v;
    slots_.push_back({nullptr, std::string(name), std::make_unique<V>(staticflow::detail::slot_of)});
    return static_cast<V&>(*slots_.back().slot);
  }

  /// The learning rate as a scalar of dtype V, computed once per step.
  template <class V>
  auto rate() const {
    return materialize(cast<V>(learning_rate.read()));
  }

 private:
  /// The effects of one step: (1) every gradient, and `extra_values` into `extra_vars`, from one
  /// plan; (2) per variable, the update; (3) the step count.
  template <class Grads, class... ExtraVar, class... ExtraValue, class... Var>
  void apply(const Grads& gs, std::tuple<ExtraVar&...> extra_vars, const std::tuple<ExtraValue...>& extra_values,
             Var&... vars) {
    auto& self = static_cast<Derived&>(*this);
    staticflow::detail::apply([&](const auto&... g) {
      staticflow::detail::apply([&](const auto&... x) {
        staticflow::detail::record_assign_group(std::tuple_cat(std::tie(slot_for(vars, "gradient")...), extra_vars), g...,
                                                x...);
      }, extra_values);
    }, gs);
    (self.update(vars, live(slot_for(vars, "gradient"))), ...);
    iterations.assign_add(std::int64_t{1});
  }

  struct slot_entry {
    const staticflow::detail::variable_base* variable;  // the model variable; null: the optimizer's own
    std::string name;
    std::unique_ptr<staticflow::detail::variable_base> slot;
  };
  std::mutex mutex_;
  std::vector<slot_entry> slots_;
};

}  // namespace staticflow
