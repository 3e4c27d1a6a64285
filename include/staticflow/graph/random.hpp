// staticflow/graph/random.hpp -- random numbers inside a trace, stateless and reproducible, as
// tf.random.stateless_uniform / stateless_normal / stateless_uniform_full_int / split / fold_in
// and tf.nn.experimental.stateless_dropout.
//
//   auto f = sf::function([](auto x, auto seed) {                     // seed: int64 [2], or {1, 2}
//     return x + sf::random::stateless_normal(sf::shape<4, 3>{}, seed);
//   });
//
// Values are TensorFlow's, bit for bit on the CPU, for the same seed (core/philox.hpp). The seed
// is an int32 / int64 tensor of shape [2] read when the function runs (a new seed per training
// step costs no retrace) or two C++ integers fixed when it is traced ({1, 2}); the shape a static
// sf::shape<...> or sf::shape_of(x) (x's run-time extents, as `tf.shape(x)`). Element i is a
// function of the seed and i alone: any thread count and any backend give the same numbers.
// A node of random values is materialized (its backend fills a buffer block by block); scaling
// to [minval, maxval) or to (mean, stddev) is elementwise after it, as in TF's Python wrapper.
// The stateful generator (tf.random.Generator) is effects/random_generator.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/philox.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace graph {

/// What every distribution here shares: a 32-bit value per 32 random bits, a 64-bit one per 64
/// (so 4 or 2 values per Philox block), and no parameters to print unless it says so.
struct philox_distribution {
  template <class T>
  static constexpr unsigned per_block = sizeof(T) == 4 ? 4 : 2;
  std::string parameters() const { return ""; }
  constexpr bool operator==(const philox_distribution&) const = default;
};

/// Uniform in [0, 1): floats from 32 bits each, doubles from 64.
struct unit_uniform : philox_distribution {
  static constexpr const char* stateless_name = "StatelessRandomUniformV2";
  static constexpr const char* stateful_name = "StatefulUniform";
  template <class T>
  STATICFLOW_HD void fill(const philox::block& r, T* v) const {
    if constexpr (sizeof(T) == 4) {
      for (std::size_t k = 0; k < 4; ++k) v[k] = philox::unit_float(r[k]);
    } else {
      v[0] = philox::unit_double(r[0], r[1]);
      v[1] = philox::unit_double(r[2], r[3]);
    }
  }
  constexpr bool operator==(const unit_uniform&) const = default;
};

/// Standard normals, Box-Muller on pairs of uniforms (TF's NormalDistribution).
struct standard_normal : philox_distribution {
  static constexpr const char* stateless_name = "StatelessRandomNormalV2";
  static constexpr const char* stateful_name = "StatefulStandardNormalV2";
  template <class T>
  STATICFLOW_HD void fill(const philox::block& r, T* v) const {
    if constexpr (sizeof(T) == 4) {
      philox::box_muller(philox::unit_float(r[0]), philox::unit_float(r[1]), v, v + 1);
      philox::box_muller(philox::unit_float(r[2]), philox::unit_float(r[3]), v + 2, v + 3);
    } else {
      philox::box_muller(philox::unit_double(r[0], r[1]), philox::unit_double(r[2], r[3]), v, v + 1);
    }
  }
  constexpr bool operator==(const standard_normal&) const = default;
};

/// Standard normals within two standard deviations (TF's TruncatedNormalDistribution): value
/// group k (4 floats or 2 doubles) reads the Philox words from counter + k * 256 (128 for
/// doubles) on, one word at a time, and keeps each Box-Muller value whose magnitude is below 2
/// until the group is full, so a group's values depend on k alone, as for the other draws.
struct truncated_normal : philox_distribution {
  static constexpr const char* stateless_name = "StatelessTruncatedNormalV2";
  static constexpr const char* stateful_name = "StatefulTruncatedNormal";
  template <class T>
  static constexpr std::uint64_t group_stride = sizeof(T) == 4 ? 256 : 128;

