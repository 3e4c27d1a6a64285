// tests/fuzz/graph_harness.hpp -- runs a generated graph (tests/fuzz/graph_fuzz.py) on random
// inputs through every way into staticflow and compares each result with the scalar reference
// (graph_reference.hpp):
//   traced      sf::function, xt::xtensor arguments (static ranks, run-time extents)
//   call_into   the same function writing into a caller's xt::xtensor
//   threads     the traced call with sf::set_num_threads(2) (every 4th case)
//   eager       sf::run_functions_eagerly (every 4th case)
//   xarray      an input-signature function called with xt::xarray (run-time ranks: the dispatch map)
//   tensor      the same with sf::tensor (run-time dtypes)
//   static      xt::xtensor_fixed arguments of the graph's static extents (the first case)
//   thrust      sf::backend::thrust on the OpenMP host system (graph_harness_thrust.hpp)
// Each case's extents and values come from (graph seed, case number) alone, so a failure prints
// everything needed to replay it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>
#if defined(STATICFLOW_FUZZ_THRUST)
#include <staticflow/backend/thrust/thrust.hpp>
#endif

#include "graph_reference.hpp"

namespace fuzz {
namespace sf = staticflow;

/// An argument (or the result) of a generated graph: its dtype and rank.
template <class T, std::size_t R>
struct arg {
  using type = T;
  static constexpr std::size_t rank = R;
};

/// What the generator knows of a graph besides its two programs.
struct graph_info {
  std::uint64_t seed;
  const char* listing;                       // the graph, one op a line
  std::vector<std::vector<int>> input_axes;  // per argument: named axis 0..2, or -1 for an extent of 1
  std::array<std::size_t, 3> static_sizes;   // the named axes' extents of the static-shape call
  double special_rate;                       // the share of NaN, inf, -0.0, denormals, INT_MIN ...
  int cases;
  bool squares;                              // a matmul makes a [n, n] result: smaller extents
};

template <class T>
constexpr kind kind_of() {
  if constexpr (std::is_same_v<T, bool>) return kind::boolean;
  else if constexpr (std::is_same_v<T, float>) return kind::f32;
  else if constexpr (std::is_same_v<T, double>) return kind::f64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return kind::i32;
  else return kind::i64;
}

/// One case's extents of the named axes: mostly small, sometimes the SIMD tails and the threaded
/// sizes (7, 33, 1000, 4097), sometimes 0 or 1; at most 2^16 elements over all three (and with
/// `squares`, at most 2^18 multiply-adds in a matmul of two of them).
inline std::array<std::size_t, 3> draw_sizes(std::mt19937_64& rng, bool squares) {
  static constexpr std::array<std::size_t, 12> choices{0, 1, 1, 2, 3, 5, 7, 7, 33, 33, 1000, 4097};
  for (;;) {
    std::array<std::size_t, 3> s{};
    for (auto& e : s) e = choices[rng() % choices.size()];
    const std::size_t all = s[0] * s[1] * s[2], largest = std::max({s[0], s[1], s[2]});
    if (all <= (1u << 16) && (!squares || largest * largest * std::max<std::size_t>(all / std::max<std::size_t>(largest, 1), 1) <= (1u << 18)))
      return s;
  }
}

template <class T>
T draw_value(std::mt19937_64& rng, double special_rate) {
  std::uniform_real_distribution<double> unit(0, 1);
  const bool special = unit(rng) < special_rate;
  if constexpr (std::is_floating_point_v<T>) {
    using lim = std::numeric_limits<T>;
    if (special) {
      static constexpr int count = 10;
      switch (rng() % count) {
        case 0: return lim::quiet_NaN();
        case 1: return lim::infinity();
        case 2: return -lim::infinity();
        case 3: return T(-0.0);
        case 4: return T(0);
        case 5: return lim::denorm_min() * T(3);
        case 6: return -lim::min() / T(4);  // a denormal
        case 7: return lim::max();
        case 8: return T(1e30);
        default: return T(-1e-30);
      }
    }
    if (unit(rng) < 0.2) return static_cast<T>(static_cast<int>(rng() % 9) - 4);  // ties and exact values
    return static_cast<T>(unit(rng) * 8 - 4);
  } else {
    using lim = std::numeric_limits<T>;
    if (special) {
      switch (rng() % 5) {
        case 0: return lim::min();
        case 1: return lim::max();
        case 2: return T(-1);
        case 3: return T(0);
        default: return T(1);
      }
    }
    return static_cast<T>(static_cast<std::int64_t>(rng() % 101) - 50);
  }
}

template <class C>
value to_value(const C& c) {
  using T = typename C::value_type;
  value v = value::make(kind_of<T>(), std::vector<std::size_t>(c.shape().begin(), c.shape().end()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) v.n[i] = static_cast<std::int64_t>(c.data()[i]);
    else v.x[i] = static_cast<double>(c.data()[i]);
  }
  return v;
}

/// A result as shape and values (a C++ scalar, an xtensor-like container, an sf::tensor).
struct observed {
  std::vector<std::size_t> shape;
  std::vector<double> x;
  std::vector<std::int64_t> n;
};
template <class R>
observed observe(const R& r) {
  observed o;
  if constexpr (std::is_arithmetic_v<R>) {
    if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) o.n.push_back(r);
    else o.x.push_back(static_cast<double>(r));
  } else if constexpr (std::is_same_v<R, sf::tensor>) {
    o.shape.assign(r.shape().begin(), r.shape().end());
    r.visit([&](const auto* p) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
      for (std::size_t i = 0; i < r.size(); ++i) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) o.n.push_back(p[i]);
        else o.x.push_back(static_cast<double>(p[i]));
      }
    });
  } else {
    using T = typename R::value_type;
    o.shape.assign(r.shape().begin(), r.shape().end());
    for (std::size_t i = 0; i < r.size(); ++i) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) o.n.push_back(r.data()[i]);
      else o.x.push_back(static_cast<double>(r.data()[i]));
    }
  }
  return o;
}

