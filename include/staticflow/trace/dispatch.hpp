// staticflow/trace/dispatch.hpp -- calls whose concrete function is chosen at run time: the
// dispatch map.
//
// A call goes through here (instead of the direct, one-thread-local-compare path of
// trace/function.hpp) when an argument has a run-time rank (xt::xarray) or dtype (sf::tensor),
// when the function has an input signature its arguments must be converted to, or when shape
// specializations may apply. Everything about a call site is computed at compile time:
//
//  * each argument's candidates: its own signature entry; the input signature's spec; or, for a
//    run-time rank or dtype, one `sf::dyn` spec per declared dtype x rank (sf::dtypes, sf::ranks);
//  * the general variants: every combination of candidates, numbered in mixed radix;
//  * for each general variant, the shape specializations that apply to it, most specific first;
//  * the choices (a specialized or a general variant each) and a flat table of one function
//    pointer per choice, instantiated for that choice's signature.
//
// At run time a call reads its arguments' dtypes and ranks, computes the general variant's number
// (a table lookup per argument), compares its extents with the applicable specializations (a few
// integer compares) and calls through the table: no allocation, no tree, no lock. The chosen
// variant's concrete function is then found like any other (thread-local slot, then the
// function's lock-free cache, which bounds how many it holds; see trace/cache.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/interop/tensor.hpp"
#include "staticflow/interop/tensor_ref.hpp"
#include "staticflow/interop/xarray.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/trace/cache.hpp"
#include "staticflow/trace/concrete_function.hpp"
#include "staticflow/trace/eager_mode.hpp"
#include "staticflow/trace/input_signature.hpp"
#include "staticflow/trace/options.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow {

/// A concrete function chosen at run time (get_concrete_function with xt::xarray or sf::tensor
/// arguments, or where a shape specialization may apply): its signature, graph and identity.
class concrete_function_ref {
 public:
  template <class C>
  explicit concrete_function_ref(const C& c)
      : base_(&c),
        graph_string_([](const concrete_function_base& b) { return static_cast<const C&>(b).graph_string(); }),
        to_dot_([](const concrete_function_base& b) { return static_cast<const C&>(b).to_dot(); }),
        to_code_([](const concrete_function_base& b) { return static_cast<const C&>(b).to_code(); }) {}

  const concrete_function_base& base() const { return *base_; }
  std::string pretty_printed_signature() const { return base_->pretty_printed_signature(); }
  std::string graph_string() const { return graph_string_(*base_); }
  std::string to_dot() const { return to_dot_(*base_); }
  std::string to_code() const { return to_code_(*base_); }

  friend bool operator==(const concrete_function_ref& a, const concrete_function_ref& b) { return a.base_ == b.base_; }
  friend bool operator==(const concrete_function_ref& a, const concrete_function_base& b) { return a.base_ == &b; }

 private:
  const concrete_function_base* base_;
  std::string (*graph_string_)(const concrete_function_base&);
  std::string (*to_dot_)(const concrete_function_base&);
  std::string (*to_code_)(const concrete_function_base&);
};