  /// Philox's words one at a time, from a counter on (TF's SingleSampleAdapter).
  struct word_stream {
    philox::key_counter at;
    philox::block bits;
    unsigned used;
    STATICFLOW_HD explicit word_stream(const philox::key_counter& from)
        : at(from), bits(philox::generate(from.counter, from.key)), used(0) {}
    STATICFLOW_HD std::uint32_t next() {
      if (used == 4) {
        at.counter = philox::advance(at.counter, 1);
        bits = philox::generate(at.counter, at.key);
        used = 0;
      }
      return bits[used++];
    }
  };

  template <class T>
  STATICFLOW_HD void fill_group(const philox::key_counter& start, std::size_t k, T* v) const {
    word_stream words({start.key, philox::advance(start.counter, k * group_stride<T>)});
    unsigned kept = 0;
    for (;;) {  // each pair is kept with probability 0.95 or more: a few rounds at most
      T f[2];
      if constexpr (sizeof(T) == 4) {
        const std::uint32_t x0 = words.next(), x1 = words.next();
        philox::box_muller(philox::unit_float(x0), philox::unit_float(x1), f, f + 1);
      } else {
        const std::uint32_t x0 = words.next(), x1 = words.next(), x2 = words.next(), x3 = words.next();
        philox::box_muller(philox::unit_double(x0, x1), philox::unit_double(x2, x3), f, f + 1);
      }
      for (int i = 0; i < 2; ++i) {
        if (f[i] < T(2) && f[i] > T(-2)) {
          v[kept++] = f[i];
          if (kept == per_block<T>) return;
        }
      }
    }
  }
  constexpr bool operator==(const truncated_normal&) const = default;
};

/// Integers in [lo, lo + range): the random bits modulo range, plus lo (TF's rule, which has a
/// small bias when range does not divide 2^32 or 2^64, documented there too).
struct uniform_integer : philox_distribution {
  static constexpr const char* stateless_name = "StatelessRandomUniformIntV2";
  static constexpr const char* stateful_name = "StatefulUniformInt";
  std::int64_t lo = 0;
  std::uint64_t range = 1;
  template <class T>
  STATICFLOW_HD void fill(const philox::block& r, T* v) const {
    using U = std::make_unsigned_t<T>;
    if constexpr (sizeof(T) == 4) {
      for (std::size_t k = 0; k < 4; ++k) v[k] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + r[k] % static_cast<U>(range)));
    } else {
      for (std::size_t k = 0; k < 2; ++k) {
        const std::uint64_t bits = r[2 * k] | (std::uint64_t{r[2 * k + 1]} << 32);
        v[k] = static_cast<T>(static_cast<U>(lo) + bits % range);
      }
    }
  }
  constexpr bool operator==(const uniform_integer&) const = default;
  std::string parameters() const {
    return ", minval=" + std::to_string(lo) + ", maxval=" + std::to_string(static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + range));
  }
};

/// Every value of the integer dtype equally likely: the random bits themselves.
struct full_range_integer : philox_distribution {
  static constexpr const char* stateless_name = "StatelessRandomUniformFullIntV2";
  static constexpr const char* stateful_name = "StatefulUniformFullInt";
  template <class T>
  STATICFLOW_HD void fill(const philox::block& r, T* v) const {
    if constexpr (sizeof(T) == 4) {
      for (std::size_t k = 0; k < 4; ++k) v[k] = static_cast<T>(r[k]);
    } else {
      for (std::size_t k = 0; k < 2; ++k) v[k] = static_cast<T>(r[2 * k] | (std::uint64_t{r[2 * k + 1]} << 32));
    }
  }
  constexpr bool operator==(const full_range_integer&) const = default;
};

/// A seed given as two C++ integers when the function is traced: its key and counter are
/// computed then, once.
struct fixed_seed {
  std::int64_t s0 = 0, s1 = 0;
  philox::key_counter start{};
  constexpr fixed_seed(std::int64_t a, std::int64_t b)
      : s0(a), s1(b), start(philox::from_seed(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b))) {}
  constexpr bool operator==(const fixed_seed& o) const { return s0 == o.s0 && s1 == o.s1; }
};
/// The result's shape is S itself (static): no child gives it.
struct static_extents {};

