// staticflow/effects/random_generator.hpp -- sf::random_generator, TensorFlow's
// tf.random.Generator: a Philox generator whose state is an sf::variable, advanced as an effect by
// every draw inside a traced function.
//
//   auto gen = sf::random_generator::from_seed(1);
//   auto step = sf::function([&](auto x) { return sf::dropout(x, 0.5, gen); });
//   step(x); step(x);   // two different masks: each call draws, then moves the state on
//
// The state is TF's: int64 [counter low, counter high, key], from_seed(s) = [s, 0, 0] for s >= 0
// ([s, -1, -1] for s < 0: Python's infinite-precision s cut into 64-bit words), and a draw of n
// values moves the counter by 256 n (TF's RngReadAndSkip), so the same seed gives the
// same numbers as tf.random.Generator.from_seed (uniform, normal, integer draws; checked in
// tests/effects/test_random_generator.cpp). Draws inside one traced function see each other's
// updates in program order, as variable reads do; the state is saved with the variable (a
// checkpoint of `gen.state()`), and a call that throws puts it back (effects' rollback).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>

#include "staticflow/effects/variable.hpp"
#include "staticflow/graph/random.hpp"

namespace staticflow {

/// The generator (use the alias sf::random_generator). A class template only so that a program
/// that never makes one instantiates none of it: its state variable's members (a vtable of
/// virtual functions) and its effect graphs would otherwise be compiled in every TU.
template <class = void>
class basic_random_generator {
  static constexpr std::array<std::int64_t, 3> seed_state(std::int64_t seed) {
    const std::int64_t sign = seed < 0 ? -1 : 0;
    return {seed, sign, sign};
  }
  static constexpr auto state_literal(std::int64_t seed) {
    const auto s = seed_state(seed);
    return stack<0>(graph::literal<std::int64_t>(s[0]), graph::literal<std::int64_t>(s[1]), graph::literal<std::int64_t>(s[2]));
  }

 public:
  using state_type = variable<std::int64_t, 3>;

