// staticflow/autodiff/gradient_tape.hpp -- sf::gradient_tape, tf.GradientTape inside a traced
// function.
//
//   sf::variable<float, 3> w{...};
//   auto step = sf::function([&](auto x) {
//     sf::gradient_tape tape;                      // variables are watched automatically
//     tape.watch(x);                               // a tensor is watched when asked
//     auto loss = sf::reduce_sum(sf::square(x * w));
//     auto [dx, dw] = tape.gradient(loss, x, w);   // graphs, planned with the rest of the step
//     ...
//   });
//
// TensorFlow records the operations run while a tape is active and differentiates that record.
// Here the graph's type already holds every operation a value came from, so `gradient` is
// sf::gradients with TensorFlow's rules about what the tape watches and how often it may be asked:
//  - a tensor (an argument of the traced function) is a source only once `watch` has been called
//    on it; an sf::variable is watched automatically unless the tape was made with
//    `watch_accessed_variables = false`. Asking for an unwatched source throws sf::trace_error
//    while the function is traced (TensorFlow returns None; C++ has no None of a tensor's spec);
//  - a tape that is not persistent answers `gradient` once, as in TensorFlow.
// What differs, documented: the tape does not delimit what is differentiated. A value computed
// before the tape was made still carries its history in its type, so its gradient flows through
// all of it (use sf::stop_gradient to cut it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "staticflow/autodiff/gradients.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/spec.hpp"

namespace staticflow {

class gradient_tape {
 public:
  /// tf.GradientTape(persistent=False, watch_accessed_variables=True).
  explicit gradient_tape(bool persistent = false, bool watch_accessed_variables = true)
      : persistent_(persistent), watch_accessed_variables_(watch_accessed_variables) {}

  // (a template of the answer, not of the node type: a lambda traced and run eagerly reports once)
  template <bool IsSource>
  static constexpr bool check_watched() {
    static_assert(IsSource, "staticflow: gradient_tape::watch: x must be an argument of the traced function as the lambda "
                            "received it, or an sf::variable, not an expression computed from one");
    return IsSource;
  }

  /// Marks x as a source: an argument of the traced function as the lambda received it, a value
  /// read from outside (sf::capture, sf::constant), or an sf::variable.
  template <class X>
  void watch(const X& x) {
    if constexpr (check_watched<autodiff::detail::is_source<X>::value>())
      if (!watches(x)) watched_.push_back(identity(x));
  }

  /// Whether x is a source of this tape's gradients now.
  template <class X>
  bool watches(const X& x) const {
    if constexpr (autodiff::detail::variable_like<X>)
      if (watch_accessed_variables_) return true;
    return std::find(watched_.begin(), watched_.end(), identity(x)) != watched_.end();
  }

  bool persistent() const { return persistent_; }
  bool watch_accessed_variables() const { return watch_accessed_variables_; }

  /// The gradients of y (summed over its elements) with respect to xs..., as sf::gradients:
  /// one tensor with x's spec for each x, alone for one x, a std::tuple for several.
  template <symbolic Y, class... X>
  auto gradient(const Y& y, const X&... xs) {
    if (used_ && !persistent_)
      throw trace_error(
          "sf::gradient_tape::gradient: a tape that is not persistent computes one set of gradients; make it "
          "with sf::gradient_tape{true} to ask it several times");
    std::size_t position = 0;
    (check_watched(xs, position++), ...);
    used_ = true;
    return gradients(y, xs...);
  }

 private:
  struct source_identity {
    int kind;  // 0: argument index, 1: external value (its source), 2: variable (its origin)
    const void* pointer;
    std::size_t index;
    bool operator==(const source_identity&) const = default;
  };

  template <class X>
  static source_identity identity(const X& x) {
    if constexpr (autodiff::detail::variable_like<X>) return {2, x.live_source()->origin, 0};
    else if constexpr (graph::detail::is_argument<X>::value) return {0, nullptr, X::index};
    else return {1, x.source, 0};
  }

  template <class X>
  void check_watched(const X& x, std::size_t position) const {
    if constexpr (autodiff::detail::is_source<X>::value) {
      if (watches(x)) return;
      using S = spec_of_t<typename X::value_type, typename X::shape_type>;
      throw trace_error("sf::gradient_tape::gradient: source " + std::to_string(position) + " (" +
                        short_spec_string(S{}) + ") is not watched by the tape: call tape.watch(x) first" +
                        (autodiff::detail::variable_like<X> ? " (this tape was made with watch_accessed_variables = false)"
                                                            : " (sf::variables are watched automatically)"));
    }
  }

  bool persistent_;
  bool watch_accessed_variables_;
  bool used_ = false;
  std::vector<source_identity> watched_;
};

}  // namespace staticflow