namespace detail {
template <class X>
struct is_fixed_seed : std::is_same<X, fixed_seed> {};

/// Where a random node's generator starts: a fixed seed's precomputed key and counter, or the
/// values of a seed tensor (int32 / int64 [2], scrambled as TF's stateless ops) or of a
/// generator's state (int64 [3]: counter low, counter high, key; read as they are).
template <std::size_t N, class J>
STATICFLOW_HD constexpr philox::key_counter start_of(const J* seed) {
  auto word = [&](std::size_t k) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(seed[k])); };
  if constexpr (N == 2) return philox::from_seed(word(0), word(1));
  else return philox::from_state(word(0), word(1), word(2));
}
}  // namespace detail

/// count values of Dist in dtype T, shape S (or Like's run-time extents), generated from Seed:
/// value i is component i % per_block of Philox(key, counter + i / per_block). Materialized.
template <class Dist, class T, class S, class Seed, class Like>
struct random_values : node<random_values<Dist, T, S, Seed, Like>> {
  static constexpr bool materialized = true;
  static constexpr bool seed_is_node = !detail::is_fixed_seed<Seed>::value;
  static constexpr bool has_like = !std::is_same<Like, static_extents>::value;
  /// Whether the seed is a generator's state (shape [3]) rather than a stateless seed ([2]).
  static constexpr bool from_state = [] {
    if constexpr (seed_is_node) return Seed::shape_type::dims[0] == 3;
    else return false;
  }();
  /// How many values the seed tensor holds: 2 (a stateless seed, whose extent may be run-time
  /// and is then checked) or 3 (a generator's state).
  static constexpr std::size_t seed_words = from_state ? 3 : 2;
  static constexpr unsigned per_block = Dist::template per_block<T>;
  using value_type = T;
  using shape_type = S;
  using distribution = Dist;
  Dist dist;
  Seed seed;
  Like like;
  constexpr random_values(Dist d, Seed s, Like l) : dist(d), seed(s), like(l) {}

  constexpr auto children() const {
    if constexpr (seed_is_node && has_like) return child_refs<const Seed&, const Like&>{{{seed}, {like}}};
    else if constexpr (seed_is_node) return child_refs<const Seed&>{seed};
    else if constexpr (has_like) return child_refs<const Like&>{like};
    else return child_refs<>{};
  }
  template <class... C>
  constexpr auto with_children(const C&... c) const {
    const std::tuple<const C&...> kids{c...};
    if constexpr (seed_is_node && has_like) return random_values<Dist, T, S, C...>(dist, staticflow::detail::get<0>(kids), staticflow::detail::get<1>(kids));
    else if constexpr (seed_is_node) return random_values<Dist, T, S, C..., Like>(dist, staticflow::detail::get<0>(kids), like);
    else if constexpr (has_like) return random_values<Dist, T, S, Seed, C...>(dist, seed, staticflow::detail::get<0>(kids));
    else return *this;
  }
  constexpr bool same_parameters(const random_values& o) const {
    if constexpr (seed_is_node) return dist == o.dist;
    else return dist == o.dist && seed == o.seed;
  }
  std::string name() const {
    std::string s = std::string(from_state ? Dist::stateful_name : Dist::stateless_name) + "[dtype=" + std::string(dtype_name<T>);
    if constexpr (!seed_is_node) s += ", seed=(" + std::to_string(seed.s0) + ", " + std::to_string(seed.s1) + ")";
    return s + dist.parameters() + "]";
  }
  template <class... E>
  constexpr extents<S::rank> result_extents(const E&... e) const {
    if constexpr (seed_is_node) {
      if constexpr (Seed::shape_type::dims[0] == dyn) {
        const auto& seed_extents = staticflow::detail::get<0>(std::tie(e...));
        if (seed_extents[0] != 2)
          throw shape_error("random: the seed must have shape [2] (TensorFlow's stateless seed), got " +
                            staticflow::detail::extents_string(seed_extents));
      }
    }
    if constexpr (has_like) return staticflow::detail::get<sizeof...(E) - 1>(std::tie(e...));
    else return S::dims;
  }
  /// Philox block k's values written to out[k * per_block ...], the last block cut at count.
  /// (static: a device kernel copies the distribution's parameters, not the node's children)
  STATICFLOW_HD static void write_block(const Dist& dist, const philox::key_counter& start, std::size_t k, T* out,
                                        std::size_t count) {
    const std::size_t at = k * per_block;
    if (count - at >= per_block) {  // a whole block: straight into the result
      fill_values(dist, start, k, out + at);
    } else {
      T v[per_block];
      fill_values(dist, start, k, v);
      for (std::size_t j = 0; at + j < count; ++j) out[at + j] = v[j];
    }
  }
  /// Block k's values: from one Philox call, or (a truncated normal) from its own stretch of words.
  STATICFLOW_HD static void fill_values(const Dist& dist, const philox::key_counter& start, std::size_t k, T* to) {
    if constexpr (requires { dist.template fill_group<T>(start, k, to); }) dist.template fill_group<T>(start, k, to);
    else dist.template fill<T>(philox::generate(philox::advance(start.counter, k), start.key), to);
  }
};