namespace detail {

// ---- arguments ---------------------------------------------------------------------------

enum class arg_kind { fixed, runtime_rank, runtime_dtype, unsupported };

template <class A>
constexpr arg_kind kind_of() {
  using U = std::remove_cvref_t<A>;
  if constexpr (sf_tensor<U>) return arg_kind::runtime_dtype;
  else if constexpr (runtime_rank_tensor<U>)
    return argument_traits<U>::dispatchable ? arg_kind::runtime_rank : arg_kind::unsupported;
  else if constexpr (argument_traits<U>::supported) return arg_kind::fixed;
  else return arg_kind::unsupported;
}

template <class A>
inline constexpr bool is_static_value_arg = static_value_type<A>;

template <class Entry>
constexpr bool has_dyn_dim() {
  if constexpr (spec_type<Entry>) return !Entry::shape_type::is_static;
  else return false;
}

/// Whether a call with Args takes the direct path: no conversion, no run-time choice.
template <class Config, class... Args>
constexpr bool is_direct() {
  if constexpr (!((kind_of<Args>() == arg_kind::fixed) && ...)) {
    return false;
  } else if constexpr (Config::has_signature) {
    if constexpr (sizeof...(Args) != std::tuple_size<typename Config::signature>::value) return false;
    else return Config::specialization_count == 0 &&
                std::is_same<signature_of_t<Args...>, typename Config::signature>::value;
  } else {
    return Config::specialization_count == 0 || !(has_dyn_dim<signature_entry_t<Args>>() || ...);
  }
}

/// The rank of a tensor argument (0 for a scalar).
template <class A>
STATICFLOW_INLINE std::size_t rank_of(const A& a) {
  if constexpr (kind_of<A>() == arg_kind::runtime_rank) return a.shape().size();
  else if constexpr (kind_of<A>() == arg_kind::runtime_dtype) return a.rank();
  else return signature_entry_t<A>::rank;
}

/// Extent d of a tensor argument; for an sf::spec (get_concrete_function), its static dimension
/// or `dyn`.
template <class A>
STATICFLOW_INLINE std::size_t extent_of(const A& a, std::size_t d) {
  if constexpr (spec_type<A>) return A::shape_type::dims[d];
  else if constexpr (std::is_arithmetic<A>::value || static_value_type<A>) return 1;  // no extents: never asked
  else return static_cast<std::size_t>(a.shape()[d]);
}

template <class A>
std::string_view dtype_name_of_arg(const A& a) {
  if constexpr (kind_of<A>() == arg_kind::runtime_dtype) return dtype_name_of(a.dtype());
  else return dtype_name<typename argument_traits<A>::value_type>;
}

/// `float32[2,3]`: what an argument is at run time.
template <class A>
std::string arg_spec_string(const A& a) {
  if constexpr (is_static_value_arg<A>) {
    return static_value_string(A{});
  } else {
    extents<tensor::max_rank> ext{};
    const std::size_t r = rank_of(a);
    for (std::size_t d = 0; d < r && d < ext.size(); ++d) ext[d] = extent_of(a, d);
    return runtime_spec_string(dtype_name_of_arg(a), ext, r);
  }
}

template <class A>
const void* data_of(const A& a) {
  if constexpr (kind_of<A>() == arg_kind::runtime_dtype) return a.raw_data();
  else return a.data();
}

// ---- candidate lists -----------------------------------------------------------------------

template <class T, std::size_t R>
using dyn_spec_t = decltype(all_dyn_spec<T>(std::make_index_sequence<R>{}));

template <class T, std::size_t... R>
std::tuple<dyn_spec_t<T, R>...> rank_candidates(ranks<R...>);

template <class Ranks, class... T>
auto dtype_rank_candidates(dtypes<T...>) -> decltype(std::tuple_cat(decltype(rank_candidates<T>(Ranks{})){}...));

template <std::size_t... R>
constexpr std::array<int, 10> rank_positions(ranks<R...>) {
  std::array<int, 10> pos{};
  pos.fill(-1);
  int i = 0;
  ((pos[R] = pos[R] < 0 ? i : pos[R], ++i), ...);
  return pos;
}
template <class... T>
constexpr std::array<int, 5> dtype_positions(dtypes<T...>) {
  std::array<int, 5> pos{};
  pos.fill(-1);
  int i = 0;
  ((pos[static_cast<std::size_t>(dtype_id_of<T>)] = i++), ...);
  return pos;
}
template <std::size_t... R>
constexpr std::size_t count_of(ranks<R...>) { return sizeof...(R); }

// ---- shapes as data (for specializations) -------------------------------------------------

inline constexpr std::size_t max_spec_rank = 8;

struct shape_data {
  bool tensor = false;
  std::size_t rank = 0;
  std::array<std::size_t, max_spec_rank> dims{};
};

template <class Entry>
constexpr shape_data shape_data_of() {
  shape_data s;
  if constexpr (spec_type<Entry>) {
    static_assert(Entry::rank <= max_spec_rank, "staticflow: shape specialization supports ranks up to 8");
    s.tensor = true;
    s.rank = Entry::rank;
    for (std::size_t d = 0; d < Entry::rank; ++d) s.dims[d] = Entry::shape_type::dims[d];
  }
  return s;
}
template <std::size_t... D>
constexpr shape_data shape_data_of_shape(shape<D...>) {
  return shape_data_of<spec<float, D...>>();
}

/// A specialization as data: one shape for every argument with run-time dims, or one per argument.
template <std::size_t N>
struct specialization_data {
  bool per_argument = false;
  std::size_t count = 0;
  std::array<shape_data, N> shapes{};
};
template <std::size_t N, std::size_t... D>
constexpr specialization_data<N> specialization_data_of(shape<D...> s) {
  specialization_data<N> v;
  v.count = 1;
  v.shapes[0] = shape_data_of_shape(s);
  return v;
}
template <std::size_t N, class... S>
constexpr specialization_data<N> specialization_data_of(shapes<S...>) {
  specialization_data<N> v;
  v.per_argument = true;
  v.count = sizeof...(S);
  if constexpr (sizeof...(S) <= N) {
    std::size_t i = 0;
    ((v.shapes[i++] = shape_data_of_shape(S{})), ...);
  }
  return v;
}

/// A general variant's shapes with a specialization applied.
template <std::size_t N>
struct merged_shapes {
  bool applicable = false;
  std::size_t specificity = 0;  // static dimensions over all arguments
  std::size_t source = 0;       // which specialization
  std::array<shape_data, N> shapes{};
  std::array<bool, N> changed{};
};

template <std::size_t N>
constexpr merged_shapes<N> merge(const std::array<shape_data, N>& general, const specialization_data<(N > 0 ? N : 1)>& v) {
  merged_shapes<N> m;
  m.shapes = general;
  if (v.per_argument && v.count != N) return m;
  bool any = false;
  for (std::size_t i = 0; i < N; ++i) {
    const shape_data& e = general[i];
    bool has_dyn = false;
    for (std::size_t d = 0; d < e.rank; ++d) has_dyn = has_dyn || e.dims[d] == dyn;
    if (!v.per_argument && (!e.tensor || !has_dyn)) continue;
    const shape_data& want = v.per_argument ? v.shapes[i] : v.shapes[0];
    if (!e.tensor) {
      if (want.rank != 0) return m;
      continue;
    }
    if (want.rank != e.rank) return m;
    for (std::size_t d = 0; d < e.rank; ++d) {
      if (want.dims[d] == dyn) continue;
      if (e.dims[d] == dyn) {
        m.shapes[i].dims[d] = want.dims[d];
        m.changed[i] = true;
        any = true;
      } else if (e.dims[d] != want.dims[d]) {
        return m;
      }
    }
  }
  m.applicable = any;
  for (const auto& s : m.shapes)
    for (std::size_t d = 0; d < s.rank; ++d) m.specificity += s.dims[d] != dyn;
  return m;
}

/// The specializations that apply to one general variant, most specific first.
template <std::size_t N, std::size_t K>
struct applicable_specializations {
  std::size_t count = 0;
  std::array<merged_shapes<N>, (K > 0 ? K : 1)> list{};
};

template <class Entry, std::size_t... D>
auto merged_entry_of(std::index_sequence<D...>) {
  if constexpr (spec_type<Entry>) return spec<typename Entry::value_type, D...>{};
  else return Entry{};
}

// ---- the call site ------------------------------------------------------------------------

/// What the dispatch code may use of a polymorphic function (its friend).
struct dispatch_access {
  template <class Sig, class Self>
  STATICFLOW_INLINE static auto& dispatched_concrete(Self& self) {
    return self.template dispatched_concrete<Sig>();
  }
  template <class Sig, class Self>
  STATICFLOW_INLINE static auto& concrete(Self& self) {
    return self.template concrete<Sig>();
  }
  /// A new trace of Sig on the eager backend (sf::run_functions_eagerly), owned by the caller.
  template <class Sig, class Self>
  static auto eager_trace(Self& self) {
    return self.template trace<Sig, backend::eager_t>();
  }
  template <class Self>
  static const function_settings& settings(const Self& self) {
    return self.cache_->settings();
  }
  template <class Self>
  static const concrete_cache& cache(const Self& self) {
    return *self.cache_;
  }
};

/// The dtype and rank of one result container: a scalar, an xt::xtensor(_fixed).
template <class X>
struct result_info {
  using value_type = X;
  static constexpr std::size_t rank = 0;
};
template <class X>
  requires requires { typename X::value_type; X::rank; }
struct result_info<X> {
  using value_type = typename X::value_type;
  static constexpr std::size_t rank = X::rank;
};

template <std::size_t... D>
constexpr void append_shape(message_string& s, shape<D...>) {
  s += "(";
  std::size_t i = 0;
  ((s += (i++ ? ", " : ""), D == dyn ? (s += "None", 0) : (s += D, 0)), ...);
  if (sizeof...(D) == 1) s += ",";
  s += ")";
}
template <std::size_t... D>
constexpr void append_specialization(message_string& s, shape<D...> v) {
  s += "shape ";
  append_shape(s, v);
}
template <class... S>
constexpr void append_specialization(message_string& s, shapes<S...>) {
  s += "shapes (";
  std::size_t i = 0;
  ((s += (i++ ? ", " : ""), append_shape(s, S{})), ...);
  s += ")";
}

template <std::size_t K, class V, class Signature>
constexpr message_string specialization_mismatch_message() {
  message_string s;
  s += "staticflow: specialization ";
  s += K;
  s += ", ";
  append_specialization(s, V{});
  s += ", does not fit the input signature (";
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((s += (I ? ", " : ""), append_spec(s, std::tuple_element_t<I, Signature>{})), ...);
  }(std::make_index_sequence<std::tuple_size<Signature>::value>{});
  s += "): its ranks differ, a static dimension differs, or it adds no static dimension";
  return s;
}