/// The tally of one graph's checks.
struct tally {
  std::size_t cases = 0, elements = 0, checked = 0;
};

/// Compares a result with the reference; returns "" or what differs (the first few elements).
inline std::string compare(const value& ref, const observed& got, tally& t) {
  std::ostringstream why;
  if (got.shape != ref.shape) {
    why << "shape (";
    for (auto e : got.shape) why << e << ",";
    why << ") where the reference has (";
    for (auto e : ref.shape) why << e << ",";
    why << ")";
    return why.str();
  }
  int shown = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ++t.elements;
    if (!ref.known[i]) continue;
    ++t.checked;
    bool ok;
    double g, r;
    if (is_int(ref.k)) {
      ok = got.n[i] == ref.n[i];
      g = static_cast<double>(got.n[i]), r = static_cast<double>(ref.n[i]);
    } else {
      g = got.x[i], r = ref.x[i];
      if (std::isnan(r) || std::isinf(r) || ref.k == kind::boolean) ok = (std::isnan(r) && std::isnan(g)) || g == r;
      else ok = std::fabs(g - r) <= ref.err[i];
    }
    if (!ok && shown++ < 4)
      why << "element " << i << ": " << g << " where the reference is " << r << " +- " << ref.err[i] << "; ";
  }
  return why.str();
}

template <class T, std::size_t R>
xt::xtensor<T, R> make_input(std::mt19937_64& rng, const std::vector<int>& axes, const std::array<std::size_t, 3>& sizes, double special) {
  std::array<std::size_t, R> shape{};
  for (std::size_t d = 0; d < R; ++d) shape[d] = axes[d] < 0 ? 1 : sizes[static_cast<std::size_t>(axes[d])];
  auto x = xt::xtensor<T, R>::from_shape(shape);
  for (auto& v : x) v = draw_value<T>(rng, special);
  return x;
}

/// Every argument of a case, in order (a braced list evaluates left to right).
template <class... A, std::size_t... I>
std::tuple<xt::xtensor<typename A::type, A::rank>...> make_inputs_of(std::index_sequence<I...>, std::mt19937_64& rng, const graph_info& info,
                                                                    const std::array<std::size_t, 3>& sizes, double special) {
  return {make_input<typename A::type, A::rank>(rng, info.input_axes[I], sizes, special)...};
}
template <class... A>
std::tuple<xt::xtensor<typename A::type, A::rank>...> make_inputs(std::mt19937_64& rng, const graph_info& info,
                                                                 const std::array<std::size_t, 3>& sizes, double special) {
  return make_inputs_of<A...>(std::index_sequence_for<A...>{}, rng, info, sizes, special);
}

/// xt::xtensor_fixed of the static-shape call: the named axes' static extents.
template <std::size_t... E, class T>
xt::xtensor_fixed<T, xt::xshape<E...>> fixed_copy(const xt::xtensor<T, sizeof...(E)>& x) {
  xt::xtensor_fixed<T, xt::xshape<E...>> f;
  // an extent of 0: nothing to copy (and g++ 12 warns of the copy into its null data, -Wnonnull,
  // depending on what else the TU inlines)
  if constexpr ((... && (E != 0))) std::copy(x.begin(), x.end(), f.begin());
  return f;
}

