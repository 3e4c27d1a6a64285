// staticflow/effects/variable.hpp -- sf::variable: mutable state that traced functions read and
// update (tf.Variable).
//
// A variable is created outside traced code and outlives the functions that use it. Outside a
// traced function `assign`, `assign_add` and `assign_sub` act at once and `value()` returns the
// current contents, as TensorFlow's eager variables do. Inside one, reading it (`read()`, or using
// it in an arithmetic expression) gives a symbolic tensor, and the assignments are effects: they
// run on every call, in program order (effects/recorder.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {
namespace detail {
enum class assign_mode { assign, add, subtract };

constexpr const char* assign_name(assign_mode m) {
  return m == assign_mode::assign ? "assign" : m == assign_mode::add ? "assign_add" : "assign_sub";
}

/// A variable's contents: on the heap for every rank but 0, so that a call's first write can go
/// to a spare buffer that is then swapped in (variable_base::begin_call), whatever the shape.
template <class T, std::size_t... D>
struct variable_container {
  using type = std::conditional_t<sizeof...(D) == 0, std::array<T, 1>, xt::xtensor<T, sizeof...(D)>>;
};

/// Whether a value of shape V can be assigned to a variable of shape S: V broadcasts to S
/// (dims compared from the right; a `dyn` dim is checked at run time).
template <class V, class S>
constexpr bool assignable_shape() {
  if constexpr (V::rank > S::rank) {
    return false;
  } else {
    for (std::size_t k = 0; k < V::rank; ++k) {
      const std::size_t v = V::dims[V::rank - 1 - k], s = S::dims[S::rank - 1 - k];
      if (v != 1 && v != dyn && s != dyn && v != s) return false;
    }
    return true;
  }
}

template <class Vars, class... G>
class assign_effect;

/// Tag of the constructor that makes an optimizer's slot variable.
struct slot_of_t {
  explicit slot_of_t() = default;
};
inline constexpr slot_of_t slot_of{};
}  // namespace detail

/// A mutable tensor of dtype T and shape (Dims...) (`sf::dyn` for a dimension whose extent may
/// change with `assign`). Not copyable or movable: traced graphs point at it.
///
///   sf::variable<int> v{1};                      // a scalar
///   sf::variable<int, 2> y{{3, -2}};             // shape (2,)
///   sf::variable<float, sf::dyn> w{xt::xtensor<float, 1>{1, 2, 3}};
template <class T, std::size_t... Dims>
class variable final : public detail::variable_base {
  static_assert(dtype<canonical_dtype_t<T>>, "staticflow: sf::variable<T>: T must be bool, int32, int64, float or double");
  static_assert(!string_dtype<canonical_dtype_t<T>>,
                "staticflow: sf::variable<T> holds numbers: a string tensor's bytes live for one call (keep the "
                "text in C++ and pass it as an argument)");
  static_assert(sizeof...(Dims) <= detail::max_variable_rank, "staticflow: sf::variable has at most 8 dimensions");

 public:
  using value_type = canonical_dtype_t<T>;
  using shape_type = shape<Dims...>;
  static constexpr std::size_t rank = sizeof...(Dims);
  using container_type = typename detail::variable_container<value_type, Dims...>::type;

  /// After the static_asserts above reported a string variable: any initializer, so that the
  /// report stays the one error line.
  template <class... A>
    requires string_dtype<canonical_dtype_t<T>>
  variable(A&&...) {}

  /// Zeros (dyn dims: extent 0).
  variable() : storage_(zeros_of(declared_zero_extents())) { init(); }
  /// A scalar variable's initial value.
  template <class U>
    requires(rank == 0 && std::is_arithmetic<U>::value)
  variable(U v) {
    storage_[0] = static_cast<value_type>(v);
    init();
  }
  /// The initial contents (their shape must be the variable's: a shape_error otherwise).
  variable(container_type init_value)
    requires(rank > 0)
      : storage_(std::move(init_value)) {
    check_declared_shape();
    init();
  }
  template <class E>
    requires(rank > 0 && !std::is_same<std::remove_cvref_t<E>, container_type>::value && requires(const E& e) { e.shape(); })
  explicit variable(const E& e) : storage_(e) {
    check_declared_shape();
    init();
  }

