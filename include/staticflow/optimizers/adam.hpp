// staticflow/optimizers/adam.hpp -- sf::adam (keras.optimizers.Adam: its defaults and its update
// rule, with the bias correction folded into the step size).
//
//   sf::adam opt{1e-3f};
//
// With slots m and v (zeros at first) and t = iterations + 1:
//   alpha = learning_rate * sqrt(1 - beta_2^t) / (1 - beta_1^t)
//   m   += (g - m) * (1 - beta_1)
//   v   += (g^2 - v) * (1 - beta_2)
//   var -= alpha * m / (sqrt(v) + epsilon)
#pragma once

#include <stdexcept>

#include "staticflow/graph/operators.hpp"
#include "staticflow/optimizers/optimizer.hpp"

namespace staticflow {

template <class T = float>
class adam final : public optimizer<adam<T>, T> {
  using base = optimizer<adam<T>, T>;
  friend base;

 public:
  /// keras.optimizers.Adam(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07).
  explicit adam(T rate = T(0.001), T beta_1 = T(0.9), T beta_2 = T(0.999), T epsilon = T(1e-7))
      : base(rate), beta_1_(beta_1), beta_2_(beta_2), epsilon_(epsilon) {
    if (!(beta_1 >= T(0) && beta_1 < T(1)) || !(beta_2 >= T(0) && beta_2 < T(1)))
      throw std::invalid_argument("staticflow: sf::adam: beta_1 and beta_2 must be in [0, 1)");
  }

  T beta_1() const { return beta_1_; }
  T beta_2() const { return beta_2_; }
  T epsilon() const { return epsilon_; }

 private:
  template <class Var>
  void make_slots(Var& var) {
    this->slot_for(var, "gradient");
    this->slot_for(var, "m");
    this->slot_for(var, "v");
  }

  template <class Var, class G>
  void update(Var& var, const G& g) {
    using V = typename Var::value_type;
    Var& m = this->slot_for(var, "m");
    Var& v = this->slot_for(var, "v");
    const auto one = base::template constant<V>(T(1));
    const auto b1 = base::template constant<V>(beta_1_), b2 = base::template constant<V>(beta_2_);
    // the bias-corrected step size, a scalar computed once per step
    const auto t = cast<V>(base::live(this->iterations) + std::int64_t{1});
    const auto alpha = materialize(this->template rate<V>() * sqrt(one - pow(b2, t)) / (one - pow(b1, t)));
    const auto m_new = base::live(m) + (g - base::live(m)) * (one - b1);
    const auto v_new = base::live(v) + (square(g) - base::live(v)) * (one - b2);
    const auto var_new = base::live(var) - alpha * m_new / (sqrt(v_new) + base::template constant<V>(epsilon_));
    staticflow::detail::record_assign_group(std::tie(var, m, v), var_new, m_new, v_new);
  }

  T beta_1_, beta_2_, epsilon_;
};

adam() -> adam<float>;
template <class T>
adam(T) -> adam<T>;
template <class T>
adam(T, T, T) -> adam<T>;
template <class T>
adam(T, T, T, T) -> adam<T>;

}  // namespace staticflow
