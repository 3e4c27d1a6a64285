// staticflow/trace/dispatch_variants.hpp -- the compile-time half of dispatch (trace/dispatch.hpp):
// what each argument of a call may be (its own signature entry; the input signature's spec; one
// `sf::dyn` spec per declared dtype x rank for a run-time rank or dtype), the general variants
// (every combination, numbered in mixed radix), the shape specializations that apply to each,
// most specific first, and the choices a call selects among; the static checks of a call against
// the function's input signature.
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

/// What a call site of argument types Args can dispatch to, all of it computed at compile time
/// from the function's configuration (its input signature, sf::dtypes, sf::ranks and shape
/// specializations): each argument's candidates, the general variants, the specializations that
/// apply to each, and the choices a call selects among (trace/dispatch.hpp's call_site adds the
/// run-time selection and the call). Functions with the same configuration share it.
template <class Config, class... Args>
struct dispatch_variants {
  using config = Config;
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
};

}  // namespace detail
}  // namespace staticflow
