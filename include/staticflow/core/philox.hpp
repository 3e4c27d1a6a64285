// staticflow/core/philox.hpp -- the Philox 4x32-10 counter-based generator (Salmon et al., SC'11)
// with TensorFlow's conventions, so that a seed gives the numbers TF gives.
//
// Philox maps a 128-bit counter and a 64-bit key to 128 random bits; nothing else is state, so
// value i of a tensor is a function of (key, counter + i / per_block) alone: any split across
// threads or devices, and any backend, computes the same numbers. What TF adds and this file
// follows (checked bit for bit against tensorflow 2.21 in tests/graph/test_random.cpp):
//   * a stateless op's seed (two integers) is not the key: both go through one Philox call with a
//     fixed key, whose output gives the key and the counter's high half (TF's GenerateKey);
//   * a 32-bit value per 32 random bits, a 64-bit value (double, int64) per 64, in counter order;
//   * uniform floats from the 23 (52) low bits as a mantissa in [1, 2), minus 1: values in
//     [0, 1) on a grid of 2^-23 (2^-52);
//   * normals by Box-Muller on pairs of uniforms, sine first, the first uniform floored at 1e-7.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "staticflow/core/config.hpp"

namespace staticflow::philox {

using block = std::array<std::uint32_t, 4>;  // a counter, or one call's 128 random bits
using key_type = std::array<std::uint32_t, 2>;

/// The generator's position: what one call reads.
struct key_counter {
  key_type key;
  block counter;
};

STATICFLOW_HD constexpr block single_round(const block& c, const key_type& k) {
  const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0], p1 = std::uint64_t{0xCD9E8D57u} * c[2];
  return {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
          static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
}

/// Ten rounds of Philox 4x32 on counter c under key k: 128 random bits.
STATICFLOW_HD constexpr block generate(block c, key_type k) {
  for (int r = 0; r < 10; ++r) {
    c = single_round(c, k);
    k[0] += 0x9E3779B9u;  // the Weyl sequence that raises the key between rounds
    k[1] += 0xBB67AE85u;
  }
  return c;
}

/// c + n, the counter read as one 128-bit little-endian number (how TF's Skip advances it).
STATICFLOW_HD constexpr block advance(block c, std::uint64_t n) {
  std::uint64_t carry = n;
  for (std::size_t w = 0; w < 4 && carry != 0; ++w) {
    const std::uint64_t sum = std::uint64_t{c[w]} + (carry & 0xFFFFFFFFu);
    c[w] = static_cast<std::uint32_t>(sum);
    carry = (carry >> 32) + (sum >> 32);
  }
  return c;
}

/// TF's key and counter for a stateless op's seed (s0, s1): one Philox call under a fixed key
/// scrambles both, so that neither half of the seed needs to be strong.
STATICFLOW_HD constexpr key_counter from_seed(std::uint64_t s0, std::uint64_t s1) {
  const block mix = generate({static_cast<std::uint32_t>(s0), static_cast<std::uint32_t>(s0 >> 32),
                              static_cast<std::uint32_t>(s1), static_cast<std::uint32_t>(s1 >> 32)},
                             {0x3ec8f720u, 0x02461e29u});
  return {{mix[0], mix[1]}, {0, 0, mix[2], mix[3]}};
}

/// The key and counter a tf.random.Generator's state holds (int64 [counter low, counter high,
/// key]), read as they are.
STATICFLOW_HD constexpr key_counter from_state(std::uint64_t counter_low, std::uint64_t counter_high, std::uint64_t key) {
  return {{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)},
          {static_cast<std::uint32_t>(counter_low), static_cast<std::uint32_t>(counter_low >> 32),
           static_cast<std::uint32_t>(counter_high), static_cast<std::uint32_t>(counter_high >> 32)}};
}

/// [0, 1) from 32 random bits: the low 23 as the mantissa of a number in [1, 2), minus 1. The
/// difference is exact, so it is computed as mantissa * 2^-23 (no bit casts, host or device).
STATICFLOW_HD constexpr float unit_float(std::uint32_t x) { return static_cast<float>(x & 0x7FFFFFu) * 0x1p-23f; }
/// [0, 1) from 64 random bits (hi, lo): the low 52 as the mantissa.
STATICFLOW_HD constexpr double unit_double(std::uint32_t hi, std::uint32_t lo) {
  return static_cast<double>(((std::uint64_t{hi} & 0xFFFFFu) << 32) | lo) * 0x1p-52;
}

/// Two standard normals from two uniforms' bits by Box-Muller, as TF's BoxMullerFloat /
/// BoxMullerDouble: first = sin(2 pi u) * r, second = cos(2 pi u) * r, r = sqrt(-2 log(max(v, 1e-7))).
template <class T>
STATICFLOW_HD void box_muller(T v, T u, T* first, T* second) {
  if (v < T(1.0e-7)) v = T(1.0e-7);
  // 2 pi in double times the uniform, rounded to T once (TF's `2.0f * M_PI * x` is computed in double)
  const T angle = static_cast<T>(6.283185307179586 * static_cast<double>(u));
  const T radius = std::sqrt(T(-2) * std::log(v));
  *first = std::sin(angle) * radius;
  *second = std::cos(angle) * radius;
}

}  // namespace staticflow::philox