  /// Zeros: an optimizer's slot of a static shape that belongs to no variable (the loss that
  /// optimizer::minimize keeps). May be made while a function is traced, as the slots below.
  explicit variable(detail::slot_of_t)
    requires(shape_type::is_static)
      : storage_(zeros_of(declared_zero_extents())) {
    refresh_storage();
  }

  /// Zeros with the extents `like` has now: an optimizer's slot for `like` (momentum, moments).
  /// Unlike other variables a slot may be made while a function is traced: Keras makes them on
  /// the first apply_gradients, inside the first trace of the training step.
  variable(detail::slot_of_t, const variable& like) : storage_(zeros_of(like.current_extents())) { refresh_storage(); }

  /// The current contents (outside traced code; a traced function reads with read()).
  decltype(auto) value() const {
    if constexpr (rank == 0) return storage_[0];
    else return static_cast<const container_type&>(storage_);
  }

  /// The variable as a symbolic tensor at this point of the traced function: it sees the
  /// assignments recorded before it, and not those after it.
  graph::external<value_type, shape_type> read() const {
    return graph::external<value_type, shape_type>(detail::record_read(*this));
  }

  template <class V>
  void assign(const V& v) { apply<detail::assign_mode::assign>(v); }
  template <class V>
  void assign_add(const V& v) { apply<detail::assign_mode::add>(v); }
  template <class V>
  void assign_sub(const V& v) { apply<detail::assign_mode::subtract>(v); }

  std::string spec_string() const override { return tensor_spec_string<spec_of_t<value_type, shape_type>>(); }
  std::string_view dtype_name() const override { return staticflow::dtype_name<value_type>; }
  std::size_t declared_extent(std::size_t d) const override {
    if constexpr (rank == 0) return (void)d, 0;
    else return shape_type::dims[d];
  }
  std::unique_ptr<detail::variable_base> make_slot() const override {
    return std::make_unique<variable>(detail::slot_of, *this);
  }

  /// The extents of the current contents.
  extents<rank> current_extents() const {
    extents<rank> e{};
    for (std::size_t d = 0; d < rank; ++d) e[d] = ext_[d];
    return e;
  }

 private:
  template <class Vars, class... G>
  friend class detail::assign_effect;

  /// Zeros of extents ext.
  static container_type zeros_of(const extents<rank>& ext) {
    container_type c{};
    if constexpr (rank > 0) {
      std::array<std::size_t, rank> s{};
      for (std::size_t d = 0; d < rank; ++d) s[d] = ext[d];
      c = container_type::from_shape(s);
    }
    std::fill(c.begin(), c.end(), value_type(0));
    return c;
  }
  /// The declared extents, 0 for a dyn dim.
  static extents<rank> declared_zero_extents() {
    extents<rank> e{};
    for (std::size_t d = 0; d < rank; ++d) e[d] = shape_type::dims[d] == dyn ? 0 : shape_type::dims[d];
    return e;
  }
  void check_declared_shape() const {
    if constexpr (rank > 0) {
      bool fits = static_cast<std::size_t>(storage_.shape().size()) == rank;
      for (std::size_t d = 0; fits && d < rank; ++d)
        fits = shape_type::dims[d] == dyn || static_cast<std::size_t>(storage_.shape()[d]) == shape_type::dims[d];
      if (!fits)
        throw shape_error("sf::variable: the initial value has shape " + shape_text(storage_) + ", the variable is " +
                          spec_string());
    }
  }

  void init() {
    if (detail::tracing())
      throw trace_error(
          "an sf::variable was created while a function was traced; create variables outside the function "
          "(as tf.function only accepts variables created once, outside the traced code)");
    refresh_storage();
  }
  void refresh_storage() {
    std::array<std::size_t, detail::max_variable_rank> ext{};
    if constexpr (rank > 0)
      for (std::size_t d = 0; d < rank; ++d) ext[d] = static_cast<std::size_t>(storage_.shape()[d]);
    set_storage(storage_.data(), rank, ext.data(), sizeof(value_type));
    swappable_ = rank > 0;
  }
  void swap_spare() override {
    if constexpr (rank > 0) {
      std::swap(storage_, spare_);  // the containers' buffers change hands: no element is copied
      refresh_storage();
    }
  }
  /// The spare buffer, with extents ext, for the running call's first write (its contents are
  /// whatever an earlier call left there).
  value_type* spare_for(const extents<rank>& ext) {
    if constexpr (rank > 0) {
      bool same = true;
      for (std::size_t d = 0; d < rank; ++d) same = same && static_cast<std::size_t>(spare_.shape()[d]) == ext[d];
      if (!same) {
        std::array<std::size_t, rank> s{};
        for (std::size_t d = 0; d < rank; ++d) s[d] = ext[d];
        spare_.resize(s);
      }
      return spare_.data();
    } else {
      return data();
    }
  }
  void resize_storage(const std::size_t* ext) override {
    if constexpr (rank > 0 && !shape_type::is_static) {
      std::array<std::size_t, rank> s{};
      for (std::size_t d = 0; d < rank; ++d) s[d] = ext[d];
      storage_.resize(s);
      refresh_storage();
    }
  }
  value_type* data() { return static_cast<value_type*>(data_); }