/// A generator's state after a draw of n values (TF's RngReadAndSkip): the counter advanced by
/// 256 per value, as tf.random.Generator does (room for any distribution's use of the counter).
/// State is the int64 [3] state read before the draw; Like (or S) gives n.
template <class State, class S, class Like>
struct generator_skip : node<generator_skip<State, S, Like>> {
  static constexpr bool materialized = true;
  static constexpr bool has_like = !std::is_same<Like, static_extents>::value;
  using value_type = std::int64_t;
  using shape_type = shape<3>;
  State state;
  Like like;
  constexpr generator_skip(State s, Like l) : state(s), like(l) {}
  constexpr auto children() const {
    if constexpr (has_like) return child_refs<const State&, const Like&>{{{state}, {like}}};
    else return child_refs<const State&>{state};
  }
  template <class Y, class... C>
  constexpr auto with_children(const Y& y, const C&... c) const {
    if constexpr (has_like) return generator_skip<Y, S, C...>(y, c...);
    else return generator_skip<Y, S, Like>(y, like);
  }
  constexpr bool same_parameters(const generator_skip&) const { return true; }
  std::string name() const { return "RngReadAndSkip[delta_per_value=256]"; }
  template <class... E>
  constexpr extents<1> result_extents(const E&...) const { return {3}; }
  /// The number of values drawn, given the arguments' extents.
  template <class ArgExtents>
  std::size_t count_of(const ArgExtents& args) const {
    if constexpr (has_like) return staticflow::detail::product(node_extents(like, args));
    else return S::size;
  }
  /// The new state from the old one and the number of values drawn.
  STATICFLOW_HD static void compute(const std::int64_t* before, std::size_t n, std::int64_t* after) {
    const auto low = static_cast<std::uint64_t>(before[0]);
    const auto delta = static_cast<std::uint64_t>(n) * 256u;  // n < 2^56 for any tensor that fits in memory
    const std::uint64_t sum = low + delta;
    after[0] = static_cast<std::int64_t>(sum);
    after[1] = static_cast<std::int64_t>(static_cast<std::uint64_t>(before[1]) + (sum < low));
    after[2] = before[2];
  }
};

}  // namespace graph