/// With an input signature, every shape specialization must make some dimension of it static.
template <class Config>
constexpr bool specializations_fit_signature() {
  if constexpr (!Config::has_signature || Config::specialization_count == 0) {
    return true;
  } else {
    using Sig = typename Config::signature;
    constexpr std::size_t n = std::tuple_size<Sig>::value;
    constexpr auto general = [] {
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<shape_data, n>{shape_data_of<std::tuple_element_t<I, Sig>>()...};
      }(std::make_index_sequence<n>{});
    }();
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return (require_declaration<merge<n>(general, specialization_data_of<n>(std::tuple_element_t<K, typename Config::specializations>{}))
                          .applicable,
                      specialization_mismatch_message<K, std::tuple_element_t<K, typename Config::specializations>, Sig>()>() &&
              ...);
    }(std::make_index_sequence<Config::specialization_count>{});
  }
}

/// The static checks of a call that does not take the direct path: supported argument types and,
/// with an input signature, arity, dtypes, ranks and static dims. A failed check is a compile
/// error naming the argument and both specs; `valid` then keeps the rest from instantiating.
template <class Config, class... Args>
struct call_checks {
  using config = Config;
  static constexpr std::size_t arity = sizeof...(Args);

  // -- static checks ------------------------------------------------------------------------

  template <std::size_t I>
  static constexpr bool argument_ok() {
    using A = std::tuple_element_t<I, std::tuple<Args...>>;
    constexpr arg_kind k = kind_of<A>();
    if constexpr (k == arg_kind::unsupported) {
      return sizeof(checked_argument<A>) == 0;  // its static_assert names the supported types
    } else if constexpr (!config::has_signature) {
      return true;
    } else {
      using S = std::tuple_element_t<I, typename config::signature>;
      if constexpr (k == arg_kind::fixed) {
        using E = signature_entry_t<A>;
        constexpr entry_match m = match_entry<S, E>();
        return require<m == entry_match::ok || m == entry_match::check_dims, entry_mismatch_message<I, S, E>()>();
      } else if constexpr (k == arg_kind::runtime_rank) {
        using T = typename argument_traits<A>::value_type;
        return require<std::is_same<T, typename S::value_type>::value, runtime_rank_mismatch_message<I, S, T>()>();
      } else {
        return true;
      }
    }
  }

  static constexpr bool arity_ok() {
    if constexpr (config::has_signature) {
      constexpr std::size_t expected = std::tuple_size<typename config::signature>::value;
      return require<arity == expected, arity_message<arity, expected>()>();
    } else {
      return true;
    }
  }

  static constexpr bool valid = [] {
    if constexpr (!arity_ok()) return false;
    else return [&]<std::size_t... I>(std::index_sequence<I...>) { return (argument_ok<I>() && ...); }(
        std::index_sequence_for<Args...>{});
  }();

};

template <class Self, class... Args>
struct call_site {
  using config = typename Self::config_type;
  static constexpr std::size_t arity = sizeof...(Args);
  using args_tuple = std::tuple<Args...>;
  template <std::size_t I>
  using arg_t = std::tuple_element_t<I, args_tuple>;

  // -- candidates and general variants --------------------------------------------------------

  template <std::size_t I>
  static auto candidates() {
    using A = arg_t<I>;
    constexpr arg_kind k = kind_of<A>();
    if constexpr (config::has_signature) return std::tuple<std::tuple_element_t<I, typename config::signature>>{};
    else if constexpr (k == arg_kind::fixed) return std::tuple<signature_entry_t<A>>{};
    else if constexpr (k == arg_kind::runtime_rank)
      return decltype(rank_candidates<typename argument_traits<A>::value_type>(typename config::rank_list{})){};
    else return decltype(dtype_rank_candidates<typename config::rank_list>(typename config::dtype_list{})){};
  }
  template <std::size_t I>
  using candidates_t = decltype(candidates<I>());