  template <detail::assign_mode Mode, class V>
  void apply(const V& v) {
    if constexpr (symbolic<V> || requires { v.read(); }) {
      record<Mode>(detail::as_node<variable>(v));
    } else if constexpr (std::is_arithmetic<V>::value) {
      if (detail::tracing()) record<Mode>(graph::literal<value_type>(static_cast<value_type>(v)));
      else apply_now<Mode>(v);
    } else {
      if (detail::tracing())
        throw trace_error(std::string(detail::assign_name(Mode)) +
                          ": a container inside a traced function must enter the graph through sf::constant(x) "
                          "(copied once) or sf::capture(x) (read on every call)");
      apply_now<Mode>(v);
    }
  }

  template <detail::assign_mode Mode, class V>
  void apply_now(const V& v) {
    std::lock_guard<std::mutex> lock(mutex());
    if constexpr (std::is_arithmetic<V>::value) {
      const auto x = static_cast<value_type>(v);
      value_type* p = data();
      for (std::size_t i = 0, n = size(); i < n; ++i)
        p[i] = Mode == detail::assign_mode::assign ? x : Mode == detail::assign_mode::add ? value_type(p[i] + x) : value_type(p[i] - x);
    } else {
      static_assert(rank > 0, "staticflow: a scalar sf::variable is assigned a C++ number");
      if constexpr (Mode == detail::assign_mode::assign) {
        if (!same_shape(v) && shape_type::is_static)
          throw shape_error("assign: the value has shape " + shape_text(v) + ", the variable has shape " + shape_text(storage_));
        storage_ = v;
        refresh_storage();
      } else {
        if (!broadcasts_to_variable(v))
          throw shape_error(std::string(detail::assign_name(Mode)) + ": the value has shape " + shape_text(v) +
                            ", the variable has shape " + shape_text(storage_));
        container_type result = [&]() -> container_type {
          if constexpr (Mode == detail::assign_mode::add) return storage_ + v;
          else return storage_ - v;
        }();
        storage_ = std::move(result);
        refresh_storage();
      }
    }
  }

  /// Whether e broadcasts to the variable's shape (NumPy's rules, dims compared from the right).
  template <class E>
  bool broadcasts_to_variable(const E& e) const {
    const std::size_t r = static_cast<std::size_t>(e.shape().size());
    if (r > rank) return false;
    for (std::size_t k = 0; k < r; ++k) {
      const auto have = static_cast<std::size_t>(e.shape()[r - 1 - k]);
      if (have != 1 && have != ext_[rank - 1 - k]) return false;
    }
    return true;
  }

  template <class E>
  bool same_shape(const E& e) const {
    if (static_cast<std::size_t>(e.shape().size()) != rank) return false;
    for (std::size_t d = 0; d < rank; ++d)
      if (static_cast<std::size_t>(e.shape()[d]) != ext_[d]) return false;
    return true;
  }
  template <class E>
  static std::string shape_text(const E& e) {
    std::string s = "(";
    for (std::size_t d = 0; d < e.shape().size(); ++d) s += (d ? ", " : "") + std::to_string(e.shape()[d]);
    return s + (e.shape().size() == 1 ? ",)" : ")");
  }