namespace detail {
/// What a random op's shape argument stands for: a static shape, or sf::shape_of(x).
template <class Shape>
struct random_shape;
template <std::size_t... D>
struct random_shape<shape<D...>> {
  using type = shape<D...>;
  using like = graph::static_extents;
  static constexpr bool ok = ((D != dyn) && ...);
  static_assert(ok, "staticflow: random: a shape with sf::dyn extents; use sf::shape_of(x) for run-time extents");
  static constexpr like like_of(const shape<D...>&) { return {}; }
};
template <class X>
struct random_shape<graph::extent_query<X, -2>> {
  using type = typename X::shape_type;
  using like = X;
  static constexpr bool ok = true;
  static constexpr X like_of(const graph::extent_query<X, -2>& q) { return q.a; }
};
template <class Shape>
concept random_shape_argument = requires { typename random_shape<Shape>::type; };

template <class Spec>  // keyed on the seed's spec: one report for the traced and the eager call
struct seed_check {
  using J = typename Spec::value_type;
  static constexpr bool ok = (std::is_same<J, std::int32_t>::value || std::is_same<J, std::int64_t>::value) &&
                             (std::is_same<typename Spec::shape_type, shape<2>>::value ||
                              std::is_same<typename Spec::shape_type, shape<dyn>>::value);
  static_assert(ok, "staticflow: random: the seed must be an int32 or int64 tensor of shape [2] (TensorFlow's stateless "
                    "seed), or two C++ integers such as {1, 2}");
};

/// A stateless op's seed tensor, checked: int32 / int64 of shape [2] (TF's).
template <class Seed>
constexpr auto stateless_seed(const Seed& seed) {
  const auto n = as_node<void>(seed);
  using N = std::remove_cvref_t<decltype(n)>;
  [[maybe_unused]] constexpr bool ok = seed_check<spec_of_node_t<N>>::ok;
  return n;
}
/// A seed as the node holds it: a tensor (a stateless seed, or a generator's int64 [3] state), or
/// two C++ integers, whose key and counter are computed now.
template <class Seed>
constexpr auto seed_node(const Seed& seed) {
  if constexpr (std::is_same<Seed, std::array<std::int64_t, 2>>::value) return graph::fixed_seed(seed[0], seed[1]);
  else return seed;
}

template <class Dist, class T, class Shape, class Seed>
constexpr auto make_random(Dist dist, const Shape& s, const Seed& seed) {
  using RS = random_shape<Shape>;
  auto sn = seed_node(seed);
  return graph::random_values<Dist, T, typename RS::type, decltype(sn), typename RS::like>(dist, sn, RS::like_of(s));
}

struct floating_only {
  using fallback = float;  // what a rejected dtype is replaced by, so that the error comes alone
  template <class T>
  static constexpr bool accepts = std::is_same<T, float>::value || std::is_same<T, double>::value;
};
struct integers_only {
  using fallback = std::int32_t;
  template <class T>
  static constexpr bool accepts = std::is_same<T, std::int32_t>::value || std::is_same<T, std::int64_t>::value;
};

/// The node an op's random values come from, with the checks every op makes.
template <class T, class Allowed, class Dist, class Shape, class Seed>
constexpr auto checked_random(Dist dist, const Shape& s, const Seed& seed) {
  static_assert(Allowed::template accepts<T>,
                "staticflow: random: this distribution's dtype must be float or double (normal, uniform without "
                "bounds), or int32 / int64 (uniform with integer bounds, uniform_full_int)");
  using V = std::conditional_t<Allowed::template accepts<T>, T, typename Allowed::fallback>;
  return make_random<Dist, V>(dist, s, seed);
}

template <class T, class V>
constexpr T bound_as(V v) {
  if constexpr (static_value_type<V>) return static_cast<T>(V::value);
  else return static_cast<T>(v);
}

/// The checks of integer bounds, thrown when traced (before a generator's draw records its
/// effect): they fit T, and minval < maxval (TF's "Need minval < maxval").
template <class T, class Lo, class Hi>
constexpr void check_random_bounds(Lo minval, Hi maxval, const char* op) {
  if constexpr (std::is_integral<T>::value) {
    using L = std::remove_cvref_t<decltype(literal_value(minval))>;
    using H = std::remove_cvref_t<decltype(literal_value(maxval))>;
    static_assert(std::is_integral<L>::value && std::is_integral<H>::value,
                  "staticflow: random: integer values need integer minval and maxval (as TF, which cannot convert 0.5 "
                  "to an integer tensor)");
    if constexpr (std::is_integral<L>::value && std::is_integral<H>::value) {
      const L lo = literal_value(minval);
      const H hi = literal_value(maxval);
      if (!std::in_range<T>(lo) || !std::in_range<T>(hi))
        throw shape_error(std::string(op) + ": minval " + std::to_string(lo) + " and maxval " + std::to_string(hi) +
                          " must fit " + std::string(dtype_name<T>));
      if (!(lo < hi))
        throw shape_error(std::string(op) + ": need minval < maxval (got " + std::to_string(lo) + " and " + std::to_string(hi) + ")");
    }
  }
}

template <class T, class Shape, class Seed, class Lo, class Hi>
constexpr auto random_uniform_between(const Shape& shape, const Seed& seed, Lo minval, Hi maxval) {
  if constexpr (std::is_integral<T>::value) {
    static_assert(integers_only::accepts<T>, "staticflow: random: integer values are int32 or int64");
    check_random_bounds<T>(minval, maxval, "stateless_uniform");  // (a generator's draw checked them already)
    const auto lo = bound_as<T>(minval), hi = bound_as<T>(maxval);
    using U = std::make_unsigned_t<T>;
    const graph::uniform_integer dist{{}, lo, static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)))};
    return make_random<graph::uniform_integer, T>(dist, shape, seed);
  } else {
    static_assert(floating_only::accepts<T>,
                  "staticflow: random: uniform values are float, double, int32 or int64");
    const auto unit = make_random<graph::unit_uniform, T>(graph::unit_uniform{}, shape, seed);
    const T lo = bound_as<T>(minval), hi = bound_as<T>(maxval);
    // TF's wrapper: unit * (maxval - minval) + minval, two elementwise ops (exact for [0, 1))
    return unit * graph::literal<T>(static_cast<T>(hi - lo)) + graph::literal<T>(lo);
  }
}
template <class T, class Dist = graph::standard_normal, class Shape, class Seed, class Mean, class Stddev>
constexpr auto random_normal_scaled(const Shape& shape, const Seed& seed, Mean mean, Stddev stddev) {
  const auto z = checked_random<T, floating_only>(Dist{}, shape, seed);
  return z * graph::literal<T>(bound_as<T>(stddev)) + graph::literal<T>(bound_as<T>(mean));
}
}  // namespace detail

