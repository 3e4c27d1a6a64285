// staticflow/effects/evaluator.hpp -- how an effect evaluates its graphs on every call, whatever
// the backend its function was traced for: the one place where an effect meets a backend.
//
// An effect is built while the traced lambda runs, and the lambda's body is the same code (the
// same symbolic types) for every backend, so the backend is not in the effect's type: the trace
// says which one it is for (trace_state::for_device). A function traced for the CPU backend plans
// the effect's graphs for the CPU kernels (cpu::effect_graph); one traced for the Thrust backend
// plans them for the device kernels (thrust_backend::effect_graph), which exist only in
// translation units that include backend/thrust/thrust.hpp: elsewhere nothing of the Thrust
// backend is instantiated, so CPU-only code pays no compile time for it.
//
// It is also where the rest of the effects layer finds the host: what an eager call computes on
// the spot (its values, a cond's predicate, a while_loop's condition, a for_range's bounds) is
// evaluated now, in host memory, by the CPU kernels (evaluate_now, scalar_now below), whatever
// backend the function is traced for, as TensorFlow's eager mode runs op by op. No other header
// of effects/ names a backend.
#pragma once

#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/backend/cpu/effect_graph.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/effects/recorder.hpp"

namespace staticflow {
namespace thrust_backend {
struct enabled;
template <class... G>
class effect_graph;
}  // namespace thrust_backend

namespace detail {
/// Whether this translation unit has the Thrust backend (backend/thrust/thrust.hpp included
/// before the effect is instantiated; Dep makes the test wait for that point, as
/// function.hpp's backend_included does).
template <class Dep>
inline constexpr bool thrust_backend_included = requires { sizeof(std::conditional_t<true, thrust_backend::enabled, Dep>); };

/// Graphs G... of one effect, planned for the backend its function is traced for and evaluated
/// on every call: `run(args, target)` as cpu::effect_graph's (values written to host memory).
template <class... G>
class effect_evaluator {
  using host_graph = cpu::effect_graph<G...>;
  using key = std::tuple<G...>;

 public:
  using value_type = typename host_graph::value_type;
  static constexpr std::size_t rank = host_graph::rank;

  explicit effect_evaluator(const G&... g) {
    if (trace_local().for_device) make_device<key>(g...);
    else host_.emplace(g...);
  }

  /// Whether the graphs run on the Thrust backend's kernels.
  bool on_device() const { return device_ != nullptr; }

  /// Whether evaluating the graphs cannot throw (cpu::effect_graph::infallible; graphs on the
  /// device are not asked).
  bool infallible() const { return !device_ && host_graph::infallible; }
  bool infallible_once_writing() const { return !device_ && host_graph::infallible_once_writing; }
  /// The external values the graphs read (cpu::effect_graph::list_reads); false when unknown.
  bool list_reads(std::vector<const graph::external_source*>& sources) const {
    return !device_ && host_->list_reads(sources);
  }

  template <class Target>
  STATICFLOW_INLINE void run(erased_args args, Target&& target) const {
    if constexpr (thrust_backend_included<key>) {
      if (device_) [[unlikely]] {
        static_cast<const thrust_backend::effect_graph<G...>*>(device_.get())->run(args, std::forward<Target>(target));
        return;
      }
    }
    host_->run(args, std::forward<Target>(target));
  }

  /// As run, with targets in device memory (a traced collective's buffers on a communicator of
  /// device buffers): only for graphs planned for the Thrust backend's kernels.
  template <class Target>
  void run_on_device(erased_args args, Target&& target) const {
    if constexpr (thrust_backend_included<key>) {
      if (device_) {
        static_cast<const thrust_backend::effect_graph<G...>*>(device_.get())->template run<true>(args, std::forward<Target>(target));
        return;
      }
    }
    throw trace_error("an effect's graphs write device memory only on sf::backend::thrust");  // (record_collective checks first)
  }

  /// The value of a scalar graph (a for_range bound, a branch selector).
  value_type scalar(erased_args args) const {
    static_assert(sizeof...(G) == 1 && rank == 0);
    value_type v{};
    run(args, [&](const extents<0>&) { return &v; });
    return v;
  }

 private:
  template <class Dep>
  void make_device(const G&... g) {
    if constexpr (thrust_backend_included<Dep>)
      device_ = std::make_shared<const thrust_backend::effect_graph<G...>>(g...);
    else  // (unreachable: tracing for the Thrust backend instantiates the lambda where it is included)
      throw signature_error("an effect was traced for sf::backend::thrust where backend/thrust/thrust.hpp is not included");
  }

  std::optional<host_graph> host_;
  std::shared_ptr<const void> device_;  // a thrust_backend::effect_graph<G...>
};

/// Graph g (one that reads no argument: evaluable_now) evaluated now, on the host:
/// `target(ext)` is called once its extents are known and returns where to write its values.
template <class G, class Target>
void evaluate_now(const G& g, Target&& target) {
  cpu::effect_graph<G>(g).run(nullptr, std::forward<Target>(target));
}

/// The value of scalar graph g (one that reads no argument), evaluated now on the host.
template <class G>
typename G::value_type scalar_now(const G& g) {
  return cpu::effect_graph<G>(g).scalar(nullptr);
}
}  // namespace detail
}  // namespace staticflow