  static constexpr std::array<std::size_t, arity> counts = [] {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<std::size_t, arity>{std::tuple_size<candidates_t<I>>::value...};
    }(std::index_sequence_for<Args...>{});
  }();

  /// Argument I's digit in the mixed-radix number of a general variant (the last argument varies
  /// fastest).
  static constexpr std::array<std::size_t, arity> strides = [] {
    std::array<std::size_t, arity> s{};
    std::size_t m = 1;
    for (std::size_t i = arity; i-- > 0;) s[i] = m, m *= counts[i];
    return s;
  }();

  static constexpr std::size_t general_count = [] {
    std::size_t n = 1;
    for (std::size_t c : counts) n *= c;
    return n;
  }();
  static_assert(general_count <= 256,
                "staticflow: this call would compile more than 256 variants (dtypes x ranks of its "
                "run-time arguments); declare fewer with sf::dtypes<...> and sf::ranks<...>");

  template <std::size_t V, std::size_t... I>
  static auto general_of(std::index_sequence<I...>)
      -> std::tuple<std::tuple_element_t<(V / strides[I]) % counts[I], candidates_t<I>>...>;
  template <std::size_t V>
  using general_t = decltype(general_of<V>(std::index_sequence_for<Args...>{}));

  // -- specializations -----------------------------------------------------------------------

  static constexpr std::size_t spec_count = config::specialization_count;
  static constexpr std::size_t spec_slots = arity > 0 ? arity : 1;

  static constexpr std::array<specialization_data<spec_slots>, (spec_count > 0 ? spec_count : 1)> specs = [] {
    std::array<specialization_data<spec_slots>, (spec_count > 0 ? spec_count : 1)> a{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((a[K] = specialization_data_of<spec_slots>(std::tuple_element_t<K, typename config::specializations>{})), ...);
    }(std::make_index_sequence<spec_count>{});
    return a;
  }();

  template <class Sig>
  static constexpr std::array<shape_data, arity> shapes_of() {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<shape_data, arity>{shape_data_of<std::tuple_element_t<I, Sig>>()...};
    }(std::index_sequence_for<Args...>{});
  }

  template <std::size_t V>
  static constexpr applicable_specializations<arity, spec_count> applicable() {
    applicable_specializations<arity, spec_count> a;
    if constexpr (spec_count > 0 && arity > 0) {
      const auto general = shapes_of<general_t<V>>();
      for (std::size_t k = 0; k < spec_count; ++k) {
        merged_shapes<arity> m = merge<arity>(general, specs[k]);
        if (!m.applicable) continue;
        m.source = k;
        std::size_t at = a.count++;  // insertion sort: most specific first, then declaration order
        while (at > 0 && a.list[at - 1].specificity < m.specificity) {
          a.list[at] = a.list[at - 1];
          --at;
        }
        a.list[at] = m;
      }
    }
    return a;
  }

  static constexpr auto applicable_table = [] {
    return [&]<std::size_t... V>(std::index_sequence<V...>) {
      return std::array<applicable_specializations<arity, spec_count>, general_count>{applicable<V>()...};
    }(std::make_index_sequence<general_count>{});
  }();

  static constexpr bool any_specialization = [] {
    for (const auto& a : applicable_table)
      if (a.count > 0) return true;
    return false;
  }();

  // -- choices: for each general variant, its specializations then itself ---------------------

  static constexpr std::array<std::size_t, general_count + 1> offsets = [] {
    std::array<std::size_t, general_count + 1> o{};
    for (std::size_t v = 0; v < general_count; ++v) o[v + 1] = o[v] + applicable_table[v].count + 1;
    return o;
  }();
  static constexpr std::size_t choice_count = offsets[general_count];

  static constexpr std::size_t general_of_choice(std::size_t c) {
    std::size_t v = 0;
    while (offsets[v + 1] <= c) ++v;
    return v;
  }

  /// The shapes of choice C when it is a specialization.
  template <std::size_t C>
  static constexpr merged_shapes<arity> merged_of = [] {
    constexpr std::size_t v = general_of_choice(C);
    if constexpr (C - offsets[v] < applicable_table[v].count) return applicable_table[v].list[C - offsets[v]];
    else return merged_shapes<arity>{};
  }();

  template <std::size_t C, std::size_t I, std::size_t... D>
  static auto merged_entry(std::index_sequence<D...>)
      -> decltype(merged_entry_of<std::tuple_element_t<I, general_t<general_of_choice(C)>>>(
          std::index_sequence<merged_of<C>.shapes[I].dims[D]...>{}));

  template <std::size_t C, std::size_t... I>
  static auto specialized_of(std::index_sequence<I...>)
      -> std::tuple<decltype(merged_entry<C, I>(std::make_index_sequence<merged_of<C>.shapes[I].rank>{}))...>;

  template <std::size_t C>
  static auto choice_signature() {
    constexpr std::size_t v = general_of_choice(C);
    if constexpr (C - offsets[v] == applicable_table[v].count) return general_t<v>{};
    else return decltype(specialized_of<C>(std::index_sequence_for<Args...>{})){};
  }
  template <std::size_t C>
  using choice_t = decltype(choice_signature<C>());

  /// Whether the choice is known at compile time (one general variant, no specialization).
  static constexpr bool single_choice = choice_count == 1;
  /// Whether the function's run-time state (retracing detector) sees this call as dispatched.
  static constexpr bool dispatched = !single_choice;

  // -- run-time selection ---------------------------------------------------------------------

  [[noreturn]] static void throw_no_variant(const Self& self, std::size_t i, const std::string& what,
                                            const std::string& call) {
    std::string list;
    [&]<std::size_t... V>(std::index_sequence<V...>) {
      ((list += V ? ", " : "", list += signature_text(describe_signature<general_t<V>>())), ...);
    }(std::make_index_sequence<general_count>{});
    throw signature_error(dispatch_access::settings(self).label(i) + " has " + what + ", and no variant compiled for " +
                          call + " takes it: the variants take " + list +
                          "; declare others with sf::ranks<...> or sf::dtypes<...>");
  }

  static std::string call_text(const Args&... args) {
    std::string s = "(";
    std::size_t i = 0;
    ((s += i++ ? ", " : "", s += arg_spec_string(args)), ...);
    return "this call " + s + ")";
  }

  /// Argument I's part of the general variant's number; signature_error when its dtype or rank
  /// was not compiled.
  template <std::size_t I, class A, class Text>
  STATICFLOW_INLINE static std::size_t digit(const Self& self, const A& a, const Text& text) {
    constexpr arg_kind k = kind_of<A>();
    if constexpr (config::has_signature || k == arg_kind::fixed) {
      return 0;
    } else {
      static constexpr auto rank_pos = rank_positions(typename config::rank_list{});  // in .rodata, not the stack
      const std::size_t r = rank_of(a);
      const int rp = r < rank_pos.size() ? rank_pos[r] : -1;
      int d = rp;
      if constexpr (k == arg_kind::runtime_dtype) {
        static constexpr auto dtype_pos = dtype_positions(typename config::dtype_list{});
        const int dp = dtype_pos[static_cast<std::size_t>(a.dtype())];
        if (dp < 0) throw_no_variant(self, I, "dtype " + std::string(dtype_name_of(a.dtype())), text());
        d = dp * static_cast<int>(count_of(typename config::rank_list{})) + rp;
      }
      if (rp < 0) throw_no_variant(self, I, "rank " + std::to_string(r), text());
      return static_cast<std::size_t>(d) * strides[I];
    }
  }

  /// The general variant a call's dtypes and ranks select.
  STATICFLOW_INLINE static std::size_t general_index(const Self& self, const Args&... args) {
    const auto text = [&] { return call_text(args...); };
    return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
      std::size_t v = 0;
      ((v += digit<I>(self, args, text)), ...);
      return v;
    }(std::index_sequence_for<Args...>{});
  }

  /// Whether argument a has the (partly static) shape s. Its rank is s.rank: the variant was
  /// chosen for it (a static rank bounds the loop at compile time).
  template <std::size_t I, class A>
  STATICFLOW_INLINE static bool matches_shape(const shape_data& s, const A& a) {
    std::size_t rank = s.rank;
    if constexpr (is_static_value_arg<A>) return true;
    else if constexpr (kind_of<A>() == arg_kind::fixed) rank = signature_entry_t<A>::rank;
    for (std::size_t d = 0; d < rank; ++d)
      if (s.dims[d] != dyn && extent_of(a, d) != s.dims[d]) return false;
    return true;
  }

  /// The choice for a call: its general variant, or the first specialization of it that matches.
  STATICFLOW_INLINE static std::size_t select(const Self& self, const Args&... args) {
    std::size_t v = 0;
    if constexpr (general_count > 1) v = general_index(self, args...);
    if constexpr (any_specialization) {
      const auto& app = applicable_table[v];
      for (std::size_t j = 0; j < app.count; ++j) {
        const auto& m = app.list[j];
        const bool match = [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
          return ((!m.changed[I] || matches_shape<I>(m.shapes[I], args)) && ...);
        }(std::index_sequence_for<Args...>{});
        if (match) return offsets[v] + j;
      }
      return offsets[v] + app.count;
    } else {
      return offsets[v];
    }
  }

  // -- checks and conversions to a choice's signature ------------------------------------------

  /// Run-time checks of argument I against entry E of an input signature (signature_error).
  template <std::size_t I, class E, class A>
  static void check_against_signature(const Self& self, const A& a) {
    if constexpr (!config::has_signature || !spec_type<E>) {
      return;
    } else {
      constexpr arg_kind k = kind_of<A>();
      auto fail = [&](const std::string& what) {
        throw signature_error(dispatch_access::settings(self).label(I) + " has " + what + " (got " + arg_spec_string(a) +
                              ", the input signature has " + short_spec_string(E{}) + ")");
      };
      if constexpr (k == arg_kind::runtime_dtype) {
        if (a.dtype() != dtype_id_of<typename E::value_type>)
          fail("dtype " + std::string(dtype_name_of(a.dtype())) + ", expected " +
               std::string(dtype_name<typename E::value_type>));
      }
      if constexpr (k != arg_kind::fixed) {
        if (rank_of(a) != E::rank)
          fail("rank " + std::to_string(rank_of(a)) + ", expected rank " + std::to_string(E::rank));
      }
      constexpr bool may_differ = [] {
        if constexpr (k != arg_kind::fixed) {
          for (std::size_t d = 0; d < E::rank; ++d)
            if (E::shape_type::dims[d] != dyn) return true;
          return false;
        } else {
          return match_entry<E, signature_entry_t<A>>() == entry_match::check_dims;
        }
      }();
      if constexpr (may_differ) {
        bool same = true;
        for (std::size_t d = 0; d < E::rank; ++d)
          if (E::shape_type::dims[d] != dyn && extent_of(a, d) != E::shape_type::dims[d]) same = false;
        if (!same) {
          extents<E::rank> got{};
          for (std::size_t d = 0; d < E::rank; ++d) got[d] = extent_of(a, d);
          fail("shape " + runtime_shape_string(got, E::rank) + ", expected " +
               runtime_shape_string(E::shape_type::dims, E::rank));
        }
      }
    }
  }

  /// What argument I is handed to the concrete function of entry E as: itself when its own
  /// entry is E, else a tensor_ref of spec E over its data.
  template <class E, class A>
  static constexpr bool passes_through() {
    if constexpr (kind_of<A>() == arg_kind::fixed)
      return std::is_same<signature_entry_t<A>, E>::value || spec_type<A> || static_value_type<A>;
    else return false;
  }
  template <class E, class A>
  static auto converted_of() {
    if constexpr (passes_through<E, A>()) return std::type_identity<const A&>{};
    else return std::type_identity<tensor_ref<typename E::value_type, typename E::shape_type>>{};
  }
  template <class E, class A>
  using converted_t = typename decltype(converted_of<E, A>())::type;

  template <std::size_t I, class E, class A>
  STATICFLOW_INLINE static converted_t<E, A> convert(const Self& self, const A& a) {
    check_against_signature<I, E>(self, a);
    if constexpr (passes_through<E, A>()) {
      return a;
    } else {
      using T = typename E::value_type;
      extents<E::rank> ext{};
      for (std::size_t d = 0; d < E::rank; ++d) ext[d] = extent_of(a, d);
      return {static_cast<const T*>(data_of(a)), ext};
    }
  }


  template <class Sig>
  STATICFLOW_INLINE static auto make_views(const Self& self, const Args&... args) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
      return std::tuple<converted_t<std::tuple_element_t<I, Sig>, arg_t<I>>...>{
          convert<I, std::tuple_element_t<I, Sig>>(self, args)...};
    }(std::index_sequence_for<Args...>{});
  }

  template <class Sig>
  using concrete_t = typename Self::template concrete_for_signature<Sig>;

  template <class Sig, std::size_t... I>
  static auto raw_result_of(std::index_sequence<I...>) -> decltype(std::declval<const concrete_t<Sig>&>()(
      std::declval<const std::remove_cvref_t<converted_t<std::tuple_element_t<I, Sig>, arg_t<I>>>&>()...));
  template <class Sig>
  using raw_result_t = decltype(raw_result_of<Sig>(std::index_sequence_for<Args...>{}));

  /// Calls concrete function c with the views (std::apply, force-inlined).
  template <class C, class Views>
  STATICFLOW_INLINE static decltype(auto) apply_views(const C& c, const Views& views) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE -> decltype(auto) {
      return c(staticflow::detail::get<I>(views)...);
    }(std::index_sequence_for<Args...>{});
  }

  // -- results ----------------------------------------------------------------------------------

  static constexpr bool runtime_args = ((kind_of<Args>() != arg_kind::fixed) || ...);
  static constexpr bool tensor_args = ((kind_of<Args>() == arg_kind::runtime_dtype) || ...);
  /// Results of xt::xarray / sf::tensor calls come back as xt::xarray / sf::tensor (their rank,
  /// even their dtype, depends on the variant); with an input signature, as the one graph's.
  static constexpr bool erased_results = runtime_args && !config::has_signature;

  template <class X>
  static auto erased_element() {
    if constexpr (tensor_args) return tensor{};
    else return xt::xarray<typename result_info<X>::value_type>{};
  }

  template <class LastGeneral>
  static auto result_of_site() {
    using R0 = raw_result_t<LastGeneral>;
    if constexpr (std::is_void<R0>::value || !erased_results) {
      return std::type_identity<R0>{};
    } else if constexpr (is_tuple<R0>::value) {
      return []<class... X>(std::type_identity<std::tuple<X...>>) {
        return std::type_identity<std::tuple<decltype(erased_element<X>())...>>{};
      }(std::type_identity<R0>{});
    } else {
      return std::type_identity<decltype(erased_element<R0>())>{};
    }
  }
  /// What a call returns (the argument keeps it from being computed for get_concrete_function).
  template <std::size_t Last = choice_count - 1>
  using result_t = typename decltype(result_of_site<choice_t<Last>>())::type;

  template <class R, class X>
  static R to_result_element(X&& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (std::is_same<R, U>::value) {
      return std::forward<X>(x);
    } else if constexpr (std::is_same<R, tensor>::value) {
      return tensor::from_container(std::forward<X>(x));
    } else if constexpr (runtime_rank_tensor<R>) {
      using T = typename R::value_type;
      static_assert(std::is_same<typename result_info<U>::value_type, T>::value,
                    "staticflow: the variants of this call return different dtypes (the body depends on "
                    "the rank); pass sf::tensor arguments to get sf::tensor results");
      return to_xarray<T>(std::forward<X>(x));
    } else {
      // a specialized variant's static result, returned as the general variant's container
      R out = R::from_shape(x.shape());
      std::copy(x.data(), x.data() + x.size(), out.data());
      return out;
    }
  }

  template <class result_type, class X>
  static result_type to_result(X&& x) {
    if constexpr (is_tuple<result_type>::value) {
      static_assert(is_tuple<std::remove_cvref_t<X>>::value &&
                        std::tuple_size<std::remove_cvref_t<X>>::value == std::tuple_size<result_type>::value,
                    "staticflow: the variants of this call return different numbers of results");
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return result_type{to_result_element<std::tuple_element_t<K, result_type>>(std::get<K>(std::move(x)))...};
      }(std::make_index_sequence<std::tuple_size<result_type>::value>{});
    } else {
      return to_result_element<result_type>(std::forward<X>(x));
    }
  }

  // -- calls -------------------------------------------------------------------------------------

  template <class Sig>
  STATICFLOW_INLINE static auto& concrete(Self& self) {
    if constexpr (dispatched) return dispatch_access::dispatched_concrete<Sig>(self);
    else return dispatch_access::concrete<Sig>(self);
  }

  template <std::size_t C>
  STATICFLOW_INLINE static result_t<choice_count - 1 + 0 * C> invoke(Self& self, const Args&... args) {
    using result_type = result_t<>;
    using Sig = choice_t<C>;
    const auto views = make_views<Sig>(self, args...);  // every check before anything runs
    if constexpr (Self::eager_path) {
      if (functions_run_eagerly()) [[unlikely]] {
        const auto traced = dispatch_access::eager_trace<Sig>(self);
        const auto& e = static_cast<const eager_concrete_t<Sig>&>(*traced);
        if constexpr (std::is_void<result_type>::value) return apply_views(e, views);
        else return to_result<result_type>(apply_views(e, views));
      }
    }
    const auto& c = concrete<Sig>(self);
    if constexpr (std::is_void<result_type>::value) apply_views(c, views);
    else return to_result<result_type>(apply_views(c, views));
  }

  template <class Sig>
  using eager_concrete_t = typename Self::template concrete_for_signature<Sig, backend::eager_t>;

  /// A few choices are an if-chain of inlined calls; more go through the table of pointers.
  static constexpr bool few_choices = choice_count <= 4;

  template <std::size_t C, class R>
  STATICFLOW_INLINE static R call_chain(std::size_t c, Self& self, const Args&... args) {
    if constexpr (C + 1 == choice_count) {
      return invoke<C>(self, args...);
    } else {
      if (c == C) return invoke<C>(self, args...);
      return call_chain<C + 1, R>(c, self, args...);
    }
  }

  template <std::size_t C, class Out>
  STATICFLOW_INLINE static void into_chain(std::size_t c, Self& self, Out& out, const Args&... args) {
    if constexpr (C + 1 == choice_count) {
      invoke_into<C>(self, out, args...);
    } else {
      if (c == C) return invoke_into<C>(self, out, args...);
      into_chain<C + 1>(c, self, out, args...);
    }
  }

  STATICFLOW_INLINE static decltype(auto) call(Self& self, const Args&... args) {
    using result_type = result_t<>;
    if constexpr (single_choice) {
      return invoke<0>(self, args...);
    } else if constexpr (few_choices) {
      return call_chain<0, result_type>(select(self, args...), self, args...);
    } else {
      using invoke_fn = result_type (*)(Self&, const Args&...);
      static constexpr auto table = []<std::size_t... C>(std::index_sequence<C...>) {
        return std::array<invoke_fn, choice_count>{&invoke<C>...};
      }(std::make_index_sequence<choice_count>{});
      return table[select(self, args...)](self, args...);
    }
  }

  // -- call_into ---------------------------------------------------------------------------------

  /// Output K of a call_into, adapted to a result of dtype T and rank R: the container itself, a
  /// tensor_out_ref over an xt::xarray or sf::tensor, or (a mismatch) nothing.
  template <std::size_t K, class T, std::size_t R, class O>
  static constexpr bool output_fits() {
    using U = std::remove_cvref_t<O>;
    if constexpr (std::is_arithmetic<U>::value) return R == 0 && std::is_same<U, T>::value;
    else if constexpr (std::is_same<U, tensor>::value) return true;
    else if constexpr (runtime_rank_tensor<U>) return std::is_same<std::remove_cv_t<typename U::value_type>, T>::value;
    else return U::rank == R && std::is_same<std::remove_cv_t<typename U::value_type>, T>::value;
  }

  [[noreturn]] [[gnu::cold]] static void output_rank_error(std::size_t k, std::size_t have, std::size_t want) {
    throw shape_error("call_into: output " + std::to_string(k) + " has rank " + std::to_string(have) +
                      ", the result has rank " + std::to_string(want));
  }
  [[noreturn]] [[gnu::cold]] static void output_dtype_error(std::size_t k, std::string_view have, std::string_view want) {
    throw signature_error("call_into: output " + std::to_string(k) + " has dtype " + std::string(have) +
                          ", the result has dtype " + std::string(want));
  }

  /// Run-time checks of output K against a result of dtype T and rank R (before anything runs).
  template <std::size_t K, class T, std::size_t R, class O>
  STATICFLOW_INLINE static void check_output(O& out) {
    using U = std::remove_cvref_t<O>;
    if constexpr (!output_fits<K, T, R, O>()) {
      if constexpr (std::is_arithmetic<U>::value || !runtime_rank_tensor<U>) {
        constexpr std::size_t have = [] {
          if constexpr (std::is_arithmetic<U>::value) return std::size_t{0};
          else return U::rank;
        }();
        using H = std::conditional_t<std::is_arithmetic<U>::value, U, std::remove_cv_t<typename result_info<U>::value_type>>;
        if (have != R) output_rank_error(K, have, R);
        output_dtype_error(K, dtype_name<canonical_dtype_t<H>>, dtype_name<T>);
      } else {
        output_dtype_error(K, dtype_name<std::remove_cv_t<typename U::value_type>>, dtype_name<T>);
      }
    } else if constexpr (std::is_same<U, tensor>::value) {
      if (out.dtype() != dtype_id_of<T>) output_dtype_error(K, dtype_name_of(out.dtype()), dtype_name<T>);
      if (out.rank() != R) output_rank_error(K, out.rank(), R);
    } else if constexpr (runtime_rank_tensor<U>) {
      if (out.shape().size() != R) output_rank_error(K, out.shape().size(), R);
    }
  }

  template <class T, std::size_t R, class O>
  STATICFLOW_INLINE static decltype(auto) adapt_output(O& out) {
    using U = std::remove_cvref_t<O>;
    if constexpr (std::is_same<U, tensor>::value || runtime_rank_tensor<U>) {
      extents<R> ext{};
      for (std::size_t d = 0; d < R; ++d) ext[d] = static_cast<std::size_t>(out.shape()[d]);
      T* data;
      if constexpr (std::is_same<U, tensor>::value) data = static_cast<T*>(out.raw_data());
      else data = out.data();
      return tensor_out_ref<T, R>{data, ext};
    } else {
      return static_cast<O&>(out);
    }
  }

  template <std::size_t C, class Out>
  STATICFLOW_INLINE static void invoke_into(Self& self, Out& out, const Args&... args) {
    using Sig = choice_t<C>;
    using raw = raw_result_t<Sig>;
    const auto views = make_views<Sig>(self, args...);
    if constexpr (std::is_void<raw>::value) {
      static_assert(detail::always_false<Out>, "staticflow: call_into: this function returns nothing");
    } else {
      constexpr bool several = is_tuple<raw>::value;
      auto outs = [&]() STATICFLOW_LAMBDA_INLINE -> decltype(auto) {
        if constexpr (is_tuple<std::remove_cvref_t<Out>>::value) return (out);
        else return std::tuple<Out&>{out};
      }();
      using outs_t = std::remove_cvref_t<decltype(outs)>;
      using raws_t = std::conditional_t<several, raw, std::tuple<raw>>;
      static_assert(std::tuple_size<outs_t>::value == std::tuple_size<raws_t>::value,
                    "staticflow: call_into needs one output container per result (std::tie them)");
      constexpr bool all_fit = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return (output_fits<K, typename result_info<std::tuple_element_t<K, raws_t>>::value_type,
                            result_info<std::tuple_element_t<K, raws_t>>::rank,
                            std::tuple_element_t<K, outs_t>>() && ...);
      }(std::make_index_sequence<std::tuple_size<raws_t>::value>{});
      [&]<std::size_t... K>(std::index_sequence<K...>) STATICFLOW_LAMBDA_INLINE {
        (check_output<K, typename result_info<std::tuple_element_t<K, raws_t>>::value_type,
                      result_info<std::tuple_element_t<K, raws_t>>::rank>(staticflow::detail::get<K>(outs)),
         ...);
        if constexpr (all_fit) {
          const auto call_into_with = [&](const auto& c, auto& outputs) STATICFLOW_LAMBDA_INLINE {
            [&]<std::size_t... I>(std::index_sequence<I...>) STATICFLOW_LAMBDA_INLINE {
              if constexpr (several) c.call_into(outputs, staticflow::detail::get<I>(views)...);
              else c.call_into(staticflow::detail::get<0>(outputs), staticflow::detail::get<I>(views)...);
            }(std::index_sequence_for<Args...>{});
          };
          auto adapted = std::tuple<decltype(adapt_output<typename result_info<std::tuple_element_t<K, raws_t>>::value_type,
                                                          result_info<std::tuple_element_t<K, raws_t>>::rank>(
              staticflow::detail::get<K>(outs)))...>{
              adapt_output<typename result_info<std::tuple_element_t<K, raws_t>>::value_type,
                           result_info<std::tuple_element_t<K, raws_t>>::rank>(staticflow::detail::get<K>(outs))...};
          if constexpr (Self::eager_path) {
            if (functions_run_eagerly()) [[unlikely]] {
              // the eager trace lives in this branch only: its unique_ptr is no cost of the common path
              const std::unique_ptr<concrete_function_base> traced = dispatch_access::eager_trace<Sig>(self);
              call_into_with(static_cast<const eager_concrete_t<Sig>&>(*traced), adapted);
              return;
            }
          }
          call_into_with(concrete<Sig>(self), adapted);
        }
      }(std::make_index_sequence<std::tuple_size<raws_t>::value>{});
    }
  }

  template <class Out>
  STATICFLOW_INLINE static void call_into(Self& self, Out& out, const Args&... args) {
    if constexpr (single_choice) {
      invoke_into<0>(self, out, args...);
    } else if constexpr (few_choices) {
      into_chain<0>(select(self, args...), self, out, args...);
    } else {
      using fn = void (*)(Self&, Out&, const Args&...);
      static constexpr auto table = []<std::size_t... C>(std::index_sequence<C...>) {
        return std::array<fn, choice_count>{&invoke_into<C, Out>...};
      }(std::make_index_sequence<choice_count>{});
      table[select(self, args...)](self, out, args...);
    }
  }

  // -- get_concrete_function and explain_miss ------------------------------------------------------

  template <std::size_t I, class E, class A>
  static void check_only(const Self& self, const A& a) {
    check_against_signature<I, E>(self, a);
  }

  template <std::size_t C>
  static concrete_function_ref get_choice(Self& self, const Args&... args) {
    using Sig = choice_t<C>;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (check_only<I, std::tuple_element_t<I, Sig>>(self, args), ...);
    }(std::index_sequence_for<Args...>{});
    return concrete_function_ref(dispatch_access::concrete<Sig>(self));
  }

  static decltype(auto) get(Self& self, const Args&... args) {
    if constexpr (single_choice) {
      using Sig = choice_t<0>;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (check_only<I, std::tuple_element_t<I, Sig>>(self, args), ...);
      }(std::index_sequence_for<Args...>{});
      return dispatch_access::concrete<Sig>(self);
    } else {
      using fn = concrete_function_ref (*)(Self&, const Args&...);
      static constexpr auto table = []<std::size_t... C>(std::index_sequence<C...>) {
        return std::array<fn, choice_count>{&get_choice<C>...};
      }(std::make_index_sequence<choice_count>{});
      return table[select(self, args...)](self, args...);
    }
  }

  template <std::size_t C>
  static std::string explain_choice(const Self& self, const Args&... args) {
    using Sig = choice_t<C>;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (check_only<I, std::tuple_element_t<I, Sig>>(self, args), ...);
    }(std::index_sequence_for<Args...>{});
    return dispatch_access::cache(self).explain(&type_key<Sig>, describe_signature<Sig>());
  }

  static std::string explain(const Self& self, const Args&... args) {
    using fn = std::string (*)(const Self&, const Args&...);
    static constexpr auto table = []<std::size_t... C>(std::index_sequence<C...>) {
      return std::array<fn, choice_count>{&explain_choice<C>...};
    }(std::make_index_sequence<choice_count>{});
    try {
      return table[single_choice ? 0 : select(self, args...)](self, args...);
    } catch (const signature_error& e) {
      return e.what();
    }
  }
};

}  // namespace detail
}  // namespace staticflow