namespace random {
using seed_pair = std::array<std::int64_t, 2>;

/// tf.random.stateless_uniform(shape, seed): float32 (or T) values in [0, 1).
template <class T = float, detail::random_shape_argument Shape, detail::tensor_operand Seed>
constexpr auto stateless_uniform(const Shape& shape, const Seed& seed) {
  return detail::checked_random<T, detail::floating_only>(graph::unit_uniform{}, shape, detail::stateless_seed(seed));
}
template <class T = float, detail::random_shape_argument Shape>
constexpr auto stateless_uniform(const Shape& shape, seed_pair seed) {
  return detail::checked_random<T, detail::floating_only>(graph::unit_uniform{}, shape, seed);
}

/// tf.random.stateless_uniform(shape, seed, minval, maxval, dtype): floats in [minval, maxval)
/// as `u * (maxval - minval) + minval`; integers (T int32 / int64) in [minval, maxval), which
/// must satisfy minval < maxval (else sf::shape_error when traced).
template <class T = float, detail::random_shape_argument Shape, detail::tensor_operand Seed, class Lo, class Hi>
  requires(std::is_arithmetic<Lo>::value || static_value_type<Lo>) && (std::is_arithmetic<Hi>::value || static_value_type<Hi>)
constexpr auto stateless_uniform(const Shape& shape, const Seed& seed, Lo minval, Hi maxval) {
  return detail::random_uniform_between<T>(shape, staticflow::detail::stateless_seed(seed), minval, maxval);
}
template <class T = float, detail::random_shape_argument Shape, class Lo, class Hi>
  requires(std::is_arithmetic<Lo>::value || static_value_type<Lo>) && (std::is_arithmetic<Hi>::value || static_value_type<Hi>)
constexpr auto stateless_uniform(const Shape& shape, seed_pair seed, Lo minval, Hi maxval) {
  return detail::random_uniform_between<T>(shape, seed, minval, maxval);
}

/// tf.random.stateless_normal(shape, seed, mean, stddev): float32 (or T) normal values.
template <class T = float, detail::random_shape_argument Shape, detail::tensor_operand Seed>
constexpr auto stateless_normal(const Shape& shape, const Seed& seed) {
  return staticflow::detail::checked_random<T, staticflow::detail::floating_only>(graph::standard_normal{}, shape,
                                                                                  staticflow::detail::stateless_seed(seed));
}
template <class T = float, detail::random_shape_argument Shape>
constexpr auto stateless_normal(const Shape& shape, seed_pair seed) {
  return staticflow::detail::checked_random<T, staticflow::detail::floating_only>(graph::standard_normal{}, shape, seed);
}
template <class T = float, detail::random_shape_argument Shape, detail::tensor_operand Seed, class Mean, class Stddev>
  requires(std::is_arithmetic<Mean>::value && std::is_arithmetic<Stddev>::value)
constexpr auto stateless_normal(const Shape& shape, const Seed& seed, Mean mean, Stddev stddev) {
  return detail::random_normal_scaled<T>(shape, staticflow::detail::stateless_seed(seed), mean, stddev);
}
template <class T = float, detail::random_shape_argument Shape, class Mean, class Stddev>
  requires(std::is_arithmetic<Mean>::value && std::is_arithmetic<Stddev>::value)
constexpr auto stateless_normal(const Shape& shape, seed_pair seed, Mean mean, Stddev stddev) {
  return detail::random_normal_scaled<T>(shape, seed, mean, stddev);
}

/// tf.random.stateless_truncated_normal(shape, seed, mean, stddev): normals redrawn until within
/// two standard deviations (Keras' truncated-normal initializers), then scaled.
template <class T = float, detail::random_shape_argument Shape, detail::tensor_operand Seed>
constexpr auto stateless_truncated_normal(const Shape& shape, const Seed& seed) {
  return staticflow::detail::checked_random<T, staticflow::detail::floating_only>(graph::truncated_normal{}, shape,
                                                                                  staticflow::detail::stateless_seed(seed));
}
template <class T = float, detail::random_shape_argument Shape>
constexpr auto stateless_truncated_normal(const Shape& shape, seed_pair seed) {
  return staticflow::detail::checked_random<T, staticflow::detail::floating_only>(graph::truncated_normal{}, shape, seed);
}
template <class T = float, detail::random_shape_argument Shape, detail::tensor_operand Seed, class Mean, class Stddev>
  requires(std::is_arithmetic<Mean>::value && std::is_arithmetic<Stddev>::value)
constexpr auto stateless_truncated_normal(const Shape& shape, const Seed& seed, Mean mean, Stddev stddev) {
  return detail::random_normal_scaled<T, graph::truncated_normal>(shape, staticflow::detail::stateless_seed(seed), mean, stddev);
}
template <class T = float, detail::random_shape_argument Shape, class Mean, class Stddev>
  requires(std::is_arithmetic<Mean>::value && std::is_arithmetic<Stddev>::value)
constexpr auto stateless_truncated_normal(const Shape& shape, seed_pair seed, Mean mean, Stddev stddev) {
  return detail::random_normal_scaled<T, graph::truncated_normal>(shape, seed, mean, stddev);
}

/// tf.random.stateless_uniform(shape, seed, dtype=int, minval=None, maxval=None): every int32
/// (or int64, the default) value equally likely.
template <class T = std::int64_t, detail::random_shape_argument Shape, detail::tensor_operand Seed>
constexpr auto stateless_uniform_full_int(const Shape& shape, const Seed& seed) {
  return staticflow::detail::checked_random<T, staticflow::detail::integers_only>(graph::full_range_integer{}, shape,
                                                                                  staticflow::detail::stateless_seed(seed));
}
template <class T = std::int64_t, detail::random_shape_argument Shape>
constexpr auto stateless_uniform_full_int(const Shape& shape, seed_pair seed) {
  return staticflow::detail::checked_random<T, staticflow::detail::integers_only>(graph::full_range_integer{}, shape, seed);
}

/// tf.random.split(seed, num): Num new seeds, shape [Num, 2], of the seed's dtype (int64 for
/// two C++ integers): `auto s = sf::random::split<2>(seed);` then `s[0]`, `s[1]`.
template <std::size_t Num = 2, symbolic Seed>
constexpr auto split(const Seed& seed) {
  return stateless_uniform_full_int<typename Seed::value_type>(shape<Num, 2>{}, seed);
}
template <std::size_t Num = 2>
constexpr auto split(seed_pair seed) {
  return stateless_uniform_full_int<std::int64_t>(shape<Num, 2>{}, seed);
}

/// tf.random.fold_in(seed, data): a new seed [random full-range value, data] for an integer
/// scalar data (a step number, a replica id), of data's dtype.
template <class Seed, class Data>
  requires(symbolic<Seed> || std::is_same<Seed, seed_pair>::value)
constexpr auto fold_in(const Seed& seed, const Data& data) {
  const auto d = staticflow::detail::as_node<void>(data);
  using D = typename decltype(d)::value_type;
  static_assert(staticflow::detail::integers_only::accepts<D> && decltype(d)::shape_type::rank == 0,
                "staticflow: random::fold_in: data must be an int32 or int64 scalar");
  return stack<0>(stateless_uniform_full_int<D>(shape<>{}, seed), d);
}
template <class Data>
constexpr auto fold_in(seed_pair seed, const Data& data) {
  return fold_in<seed_pair, Data>(seed, data);
}
}  // namespace random