  template <detail::assign_mode Mode, class N>
  void record(const N& value) {
    using VS = spec_of_node_t<N>;
    detail::control_flow_check<detail::assignable_shape<typename VS::shape_type, shape_type>(), [] {
      detail::message_string s;
      s += "staticflow: ";
      s += detail::assign_name(Mode);
      s += ": a value of spec ";
      detail::append_spec(s, VS{});
      s += " does not fit a variable of spec ";
      detail::append_spec(s, spec_of_t<value_type, shape_type>{});
      return s;
    }()>();
    detail::control_flow_check<std::is_same<typename VS::value_type, value_type>::value, [] {
      detail::message_string s;
      s += "staticflow: ";
      s += detail::assign_name(Mode);
      s += ": the value is ";
      detail::append_spec(s, VS{});
      s += " and the variable ";
      detail::append_spec(s, spec_of_t<value_type, shape_type>{});
      s += " (dtypes differ: cast the value with sf::cast)";
      return s;
    }()>();
    if constexpr (detail::assignable_shape<typename VS::shape_type, shape_type>() &&
                  std::is_same<typename VS::value_type, value_type>::value) {
      const graph::external<value_type, shape_type> live(live_source());
      auto graph = [&] {
        if constexpr (Mode == detail::assign_mode::assign && std::is_same<typename VS::shape_type, shape_type>::value)
          return value;
        else if constexpr (Mode == detail::assign_mode::assign)  // broadcast to the variable's shape
          return graph::select<graph::literal<bool>, N, graph::external<value_type, shape_type>>(graph::literal<bool>(true), value, live);
        else if constexpr (Mode == detail::assign_mode::add) return detail::make_binary<op::add>(live, value);
        else return detail::make_binary<op::subtract>(live, value);
      }();
      auto e = std::make_unique<detail::assign_effect<std::tuple<variable>, decltype(graph)>>(std::tie(*this), Mode, graph);
      detail::traced_program(detail::assign_name(Mode)).touched.push_back(this);
      detail::record_effect(std::move(e), detail::assign_name(Mode));
    }
  }

  container_type storage_{};
  // where a call's first write goes (begin_call); after it, the contents before the call
  container_type spare_{};
};

namespace detail {
/// Evaluates graphs G... into variables Var... (graph k into variable k, all from one plan). A
/// call's first write of a variable goes to the variable's spare buffer, swapped in once every
/// graph is written (so the graphs read the contents before the effect, and the old contents
/// stay for a rollback: variable_base::begin_call), or in place where no rollback can need them
/// and the graphs read the variable only where they write it (in_place_allowed; the target's
/// `in_place_ok`); later writes in the same call go in place
/// when the extents are the variable's (elementwise reads of the variable itself see each element
/// before it is replaced; any other use of it is a materialized slot, computed first), through a
/// temporary when `assign` changes the extents of a variable with `sf::dyn` dims. Any other
/// extents throw (the call then puts every variable it wrote back).
template <class... Var, class... G>
class assign_effect<std::tuple<Var...>, G...> final : public effect {
  static_assert(sizeof...(Var) == sizeof...(G));

 public:
  assign_effect(std::tuple<Var&...> vars, assign_mode mode, const G&... g)
      : vars_(staticflow::detail::apply([](Var&... v) { return std::tuple<Var*...>{&v...}; }, vars)), value_(g...), mode_(mode) {
    staticflow::detail::apply([&](Var*... v) { (writes.push_back(v), ...); }, vars_);
  }

  void run(erased_args args) override { assign(args); }
  bool infallible() const override {
    return ((V_static<Var>) && ...) && value_.infallible();
  }
  bool infallible_once_writing() const override {
    return ((V_static<Var>) && ...) && value_.infallible_once_writing();
  }
  bool list_reads(std::vector<const graph::external_source*>& sources) const override { return value_.list_reads(sources); }
  void run_counted(erased_args args, std::int32_t* counter, std::int32_t lo, std::int32_t hi) override {
    for (*counter = lo; *counter < hi; ++*counter) assign(args);
  }
  void run_counted(erased_args args, std::int64_t* counter, std::int64_t lo, std::int64_t hi) override {
    for (*counter = lo; *counter < hi; ++*counter) assign(args);
  }

 private:
  /// Where a value whose extents differ from its variable's waits until the variable is resized.
  template <class V>
  struct staging {
    std::unique_ptr<typename V::value_type[]> data;
    std::size_t size = 0;
    bool used = false;
    bool spare = false;  // written into the variable's spare buffer, to be swapped in
    extents<V::rank> ext{};
  };

  template <class V>
  static constexpr bool V_static = V::shape_type::is_static;