template <class A, std::size_t... I>
auto signature_spec(std::index_sequence<I...>) -> sf::spec<typename A::type, ((void)I, sf::dyn)...>;
template <class A>
using dyn_spec = decltype(signature_spec<A>(std::make_index_sequence<A::rank>{}));

/// Runs one graph's cases through every CPU path; `call_static(f, args...)` calls f with the
/// static-shape copies of the first case's arguments (generated: their extents are template
/// arguments).
template <class Out, class... A, class Fn, class Ref, class Static>
tally check_forward(const graph_info& info, Fn fn, Ref reference, Static call_static) {
  auto traced = sf::function(fn);
  auto dispatched = sf::function<dyn_spec<A>...>(fn);
  tally t;
  const std::size_t saved_threads = sf::num_threads();
  for (int c = 0; c < info.cases; ++c) {
    std::mt19937_64 rng(info.seed * 1000003u + static_cast<std::uint64_t>(c));
    const auto sizes = c == 0 ? info.static_sizes : draw_sizes(rng, info.squares);
    const auto args = make_inputs<A...>(rng, info, sizes, info.special_rate);
    const value ref = std::apply([&](const auto&... a) { return reference(std::vector<value>{to_value(a)...}); }, args);
    ++t.cases;
    const auto check = [&](const char* path, const observed& got) {
      const std::string why = compare(ref, got, t);
      INFO("graph seed " << info.seed << ", case " << c << " (extents " << sizes[0] << ", " << sizes[1] << ", " << sizes[2]
                         << "), path " << path << "\n" << info.listing);
      CHECK(why == "");
    };
    check("traced", observe(std::apply(traced, args)));
    xt::xtensor<typename Out::type, Out::rank> out;
    if constexpr (Out::rank > 0) {
      std::array<std::size_t, Out::rank> s{};
      std::copy(ref.shape.begin(), ref.shape.end(), s.begin());
      out = xt::xtensor<typename Out::type, Out::rank>::from_shape(s);
    }
    std::apply([&](const auto&... a) { traced.call_into(out, a...); }, args);
    check("call_into", observe(out));
    if (c % 4 == 1) {
      sf::set_num_threads(2);
      check("threads", observe(std::apply(traced, args)));
      sf::set_num_threads(saved_threads);
    } else if (c % 4 == 2) {
#if STATICFLOW_EAGER_MODE
      const sf::run_functions_eagerly_scope eager;
      check("eager", observe(std::apply(traced, args)));
#endif
    } else if (c % 4 == 3) {
      check("xarray", observe(std::apply([&](const auto&... a) { return dispatched(xt::xarray<typename A::type>(a)...); }, args)));
      check("tensor", observe(std::apply([&](const auto&... a) { return dispatched(sf::tensor(xt::xarray<typename A::type>(a))...); }, args)));
    } else if (c == 0) {
      check("static", observe(std::apply([&](const auto&... a) { return call_static(traced, a...); }, args)));
    }
  }
  return t;
}

/// The TEST_CASE of a forward graph: every path, and something checked.
template <class Out, class... A, class Fn, class Ref, class Static>
void run_forward(const graph_info& info, Fn fn, Ref reference, Static call_static) {
  const tally t = check_forward<Out, A...>(info, fn, reference, call_static);
  INFO("graph seed " << info.seed << ": " << t.checked << " of " << t.elements << " elements decided by the bounds");
  CHECK(t.cases == static_cast<std::size_t>(info.cases));
  CHECK(t.checked * 2 >= t.elements);  // the bounds decide most elements: the test is not vacuous
}

#if defined(STATICFLOW_FUZZ_THRUST)
template <class R>
auto host_of(const R& r) {
  if constexpr (std::is_arithmetic_v<R>) return r;
  else return r.to_host();
}