  /// tf.random.Generator.from_seed(seed): state [seed, 0, 0] ([seed, -1, -1] for a negative seed,
  /// as TF cuts Python's integer into 64-bit words).
  static basic_random_generator from_seed(std::int64_t seed) { return basic_random_generator(seed_state(seed)); }
  /// tf.random.Generator.from_state: the three int64 words as they are.
  static basic_random_generator from_state(std::array<std::int64_t, 3> state) { return basic_random_generator(state); }
  /// tf.random.Generator.from_non_deterministic_state(): a state that differs from run to run
  /// and from call to call: the clock, a process-wide count of such states and an address, mixed
  /// by one Philox call (not <random>'s std::random_device, whose header costs every user's
  /// translation unit half a second of compile time).
  static basic_random_generator from_non_deterministic_state() {
    static std::atomic<std::uint64_t> made{0};
    const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const auto wall = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    const auto count = made.fetch_add(1, std::memory_order_relaxed);
    const auto place = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&made));
    const philox::block r = philox::generate(
        {static_cast<std::uint32_t>(now), static_cast<std::uint32_t>(now >> 32), static_cast<std::uint32_t>(count),
         static_cast<std::uint32_t>(place >> 4)},
        {static_cast<std::uint32_t>(wall), static_cast<std::uint32_t>(wall >> 32)});
    const philox::block s = philox::generate(r, {r[3], r[1]});
    auto word = [](std::uint32_t hi, std::uint32_t lo) { return static_cast<std::int64_t>((std::uint64_t{hi} << 32) | lo); };
    return basic_random_generator(std::array<std::int64_t, 3>{word(r[0], r[1]), word(r[2], r[3]), word(s[0], s[1])});
  }

  basic_random_generator(const basic_random_generator&) = delete;
  basic_random_generator& operator=(const basic_random_generator&) = delete;

  /// The state variable (read its value() outside traced code; checkpoint it like any variable).
  state_type& state() { return state_; }
  const state_type& state() const { return state_; }

  /// tf.random.Generator.reset_from_seed: from_seed's state (outside traced code: now; inside: an
  /// effect of every call). A template, so that a program that never calls it does not
  /// instantiate the effect machinery for it (half a second of every user's compile time).
  template <std::integral Seed>
  void reset_from_seed(Seed seed) {
    const auto s = static_cast<std::int64_t>(seed);
    const auto words = seed_state(s);
    if (detail::tracing()) state_.assign(state_literal(s));
    else state_.assign(typename state_type::container_type{words[0], words[1], words[2]});
  }

  /// Generator.uniform(shape, dtype): floats in [0, 1), or [minval, maxval); integers (T int32 /
  /// int64) in [minval, maxval). Inside a traced function: the values, and an effect that moves
  /// the state on.
  template <class T = float, detail::random_shape_argument Shape>
  auto uniform(const Shape& shape) {
    return draw<T, detail::floating_only>(graph::unit_uniform{}, shape);
  }
  template <class T = float, detail::random_shape_argument Shape, class Lo, class Hi>
    requires(std::is_arithmetic<Lo>::value && std::is_arithmetic<Hi>::value)
  auto uniform(const Shape& shape, Lo minval, Hi maxval) {
    detail::check_random_bounds<T>(minval, maxval, "random_generator::uniform");  // before the draw's effect
    const auto seed = read_and_skip(shape);
    return detail::random_uniform_between<T>(shape, seed, minval, maxval);
  }
  /// Generator.normal(shape, mean, stddev, dtype).
  template <class T = float, detail::random_shape_argument Shape>
  auto normal(const Shape& shape) {
    return draw<T, detail::floating_only>(graph::standard_normal{}, shape);
  }
  template <class T = float, detail::random_shape_argument Shape, class Mean, class Stddev>
    requires(std::is_arithmetic<Mean>::value && std::is_arithmetic<Stddev>::value)
  auto normal(const Shape& shape, Mean mean, Stddev stddev) {
    const auto seed = read_and_skip(shape);
    return detail::random_normal_scaled<T>(shape, seed, mean, stddev);
  }
  /// Generator.truncated_normal(shape, mean, stddev, dtype): normals within two standard deviations.
  template <class T = float, detail::random_shape_argument Shape>
  auto truncated_normal(const Shape& shape) {
    return draw<T, detail::floating_only>(graph::truncated_normal{}, shape);
  }
  template <class T = float, detail::random_shape_argument Shape, class Mean, class Stddev>
    requires(std::is_arithmetic<Mean>::value && std::is_arithmetic<Stddev>::value)
  auto truncated_normal(const Shape& shape, Mean mean, Stddev stddev) {
    const auto seed = read_and_skip(shape);
    return detail::random_normal_scaled<T, graph::truncated_normal>(shape, seed, mean, stddev);
  }
  /// Generator.uniform_full_int(shape, dtype): every int32 / int64 value equally likely.
  template <class T = std::int64_t, detail::random_shape_argument Shape>
  auto uniform_full_int(const Shape& shape) {
    return draw<T, detail::integers_only>(graph::full_range_integer{}, shape);
  }

 private:
  explicit basic_random_generator(std::array<std::int64_t, 3> s) : state_(state_type::container_type{s[0], s[1], s[2]}) {}

  /// The state as this draw reads it, and (unless told not to) the effect that moves it past the
  /// draw's values.
  template <class Shape>
  auto read_and_skip(const Shape& shape, bool advance = true) {
    detail::traced_program("sf::random_generator: a draw");  // outside a traced function: trace_error
    using RS = detail::random_shape<Shape>;
    const auto before = state_.read();
    if (advance)
      state_.assign(graph::generator_skip<decltype(before), typename RS::type, typename RS::like>(before, RS::like_of(shape)));
    return before;
  }

  template <detail::tensor_operand X, class G>
  friend auto dropout(const X& x, double rate, basic_random_generator<G>& gen);

  template <class T, class Allowed, class Dist, class Shape>
  auto draw(Dist dist, const Shape& shape, bool advance = true) {
    const auto seed = read_and_skip(shape, advance);
    return detail::checked_random<T, Allowed>(dist, shape, seed);
  }

  state_type state_;
};

/// tf.random.Generator.
using random_generator = basic_random_generator<>;

/// tf.nn.experimental.general_dropout(x, rate, uniform_sampler=gen.uniform): x kept with
/// probability 1 - rate and scaled by 1 / (1 - rate), a new mask per call. Rate 0 keeps x and
/// leaves the generator's state alone, as TF (the draw is still computed, and has no effect).
template <detail::tensor_operand X, class G>
auto dropout(const X& x, double rate, basic_random_generator<G>& gen) {
  const auto xn = detail::as_node<void>(x);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using T = typename XN::value_type;
  static_assert(std::is_floating_point<T>::value, "staticflow: dropout: x must be a float or double tensor");
  detail::dropout_scale<T>(rate);  // a bad rate throws before the draw records its effect
  const auto u = gen.template draw<T, detail::floating_only>(graph::unit_uniform{}, detail::shape_argument_of(xn), rate != 0.0);
  return detail::dropout_with(xn, u, rate);
}

}  // namespace staticflow