namespace detail {
template <class T>
constexpr T dropout_scale(double rate) {
  if (!(rate >= 0.0 && rate < 1.0))
    throw shape_error("dropout: rate must be in [0, 1) (got " + number_text(rate) + ")");
  return static_cast<T>(1.0 / (1.0 - rate));
}

/// x * scale where the uniform u >= rate, else 0: TF's _dropout.
template <class X, class U>
constexpr auto dropout_with(const X& x, const U& u, double rate) {
  using T = typename X::value_type;
  const T scale = dropout_scale<T>(rate);
  return where(u >= graph::literal<T>(static_cast<T>(rate)), x * graph::literal<T>(scale), graph::literal<T>(T(0)));
}

template <class X>
constexpr auto shape_argument_of(const X& x) {
  if constexpr (X::shape_type::is_static) return typename X::shape_type{};
  else return shape_of(x);
}
}  // namespace detail

/// tf.nn.experimental.stateless_dropout(x, rate, seed): each element of x kept with probability
/// 1 - rate and scaled by 1 / (1 - rate), else 0, from `stateless_uniform(shape(x), seed) >=
/// rate` (TF's mask, bit for bit). rate in [0, 1), else sf::shape_error when traced; rate 0
/// returns x. The gradient is the same mask and scale.
template <detail::tensor_operand X, class Seed>
constexpr auto stateless_dropout(const X& x, double rate, const Seed& seed) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  static_assert(std::is_floating_point<typename XN::value_type>::value, "staticflow: dropout: x must be a float or double tensor");
  return detail::dropout_with(xn, random::stateless_uniform<typename XN::value_type>(detail::shape_argument_of(xn), seed), rate);
}
template <detail::tensor_operand X>
constexpr auto stateless_dropout(const X& x, double rate, random::seed_pair seed) {
  return stateless_dropout<X, random::seed_pair>(x, rate, seed);
}

}  // namespace staticflow