/// The Thrust backend (the OpenMP host system in CI): the traced call on device tensors, every
/// fourth case (the first one, static extents, included), against the same reference.
template <class Out, class... A, class Fn, class Ref, class Static>
void run_forward_thrust(const graph_info& info, Fn fn, Ref reference, Static) {
  auto on_device = sf::function(fn, sf::backend::thrust);
  tally t;
  for (int c = 0; c < info.cases; c += 4) {
    std::mt19937_64 rng(info.seed * 1000003u + static_cast<std::uint64_t>(c));
    const auto sizes = c == 0 ? info.static_sizes : draw_sizes(rng, info.squares);
    const auto args = make_inputs<A...>(rng, info, sizes, info.special_rate);
    const value ref = std::apply([&](const auto&... a) { return reference(std::vector<value>{to_value(a)...}); }, args);
    ++t.cases;
    const std::string why =
        compare(ref, observe(host_of(std::apply([&](const auto&... a) { return on_device(sf::to_device(a)...); }, args))), t);
    INFO("graph seed " << info.seed << ", case " << c << " (extents " << sizes[0] << ", " << sizes[1] << ", " << sizes[2]
                       << "), path thrust/" << sf::thrust_backend::device_system_name() << "\n" << info.listing);
    CHECK(why == "");
  }
  CHECK(t.checked * 2 >= t.elements);
}
#endif

/// sum(fn(args...))'s gradients with respect to every (float64) argument against central
/// differences of the traced forward call, on small random shapes with values in [-1, 1]. The
/// functions take the graph's input signature (`Specs`: the dimensions of extent 1 static, as a
/// gradient needs them: autodiff/adjoint_shape.hpp; tests/autodiff/test_broadcasting.cpp checks
/// the error a run-time extent of 1 broadcast gives).
template <class... A, class... Specs, std::size_t... I, class Fn>
void run_gradient_of(std::type_identity<std::tuple<Specs...>>, std::index_sequence<I...>, const graph_info& info, Fn fn) {
  auto forward = sf::function<Specs...>(fn);
  auto value_and_grad = sf::function<Specs...>(sf::value_and_grad_fn<I...>(fn));
  const auto total = [](const auto& r) {
    const observed o = observe(r);
    double s = 0;
    for (double v : o.x) s += v;
    return s;
  };
  std::size_t checked = 0;
  for (int c = 0; c < info.cases; ++c) {
    std::mt19937_64 rng(info.seed * 1000003u + static_cast<std::uint64_t>(c));
    static constexpr std::array<std::size_t, 6> choices{0, 1, 2, 3, 4, 5};
    const std::array<std::size_t, 3> sizes{choices[rng() % 6], choices[rng() % 6], choices[rng() % 6]};
    std::uniform_real_distribution<double> unit(-1, 1);
    auto args = make_inputs<A...>(rng, info, sizes, 0.0);
    std::apply([&](auto&... a) { ((std::for_each(a.begin(), a.end(), [&](double& v) { v = unit(rng); })), ...); }, args);
    INFO("gradient graph seed " << info.seed << ", case " << c << " (extents " << sizes[0] << ", " << sizes[1] << ", "
                                << sizes[2] << ")\n" << info.listing);
    const auto result = std::apply(value_and_grad, args);
    const double value = total(std::get<0>(result)), direct = total(std::apply(forward, args));
    if (!std::isfinite(direct)) continue;  // a mean over nothing: NaN, and no derivative to check
    CHECK(std::fabs(value - direct) <= 1e-12 * (1 + std::fabs(direct)));
    const auto check_argument = [&](auto k) {
      constexpr std::size_t arg = decltype(k)::value;
      const observed grad = observe(std::get<arg + 1>(result));
      auto& x = std::get<arg>(args);
      REQUIRE(grad.x.size() == x.size());
      std::string worst;
      for (std::size_t e = 0; e < x.size(); ++e) {
        const double x0 = x.data()[e];
        const double h = 1e-6;
        x.data()[e] = x0 + h;
        const double up = total(std::apply(forward, args));
        x.data()[e] = x0 - h;
        const double down = total(std::apply(forward, args));
        x.data()[e] = x0;
        const double numeric = (up - down) / (2 * h);
        const double tolerance = 1e-5 * (1 + std::fabs(numeric)) + 1e-9 * (1 + std::fabs(direct));
        ++checked;
        if (worst.empty() && !(std::fabs(grad.x[e] - numeric) <= tolerance))
          worst = "argument " + std::to_string(arg) + ", element " + std::to_string(e) + ": " + std::to_string(grad.x[e]) +
                  " where central differences give " + std::to_string(numeric);
      }
      CHECK(worst == "");
    };
    (check_argument(std::integral_constant<std::size_t, I>{}), ...);
  }
  INFO("gradient graph seed " << info.seed);
  CHECK(checked > 0);
}
template <class Specs, class... A, class Fn>
void run_gradient(const graph_info& info, Fn fn) {
  run_gradient_of<A...>(std::type_identity<Specs>{}, std::index_sequence_for<A...>{}, info, fn);
}

}  // namespace fuzz
