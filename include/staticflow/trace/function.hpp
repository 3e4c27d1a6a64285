// staticflow/trace/function.hpp -- sf::function: the polymorphic function that traces a generic
// lambda once per signature and runs the traced graph on every call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "staticflow/backend/backend.hpp"
#include "staticflow/trace/cache.hpp"
#include "staticflow/trace/concrete_function.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow {
namespace detail {
/// The last concrete function this thread used for signature Sig of a function of type Fn,
/// tagged with the owner's id. Ids are never reused, so a stale entry can never match: the hot
/// path is one thread-local compare, with no lock and no atomic.
template <class Fn, class Sig>
struct last_used {
  std::uint64_t owner = 0;
  concrete_function_base* concrete = nullptr;
};
template <class Fn, class Sig>
inline constinit thread_local last_used<Fn, Sig> last_used_slot{};

inline std::uint64_t next_function_id() {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

template <class Fn, class Sig, std::size_t... I>
auto traced_result_of(std::index_sequence<I...>)
    -> decltype(std::declval<Fn&>()(symbolic_argument<I, std::tuple_element_t<I, Sig>>()...));

/// What the lambda returns when traced with signature Sig: the graph's type.
template <class Fn, class Sig>
struct traced_result {
  using type = decltype(traced_result_of<Fn, Sig>(std::make_index_sequence<std::tuple_size_v<Sig>>{}));
};
}  // namespace detail

/// What sf::function returns. Calling it computes the call's signature (a type), traces the
/// lambda with symbolic tensors the first time that signature is seen by this object, and then
/// evaluates the traced graph. Move-only: the cache is identity.
template <class Fn, class Backend = backend::cpu_t>
class polymorphic_function {
 public:
  explicit polymorphic_function(Fn fn) : fn_(std::move(fn)) {}

  polymorphic_function(polymorphic_function&& other)
      : fn_(std::move(other.fn_)), id_(other.id_), cache_(std::move(other.cache_)) {
    other.id_ = detail::next_function_id();  // the moved-from object is valid and empty
    other.cache_ = std::make_unique<detail::concrete_cache>();
  }
  polymorphic_function& operator=(polymorphic_function&&) = delete;
  polymorphic_function(const polymorphic_function&) = delete;
  polymorphic_function& operator=(const polymorphic_function&) = delete;

  template <class... Args>
  using concrete_type = concrete_function<Backend, detail::signature_of_t<Args...>,
                                         typename detail::traced_result<Fn, detail::signature_of_t<Args...>>::type>;

  /// Runs the graph for these arguments, tracing it first if this signature is new.
  template <class... Args>
  STATICFLOW_INLINE auto operator()(const Args&... args) {
    return concrete<detail::signature_of_t<Args...>>()(args...);
  }

  /// Like operator(), writing into the caller's container(s); see concrete_function::call_into.
  template <class Out, class... Args>
  STATICFLOW_INLINE void call_into(Out&& out, const Args&... args) {
    concrete<detail::signature_of_t<Args...>>().call_into(std::forward<Out>(out), args...);
  }

  /// The concrete function for these arguments (tensors, scalars, static values or sf::spec
  /// types), traced if needed. Equal signatures give the same object.
  template <class... Args>
  auto& get_concrete_function(const Args&...) {
    return concrete<detail::signature_of_t<Args...>>();
  }

  /// How many times the lambda has been traced (once per signature).
  std::size_t tracing_count() const { return cache_->tracing_count(); }

  /// Every traced signature, in TensorFlow's format, separated by blank lines.
  std::string pretty_printed_concrete_signatures() const {
    std::string s;
    cache_->for_each([&](const concrete_function_base& c) {
      s += (s.empty() ? "" : "\n\n") + c.pretty_printed_signature();
    });
    return s;
  }

 private:
  template <class Sig>
  using concrete_for_t = concrete_function<Backend, Sig, typename detail::traced_result<Fn, Sig>::type>;

  template <class Sig>
  STATICFLOW_INLINE concrete_for_t<Sig>& concrete() {
    auto& slot = detail::last_used_slot<Fn, Sig>;
    if (slot.owner == id_) [[likely]]
      return static_cast<concrete_for_t<Sig>&>(*slot.concrete);
    return concrete_slow<Sig>();
  }

  template <class Sig>
  [[gnu::noinline]] concrete_for_t<Sig>& concrete_slow() {
    auto& c = cache_->find_or_trace(&detail::type_key<Sig>, [&] { return trace<Sig>(); });
    detail::last_used_slot<Fn, Sig> = {id_, &c};
    return static_cast<concrete_for_t<Sig>&>(c);
  }

  /// Calls the lambda with symbolic arguments: its C++ side effects happen here, once.
  template <class Sig>
  std::unique_ptr<concrete_function_base> trace() {
    using C = concrete_for_t<Sig>;
    return [&]<std::size_t... I>(std::index_sequence<I...>) -> std::unique_ptr<concrete_function_base> {
      if constexpr (std::is_void_v<typename detail::traced_result<Fn, Sig>::type>) {
        fn_(detail::symbolic_argument<I, std::tuple_element_t<I, Sig>>()...);
        return std::make_unique<C>();
      } else {
        return std::make_unique<C>(fn_(detail::symbolic_argument<I, std::tuple_element_t<I, Sig>>()...));
      }
    }(std::make_index_sequence<std::tuple_size_v<Sig>>{});
  }

  Fn fn_;
  std::uint64_t id_ = detail::next_function_id();
  std::unique_ptr<detail::concrete_cache> cache_ = std::make_unique<detail::concrete_cache>();
};

/// Wraps a generic lambda as a traced, polymorphic function (tf.function). The backend runs its
/// kernels: sf::backend::cpu (fused xsimd loops, the default) or sf::backend::eager (op by op).
template <class Fn, class Backend = backend::cpu_t>
auto function(Fn fn, Backend = {}) {
  return polymorphic_function<Fn, Backend>(std::move(fn));
}

}  // namespace staticflow
