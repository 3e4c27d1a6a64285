// staticflow/effects/for_range.hpp -- sf::for_range: a loop run for its effects (TensorFlow's
// `for i in tf.range(n)` over variable updates and prints).
//
//   sf::variable<int> v{1};
//   auto f = sf::function([&](auto n) { sf::for_range(n, [&](auto i) { v.assign_add(i); }); });
//   f(3);  // v.value() == 4
//
// Inside a traced function the body is traced once, with `i` a symbolic scalar (an external leaf
// that reads the loop's counter), and its effects run on every iteration of every call. Outside
// traced code it is a plain C++ loop and the effects act at once.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/static_value.hpp"
#include "staticflow/effects/eager.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {
namespace detail {

/// The dtype of a for_range bound: a scalar integer tensor's, or a C++ integer's.
template <class B>
struct range_bound_dtype {
  using type = canonical_dtype_t<decltype(literal_value(std::declval<const B&>()))>;
};
template <symbolic B>
struct range_bound_dtype<B> {
  using type = typename B::value_type;
};

template <class B>
constexpr bool valid_range_bound() {
  if constexpr (symbolic<B>) {
    return std::is_integral<typename B::value_type>::value && !std::is_same<typename B::value_type, bool>::value &&
           B::shape_type::rank == 0;
  } else {
    using V = decltype(literal_value(std::declval<const B&>()));
    return std::is_integral<V>::value && !std::is_same<V, bool>::value;
  }
}

/// The bounds' check, a template of their keys (a lambda traced and run eagerly reports once).
template <class LoKey, class HiKey, bool Valid>
constexpr bool check_range_bounds() {
  static_assert(Valid, "staticflow: sf::for_range: the bounds must be C++ integers or scalar integer tensors");
  return Valid;
}

template <class I, class Lo, class Hi>
class for_range_effect final : public effect {
 public:
  for_range_effect(const Lo& lo, const Hi& hi) : lo_(lo), hi_(hi) {}

  /// The loop's counter as a symbolic scalar (what the body receives).
  graph::external<I, shape<>> index() const { return graph::external<I, shape<>>(&source_); }

  void set_body(std::vector<std::unique_ptr<effect>> body) {
    body_ = std::move(body);
    for (const auto& e : body_) writes.insert(writes.end(), e->writes.begin(), e->writes.end());
  }

  void run(erased_args args) override {
    const I lo = lo_.scalar(args), hi = hi_.scalar(args);
    if (body_.size() == 1 && body_[0]->snapshots.empty() && body_[0]->rearm.empty()) {  // the common case: one statement
      body_[0]->run_counted(args, &counter_, lo, hi);
    } else {
      for (counter_ = lo; counter_ < hi; ++counter_)
        for (auto& e : body_) run_effect(*e, args);
    }
  }

 private:
  effect_evaluator<Lo> lo_;
  effect_evaluator<Hi> hi_;
  std::vector<std::unique_ptr<effect>> body_;
  I counter_{};
  const void* counter_data_ = &counter_;
  graph::external_source source_{&counter_data_, nullptr, "range_index"};
};

template <class I, class B>
auto range_bound_node(const B& b) {
  if constexpr (symbolic<B>) {
    if constexpr (std::is_same<typename B::value_type, I>::value) return b;
    else return graph::cast<I, B>(b);
  } else {
    return graph::literal<I>(static_cast<I>(literal_value(b)));
  }
}
}  // namespace detail

/// Runs body(i) for i = lo, lo + 1, ..., hi - 1, for its effects (variable assignments,
/// sf::print). lo and hi are C++ integers, static values or scalar integer tensors; i has the
/// wider of their dtypes (int32 for C++ ints).
template <class Lo, class Hi, class Body>
void for_range(const Lo& lo, const Hi& hi, Body&& body) {
  if constexpr (!detail::check_range_bounds<typename detail::check_key<Lo, Lo>::type,
                                             typename detail::check_key<Hi, Hi>::type,
                                             detail::valid_range_bound<Lo>() && detail::valid_range_bound<Hi>()>()) {
    return;
  } else {
    using I = promote_t<typename detail::range_bound_dtype<Lo>::type, typename detail::range_bound_dtype<Hi>::type>;
    if constexpr (!symbolic<Lo> && !symbolic<Hi>) {
      if (!detail::tracing()) {  // plain C++: the effects act at once
        for (I i = static_cast<I>(detail::literal_value(lo)); i < static_cast<I>(detail::literal_value(hi)); ++i) body(i);
        return;
      }
    }
    const auto lo_node = detail::range_bound_node<I>(lo);
    const auto hi_node = detail::range_bound_node<I>(hi);
    using lo_type = std::remove_cvref_t<decltype(lo_node)>;
    using hi_type = std::remove_cvref_t<decltype(hi_node)>;
    if constexpr (detail::evaluable_now<lo_type>() && detail::evaluable_now<hi_type>() &&
                  std::is_invocable<Body&, graph::eager_value<I, shape<>>>::value) {
      if (detail::eager_now()) {  // an eager call: a C++ loop, the body run on every iteration
        const I first = detail::scalar_now(lo_node);
        const I last = detail::scalar_now(hi_node);
        I counter = first;
        const void* counter_data = &counter;
        const graph::external_source counter_source{&counter_data, nullptr, "range_index"};
        for (; counter < last; ++counter) body(graph::eager_value<I, shape<>>(&counter_source));
        return;
      }
    }
    auto loop = std::make_unique<detail::for_range_effect<I, lo_type, hi_type>>(lo_node, hi_node);
    detail::recorder body_effects;
    {
      detail::traced_program("sf::for_range");  // throws when not tracing (a symbolic bound outside a function)
      detail::body_scope scope(body_effects);
      if constexpr (std::is_invocable<Body&, decltype(loop->index())>::value)
        body(loop->index());
      else
        throw trace_error("sf::for_range: inside a traced function the body receives a symbolic scalar; declare its "
                          "parameter `auto`");
    }
    loop->set_body(std::move(body_effects.effects));
    detail::record_effect(std::move(loop), "sf::for_range");
  }
}

/// for_range(0, n, body).
template <class N, class Body>
void for_range(const N& n, Body&& body) {
  for_range(0, n, std::forward<Body>(body));
}

}  // namespace staticflow