  STATICFLOW_INLINE void assign(erased_args args) {
    value_.run(args, [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& ext, const auto&... in_place_ok) {
      return target<K>(ext, in_place_ok...);
    });
    [&]<std::size_t... K>(std::index_sequence<K...>) { (finish<K>(), ...); }(std::index_sequence_for<Var...>{});
  }

  /// Where value K goes: the variable's spare buffer (a call's first write), the variable itself,
  /// or a staging buffer (new extents). With effect_graphs::fresh_buffer for `in_place_ok` (the
  /// value computed while the graphs' other values still read what the call holds), never the
  /// variable itself: null instead.
  template <std::size_t K, class Ext, class... InPlaceOk>
  STATICFLOW_INLINE auto* target(const Ext& ext, const InPlaceOk&... in_place_ok) {
    using V = std::tuple_element_t<K, std::tuple<Var...>>;
    using Gk = std::tuple_element_t<K, std::tuple<G...>>;
    using T = typename V::value_type;
    constexpr bool fresh = (std::is_same<InPlaceOk, effect_graphs::fresh_buffer_t>::value || ...);
    V* var = staticflow::detail::get<K>(vars_);
    auto& stage = staticflow::detail::get<K>(staging_);
    stage.used = stage.spare = false;
    if constexpr (!(Gk::shape_type::is_static && V::shape_type::is_static)) {  // (else checked when traced)
      if (ext != var->current_extents() && (mode_ != assign_mode::assign || V::shape_type::is_static))
        throw shape_error(std::string(assign_name(mode_)) + ": the value has shape " +
                          staticflow::detail::extents_string(ext) + ", the variable has shape " +
                          staticflow::detail::extents_string(var->current_extents()));
    }
    if constexpr (V::rank > 0) {  // (a scalar is copied before the call instead: no spare)
      if (var->first_write_pending()) {  // the call's first write: into the spare, new extents or not
        if constexpr (sizeof...(InPlaceOk) == 1 && !fresh) {
          // ... or in place, when no rollback can need the contents (effect_program::find_in_place_writes)
          // and the graphs read them nowhere else
          if (var->in_place_allowed() && ext == var->current_extents() && (in_place_ok(var->data()) && ...)) {
            var->write_in_place();
            return var->data();
          }
        }
        stage.spare = true;
        return var->spare_for(ext);
      }
    }
    if (ext == var->current_extents()) {
      if constexpr (fresh) return static_cast<T*>(nullptr);
      else return var->data();
    }
    const std::size_t n = staticflow::detail::product(ext);
    if (n > stage.size) stage.data.reset(new T[n]), stage.size = n;
    stage.used = true;
    stage.ext = ext;
    return stage.data.get();
  }

  template <std::size_t K>
  STATICFLOW_INLINE void finish() {
    using V = std::tuple_element_t<K, std::tuple<Var...>>;
    auto& stage = staticflow::detail::get<K>(staging_);
    if (V::rank > 0 && stage.spare) {
      staticflow::detail::get<K>(vars_)->commit_spare();
    } else if (stage.used) [[unlikely]] {
      auto* var = staticflow::detail::get<K>(vars_);
      var->resize_storage(stage.ext.data());
      std::copy_n(stage.data.get(), staticflow::detail::product(stage.ext), var->data());
    }
  }

  std::tuple<Var*...> vars_;
  effect_evaluator<G...> value_;
  assign_mode mode_;
  std::tuple<staging<Var>...> staging_;
};

/// Records one effect that assigns graph k to variable k for every k, all computed from one plan
/// (what they share is computed once): what an optimizer uses to store a step's gradients.
template <class... Var, class... G>
void record_assign_group(std::tuple<Var&...> vars, const G&... values) {
  static_assert(sizeof...(Var) == sizeof...(G) && sizeof...(Var) >= 1);
  static_assert(((std::is_same<typename Var::value_type, typename G::value_type>::value &&
                  assignable_shape<typename G::shape_type, typename Var::shape_type>()) && ...),
                "staticflow: record_assign_group: each value must have its variable's dtype and a shape that fits it");
  auto e = std::make_unique<assign_effect<std::tuple<Var...>, G...>>(vars, assign_mode::assign, values...);
  staticflow::detail::apply([](Var&... v) { (traced_program("assign").touched.push_back(&v), ...); }, vars);
  record_effect(std::move(e), "assign");
}
}  // namespace detail

}  // namespace staticflow
