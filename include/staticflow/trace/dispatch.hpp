// staticflow/trace/dispatch.hpp -- calls whose concrete function is chosen at run time: the
// dispatch map.
//
// A call goes through here (instead of the direct, one-thread-local-compare path of
// trace/function.hpp) when an argument has a run-time rank (xt::xarray) or dtype (sf::tensor),
// when the function has an input signature its arguments must be converted to, or when shape
// specializations may apply. Everything about a call site is computed at compile time
// (trace/dispatch_variants.hpp; this header adds the run-time selection and the call):
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
#include "staticflow/trace/dispatch_variants.hpp"
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
template <class Self, class... Args>
struct call_site : dispatch_variants<typename Self::config_type, Args...> {
  using variants = dispatch_variants<typename Self::config_type, Args...>;
  // the names of the compile-time half that the run-time selection below reads
  using typename variants::config;
  template <std::size_t I>
  using arg_t = typename variants::template arg_t<I>;
  template <std::size_t V>
  using general_t = typename variants::template general_t<V>;
  template <std::size_t C>
  using choice_t = typename variants::template choice_t<C>;
  using variants::strides;
  using variants::general_count;
  using variants::applicable_table;
  using variants::any_specialization;
  using variants::offsets;
  using variants::choice_count;
  using variants::single_choice;
  using variants::dispatched;

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
