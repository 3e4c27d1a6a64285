// staticflow/optimizers/sgd.hpp -- sf::sgd: gradient descent with optional momentum and Nesterov
// momentum (keras.optimizers.SGD: its defaults and its update rule).
//
//   sf::sgd opt{0.1f};                                    // var -= 0.1 * g
//   sf::sgd opt{0.1f, 0.9f};                              // momentum
//   sf::sgd opt{0.1f, 0.9f, /*nesterov=*/true};
//
// With momentum m (slot "momentum", zeros at first):
//   m   = momentum * m - learning_rate * g
//   var = var + m                                   (nesterov: var + momentum * m - learning_rate * g)
#pragma once

#include <tuple>

#include "staticflow/graph/operators.hpp"
#include "staticflow/optimizers/optimizer.hpp"

namespace staticflow {

template <class T = float>
class sgd final : public optimizer<sgd<T>, T> {
  using base = optimizer<sgd<T>, T>;
  friend base;

 public:
  /// keras.optimizers.SGD(learning_rate=0.01, momentum=0.0, nesterov=False).
  explicit sgd(T rate = T(0.01), T momentum = T(0), bool nesterov = false)
      : base(rate), momentum_(momentum), nesterov_(nesterov) {
    if (!(momentum >= T(0) && momentum <= T(1))) throw std::invalid_argument("staticflow: sf::sgd: momentum must be in [0, 1]");
  }

  T momentum() const { return momentum_; }
  bool nesterov() const { return nesterov_; }

 private:
  template <class Var>
  void make_slots(Var& var) {
    this->slot_for(var, "gradient");
    if (momentum_ != T(0)) this->slot_for(var, "momentum");
  }

  template <class Var, class G>
  void update(Var& var, const G& g) {
    using V = typename Var::value_type;
    const auto lr = this->template rate<V>();
    if (momentum_ == T(0)) {
      var.assign_sub(lr * g);
      return;
    }
    // the variable and its momentum in one effect (one pass over both: cpu::effect_graph), the
    // variable first and spelled with the new momentum, as adam does
    Var& m = this->slot_for(var, "momentum");
    const auto mu = base::template constant<V>(momentum_);
    const auto m_new = base::live(m) * mu - lr * g;
    if (nesterov_)
      staticflow::detail::record_assign_group(std::tie(var, m), base::live(var) + (m_new * mu - lr * g), m_new);
    else
      staticflow::detail::record_assign_group(std::tie(var, m), base::live(var) + m_new, m_new);
  }

  T momentum_;
  bool nesterov_;
};

sgd() -> sgd<float>;
template <class T>
sgd(T) -> sgd<T>;
template <class T>
sgd(T, T) -> sgd<T>;
template <class T>
sgd(T, T, bool) -> sgd<T>;

}  // namespace staticflow
